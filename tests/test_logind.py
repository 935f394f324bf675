"""logind's IdleHint as the idle source when the display cannot tell (DESIGN §11), from a real
systemd-logind.

logind makes sessions only under systemd as PID 1, which this machine's init is not: the tests
boot one in a container (systemd-nspawn) whose root is an overlay of this machine's own, so the
same systemd, logind, dbus-daemon, PAM and test user run there. A session comes from PAM
(`systemd-run -p PAMName=login`, pam_systemd), typed wayland as a compositor's would be; the
session says it is idle with `SetIdleHint`, the call swayidle's `idlehint` and GNOME make. notifyd
runs as the test user in the container's mount and PID namespaces, so that it reaches the
container's system bus at its standard path; its runtime directory is bound in, so clients here
reach it.
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from conftest import Cgroup, Daemon, unprivileged_user, wait_for
from display import as_user, held_while_away_then_goes_once_back, user_binaries

pytestmark = [pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("systemd-nspawn") is None,
    reason="boots systemd in a container: needs root and systemd-nspawn (scripts/deps.sh installs systemd-container)"),
    # Its module's container is booted once, on one worker.
    pytest.mark.xdist_group("logind-container")]

TARGET = "notifyd-logind-test.target"
SOURCE = "logind IdleHint"


def sanitizer_option(key, names=("ASAN_OPTIONS", "TSAN_OPTIONS", "LSAN_OPTIONS")):
    """Every value of `key` in the sanitizers' options (bench/sanitized-tests.sh sets them)."""
    return [option[len(key) + 1:] for name in names for option in os.environ.get(name, "").split(":")
            if option.startswith(key + "=")]


def sanitizer_report_directories():
    """Where a sanitized daemon writes its reports: bound into the container, or they would land in
    its overlay (or its /tmp, a tmpfs of nspawn's) and be lost."""
    return [str(Path(path).parent) for path in sanitizer_option("log_path")]


def sanitizer_suppressions():
    """LeakSanitizer's suppressions file, which a checkout under /tmp has where the container's /tmp hides it."""
    return sanitizer_option("suppressions")


