"""The sd_notify messages notifyd sends, read from a datagram socket the test binds as NOTIFY_SOCKET.

Each test plays the service manager: it binds an AF_UNIX SOCK_DGRAM socket with SO_PASSCRED (so
every datagram carries its sender's pid, as systemd sees it), starts the built daemon with
NOTIFY_SOCKET pointing there, and asserts what arrives: READY=1, STATUS=, WATCHDOG=1,
RELOADING=1, STOPPING=1.
"""

import json
import select
import signal
import socket
import struct
import subprocess
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from conftest import BIN, Daemon, call_raw, wait_for

# Generous: a debug build on a loaded 2-core CI machine.
TIMEOUT = 20.0


class NotifySocket:
    """The manager's end of sd_notify: a bound datagram socket that records every message."""

    def __init__(self, directory: Path):
        self.path = str(directory / "notify.sock")
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        self.socket.bind(self.path)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.messages = []  # (arrival monotonic time, sender pid, {FIELD: value}) in arrival order
        self._read = 0  # messages before this index were already handed out by next()

    def close(self):
        self.socket.close()

    def _receive(self, timeout):
        """Reads one datagram into `messages`; False when none came within `timeout` seconds."""
        ready, _, _ = select.select([self.socket], [], [], max(0.0, timeout))
        if not ready:
            return False
        data, ancillary, _, _ = self.socket.recvmsg(65536, socket.CMSG_SPACE(struct.calcsize("iII")))
        arrived = time.monotonic()
        pid = None
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid, _, _ = struct.unpack("iII", payload[: struct.calcsize("iII")])
        fields = {}
        for line in data.decode().split("\n"):
            if "=" in line:
                name, _, value = line.partition("=")
                fields[name] = value
        self.messages.append((arrived, pid, fields))
        return True

    def next(self, predicate=lambda fields: True, timeout=TIMEOUT, what="a notify message"):
        """The next unread message whose fields satisfy `predicate`; skips (but keeps) the others."""
        deadline = time.monotonic() + timeout
        while True:
            while self._read < len(self.messages):
                message = self.messages[self._read]
                self._read += 1
                if predicate(message[2]):
                    return message
            if not self._receive(deadline - time.monotonic()):
                seen = [fields for _, _, fields in self.messages]
                raise AssertionError(f"timed out after {timeout}s waiting for {what}; got {seen}")

    def drain(self, seconds):
        """Records everything that arrives in the next `seconds`; returns those messages."""
        start = len(self.messages)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self._receive(deadline - time.monotonic())
        self._read = len(self.messages)
        return self.messages[start:]


class NotifiedDaemon(Daemon):
    """A notifyd with NOTIFY_SOCKET set; `shell_prefix` lets a variable name the daemon's own pid."""

    def __init__(self, runtime_dir, notify, extra_args=(), env=None, shell_prefix=""):
        environment = {"NOTIFY_SOCKET": notify.path}
        environment.update(env or {})
        super().__init__(runtime_dir, extra_args, environment)
        for name in ("WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM"):
            if name not in (env or {}):
                self.env.pop(name, None)
        self.shell_prefix = shell_prefix

    def start(self, wait=True):
        command = [str(BIN / "notifyd"), *self.extra_args]
        if self.shell_prefix:
            # `exec` keeps the shell's pid, so $$ in the prefix is the daemon's pid.
            command = ["/bin/sh", "-c", f'{self.shell_prefix} exec "$0" "$@"', *command]
        self.stderr_file = open(self.stderr_path, "ab")
        self.process = subprocess.Popen(command, env=self.env, stdout=subprocess.DEVNULL, stderr=self.stderr_file)
        if wait:
            wait_for(self.answers, timeout=TIMEOUT, what=f"notifyd to answer on {self.socket_path}")
        return self


def call(daemon, method, **parameters):
    """One Varlink call on a fresh raw connection; returns the decoded reply."""
    with daemon.raw() as connection:
        connection.settimeout(TIMEOUT)
        reply = call_raw(connection, json.dumps({"method": method, "parameters": parameters}).encode())
    assert reply is not None, f"{method}: connection closed without a reply"
    return reply


@pytest.fixture
def notify(runtime_dir):
    endpoint = NotifySocket(runtime_dir)
    yield endpoint
    endpoint.close()


