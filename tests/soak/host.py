"""The soak's host: notifyd as a `systemd --user` service drawing on sway, serving a session bus and
publishing through the relay (`Host`), and the history every part of the run records (`History`)."""

import json
import os
import subprocess
import threading
import time
from pathlib import Path

from conftest import Connection
from session_bus import SessionBus
from test_systemd import UserManager
from soak.settings import (HISTORY, HOST, HOST_CONFIG, MARGIN, MARKER, MARKER_APP, QUEUE, SANITIZED,
                           SANITIZER_ENVIRONMENT, SUBJECT, WIDTH)


class SoakFailure(AssertionError):
    pass


class History:
    """Every call, reply and event, in order, with the monotonic instant it was seen."""

    def __init__(self):
        self.lock = threading.Lock()
        self.entries = []
        self.started = time.monotonic()

    def now(self):
        return round(time.monotonic() - self.started, 4)

    def add(self, kind, **fields):
        with self.lock:
            self.entries.append({"t": self.now(), "kind": kind, **fields})

    def of(self, *kinds):
        with self.lock:
            return [entry for entry in self.entries if entry["kind"] in kinds]

    def write(self, path):
        with self.lock, open(path, "w") as file:
            for entry in self.entries:
                file.write(json.dumps(entry) + "\n")


class Host:
    """The notifyd under test: a systemd --user service with everything around it."""

    def __init__(self, base: Path, urls, display: str):
        self.base = base
        self.manager = UserManager(base / "manager")
        # The store on a filesystem of its own, small enough to fill in a moment.
        self.store_mount = self.manager.state_home
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256m,mode=0700", "tmpfs", str(self.store_mount)], check=True)
        environment = {
            # The compositor's socket by its path: sway runs as another user, in its own runtime directory.
            "WAYLAND_DISPLAY": display,
            # On a sanitized build (bench/sanitized-tests.sh) the service reports where the run looks.
            **{key: os.environ[key] for key in SANITIZER_ENVIRONMENT if key in os.environ},
        }
        # LeakSanitizer stops the world with ptrace at exit, which the unit's filter denies.
        sanitizer_lines = ["SystemCallFilter="] if SANITIZED else []
        self.manager.write_dropin("--log-level=warning", service_lines=[
            *(f"Environment={key}={value}" for key, value in environment.items()), *sanitizer_lines,
            "TimeoutAbortSec=2s", "RestartSec=300ms", "[Unit]", "StartLimitIntervalSec=0"])
        config = self.manager.config_home / "notifyd" / "notifyd.conf"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(HOST_CONFIG.format(
            urls=",".join(urls), subject=SUBJECT, host=HOST, history=HISTORY, margin=MARGIN, width=WIDTH,
            marker_app=MARKER_APP, marker="#%02x%02x%02x" % MARKER))
        # The session bus is the soak's own dbus-daemon, stopped and started by the bus fault: the
        # user manager's socket-activated one (dbus-user-session) would take its path.
        for unit in ("dbus.socket", "dbus.service"):
            (self.manager.unit_dir / unit).symlink_to("/dev/null")
        self.bus = SessionBus(self.manager.runtime_dir)
        self.socket_path = str(self.manager.socket_path)
        self.bus_address = self.bus.address

    def start(self):
        self.bus.start()
        self.manager.start()
        self.manager.systemctl("start", "notifyd.socket")
        call(self.socket_path, "Status", timeout=30)
        self.manager.wait_show(lambda s: s["SubState"] == "running", "notifyd.service to run")

    def pid(self):
        state = self.manager.show()
        return int(state["MainPID"]) if state["SubState"] == "running" and state["MainPID"] != "0" else None

    def serves_dbus(self):
        return self.bus.name_owner_pid("org.freedesktop.Notifications") == self.pid()

    def journal_text(self, started=0.0):
        """notifyd's lines, each at its instant on the soak's clock (seconds since `started`, a
        `time.monotonic()`: the journal's monotonic stamps are the same clock), as the history has
        them."""
        entries = self.manager.journal("SYSLOG_IDENTIFIER=notifyd")
        return "\n".join(f"{int(entry.get('__MONOTONIC_TIMESTAMP', 0)) / 1e6 - started:9.3f} {entry.get('MESSAGE', '')}"
                         for entry in entries)

    def stop(self):
        try:
            self.manager.stop()
        finally:
            self.bus.stop()
            subprocess.run(["umount", "-l", str(self.store_mount)], check=False)


def call(path, method, parameters=None, timeout=5):
    """One call on a fresh connection; the reply's parameters, or raises (an error reply too)."""
    connection = Connection(path, timeout=timeout)
    try:
        reply = connection.call(f"{QUEUE}.{method}", parameters)
    finally:
        connection.close()
    if reply is None or "error" in reply:
        raise SoakFailure(f"{method}({parameters}) answered {reply}")
    return reply.get("parameters", {})


