"""The D-Bus side of the suites: a private session bus, the clients that talk on it (notify-send,
gdbus, busctl), dbus-monitor reading the notification signals, and the fixtures of the suites that
serve or forward on a bus (test_dbus, test_freedesktop).

A bus here has no service directories, so no call ever starts a notification server by D-Bus
activation, allows eavesdropping (for dbus-monitor), and lets any user connect (the popup suites'
daemons run as the unprivileged test user)."""

import contextlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import Daemon, wait_for

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
FAST_TIMING = "[Timing]\nFadeIn=0.1\nFadeOut=0.1\n"

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


class SessionBus:
    """A private dbus-daemon listening on a fixed socket path in `directory`, so it can be restarted
    in place; and the clients that talk on it."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.socket = directory / "bus"
        self.address = f"unix:path={self.socket}"
        self.config = directory / "bus.conf"
        self.config.write_text(BUS_CONFIG.format(socket=self.socket))
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            ["dbus-daemon", f"--config-file={self.config}", "--nofork", "--print-address"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        address = self.process.stdout.readline().strip()
        assert address.startswith(self.address), f"dbus-daemon said {address!r}"
        return self

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None

    def env(self, **extra):
        return {"DBUS_SESSION_BUS_ADDRESS": self.address, **extra}

    def run(self, *command, check=True, env=None, timeout=30):
        """`command`, a client of this bus, to its end."""
        result = subprocess.run(list(command), env={**os.environ, **self.env(), **(env or {})}, capture_output=True,
                                text=True, timeout=timeout)
        if check:
            assert result.returncode == 0, f"{' '.join(command)} exited {result.returncode}: {result.stderr}"
        return result

    def spawn(self, *command):
        """`command`, a client of this bus, running (its output piped)."""
        return subprocess.Popen(list(command), env={**os.environ, **self.env()}, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def busctl(self, *args, check=True):
        result = self.run("busctl", f"--address={self.address}", *args, check=False)
        if check and result.returncode != 0:
            raise AssertionError(f"busctl {' '.join(args)} exited {result.returncode}: {result.stderr}")
        return result

    def call_notifications(self, method, *args):
        """Calls a method of org.freedesktop.Notifications; answers busctl's JSON reply data."""
        result = self.busctl("--json=short", "call", NAME, PATH, NAME, method, *args)
        return json.loads(result.stdout)["data"] if result.stdout.strip() else None

    def name_owner_pid(self, name):
        result = self.busctl("status", name, check=False)
        match = re.search(r"^PID=(\d+)$", result.stdout, re.M)
        return int(match.group(1)) if match else None

    def notify_send(self, *args, timeout=30):
        """notify-send with `args`, to its end; answers what it printed (the id, with -p)."""
        return self.run("notify-send", *args, timeout=timeout).stdout.strip()

    def gdbus_notify(self, summary="summary", body="", app="app", replaces=0, icon="", actions=(), hints="{}",
                     expire=-1, check=True):
        """`Notify` through gdbus, as a GLib program calls it: `actions` a list (or GVariant text),
        `hints` GVariant text. Answers the id, or with check=False the completed gdbus."""
        actions = actions if isinstance(actions, str) else json.dumps(list(actions))
        result = self.run("gdbus", "call", "--session", "--dest", NAME, "--object-path", PATH, "--method",
                          f"{NAME}.Notify", "--", app, str(replaces), icon, summary, body, actions, hints, str(expire),
                          check=check)
        if not check:
            return result
        match = re.fullmatch(r"\(uint32 (\d+),\)", result.stdout.strip())
        assert match, result.stdout
        return int(match.group(1))

    def busctl_notify(self, summary="summary", app="app", actions=(), hints=("0",), check=False):
        """`Notify` through busctl, which (unlike notify-send with actions) returns on an error reply;
        `hints` as busctl's arguments for a{sv}, their count first. Answers the completed busctl."""
        return self.busctl("call", NAME, PATH, NAME, "Notify", "susssasa{sv}i", app, "0", "", summary, "body",
                           str(len(actions)), *actions, *hints, "5000", check=check)


