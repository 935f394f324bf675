"""Fixtures that run the built notifyd on a private runtime directory and talk to it."""

import fcntl
import json
import os
import pwd
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import time
import uuid
import weakref
from pathlib import Path

import pytest
import varlink

BIN = Path(os.environ.get("NOTIFYD_BIN", Path(__file__).resolve().parent.parent / ".build" / "debug"))
# The notifyctl the daemons' clients run: BIN's, but for the Thread Sanitizer run, which gives the
# plain build's (bench/sanitized-tests.sh). notifyctl has one thread and no signal handler, so TSan
# has nothing to find in it, and each run cost 45 ms of CPU under TSan against 8.
CLIENT_BIN = Path(os.environ.get("NOTIFYD_CLIENT_BIN", BIN))


# How often a long wait asks at least: a condition that holds for POLL_CAP seconds is still seen.
POLL_CAP = 0.05


def wait_for(condition, timeout=10.0, interval=0.01, what="condition"):
    """Polls `condition` until it is truthy; fails the test after `timeout` seconds. It asks every
    `interval` seconds at first, then a fifth less often each time down to every POLL_CAP seconds
    (or `interval`, if longer): most conditions hold within a few polls, and a wait of seconds no
    longer asks a hundred times a second (each asking is a notifyctl or a screenshot, and the
    daemon answering it: the TSan suite's CPU went from 4:10 to 3:45 with this)."""
    deadline = time.monotonic() + timeout
    pause = interval
    while True:
        value = condition()
        if value:
            return value
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        # The last pause ends at the deadline, where the condition is asked once more.
        time.sleep(min(pause, left))
        pause = min(pause * 1.2, max(interval, POLL_CAP))


