"""notifyd under real systemd: a `systemd --user` manager with its own journald, and
`systemd-socket-activate`.

The manager runs in a private mount namespace (`unshare --mount`) whose /run is a temp dir: it
holds /run/systemd/system (which makes `systemd --user` run on a machine whose PID 1 is not
systemd) and a journald of the test's own, so the host's /run is never touched. Units come
from systemd/ in the repository, loaded through $XDG_CONFIG_HOME/systemd/user, with a drop-in
that points them at the built binaries and sets WatchdogSec=2s. `systemctl --user` and the
clients run outside the namespace: they reach the manager and the daemon through sockets in
$XDG_RUNTIME_DIR, a temp dir. Teardown stops the manager (which stops the units), then kills
journald and any daemon left, and removes every temp dir.
"""

import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import BIN, Cgroup, Daemon, call_raw, wait_for
from test_bounds import open_file_limits

REPO = Path(__file__).resolve().parent.parent
UNITS = REPO / "systemd"
SYSTEMD = Path("/lib/systemd/systemd")
JOURNALD = Path("/lib/systemd/systemd-journald")
# Generous: a debug build, a manager and a journald on a loaded 2-core CI machine.
TIMEOUT = 60.0

needs_systemd = pytest.mark.skipif(
    not (SYSTEMD.exists() and shutil.which("systemctl") and shutil.which("journalctl")),
    reason="needs the systemd package (systemd --user, systemctl, journalctl)",
)
needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("nsenter"),
    reason="runs systemd --user in a private mount namespace: needs root and util-linux unshare/nsenter",
)


def run(*args, env=None, check=True, timeout=TIMEOUT):
    result = subprocess.run([str(a) for a in args], env=env, capture_output=True, text=True, timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, args))} exited {result.returncode}: {result.stderr}{result.stdout}")
    return result