@contextlib.contextmanager
def private_bus(directory):
    """A session bus of its own on a socket in `directory`, for as long as the block runs; yields its
    address."""
    bus = SessionBus(directory).start()
    try:
        yield bus.address
    finally:
        bus.stop()


class Monitor:
    """`dbus-monitor` on a bus (a SessionBus or an address) for the notification signals, once it
    listens; `signals()` parses what it saw into (member, id, argument) tuples, `log` is its output."""

    def __init__(self, bus, directory: Path):
        self.log = directory / f"monitor-{time.monotonic_ns()}.log"
        self.file = open(self.log, "w")
        self.process = subprocess.Popen(
            ["dbus-monitor", "--address", getattr(bus, "address", bus), f"type='signal',interface='{NAME}'"],
            stdout=self.file,
            stderr=subprocess.STDOUT,
        )
        # dbus-monitor is ready once the bus has told it its name.
        wait_for(lambda: "NameAcquired" in self.log.read_text(), what="dbus-monitor to start")

    def signals(self):
        found = []
        for block in re.split(r"\n(?=signal )", self.log.read_text()):
            header = re.search(r"member=(NotificationClosed|ActionInvoked|ActivationToken|NotificationReplied)", block)
            if not header:
                continue
            values = re.findall(r"^\s+(?:uint32 (\d+)|string \"(.*)\")$", block, re.M)
            numbers = [int(a) if a else b for a, b in values]
            if len(numbers) >= 2:
                found.append((header.group(1), numbers[0], numbers[1]))
        return found

    def closed(self, notice_id, reason, timeout=10):
        """Waits until NotificationClosed(notice_id, reason) was sent."""
        wait_for(lambda: ("NotificationClosed", notice_id, reason) in self.signals(), timeout=timeout,
                 what=f"NotificationClosed({notice_id}, {reason})")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        self.file.close()


@contextlib.contextmanager
def notification_signals(bus, directory):
    """A `Monitor` on `bus` for as long as the block runs."""
    monitor = Monitor(bus, directory)
    try:
        yield monitor
    finally:
        monitor.stop()


# MARK: - Fixtures of the suites on a bus of their own (a module's bus, its notifyd daemons)


@pytest.fixture(scope="module")
def scratch():
    path = Path(tempfile.mkdtemp(prefix="notifyd-dbus-"))
    path.chmod(0o700)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def bus(scratch):
    """The module's session bus: its tests take turns on it (each daemon gone, the name free, before
    the next starts)."""
    instance = SessionBus(scratch).start()
    yield instance
    instance.stop()


@pytest.fixture
def monitor(bus, scratch):
    """dbus-monitor on the module's bus for one test."""
    instance = Monitor(bus, scratch)
    yield instance
    instance.stop()


@pytest.fixture
def start_daemon(runtime_dir, bus):
    """Starts notifyd with `[DBus] Mode=mode` and `extra` config on the module's bus (or `env`)."""
    started = []

    def start(mode, extra=FAST_TIMING, env=None, directory=None):
        directory = directory or runtime_dir
        config_dir = directory / "config" / "notifyd"
        config_dir.mkdir(parents=True, exist_ok=True)
        (config_dir / "notifyd.conf").write_text(f"[DBus]\nMode={mode}\n{extra}")
        instance = Daemon(directory, env=env if env is not None else bus.env()).start()
        started.append(instance)
        if mode == "server" and env is None:
            # Answering on its socket is not yet owning the name on the bus: a notify-send sent
            # between the two found no server (ServiceUnknown, once).
            wait_for(lambda: bus.name_owner_pid(NAME) == instance.process.pid or "is held by" in instance.stderr(),
                     what="notifyd to own org.freedesktop.Notifications, or to say who does")
        return instance

    yield start
    for instance in started:
        status = instance.stop()
        assert status == 0, f"notifyd exited with {status}: {instance.stderr()}"
    # The next test's server must find the name free.
    wait_for(lambda: bus.name_owner_pid(NAME) is None, what="the name to be released")