def thread_stacks(pid):
    """Every thread's stack in process `pid`, from gdb: what a test says when a process is stuck."""
    try:
        result = subprocess.run(
            ["gdb", "-p", str(pid), "-batch", "-ex", "set pagination off", "-ex", "thread apply all bt 25"],
            capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"(no stacks of {pid}: {error})"
    threads = result.stdout[result.stdout.find("\nThread "):]
    return threads[-30000:] or result.stderr[-2000:]


class NotifyctlQueries:
    """What the tests ask of a notifyd, through `notifyctl … --json` as its clients would ask it:
    `self.notifyctl(*arguments, check=True)` runs notifyctl against it (as its user, in its box)."""

    def status(self):
        return json.loads(self.notifyctl("status", "--json", check=True).stdout)

    def drawing(self):
        return self.status().get("display", {}).get("drawing") is True

    def get(self, notice_id):
        return json.loads(self.notifyctl("get", str(notice_id), "--json", check=True).stdout)["notice"]

    def show(self, title, *options):
        """`notifyctl show TITLE OPTIONS…`; answers the id it printed."""
        return int(self.notifyctl("show", title, *options, check=True).stdout)

    def notices(self, *arguments):
        """What `notifyctl list` or `history` (with `arguments`) answers."""
        return json.loads(self.notifyctl(*arguments, "--json", check=True).stdout)["notices"]

    def visible(self, notice_id):
        """Waits until the notice is fading in or holding; answers it."""
        return wait_for(lambda: (lambda notice: notice if notice["phase"] in ("fadingIn", "holding") else None)(
            self.get(notice_id)), what=f"notice {notice_id} to show")

    def finished(self, notice_id, timeout=10.0):
        """Waits until the notice has an outcome; answers it."""
        return wait_for(lambda: (lambda notice: notice if notice.get("outcome") is not None else None)(
            self.get(notice_id)), timeout=timeout, what=f"notice {notice_id} to finish")


class Daemon(NotifyctlQueries):
    """A notifyd process on its own runtime directory."""

    def __init__(self, runtime_dir: Path, extra_args=(), env=None):
        self.runtime_dir = runtime_dir
        self.socket_path = str(runtime_dir / "notifyd.sock")
        self.env = dict(os.environ)
        self.env["XDG_RUNTIME_DIR"] = str(runtime_dir)
        self.env["XDG_STATE_HOME"] = str(runtime_dir / "state")
        self.env["XDG_CONFIG_HOME"] = str(runtime_dir / "config")
        self.env.pop("NOTIFYD_SOCKET", None)
        self.env.pop("NOTIFY_SOCKET", None)
        self.env.pop("LISTEN_FDS", None)
        # On a desktop the suite must not forward test notices to the real notification server.
        self.env.pop("DBUS_SESSION_BUS_ADDRESS", None)
        # A suite run from a systemd unit must not make every daemon follow that manager's session.
        self.env.pop("INVOCATION_ID", None)
        if env:
            self.env.update(env)
        self.extra_args = list(extra_args)
        self.program = BIN / "notifyd"
        # A command to run notifyd under (`prlimit …`), and the umask it starts with.
        self.start_command = []
        self.umask = None
        self.process = None
        self.stderr_path = runtime_dir / "notifyd.stderr"

    def start(self, wait=True):
        self.stderr_file = open(self.stderr_path, "ab")
        umask = self.umask
        self.process = subprocess.Popen(
            [*self.start_command, str(self.program), *self.extra_args],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=self.stderr_file,
            preexec_fn=(lambda: os.umask(umask)) if umask is not None else None,
        )
        if wait:
            wait_for(self.answers, what=f"notifyd to answer on {self.socket_path}")
        return self

    def answers(self):
        if self.process and self.process.poll() is not None:
            raise AssertionError(f"notifyd exited with {self.process.returncode}: {self.stderr()}")
        # Listening is not serving: the daemon binds its socket before it opens the store (so that a
        # second daemon finds the first before it touches anything), so ask it something.
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.settimeout(0.5)
                probe.connect(self.socket_path)
                probe.sendall(b'{"method": "io.notifyd.Queue.Status"}\0')
                return probe.recv(1 << 16).endswith(b"\0")
        except OSError:
            return False

    def stderr(self):
        return self.stderr_path.read_text(errors="replace") if self.stderr_path.exists() else ""

    def stop(self, sig=signal.SIGTERM, timeout=10):
        if self.process is None or self.process.poll() is not None:
            return self.process.returncode if self.process else None
        self.process.send_signal(sig)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"notifyd did not exit within {timeout} s of signal {sig}; its threads:\n"
                f"{thread_stacks(self.process.pid)}\nits stderr ends:\n{self.stderr()[-3000:]}") from None
        finally:
            self.stderr_file.close()

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.stderr_file.close()

    # Clients

    def client(self):
        return varlink.Client(address="unix:" + self.socket_path)

    def queue(self):
        """A connection to io.notifyd.Queue through the Python varlink package."""
        return self.client().open("io.notifyd.Queue")

    def call(self, method, timeout=30, **parameters):
        """io.notifyd.Queue.`method` on a connection of its own; answers the reply's parameters (an
        error reply fails the test)."""
        connection = Connection(self.socket_path, timeout=timeout)
        try:
            reply = connection.call(f"io.notifyd.Queue.{method}", parameters)
        finally:
            connection.close()
        assert "error" not in reply, f"{method}({parameters}) answered {reply}"
        return reply.get("parameters", {})

    def raw(self):
        """A raw socket connected to the daemon."""
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(self.socket_path)
        connection.settimeout(10)
        return connection

    def notifyctl_command(self):
        """How a client runs notifyctl: the built one, as this user."""
        return [str(CLIENT_BIN / "notifyctl")]

    def notifyctl_waiting(self, *arguments):
        """`notifyctl show ARGUMENTS… --wait`, running: it prints the key of the action chosen."""
        return subprocess.Popen([*self.notifyctl_command(), "show", *arguments, "--wait"],
                                env={**self.env, "NOTIFYD_SOCKET": self.socket_path}, stdout=subprocess.PIPE, text=True)

    def notifyctl(self, *args, check=False, timeout=30, input=None, env=None, cwd=None):
        environment = dict(self.env)
        environment["NOTIFYD_SOCKET"] = self.socket_path
        if env:
            environment.update(env)
        with subprocess.Popen(
            [*self.notifyctl_command(), *args], env=environment, text=True, cwd=cwd,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        ) as child:
            try:
                stdout, stderr = child.communicate(input, timeout=timeout)
            except subprocess.TimeoutExpired:
                # Say where both sides were: the client's stack and the daemon's.
                client = thread_stacks(child.pid)
                child.kill()
                child.communicate()
                daemon = self.process.pid if self.process and self.process.poll() is None else None
                raise AssertionError(
                    f"notifyctl {' '.join(args)} did not finish within {timeout} s; its threads:\n{client}\n"
                    + (f"notifyd's threads:\n{thread_stacks(daemon)}" if daemon else "notifyd is not running")
                ) from None
        result = subprocess.CompletedProcess(child.args, child.returncode, stdout, stderr)
        if check and result.returncode != 0:
            raise AssertionError(f"notifyctl {' '.join(args)} exited {result.returncode}: {result.stderr}")
        return result