class Container:
    """systemd as PID 1 in systemd-nspawn, on an overlay of this machine's root, running dbus and logind."""

    def __init__(self, shared):
        self.directory = Path(tempfile.mkdtemp(prefix="notifyd-logind-", dir="/var/tmp"))
        self.root = self.directory / "root"
        self.shared = shared
        self.process = None
        self.cgroup = None
        self.init_pid = None
        self.log_path = self.directory / "boot.log"

    def start(self):
        for name in ("upper", "work", "root"):
            (self.directory / name).mkdir()
        subprocess.run(["mount", "-t", "overlay", "overlay", "-o",
                        f"lowerdir=/,upperdir={self.directory / 'upper'},workdir={self.directory / 'work'}",
                        str(self.root)], check=True)
        # The container's /tmp is nspawn's tmpfs, but what is bound under it (a checkout's reports dir)
        # is this machine's: systemd-tmpfiles must not empty /tmp at boot (tmp.conf's `D /tmp`).
        (self.root / "etc/tmpfiles.d").mkdir(parents=True, exist_ok=True)
        (self.root / "etc/tmpfiles.d/tmp.conf").write_text("# notifyd's logind tests: /tmp is left alone\n")
        # What the container starts: the system bus and logind, nothing else of this machine's units.
        (self.root / "etc/systemd/system" / TARGET).write_text(
            "[Unit]\nDescription=notifyd's logind tests\nRequires=dbus.socket systemd-logind.service\n"
            "After=dbus.socket systemd-logind.service\n")
        self.log = open(self.log_path, "wb")
        # --keep-unit: the container's systemd makes its slices in the cgroup nspawn starts in.
        self.cgroup = Cgroup()
        # No machined or host systemd to register with; a machine id of its own.
        self.process = subprocess.Popen(
            # A machine name of its own: other test processes may boot theirs meanwhile.
            ["systemd-nspawn", "--quiet", "--directory", str(self.root), "--machine", f"notifyd-{uuid.uuid4().hex[:12]}",
             "--register=no", "--keep-unit", "--link-journal=no", f"--uuid={uuid.uuid4().hex}",
             *[f"--bind={path}" for path in [self.shared, *sanitizer_report_directories()]],
             *[f"--bind-ro={path}" for path in sanitizer_suppressions()],
             "--boot", "--", f"systemd.unit={TARGET}"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT, preexec_fn=self.cgroup.join)
        self.init_pid = wait_for(self.find_init, timeout=30, what="the container's systemd to start")
        try:
            wait_for(lambda: self.run("busctl", "status", "org.freedesktop.login1", check=False).returncode == 0,
                     timeout=60, interval=0.1, what="logind on the container's system bus")
        except AssertionError as error:
            asked = self.run("busctl", "status", "org.freedesktop.login1", check=False)
            units = self.run("systemctl", "list-units", "--no-pager", "--all", check=False).stdout[-3000:]
            raise AssertionError(f"{error}: busctl said {asked.returncode} {asked.stderr}; units:\n{units}\n"
                                 f"boot:\n{self.boot_log()}") from None
        # A notifyd package installed on this machine would have its socket and activation file
        # compete with the tests' daemons (and test_package installs its own): not in here.
        if (self.root / "var/lib/dpkg/info/notifyd.list").exists():
            self.run("dpkg", "--purge", "notifyd")
        return self

    def find_init(self):
        if self.process.poll() is not None:
            raise AssertionError(f"systemd-nspawn exited with {self.process.returncode}: {self.boot_log()}")
        # nspawn's first child is a helper that soon exits; systemd is the one that is PID 1 of its own
        # PID namespace (its NSpid ends in 1).
        children = subprocess.run(["ps", "-o", "pid=", "--ppid", str(self.process.pid)],
                                  capture_output=True, text=True).stdout.split()
        for child in children:
            try:
                status = Path(f"/proc/{child}/status").read_text()
            except OSError:
                continue
            nspid = next((line.split()[1:] for line in status.splitlines() if line.startswith("NSpid:")), [])
            if len(nspid) > 1 and nspid[-1] == "1":
                return int(child)
        return None

    def boot_log(self):
        return self.log_path.read_text(errors="replace")[-3000:]

    def enter(self):
        """A command prefix that runs in every namespace of the container (systemctl, loginctl, busctl)."""
        return ["nsenter", f"--target={self.init_pid}", "--all", "--"]

    def enter_for_daemon(self):
        """The container's mounts (its system bus at the standard path) and its PIDs (its /proc, which
        LeakSanitizer reads), nothing else: nsenter forks the command and waits for it."""
        return ["nsenter", f"--target={self.init_pid}", "--mount", "--pid", "--"]

    def run(self, *command, check=True):
        result = subprocess.run([*self.enter(), *command], capture_output=True, text=True, timeout=30)
        if check and result.returncode != 0:
            raise AssertionError(f"{' '.join(command)} exited {result.returncode}: {result.stderr}")
        return result

    def stop(self):
        try:
            if self.process and self.process.poll() is None:
                self.process.terminate()  # nspawn asks the container's systemd to power off
                try:
                    self.process.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
        finally:
            if self.process:
                self.log.close()
            subprocess.run(["umount", str(self.root)], check=False)
            shutil.rmtree(self.directory, ignore_errors=True)
            if self.cgroup:
                self.cgroup.remove()


class Session:
    """A logind session of `user`, opened through PAM (pam_systemd) by a unit of the container's systemd."""

    def __init__(self, container, user, unit):
        self.container = container
        self.user = user
        self.unit = unit

    def open(self):
        self.container.run("systemd-run", f"--unit={self.unit}", "-p", "PAMName=login", "-p", f"User={self.user.pw_name}",
                           "-p", "Environment=XDG_SESSION_TYPE=wayland", "/bin/sleep", "infinity")
        self.path = wait_for(self.find, timeout=15, what=f"logind to make a session for {self.unit}")
        return self

    def find(self):
        """The session's object path: logind's session of the unit's process."""
        pid = self.container.run("systemctl", "show", self.unit, "-p", "MainPID", "--value", check=False).stdout.strip()
        if pid in ("", "0"):
            return None
        reply = self.container.run("busctl", "call", "org.freedesktop.login1", "/org/freedesktop/login1",
                                   "org.freedesktop.login1.Manager", "GetSessionByPID", "u", pid, check=False)
        return reply.stdout.split()[1].strip('"') if reply.returncode == 0 else None

    def set_idle_hint(self, idle):
        """What swayidle's `idlehint` does: the session's own user tells logind it is idle, or not."""
        subprocess.run([*self.container.enter(), *as_user(self.user), "busctl", "call", "org.freedesktop.login1",
                        self.path, "org.freedesktop.login1.Session", "SetIdleHint", "b", "true" if idle else "false"],
                       check=True, capture_output=True, timeout=30)

    def close(self):
        self.container.run("systemctl", "stop", self.unit, check=False)


class ContainerDaemon(Daemon):
    """notifyd as the test user in the container's mount namespace; clients are notifyctl as that user, here."""

    bin = None

    def __init__(self, runtime_dir, user, container, config, env=None):
        config_dir = runtime_dir / "config" / "notifyd"
        config_dir.mkdir(parents=True)
        (config_dir / "notifyd.conf").write_text(config)
        super().__init__(runtime_dir, env={"HOME": str(runtime_dir), **(env or {})})
        for name in ("WAYLAND_DISPLAY", "DISPLAY", "DBUS_SYSTEM_BUS_ADDRESS"):
            if name not in (env or {}):
                self.env.pop(name, None)
        self.user = user
        self.start_command = [*container.enter_for_daemon(), *as_user(user)]
        self.program = self.bin / "notifyd"
        for path in [runtime_dir, *runtime_dir.rglob("*")]:
            os.chown(path, user.pw_uid, user.pw_gid)

    def daemon_pid(self):
        """notifyd's own process: nsenter's child (nsenter exits as it does, but passes on no signal)."""
        children = subprocess.run(["ps", "-o", "pid=", "--ppid", str(self.process.pid)],
                                  capture_output=True, text=True).stdout.split()
        return int(children[0]) if children else None

    def stop(self, sig=signal.SIGTERM, timeout=10):
        if self.process is None or self.process.poll() is not None:
            return self.process.returncode if self.process else None
        os.kill(self.daemon_pid(), sig)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"notifyd did not exit within {timeout} s of signal {sig}: {self.stderr()[-3000:]}") from None
        finally:
            self.stderr_file.close()

    def kill(self):
        if self.process and self.process.poll() is None:
            pid = self.daemon_pid()
            if pid:
                os.kill(pid, signal.SIGKILL)
            self.process.wait()
        self.stderr_file.close()

    def notifyctl_command(self):
        return as_user(self.user) + [str(self.bin / "notifyctl")]