@pytest.fixture
def start(runtime_dir, notify):
    """Starts a NotifiedDaemon; kills whatever is left at teardown."""
    started = []

    def start_daemon(*args, env=None, shell_prefix="", wait=True):
        instance = NotifiedDaemon(runtime_dir, notify, args, env, shell_prefix).start(wait=wait)
        started.append(instance)
        return instance

    yield start_daemon
    for instance in started:
        instance.kill()


def ready(daemon, notify):
    """Waits for the daemon's READY=1 and checks that the daemon itself sent it."""
    _, pid, fields = notify.next(lambda f: f.get("READY") == "1", what="READY=1")
    assert pid == daemon.process.pid, f"READY=1 came from pid {pid}, not the daemon's {daemon.process.pid}"
    return fields


def status_is(text):
    return lambda fields: fields.get("STATUS") == text


# MARK: - readiness


def test_ready_is_sent_once_the_socket_answers_with_the_first_status(start, notify):
    daemon = start(wait=False)
    fields = ready(daemon, notify)
    # At the moment READY=1 arrives the socket must already serve: no retry, no wait.
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.connect(daemon.socket_path)
        probe.settimeout(TIMEOUT)
        reply = call_raw(probe, b'{"method":"io.notifyd.Queue.Status","parameters":{}}')
    assert reply["parameters"]["queued"] == 0
    assert fields.get("STATUS") == "0 queued, 0 visible"
    # Exactly one READY=1 while nothing reloads.
    later = notify.drain(0.5)
    assert not [f for _, _, f in later if f.get("READY") == "1"], later
    assert daemon.stop() == 0


def test_nothing_is_sent_without_notify_socket(start, notify):
    daemon = start(env={"NOTIFY_SOCKET": ""})
    daemon.call("Show", title="quiet")
    assert notify.drain(0.5) == []
    assert daemon.stop() == 0


# MARK: - status


def test_status_follows_the_queue_through_suspend_show_and_resume(start, notify):
    daemon = start()
    ready(daemon, notify)
    daemon.call("Suspend")
    notify.next(status_is("suspended, 0 queued, 0 visible"), what="STATUS after Suspend")
    daemon.call("Show", title="held back", fadeIn=0.1, hold=60)
    notify.next(status_is("suspended, 1 queued, 0 visible"), what="STATUS=… 1 queued")
    daemon.call("Resume")
    notify.next(status_is("0 queued, 1 visible"), what="STATUS after Resume")
    daemon.call("Cancel", all=True, now=True)
    notify.next(status_is("0 queued, 0 visible"), what="STATUS after Cancel")
    assert daemon.stop() == 0


def test_status_counts_what_nobody_saw_until_it_is_read(start, notify):
    # This daemon draws nowhere: a notice that runs its course goes unread.
    daemon = start()
    ready(daemon, notify)
    shown = daemon.call("Show", title="unseen", fadeIn=0, hold=0.1, fadeOut=0)["id"]
    notify.next(status_is("0 queued, 0 visible, 1 unread"), what="STATUS=… 1 unread")
    assert daemon.call("Read", all=True)["read"] == [shown]
    notify.next(status_is("0 queued, 0 visible"), what="STATUS once read")
    assert daemon.stop() == 0


def test_status_names_the_local_time_a_timed_suspend_ends(start, notify):
    # A half-hour zone shows that the time is local, not UTC.
    zone = "Asia/Kolkata" if Path("/usr/share/zoneinfo/Asia/Kolkata").exists() else "UTC"
    daemon = start(env={"TZ": zone})
    ready(daemon, notify)
    before = time.time()
    daemon.call("Suspend", duration=3600)
    after = time.time()
    expected = {
        datetime.fromtimestamp(moment + 3600, ZoneInfo(zone)).strftime("suspended until %H:%M, 0 queued, 0 visible")
        for moment in (before, after)
    }
    _, _, fields = notify.next(lambda f: f.get("STATUS", "").startswith("suspended until"), what="suspended until")
    assert fields["STATUS"] in expected
    assert daemon.stop() == 0


# MARK: - stopping