class Connection:
    """A blocking raw Varlink connection with its own buffer, for tests that drive many at once."""

    def __init__(self, path, timeout=10.0):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.settimeout(timeout)
        self.socket.connect(path)
        self.buffer = bytearray()

    def send(self, method, parameters=None, **flags):
        message = {"method": method}
        if parameters is not None:
            message["parameters"] = parameters
        message.update(flags)
        self.socket.sendall(json.dumps(message).encode() + b"\0")

    def receive(self):
        end = self.buffer.find(b"\0")
        while end < 0:
            chunk = self.socket.recv(1 << 20)
            if not chunk:
                raise ConnectionError("notifyd closed the connection")
            start = len(self.buffer)
            self.buffer += chunk  # a bytearray, extended in place
            end = self.buffer.find(b"\0", start)
        message = bytes(self.buffer[:end])
        del self.buffer[:end + 1]
        return json.loads(message)

    def call(self, method, parameters=None):
        self.send(method, parameters)
        return self.receive()

    def close(self):
        self.socket.close()


def status_round_trip(path):
    """Seconds from connecting to the answer of one Status call."""
    started = time.monotonic()
    probe = Connection(path, timeout=10)
    reply = probe.call("io.notifyd.Queue.Status")
    probe.close()
    assert "error" not in reply, reply
    return time.monotonic() - started


def median_round_trip(path, count=9):
    return statistics.median(status_round_trip(path) for _ in range(count))


def call_raw(connection, message: bytes):
    """Sends one raw message (NUL added) and returns the decoded reply, or None on close."""
    connection.sendall(message + b"\0")
    return read_reply(connection)


# What was read past the last reply, per socket object (not per descriptor number, which a later
# socket may reuse); an entry goes with its socket.
_buffers = weakref.WeakKeyDictionary()


def read_reply(connection):
    """Reads the next NUL-terminated reply, keeping what follows it for the next call."""
    data = bytearray(_buffers.pop(connection, b""))
    end = data.find(b"\0")
    while end < 0:
        chunk = connection.recv(1 << 20)
        if not chunk:
            return None
        start = len(data)
        data += chunk  # in place: a reply of hundreds of megabytes is not copied chunk by chunk
        end = data.find(b"\0", start)
    message, rest = bytes(data[:end]), bytes(data[end + 1:])
    if rest:
        _buffers[connection] = rest
    return json.loads(message)