@pytest.fixture(scope="module")
def container():
    user = unprivileged_user()
    shared = Path(tempfile.mkdtemp(prefix="notifyd-logind-shared-", dir="/var/tmp"))
    shared.chmod(0o755)
    ContainerDaemon.bin = user_binaries(shared)
    container = Container(shared)
    try:
        yield container.start(), user, shared
    finally:
        container.stop()
        shutil.rmtree(shared, ignore_errors=True)


@pytest.fixture
def logind(container):
    """The container, a way to open sessions of the test user, and to start notifyd as that user."""
    box, user, shared = container
    sessions, daemons = [], []

    def open_session():
        session = Session(box, user, f"notifyd-session-{uuid.uuid4().hex[:8]}").open()
        sessions.append(session)
        return session

    def make_daemon(config="[DBus]\nMode=off\n", env=None):
        runtime = Path(tempfile.mkdtemp(prefix="daemon-", dir=shared))
        daemon = ContainerDaemon(runtime, user, box, config, env)
        daemons.append(daemon)
        return daemon.start()

    yield box, open_session, make_daemon
    try:
        for daemon in daemons:
            status = daemon.stop()
            assert status == 0, f"notifyd exited with {status}: {daemon.stderr()}"
    finally:
        for daemon in daemons:
            daemon.kill()
            shutil.rmtree(daemon.runtime_dir, ignore_errors=True)
        for session in sessions:
            session.close()
        # The next test starts with the user logged out (logind drops a user once its manager has stopped).
        box.run("loginctl", "terminate-user", user.pw_name, check=False)
        wait_for(lambda: box.run("loginctl", "show-user", user.pw_name, check=False).returncode != 0, timeout=30,
                 interval=0.1, what="logind to forget the test user")


def idle_of(daemon):
    """Status's idle (absent until the first source, or the display's first try, says)."""
    return daemon.status().get("idle", {})