def test_stopping_is_sent_on_sigterm_before_a_clean_exit(start, notify):
    daemon = start()
    ready(daemon, notify)
    daemon.process.send_signal(signal.SIGTERM)
    _, pid, _ = notify.next(lambda f: f.get("STOPPING") == "1", what="STOPPING=1")
    assert pid == daemon.process.pid
    assert daemon.process.wait(timeout=TIMEOUT) == 0


# MARK: - watchdog


@pytest.mark.parametrize(
    "shell_prefix",
    ['WATCHDOG_PID=$$; export WATCHDOG_PID;', ""],
    ids=["WATCHDOG_PID-is-the-daemon", "no-WATCHDOG_PID"],
)
@pytest.mark.alone
def test_watchdog_pings_every_half_interval(start, notify, shell_prefix):
    daemon = start(env={"WATCHDOG_USEC": "600000"}, shell_prefix=shell_prefix)
    ready(daemon, notify)
    pings = [(at, pid) for at, pid, f in notify.drain(3.0) if f.get("WATCHDOG") == "1"]
    assert all(pid == daemon.process.pid for _, pid in pings)
    # 0.3 s apart: 10 in 3 s. A loaded machine delays some pings, which moves the count but hardly
    # the median gap; never more than one ping per 0.3 s (+ the first at once), and at the full
    # interval (0.6 s) the median would be twice what it must be.
    assert 4 <= len(pings) <= 12, f"{len(pings)} pings in 3 s"
    gaps = sorted(b - a for (a, _), (b, _) in zip(pings, pings[1:]))
    assert 0.2 <= gaps[len(gaps) // 2] <= 0.45, f"median gap {gaps[len(gaps) // 2]:.3f} s"
    assert daemon.stop() == 0


@pytest.mark.parametrize(
    "env",
    [{}, {"WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1"}],
    ids=["no-WATCHDOG_USEC", "WATCHDOG_PID-is-another-process"],
)
def test_no_watchdog_pings_unless_asked(start, notify, env):
    daemon = start(env=env)
    ready(daemon, notify)
    later = notify.drain(1.0)
    assert not [f for _, _, f in later if "WATCHDOG" in f], later
    assert daemon.stop() == 0


# MARK: - reload


def reloading_then_ready(notify, what, timeout=TIMEOUT):
    """Waits for RELOADING=1 then READY=1; checks MONOTONIC_USEC is CLOCK_MONOTONIC now."""
    before = time.monotonic()
    _, _, reloading = notify.next(lambda f: f.get("RELOADING") == "1", timeout, f"RELOADING=1 ({what})")
    stamp = int(reloading.get("MONOTONIC_USEC", "0")) / 1e6
    assert before - TIMEOUT <= stamp <= time.monotonic(), f"MONOTONIC_USEC={reloading.get('MONOTONIC_USEC')}"
    _, _, done = notify.next(lambda f: "READY" in f or "RELOADING" in f, timeout, f"READY=1 after RELOADING=1 ({what})")
    assert done.get("READY") == "1", done
    return done


def test_sighup_sends_reloading_then_ready(start, notify):
    daemon = start()
    ready(daemon, notify)
    daemon.process.send_signal(signal.SIGHUP)
    done = reloading_then_ready(notify, "SIGHUP")
    assert done.get("STATUS") == "0 queued, 0 visible"
    assert daemon.process.poll() is None
    assert daemon.stop() == 0


def test_reload_method_replies_after_ready(start, notify):
    daemon = start()
    ready(daemon, notify)
    assert daemon.call("Reload") == {}
    # Datagrams are queued when sd_notify returns, and READY=1 went out before the reply: both
    # must be waiting already, so no time is allowed.
    reloading_then_ready(notify, "Reload method", timeout=0)
    assert daemon.notifyctl("reload").returncode == 0
    reloading_then_ready(notify, "notifyctl reload")
    assert daemon.stop() == 0


def test_refused_reload_still_ends_with_ready(start, notify, runtime_dir):
    daemon = start()
    ready(daemon, notify)
    config = runtime_dir / "config" / "notifyd" / "notifyd.conf"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[Queue]\nMaxVisible=many\n")
    reply = call(daemon, "io.notifyd.Queue.Reload")
    assert "error" in reply, reply
    reloading_then_ready(notify, "refused Reload")
    assert daemon.process.poll() is None
    assert daemon.stop() == 0