def rss_kib(pid):
    """The resident set of process `pid`, in KiB (`VmRSS` of /proc/PID/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def cpu_seconds(pid):
    """User plus system CPU time process `pid` has used, in seconds (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_used_over(pid, seconds):
    """The CPU seconds `pid` uses during the next `seconds` of real time."""
    before = cpu_seconds(pid)
    time.sleep(seconds)
    return cpu_seconds(pid) - before


# MARK: - Running beside other tests

# The suites run on several pytest-xdist workers at once, and the sanitized runs beside them
# (scripts/test.py): what a test holds on the machine is its own (a temporary directory, a free port,
# an X display number from `XDisplayReservation`), and what it shares is made race-free here.
def pytest_configure(config):
    config.addinivalue_line(
        "markers", "alone: loads the machine or measures CPU, RSS or wall time tightly, so it runs with "
        "nothing else running (scripts/test.py runs `-m alone` by itself, after the rest)")


# A sanitized run (bench/sanitized-tests.sh) names the tests running when a report was written: each
# test's start and end go to NOTIFYD_SANITIZER_REPORTS/tests.log (a line each, appended whole, so
# the workers' lines do not mix).
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    folder = os.environ.get("NOTIFYD_SANITIZER_REPORTS")
    started = time.time()
    yield
    if folder:
        with open(os.path.join(folder, "tests.log"), "a") as log:
            log.write(f"{started:.3f} {time.time():.3f} {item.nodeid}\n")


TEST_USER = "notifyd-popups"


def unprivileged_user():
    """The unprivileged user that compositors and the daemons drawing on them run as (sway refuses
    root), made at the first ask. Several test processes may ask at once: one makes it, under a lock."""
    try:
        return pwd.getpwnam(TEST_USER)
    except KeyError:
        pass
    with open(Path(tempfile.gettempdir()) / "notifyd-test-user.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return pwd.getpwnam(TEST_USER)
        except KeyError:
            subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", TEST_USER],
                           check=True)
            return pwd.getpwnam(TEST_USER)


def x_display_in_use(number):
    """Whether an X server holds display `number` here: its lock file, or its socket in /tmp or in the
    abstract namespace (which containers sharing this network namespace use too)."""
    if Path(f"/tmp/.X{number}-lock").exists() or Path(f"/tmp/.X11-unix/X{number}").exists():
        return True
    abstract = f"@/tmp/.X11-unix/X{number}"
    return any(line.split()[-1] == abstract for line in Path("/proc/net/unix").read_text().splitlines()[1:]
               if len(line.split()) >= 8)


class XDisplayReservation:
    """An X display number held until `release` (or until this process ends): free now, and no other
    test process on this machine, of this run or of another `make test` beside it, reserves it
    meanwhile (a lock on a file in /tmp, which dies with its holder). For an X server that cannot pick
    its own number with -displayfd (one in a container, whose /tmp is not this machine's), for a
    DISPLAY that must name no server at all, and for an Xvfb that is killed and started again on its
    number (a server picking its own would take the number in between)."""

    def __init__(self, first=200):
        for number in range(first, first + 2000):
            # Never unlinked: a holder unlinking its file would let a second holder lock a new one.
            marker = os.open(Path(tempfile.gettempdir()) / f"notifyd-test-x{number}.reserved",
                             os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(marker, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(marker)
                continue
            if x_display_in_use(number):
                os.close(marker)
                continue
            self.number, self.marker = number, marker
            self.display = f":{number}"
            return
        raise AssertionError(f"no free X display number from {first} on")

    def release(self):
        if self.marker is not None:
            os.close(self.marker)
            self.marker = None


class Cgroup:
    """A cgroup of its own, in each hierarchy mounted here, for a service manager this test starts
    (systemd in a container, `systemd --user`): a manager takes the cgroup it starts in as its root
    and makes its slices there, so two started from one cgroup (two workers, two suites) would share
    them and stop each other's units. `join` is for the child, before it runs the manager;
    `remove` once the manager is gone."""

    HIERARCHIES = [Path("/sys/fs/cgroup/systemd"), Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup")]

    def __init__(self):
        name = f"notifyd-test-{uuid.uuid4().hex[:12]}"
        self.paths = []
        for root in self.HIERARCHIES:
            if (root / "cgroup.procs").exists():
                (root / name).mkdir()
                self.paths.append(root / name)
        # Named here: `join` runs in the child between fork and exec, and only opens and writes.
        self.procs = [str(path / "cgroup.procs") for path in self.paths]

    def join(self):
        for procs in self.procs:
            descriptor = os.open(procs, os.O_WRONLY)
            try:
                os.write(descriptor, b"0")  # "0": the writing process itself
            finally:
                os.close(descriptor)

    def remove(self):
        for path in self.paths:
            # What the manager left, deepest first; a cgroup a process still holds stays.
            for child in sorted((entry for entry in path.rglob("*") if entry.is_dir()),
                                key=lambda entry: len(entry.parts), reverse=True):
                try:
                    child.rmdir()
                except OSError:
                    pass
            try:
                path.rmdir()
            except OSError:
                pass


@pytest.fixture
def no_x_display():
    """A DISPLAY that names no X server, for as long as the test runs."""
    reservation = XDisplayReservation(first=5000)
    yield reservation.display
    reservation.release()


# `make test` is what CI runs, as root with every package installed: there a skipped test is a missing
# install step, not a pass. NOTIFYD_ALLOW_SKIPS=1 allows skips for a partial run by hand.
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("NOTIFYD_ALLOW_SKIPS") != "1" and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped, and skips are failures here (NOTIFYD_ALLOW_SKIPS=1 allows them): {reason}"


@pytest.fixture
def runtime_dir():
    path = Path(tempfile.mkdtemp(prefix="notifyd-test-"))
    path.chmod(0o700)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def daemon(runtime_dir):
    instance = Daemon(runtime_dir).start()
    yield instance
    status = instance.stop()
    assert status == 0, f"notifyd exited with {status}: {instance.stderr()}"


@pytest.fixture
def make_daemon(runtime_dir):
    started = []

    def make(*args, env=None, wait=True, directory=None):
        instance = Daemon(directory or runtime_dir, args, env).start(wait=wait)
        started.append(instance)
        return instance

    yield make
    for instance in started:
        instance.kill()