def test_with_no_display_a_popup_less_daemon_holds_still_while_logind_says_the_session_is_idle(logind):
    box, open_session, make_daemon = logind
    session = open_session()
    daemon = make_daemon()  # no WAYLAND_DISPLAY, no DISPLAY: no popups, [Idle] After= the default
    assert daemon.status()["display"]["drawing"] is False
    wait_for(lambda: idle_of(daemon) == {"idle": False, "source": SOURCE}, what="logind to be the idle source")
    assert "Idle:     present (logind IdleHint)" in daemon.notifyctl("status", check=True).stdout
    session.set_idle_hint(True)
    wait_for(lambda: idle_of(daemon).get("idle"), what="logind's IdleHint to reach the daemon")
    assert idle_of(daemon) == {"idle": True, "source": SOURCE}
    assert "Idle:     away, holds stand still (logind IdleHint)" in daemon.notifyctl("status", check=True).stdout
    hold = 1.0
    notice = daemon.show("While you were away", "--fade-in", "0", "--hold", f"{hold:g}s", "--fade-out", "0")
    wait_for(lambda: daemon.get(notice)["phase"] == "holding", what="the notice to be shown")
    held_while_away_then_goes_once_back(
        daemon, notice, hold, drawn=lambda: daemon.get(notice)["phase"] == "holding",
        give_input=lambda step: session.set_idle_hint(False) if step == 0 else None)
    assert "you are away (logind IdleHint)" in daemon.stderr()


def test_logind_logging_out_stopping_and_coming_back_are_followed(logind):
    box, open_session, make_daemon = logind
    daemon = make_daemon()
    # Not logged in: logind has no object for the user, and nothing tells.
    wait_for(lambda: idle_of(daemon).get("reason") == "no display to ask; logind has no session of yours",
             what="the daemon to say logind has no session of the user")
    assert idle_of(daemon)["idle"] is False
    # Logging in (logind's UserNew) makes logind the source, away as soon as the session says so.
    session = open_session()
    wait_for(lambda: idle_of(daemon) == {"idle": False, "source": SOURCE}, what="the new session's user to be followed")
    session.set_idle_hint(True)
    wait_for(lambda: idle_of(daemon).get("idle"), what="the new session to be followed")
    # logind stopping takes the source away (its name loses its owner): the person counts as present.
    box.run("systemctl", "stop", "systemd-logind")
    wait_for(lambda: idle_of(daemon).get("reason") == "no display to ask; logind is not running",
             what="the daemon to see logind go")
    assert idle_of(daemon)["idle"] is False
    # Started again (its name gets an owner), logind reads its sessions back from /run, and is the
    # source again; the session's hint, which logind does not keep across a restart, is followed again.
    box.run("systemctl", "start", "systemd-logind")
    wait_for(lambda: idle_of(daemon).get("source") == SOURCE, timeout=15, what="logind to be the source again")
    session.set_idle_hint(True)
    wait_for(lambda: idle_of(daemon) == {"idle": True, "source": SOURCE}, what="the hint to be followed again")
    # Logged out: once logind drops the user, nothing tells and holds run on.
    session.close()
    box.run("loginctl", "terminate-user", session.user.pw_name, check=False)
    wait_for(lambda: idle_of(daemon).get("reason") == "no display to ask; logind has no session of yours", timeout=30,
             what="the daemon to see the user logged out")
    started = time.monotonic()
    notice = daemon.show("Holds run on", "--fade-in", "0", "--hold", "0.5s", "--fade-out", "0")
    result = daemon.notifyctl("wait", str(notice), timeout=30)
    assert result.returncode == 0, (result.returncode, result.stderr)
    assert time.monotonic() - started < 10


def test_logind_tells_while_the_display_is_not_connected(logind):
    box, open_session, make_daemon = logind
    session = open_session()
    session.set_idle_hint(True)
    # Mode=wayland with no compositor at WAYLAND_DISPLAY: the display keeps trying, and meanwhile logind tells.
    daemon = make_daemon("[DBus]\nMode=off\n[Display]\nMode=wayland\n",
                         env={"WAYLAND_DISPLAY": str(Path(tempfile.gettempdir()) / "no-such-wayland-socket")})
    wait_for(lambda: idle_of(daemon) == {"idle": True, "source": SOURCE}, what="logind to tell for the display")
    assert daemon.status()["display"]["drawing"] is False
    session.set_idle_hint(False)
    wait_for(lambda: idle_of(daemon) == {"idle": False, "source": SOURCE}, what="the hint to be followed")