def call(socket_path, method, timeout=TIMEOUT, **parameters):
    """One Varlink call on a fresh raw connection; the daemon may still be starting (activation)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(timeout)
        connection.connect(str(socket_path))
        reply = call_raw(connection, json.dumps({"method": method, "parameters": parameters}).encode())
    assert reply is not None, f"{method}: connection closed without a reply"
    assert "error" not in reply, f"{method}: {reply}"
    return reply.get("parameters", {})


def answers(socket_path):
    """Whether a notifyd answers Status on `socket_path` now."""
    try:
        call(socket_path, "io.notifyd.Queue.Status", timeout=5)
        return True
    except OSError:
        return False


def hold_of_a_new_notice(socket_path):
    """The hold the config gives a notice shown without one."""
    # A title of its own: an equal visible notice would merge it ([Queue] StackDuplicates=).
    notice = call(socket_path, "io.notifyd.Queue.Show", title=f"which hold? {time.monotonic_ns()}")["id"]
    return call(socket_path, "io.notifyd.Queue.Get", id=notice)["notice"]["hold"]


def terminate(process):
    """SIGTERM, then the exit status; SIGKILL (and a failed test) if it does not exit in time."""
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(f"pid {process.pid} ignored SIGTERM for {TIMEOUT}s") from None


def process_is_notifyd(pid):
    try:
        return "notifyd" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False


def process_gone(pid):
    """True once `pid` has exited and was reaped (a zombie counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


def installed_units(directory: Path):
    """Copies the units with the install paths pointing at the built binaries."""
    for name in ("notifyd.socket", "notifyd.service"):
        text = (UNITS / name).read_text().replace("/usr/local/bin/", f"{BIN}/")
        (directory / name).write_text(text)


class UserManager:
    """`systemd --user` in a private mount namespace, with a journald of its own."""

    def __init__(self, base: Path):
        self.base = base
        self.runtime_dir = base / "runtime"
        self.config_home = base / "config"
        self.state_home = base / "state"
        self.home = base / "home"
        self.fake_run = base / "run"  # the namespace's /run
        self.unit_dir = self.config_home / "systemd" / "user"
        self.dropin_dir = self.unit_dir / "notifyd.service.d"
        self.socket_path = self.runtime_dir / "notifyd.sock"
        self.log_path = base / "manager.log"
        self.process = None
        self.cgroup = None
        self.seen_pids = set()
        for directory in (self.runtime_dir, self.config_home, self.state_home, self.home, self.dropin_dir):
            directory.mkdir(parents=True, exist_ok=True)
        self.runtime_dir.chmod(0o700)
        for directory in ("systemd/system", "systemd/journal", "systemd/journald.conf.d", "log/journal"):
            (self.fake_run / directory).mkdir(parents=True, exist_ok=True)
        # A volatile journal in the fake /run that reads nothing and forwards nothing of the host's.
        (self.fake_run / "systemd/journald.conf.d/test.conf").write_text(
            "[Journal]\nStorage=volatile\nReadKMsg=no\nForwardToSyslog=no\nForwardToKMsg=no\n"
            "ForwardToConsole=no\nForwardToWall=no\nRateLimitBurst=0\n"
        )
        shutil.copy(UNITS / "notifyd.socket", self.unit_dir)
        shutil.copy(UNITS / "notifyd.service", self.unit_dir)
        self.write_dropin()
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "HOME": str(self.home),
            "XDG_RUNTIME_DIR": str(self.runtime_dir),
            "XDG_CONFIG_HOME": str(self.config_home),
            "XDG_STATE_HOME": str(self.state_home),
            "XDG_DATA_HOME": str(base / "data"),
            "XDG_CACHE_HOME": str(base / "cache"),
            "DBUS_SESSION_BUS_ADDRESS": f"unix:path={self.runtime_dir}/bus",
        }

    def write_dropin(self, *extra_args, service_lines=()):
        """The test's drop-in: built binaries, a 2 s watchdog, no core files from watchdog kills, and
        a restart delay long enough for the test to see why the service failed."""
        arguments = " ".join(["--log-level=debug", *extra_args])
        lines = [
            "[Service]",
            "ExecStart=",
            f"ExecStart={BIN}/notifyd {arguments}",
            "ExecReload=",
            f"ExecReload={BIN}/notifyctl --socket %t/notifyd.sock reload",
            "WatchdogSec=2s",
            "LimitCORE=0",
            "RestartSec=2s",
            *service_lines,
        ]
        (self.dropin_dir / "test.conf").write_text("\n".join(lines) + "\n")

    def start(self):
        script = f"""
set -e
mount --bind '{self.fake_run}' /run
# The manager may write to /dev/console: keep that in the test's log, off the machine's console.
if [ -e /dev/console ]; then mount --bind '{self.log_path}' /dev/console; fi
'{JOURNALD}' </dev/null >'{self.base}/journald.log' 2>&1 &
echo $! >'{self.base}/journald.pid'
tries=0
until [ -S /run/systemd/journal/socket ] && [ -S /run/systemd/journal/stdout ]; do
  tries=$((tries + 1)); [ $tries -lt 600 ] || {{ echo 'journald did not start' >&2; exit 1; }}
  sleep 0.05
done
exec '{SYSTEMD}' --user
"""
        environment = dict(self.env)
        self.log_path.touch()
        with open(self.log_path, "ab") as log:
            self.cgroup = Cgroup()
            self.process = subprocess.Popen(
                ["unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script],
                env=environment,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
                preexec_fn=self.cgroup.join,
            )

        def running():
            if self.process.poll() is not None:
                raise AssertionError(f"systemd --user exited with {self.process.returncode}: {self.log()}")
            if not (self.runtime_dir / "systemd" / "private").exists():
                return False
            state = self.systemctl("show", "-p", "SystemState", "--value", check=False).stdout.strip()
            return state in ("running", "degraded")

        wait_for(running, timeout=TIMEOUT, interval=0.1, what="systemd --user to finish starting up")
        return self

    def stop(self):
        try:
            if self.process and self.process.poll() is None:
                self.systemctl("stop", "notifyd.service", "notifyd.socket", check=False)
        finally:
            if self.process and self.process.poll() is None:
                self.process.terminate()  # a user manager starts exit.target on SIGTERM
                try:
                    self.process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
            journald = self.base / "journald.pid"
            if journald.exists():
                self._kill(int(journald.read_text().strip()), "systemd-journald")
            for pid in self.seen_pids:
                if process_is_notifyd(pid):
                    self._kill(pid, "notifyd")
            if self.cgroup:
                self.cgroup.remove()

    @staticmethod
    def _kill(pid, name):
        try:
            if name not in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                return
            os.kill(pid, signal.SIGKILL)
        except OSError:
            return
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not process_gone(pid):
            time.sleep(0.02)

    def log(self):
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    # MARK: systemctl and journalctl

    def systemctl(self, *args, check=True, timeout=TIMEOUT):
        return run("systemctl", "--user", "--no-pager", *args, env=self.env, check=check, timeout=timeout)

    def show(self, unit="notifyd.service"):
        properties = [
            "ActiveState", "SubState", "StatusText", "MainPID", "Result", "NRestarts", "ExecMainStatus",
            "WatchdogTimestampMonotonic",
        ]
        output = self.systemctl("show", unit, "-p", ",".join(properties)).stdout
        values = dict(line.split("=", 1) for line in output.splitlines() if "=" in line)
        if values.get("MainPID", "0") != "0":
            self.seen_pids.add(int(values["MainPID"]))
        return values

    def wait_show(self, predicate, what, unit="notifyd.service", timeout=TIMEOUT, interval=0.1):
        last = {}

        def check():
            nonlocal last
            last = self.show(unit)
            return last if predicate(last) else None

        try:
            return wait_for(check, timeout=timeout, interval=interval, what=what)
        except AssertionError as error:
            raise AssertionError(f"{error}; last {unit} state {last}; manager log:\n{self.log()[-4000:]}") from None

    def daemon_reload(self):
        self.systemctl("daemon-reload")

    def activate(self):
        """Starts the socket; the first client then starts the service. Returns its MainPID."""
        self.systemctl("start", "notifyd.socket")
        assert self.show()["ActiveState"] == "inactive", "the service started before any client came"
        assert call(self.socket_path, "io.notifyd.Queue.Status")["queued"] == 0
        state = self.wait_show(lambda s: s["SubState"] == "running", "notifyd.service to run")
        return int(state["MainPID"])

    def journal(self, *matches):
        output = run(
            "journalctl", "-D", self.fake_run / "log" / "journal", "-o", "json", "--no-pager", *matches, check=False
        ).stdout
        return [json.loads(line) for line in output.splitlines() if line.strip()]

    def wait_journal(self, predicate, what, *matches, timeout=TIMEOUT):
        def check():
            return [entry for entry in self.journal(*matches) if predicate(entry)]

        try:
            return wait_for(check, timeout=timeout, interval=0.2, what=what)
        except AssertionError as error:
            entries = [(e.get("_TRANSPORT"), e.get("MESSAGE")) for e in self.journal(*matches)]
            raise AssertionError(f"{error}; journal has {entries}") from None

    def in_namespace(self):
        """A command prefix that runs inside the manager's mount namespace (where its journald is)."""
        return ["nsenter", f"--target={self.process.pid}", "--mount", "--"]


@pytest.fixture
def manager():
    base = Path(tempfile.mkdtemp(prefix="notifyd-systemd-"))
    base.chmod(0o700)
    instance = UserManager(base)
    try:
        instance.start()
        yield instance
    finally:
        try:
            instance.stop()
        finally:
            shutil.rmtree(base, ignore_errors=True)


# MARK: - the unit files


@needs_systemd
def test_units_pass_systemd_analyze_verify(tmp_path):
    installed_units(tmp_path)
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    result = run(
        "systemd-analyze",
        "verify",
        "--user",
        tmp_path / "notifyd.socket",
        tmp_path / "notifyd.service",
        env=dict(os.environ, XDG_RUNTIME_DIR=str(runtime), XDG_CONFIG_HOME=str(tmp_path / "config")),
        check=False,
    )
    assert result.returncode == 0, result.stderr
    # verify only warns about unknown keys or bad values: any output is a defect.
    assert result.stderr.strip() == "" and result.stdout.strip() == "", result.stderr + result.stdout


def unit_settings(name):
    settings = {}
    for line in (UNITS / name).read_text().splitlines():
        if "=" in line and not line.lstrip().startswith(("#", ";")):
            key, _, value = line.partition("=")
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def test_units_say_what_the_design_asks():
    socket_unit = unit_settings("notifyd.socket")
    assert socket_unit["ListenStream"] == ["%t/notifyd.sock"]
    assert socket_unit["SocketMode"] == ["0600"]
    assert socket_unit["FileDescriptorName"] == ["varlink"]
    assert "sockets.target" in socket_unit["WantedBy"]
    service = unit_settings("notifyd.service")
    assert service["Type"] == ["notify"]
    assert service["ExecStart"] == ["/usr/local/bin/notifyd"]
    assert service["ExecReload"] == ["/usr/local/bin/notifyctl --socket %t/notifyd.sock reload"]
    assert service["Restart"] == ["on-failure"]
    assert "WatchdogSec" in service and "WantedBy" in service


# MARK: - under systemd --user


@needs_systemd
@needs_root
def test_first_client_activates_the_service(manager):
    manager.systemctl("start", "notifyd.socket")
    assert manager.show("notifyd.socket")["ActiveState"] == "active"
    assert manager.show()["ActiveState"] == "inactive"
    mode = os.stat(manager.socket_path).st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600
    # The first raw client waits in the socket's backlog while systemd starts the daemon.
    assert call(manager.socket_path, "io.notifyd.Queue.Status")["suspended"] is False
    state = manager.wait_show(lambda s: s["SubState"] == "running", "notifyd.service to run")
    assert state["ActiveState"] == "active"
    assert int(state["MainPID"]) > 0 and process_is_notifyd(int(state["MainPID"]))
    assert state["StatusText"] == "0 queued, 0 visible"
    # The unit's hardening is in force (seccomp filters, no_new_privs) and the daemon runs under it.
    status = Path(f"/proc/{state['MainPID']}/status").read_text()
    assert "\nNoNewPrivs:\t1\n" in status and "\nSeccomp:\t2\n" in status, status
    result = run(BIN / "notifyctl", "--socket", manager.socket_path, "status", env=manager.env)
    assert result.returncode == 0 and result.stdout.strip(), result
    assert manager.show()["MainPID"] == state["MainPID"]


@needs_systemd
@needs_root
def test_status_text_follows_the_queue(manager):
    manager.activate()
    call(manager.socket_path, "io.notifyd.Queue.Suspend")
    call(manager.socket_path, "io.notifyd.Queue.Show", title="held back", hold=60)
    manager.wait_show(lambda s: s["StatusText"] == "suspended, 1 queued, 0 visible", "StatusText with 1 queued")
    status = manager.systemctl("status", "notifyd.service", check=False).stdout
    assert 'Status: "suspended, 1 queued, 0 visible"' in status, status
    call(manager.socket_path, "io.notifyd.Queue.Cancel", all=True, now=True)
    manager.wait_show(lambda s: s["StatusText"] == "suspended, 0 queued, 0 visible", "StatusText after Cancel")


@needs_systemd
@needs_root
def test_reload_keeps_the_main_pid_and_puts_the_new_config_in_force(manager):
    pid = manager.activate()
    config = manager.config_home / "notifyd" / "notifyd.conf"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[Timing]\nHold=7\n")
    # ExecReload= is synchronous: when systemctl returns, the new config is in force.
    manager.systemctl("reload", "notifyd.service")
    state = manager.show()
    assert (state["ActiveState"], state["SubState"], int(state["MainPID"])) == ("active", "running", pid)
    assert hold_of_a_new_notice(manager.socket_path) == 7
    # SIGHUP is a reload too: RELOADING=1 … READY=1 brings the unit back to running, same PID.
    config.write_text("[Timing]\nHold=9\n")
    manager.systemctl("kill", "--signal=SIGHUP", "--kill-whom=main", "notifyd.service")
    wait_for(
        lambda: hold_of_a_new_notice(manager.socket_path) == 9,
        timeout=TIMEOUT,
        interval=0.2,
        what="the SIGHUP reload to put Hold=9 in force",
    )
    state = manager.wait_show(lambda s: s["SubState"] == "running", "notifyd.service to be running after SIGHUP")
    assert int(state["MainPID"]) == pid and state["NRestarts"] == "0"


def assert_pings_and_lives(manager, pid, seconds=5):
    """For `seconds`, daemon `pid` stays the unit's main process, active and never restarted, and
    its watchdog pings reach systemd."""
    first = int(manager.show()["WatchdogTimestampMonotonic"])
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = manager.show()
        assert (int(state["MainPID"]), state["ActiveState"], state["NRestarts"]) == (pid, "active", "0"), state
        time.sleep(0.25)
    assert int(manager.show()["WatchdogTimestampMonotonic"]) > first, "no watchdog ping reached systemd"


@pytest.mark.alone
@needs_systemd
@needs_root
def test_watchdog_spares_a_healthy_daemon_and_restarts_a_stopped_one(manager):
    pid = manager.activate()
    # WatchdogSec=2s: a healthy daemon pings every second and lives on well past the interval.
    assert_pings_and_lives(manager, pid)
    # A stopped daemon stops pinging: systemd aborts it (Result=watchdog) and, RestartSec=2s
    # later, Restart=on-failure starts a new one.
    os.kill(pid, signal.SIGSTOP)
    failed = manager.wait_show(
        lambda s: s["SubState"] in ("stop-watchdog", "auto-restart"), "the watchdog to fire", interval=0.05
    )
    assert failed["Result"] == "watchdog", failed
    state = manager.wait_show(
        lambda s: s["SubState"] == "running" and s["MainPID"] not in ("0", str(pid)),
        "the watchdog to restart the stopped daemon",
    )
    assert state["NRestarts"] == "1"
    wait_for(lambda: process_gone(pid), timeout=TIMEOUT, what=f"the stopped daemon {pid} to be gone")
    # Socket activation kept the socket: the same path answers, served by the new daemon.
    assert call(manager.socket_path, "io.notifyd.Queue.Status")["queued"] == 0
    assert manager.show("notifyd.socket")["ActiveState"] == "active"


@pytest.mark.alone
@needs_systemd
@needs_root
def test_a_daemon_out_of_descriptors_still_pings_the_watchdog(manager):
    # The soak found it: sd_notify opens a socket for each ping, so a daemon out of descriptors
    # could not ping, and systemd killed a daemon that was only waiting for one to come free.
    pid = manager.activate()
    soft, hard = open_file_limits(pid)
    # A limit under every descriptor it holds: nothing new opens, whatever closes meanwhile.
    subprocess.run(["prlimit", f"--pid={pid}", "--nofile=3:" + str(hard)], check=True)
    try:
        assert_pings_and_lives(manager, pid)  # 5 s without a descriptor: two and a half intervals
    finally:
        subprocess.run(["prlimit", f"--pid={pid}", f"--nofile={soft}:{hard}"], check=True)
    assert call(manager.socket_path, "io.notifyd.Queue.Status")["queued"] == 0


@needs_systemd
@needs_root
def test_stop_succeeds_and_leaves_the_socket_to_systemd(manager):
    pid = manager.activate()
    manager.systemctl("stop", "notifyd.service")
    state = manager.show()
    assert (state["ActiveState"], state["Result"], state["ExecMainStatus"]) == ("inactive", "success", "0"), state
    assert process_gone(pid)
    # The daemon never unlinks a passed socket: the file stays, and the next client starts a new daemon.
    assert stat.S_ISSOCK(os.stat(manager.socket_path).st_mode)
    assert manager.show("notifyd.socket")["ActiveState"] == "active"
    assert call(manager.socket_path, "io.notifyd.Queue.Status")["queued"] == 0
    state = manager.wait_show(lambda s: s["SubState"] == "running", "notifyd.service to be activated again")
    assert int(state["MainPID"]) != pid


# MARK: - the journal


@needs_systemd
@needs_root
def test_under_systemd_logs_go_to_the_journal_with_structured_fields(manager):
    config = manager.config_home / "notifyd" / "notifyd.conf"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[Hooks]\nOnShow=true\n")
    pid = manager.activate()
    # stderr is the journal stream (JOURNAL_STREAM matches), so entries come natively, not as lines.
    started = manager.wait_journal(
        lambda e: e.get("MESSAGE", "").startswith("listening on"), "the 'listening on' entry",
        "SYSLOG_IDENTIFIER=notifyd",
    )
    entry = started[-1]
    assert (entry["_TRANSPORT"], entry["PRIORITY"], entry["_PID"]) == ("journal", "6", str(pid)), entry
    notice = call(manager.socket_path, "io.notifyd.Queue.Show", title="journaled", fadeIn=0, hold=0.2, fadeOut=0)["id"]
    # The OnShow hook logs with NOTICE_ID= (at debug, which the test's drop-in turns on).
    tagged = manager.wait_journal(lambda e: True, "an entry with NOTICE_ID=", f"NOTICE_ID={notice}")
    assert tagged[0]["SYSLOG_IDENTIFIER"] == "notifyd" and tagged[0]["PRIORITY"] == "7", tagged[0]
    assert not manager.journal("SYSLOG_IDENTIFIER=notifyd", "_TRANSPORT=stdout"), "plain lines reached the journal"


@needs_systemd
@needs_root
def test_journal_records_each_finished_notice_with_its_outcome(manager):
    manager.activate()
    notice = call(manager.socket_path, "io.notifyd.Queue.Show", title="done", fadeIn=0, hold=0.2, fadeOut=0)["id"]
    cancelled = call(manager.socket_path, "io.notifyd.Queue.Show", title="dropped", delay=60)["id"]
    call(manager.socket_path, "io.notifyd.Queue.Cancel", id=cancelled)
    for notice_id, outcome in ((notice, "completed"), (cancelled, "cancelled")):
        entries = manager.wait_journal(
            lambda e: e.get("OUTCOME") == outcome, f"OUTCOME={outcome}", f"NOTICE_ID={notice_id}", timeout=15
        )
        assert entries[0]["SYSLOG_IDENTIFIER"] == "notifyd", entries[0]


@needs_systemd
@needs_root
def test_log_stderr_under_systemd_writes_plain_lines(manager):
    manager.write_dropin("--log=stderr")
    manager.daemon_reload()
    manager.activate()
    lines = manager.wait_journal(
        lambda e: "listening on" in e.get("MESSAGE", ""), "a 'listening on' line", "_TRANSPORT=stdout"
    )
    assert lines[-1]["MESSAGE"].startswith("notifyd: listening on"), lines[-1]
    assert not manager.journal("SYSLOG_IDENTIFIER=notifyd", "_TRANSPORT=journal")


@needs_systemd
@needs_root
@pytest.mark.parametrize("matches", [True, False], ids=["stream-is-stderr", "stream-is-another-file"])
def test_log_auto_follows_journal_stream(manager, tmp_path, matches):
    """Outside a unit: JOURNAL_STREAM picks the journal only when it names stderr's device:inode."""
    stderr_path = tmp_path / "stderr"
    stderr_path.touch()
    info = os.stat(stderr_path if matches else tmp_path)
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    environment = dict(
        manager.env, XDG_RUNTIME_DIR=str(runtime), JOURNAL_STREAM=f"{info.st_dev}:{info.st_ino}"
    )
    with open(stderr_path, "ab") as stderr:
        process = subprocess.Popen(
            [*manager.in_namespace(), BIN / "notifyd"], env=environment, stdout=subprocess.DEVNULL, stderr=stderr
        )
    try:
        # Its socket is there once bound, and refuses until notifyd listens: wait for an answer.
        wait_for(lambda: answers(runtime / "notifyd.sock"), timeout=TIMEOUT, what="notifyd to answer on its socket")
        if matches:
            manager.wait_journal(
                lambda e: str(runtime) in e.get("MESSAGE", ""), "the 'listening on' entry", "SYSLOG_IDENTIFIER=notifyd"
            )
            assert "listening on" not in stderr_path.read_text()
        else:
            wait_for(lambda: "notifyd: listening on" in stderr_path.read_text(), timeout=TIMEOUT, what="stderr line")
            assert not [e for e in manager.journal("SYSLOG_IDENTIFIER=notifyd") if str(runtime) in e.get("MESSAGE", "")]
    finally:
        assert terminate(process) == 0


def test_log_option_rejects_an_unknown_target():
    result = run(BIN / "notifyd", "--log=syslog", check=False)
    assert result.returncode == 2 and "--log" in result.stderr, result


def test_log_journal_without_a_journald_falls_back_to_stderr(runtime_dir):
    daemon = Daemon(runtime_dir, ["--log=journal"])
    if Path("/run/systemd/journal/socket").exists():
        # A journald runs here: hide its socket from the daemon in a mount namespace of its own.
        daemon.start_command = ["unshare", "-m", "sh", "-c", 'mount -t tmpfs none /run/systemd/journal && exec "$0" "$@"']
    daemon.start()
    try:
        wait_for(lambda: "notifyd: listening on" in daemon.stderr(), what="the fallback line on stderr")
    finally:
        assert daemon.stop() == 0


# MARK: - systemd-socket-activate


@needs_systemd
def test_systemd_socket_activate_hands_over_a_socket_the_daemon_serves_and_keeps(runtime_dir):
    activator = shutil.which("systemd-socket-activate")
    if activator is None:
        pytest.skip("needs systemd-socket-activate (package systemd)")
    path = runtime_dir / "activated.sock"
    # NOTIFYD_SOCKET names a path the daemon would create if it ignored the passed socket.
    environment = dict(
        os.environ,
        XDG_RUNTIME_DIR=str(runtime_dir),
        XDG_CONFIG_HOME=str(runtime_dir / "config"),
        XDG_STATE_HOME=str(runtime_dir / "state"),
        NOTIFYD_SOCKET=str(runtime_dir / "unused.sock"),
    )
    for name in ("NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "JOURNAL_STREAM"):
        environment.pop(name, None)
    passed = ("XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "NOTIFYD_SOCKET")
    settings = [f"--setenv={name}" for name in passed]
    stderr_path = runtime_dir / "activated.stderr"
    with open(stderr_path, "ab") as stderr:
        process = subprocess.Popen(
            [activator, "--listen", path, "--fdname=varlink", *settings, BIN / "notifyd"],
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        wait_for(lambda: path.exists(), timeout=TIMEOUT, what="systemd-socket-activate to listen")
        # The first connection makes the activator exec notifyd on the listening socket.
        assert call(path, "io.notifyd.Queue.Status")["queued"] == 0
        notice = call(path, "io.notifyd.Queue.Show", title="activated")["id"]
        assert call(path, "io.notifyd.Queue.Get", id=notice)["notice"]["title"] == "activated"
        assert not (runtime_dir / "unused.sock").exists(), "the daemon made its own socket besides the passed one"
        assert "(from systemd)" in stderr_path.read_text()
    finally:
        status = terminate(process)
    assert status == 0, stderr_path.read_text()
    assert stat.S_ISSOCK(os.stat(path).st_mode), "the daemon unlinked the socket it was passed"
