"""notifyd read by a screen reader (DESIGN §18): at-spi2-core's real bus launcher and registry on
a private session bus, and what an AT-SPI client (pyatspi over libatspi, as Orca reads) finds
there — the cards on the screen as notification objects, their buttons pressed, each card
announced once, and notifyd off the accessibility bus while accessibility is off. On X11 and on
headless sway."""

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import wait_for
from display import (as_user, bus, display_config, needs_wayland, needs_x11, session, user, x11_bus,  # noqa: F401
                     x11_config, x11_session)
from session_bus import notification_signals

LAUNCHER = "/usr/libexec/at-spi-bus-launcher"
READER = Path(__file__).resolve().parent / "fixtures" / "atspi_reader.py"
# The system's python3: Debian's python3-pyatspi is installed for it, not for the one running pytest.
SYSTEM_PYTHON = "/usr/bin/python3"

pytestmark = pytest.mark.skipif(
    not (os.path.exists(LAUNCHER) and subprocess.run([SYSTEM_PYTHON, "-c", "import pyatspi"],
                                                     capture_output=True).returncode == 0),
    reason="at-spi2-core or python3-pyatspi is not installed (scripts/deps.sh installs them)")


class AccessibilityBus:
    """at-spi2-core's bus launcher on the session bus at `session_address`: the accessibility bus it
    starts, and the registry that bus starts when notifyd embeds itself — as `user` when given (the
    bus lets in only its own user). `enabled` is org.a11y.Status.IsEnabled to begin with."""

    def __init__(self, session_address, directory: Path, enabled=True, user=None):
        self.session_address = session_address
        self.user = user
        self.runtime = directory / f"a11y-{time.monotonic_ns()}"
        self.runtime.mkdir(mode=0o700)
        if user:
            os.chown(self.runtime, user.pw_uid, user.pw_gid)
        self.enabled = enabled
        self.log = self.runtime / "launcher.log"
        self.process = None

    def env(self):
        # The launcher keeps IsEnabled in GSettings: in memory here, since the private session bus
        # starts no dconf service to write it to (a Set would be lost, and nothing signalled).
        return {"PATH": os.environ["PATH"], "DBUS_SESSION_BUS_ADDRESS": self.session_address,
                "XDG_RUNTIME_DIR": str(self.runtime), "HOME": str(self.runtime), "GSETTINGS_BACKEND": "memory"}

    def command(self, *command):
        return (as_user(self.user) if self.user else []) + list(command)

    def start(self):
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(
                self.command(LAUNCHER, "--launch-immediately", f"--a11y={1 if self.enabled else 0}"), env=self.env(),
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_for(lambda: self.address(), timeout=10, what="the accessibility bus launcher")
        return self

    def stop(self):
        if self.process and self.process.poll() is None:
            # The launcher, the accessibility bus it started, and the registry that bus started.
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()

    def kill_registry(self):
        """Kills the registry the accessibility bus started (it is in the launcher's process group)."""
        found = subprocess.run(["pgrep", "-g", str(self.process.pid), "-f", "at-spi2-registryd"], capture_output=True,
                               text=True)
        pids = [int(pid) for pid in found.stdout.split()]
        assert pids, "no registry running"
        for pid in pids:
            os.kill(pid, signal.SIGKILL)

    def gdbus(self, *arguments, check=True):
        result = subprocess.run(self.command("gdbus", "call", "--address", self.session_address, *arguments),
                                env=self.env(), capture_output=True, text=True, timeout=30)
        if check:
            assert result.returncode == 0, result.stderr
        return result

    def address(self):
        """The accessibility bus's address, once the launcher answers."""
        result = self.gdbus("--dest", "org.a11y.Bus", "--object-path", "/org/a11y/bus", "--method",
                            "org.a11y.Bus.GetAddress", check=False)
        if result.returncode != 0:
            return None
        return result.stdout.strip().removeprefix("('").removesuffix("',)")

    def set_enabled(self, on):
        self.gdbus("--dest", "org.a11y.Bus", "--object-path", "/org/a11y/bus", "--method",
                   "org.freedesktop.DBus.Properties.Set", "org.a11y.Status", "IsEnabled", "<true>" if on else "<false>")

    def pids_on_the_bus(self):
        """The processes with a connection to the accessibility bus."""
        result = subprocess.run(self.command("busctl", f"--address={self.address()}", "list", "--unique",
                                             "--no-legend", "--no-pager"),
                                env=self.env(), capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, result.stderr
        return {int(line.split()[1]) for line in result.stdout.splitlines() if line.split()[1].isdigit()}

    def reader(self, *arguments):
        """atspi_reader.py's answer, as JSON."""
        result = subprocess.run(self.command(SYSTEM_PYTHON, str(READER), *arguments), env=self.env(),
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout.strip().splitlines()[-1])

    def listen(self, seconds):
        """atspi_reader.py listening for `seconds`, once it listens; `heard()` parses what it printed."""
        listener = subprocess.Popen(self.command(SYSTEM_PYTHON, str(READER), "listen", str(seconds)), env=self.env(),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert listener.stdout.readline().strip() == "ready", listener.stderr.read()
        return listener

    def tree_with(self, test, what):
        """notifyd's tree once `test` holds for it."""
        return wait_for(lambda: (lambda tree: tree if tree and test(tree) else None)(self.reader("tree")), timeout=15,
                        what=what)


def heard(listener):
    """What a listener printed, once it stopped: its events as dictionaries."""
    output, errors = listener.communicate(timeout=60)
    assert listener.returncode == 0, errors
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def cards(tree):
    return [child for child in tree["children"] if child["role"] == "notification"]


def serving(make_daemon, config, address):
    """A notifyd serving the session bus at `address` for its popups ([DBus] Mode=off would keep it off
    the session bus, and so off the accessibility bus)."""
    daemon = make_daemon(config.replace("[DBus]\nMode=off\n", ""), env={"DBUS_SESSION_BUS_ADDRESS": address})
    wait_for(lambda: "dbus: serving org.freedesktop.Notifications" in daemon.stderr(), timeout=10,
             what="notifyd to serve the bus")
    return daemon


@needs_x11
def test_a_notify_send_card_is_a_notification_object_and_its_button_invokes_the_action(x11_session, x11_bus):
    x, make_daemon = x11_session
    a11y = AccessibilityBus(x11_bus, x.directory).start()
    try:
        daemon = serving(make_daemon, x11_config(), x11_bus)
        wait_for(lambda: "accessibility: the cards are readable" in daemon.stderr(), timeout=15,
                 what="notifyd on the accessibility bus")
        assert "notifyd" in a11y.reader("apps")
        with notification_signals(x11_bus, x.directory) as signals:
            sender = subprocess.Popen(["notify-send", "--print-id", "-A", "yes=Approve", "Deploy 42", "ready"],
                                      env={**x.env(), "DBUS_SESSION_BUS_ADDRESS": x11_bus}, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True)
            tree = a11y.tree_with(lambda tree: cards(tree), "the card in the tree")
            assert tree["role"] == "application" and tree["name"] == "notifyd"
            card, = cards(tree)
            assert (card["name"], card["description"]) == ("notify-send", "ready"), card
            assert {"showing", "visible", "enabled"} <= set(card["states"]), card
            assert "dismiss" in card["actions"]
            label, button = card["children"]
            assert (label["role"], label["name"]) == ("label", "Deploy 42. ready"), label
            assert (button["role"], button["name"], button["actions"]) == ("push button", "Approve", ["click"])
            # Pressed as a screen reader presses it: the client hears the action, as from a click.
            assert a11y.reader("press", "Approve") is True
            output, errors = sender.communicate(timeout=15)
            bus_id = int(output.split()[0])
            assert output.split()[1:] == ["yes"], (output, errors)
            wait_for(lambda: ("ActionInvoked", bus_id, "yes") in signals.signals(), timeout=10,
                     what="ActionInvoked on the bus")
        # Invoked, it goes: out of the tree too.
        a11y.tree_with(lambda tree: not cards(tree), "the invoked card to leave the tree")
        # The registry dies; the next client's call starts another, and notifyd embeds itself in it.
        a11y.kill_registry()
        wait_for(lambda: "notifyd" in a11y.reader("apps"), timeout=15, what="notifyd in the new registry")
    finally:
        a11y.stop()


@needs_x11
def test_with_accessibility_off_notifyd_stays_off_the_bus_and_joins_when_it_is_turned_on(x11_session, x11_bus):
    x, make_daemon = x11_session
    a11y = AccessibilityBus(x11_bus, x.directory, enabled=False).start()
    try:
        daemon = serving(make_daemon, x11_config(), x11_bus)
        daemon.show("Backup done", "312 files", "--hold", "60s")
        wait_for(lambda: "accessibility: accessibility is off" in daemon.stderr(), timeout=15,
                 what="notifyd to read IsEnabled")
        # Nothing of notifyd's on the accessibility bus: no connection at all.
        assert daemon.process.pid not in a11y.pids_on_the_bus()
        assert "notifyd" not in a11y.reader("apps")
        # Turned on (as Orca does when it starts): notifyd joins, with the card already shown.
        a11y.set_enabled(True)
        tree = a11y.tree_with(lambda tree: cards(tree), "notifyd and its card on the accessibility bus")
        assert cards(tree)[0]["children"][0]["name"] == "Backup done. 312 files"
        assert daemon.process.pid in a11y.pids_on_the_bus()
        # And off again: it leaves.
        a11y.set_enabled(False)
        wait_for(lambda: daemon.process.pid not in a11y.pids_on_the_bus(), timeout=15,
                 what="notifyd to leave the accessibility bus")
        # The launcher goes, and another comes with accessibility on: notifyd joins its bus.
        a11y.stop()
        a11y = AccessibilityBus(x11_bus, x.directory, enabled=True).start()
        tree = a11y.tree_with(lambda tree: cards(tree), "notifyd on the new launcher's bus")
        assert daemon.process.pid in a11y.pids_on_the_bus()
    finally:
        a11y.stop()


@needs_wayland
def test_on_sway_a_layer_shell_card_is_announced_once_and_leaves_the_tree_when_it_finishes(session, bus):
    sway, make_daemon = session
    daemon = serving(make_daemon, display_config(), bus)
    a11y = AccessibilityBus(bus, sway.directory, user=daemon.user).start()
    try:
        wait_for(lambda: "accessibility: the cards are readable" in daemon.stderr(), timeout=15,
                 what="notifyd on the accessibility bus")
        listener = a11y.listen(seconds=8)
        # Fading in and out over a second each, drawn frame by frame: announced once all the same.
        notice = daemon.show("Backup done", "312 files", "--fade-in", "1s", "--hold", "1s", "--fade-out", "1s")
        tree = a11y.tree_with(lambda tree: cards(tree), "the card in the tree")
        card, = cards(tree)
        assert card["children"][0]["name"] == "Backup done. 312 files"
        wait_for(lambda: daemon.get(notice)["phase"] == "finished", timeout=15, what="the notice to finish")
        a11y.tree_with(lambda tree: not cards(tree), "the finished card to leave the tree")
        events = heard(listener)
        showing = [(event["detail1"], event["role"]) for event in events
                   if event["type"] == "object:state-changed:showing"]
        assert showing == [(1, "notification"), (0, "notification")], events
        changes = [(event["type"], event["role"]) for event in events if event["type"].startswith("object:children")]
        assert changes == [("object:children-changed:add", "application"),
                           ("object:children-changed:remove", "application")], events
    finally:
        a11y.stop()
