"""The accessibility bus for the suites that need one: at-spi2-core's real bus launcher (and the
registry its bus starts) on a private session bus, and what an AT-SPI client (pyatspi over
libatspi, as Orca reads) finds there, through tests/fixtures/atspi_reader.py run by the system's
python3."""

import fcntl
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

from conftest import wait_for
from display import as_user

LAUNCHER = "/usr/libexec/at-spi-bus-launcher"
READER = Path(__file__).resolve().parent / "fixtures" / "atspi_reader.py"
# The system's python3: Debian's python3-pyatspi is installed for it, not for the one running pytest.
SYSTEM_PYTHON = "/usr/bin/python3"

def stop_group(process):
    """Stops `process` and its process group (it started one of its own): SIGTERM, then SIGKILL
    after 10 s. Nothing when it was never started or has ended."""
    if process and process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


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
        # The launcher, the accessibility bus it started, and the registry that bus started.
        stop_group(self.process)

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

    def listen(self, seconds, *events, until=None):
        """atspi_reader.py listening for `seconds` (to `events`, else cards showing and children
        changing; or until it hears an event of type `until`), once it listens; `heard()` parses
        what it printed."""
        stop = ["--until", until] if until else []
        listener = subprocess.Popen(self.command(SYSTEM_PYTHON, str(READER), "listen", str(seconds), *stop, *events),
                                    env=self.env(),
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


def readable(make_daemon, config, address):
    """`serving`, once notifyd is on the accessibility bus (embedded in its registry)."""
    daemon = serving(make_daemon, config, address)
    wait_for(lambda: "accessibility: the cards are readable" in daemon.stderr(), timeout=15,
             what="notifyd on the accessibility bus")
    return daemon


def available():
    """Whether at-spi2-core and pyatspi are here (scripts/deps.sh installs them)."""
    return os.path.exists(LAUNCHER) and subprocess.run([SYSTEM_PYTHON, "-c", "import pyatspi"],
                                                       capture_output=True).returncode == 0


# Orca's own customizations file, loaded from its preferences directory as it starts: its debug
# file written line by line (Python's default is a block), so that what it says is read as it says
# it.
ORCA_CUSTOMIZATIONS = """\
from orca import debug
if debug.debugFile is not None:
    debug.debugFile.reconfigure(line_buffering=True)
"""


class Orca:
    """Orca, the screen reader, on the X display `display` and the session bus at `session_address`
    (whose launcher gives it the accessibility bus), with preferences of its own in `directory` (its
    defaults, as on a first start) and speaking through the speech-dispatcher at `speech_socket`.
    Its debug file records what it says ("SPEECH OUTPUT: '…'").

    Orca refuses to start beside another Orca of the same user, and the suites run side by side
    (the integration suite beside its ASan and TSan runs): one Orca at a time on the machine, by a
    lock held from `start` to `stop`."""

    LOCK = Path("/tmp/notifyd-tests-orca.lock")

    def __init__(self, session_address, display, directory: Path, speech_socket: Path):
        self.directory = directory / f"orca-{time.monotonic_ns()}"
        self.preferences = self.directory / "preferences"
        self.preferences.mkdir(parents=True)
        (self.preferences / "orca-customizations.py").write_text(ORCA_CUSTOMIZATIONS)
        self.debug_file = self.directory / "debug.out"
        self.environment = {
            "PATH": os.environ["PATH"], "HOME": str(self.directory), "XDG_RUNTIME_DIR": str(self.directory),
            "DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": session_address, "GSETTINGS_BACKEND": "memory",
            "SPEECHD_ADDRESS": f"unix_socket:{speech_socket}"}
        self.process = None
        self.lock = None

    def start(self):
        self.lock = open(self.LOCK, "a")
        fcntl.flock(self.lock, fcntl.LOCK_EX)
        with open(self.directory / "orca.log", "w") as log:
            self.process = subprocess.Popen(
                ["orca", "--user-prefs", str(self.preferences), "--debug-file", str(self.debug_file)],
                env=self.environment, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_for(lambda: "ORCA: Starting registry" in self.debug(), timeout=30, what="Orca to start")
        return self

    def stop(self):
        stop_group(self.process)
        if self.lock:
            self.lock.close()
            self.lock = None

    def debug(self):
        return self.debug_file.read_text(errors="replace") if self.debug_file.exists() else ""

    def speech(self):
        """What Orca said, in order."""
        return re.findall(r"SPEECH OUTPUT: '(.*?)'", self.debug())
