"""Every script in examples/ run against a real daemon, checked by its effect on the queue.

The daemon runs on fast timing (a notice lives about 0.7 s) from a config file, so that the
examples, which wait for notices to finish, finish quickly too. The `ssh -R` recipe runs through
a real sshd on a loopback port (a throwaway host key, an authorized key for root) when sshd can
run here; its mechanics (a forwarded socket carries Varlink) are also proven with socat alone.
"""

import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from conftest import BIN, wait_for

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
FAST_CONFIG = """\
[Timing]
FadeIn=200ms
Hold=300ms
FadeOut=200ms

[Urgency:critical]
Hold=0

[Progress]
EndHold=200ms
"""
TIMEOUT = 60


@pytest.fixture
def fast_daemon(make_daemon, runtime_dir):
    config = runtime_dir / "fast.conf"
    config.write_text(FAST_CONFIG)
    return make_daemon("--config", str(config))


def client_env(daemon, **extra):
    """The environment a user's shell would have: notifyctl on PATH, the daemon's socket."""
    env = dict(daemon.env)
    env["PATH"] = f"{BIN}:{env.get('PATH', '/usr/bin:/bin')}"
    env["NOTIFYD_SOCKET"] = daemon.socket_path
    env.update(extra)
    return env


def run(args, env, timeout=TIMEOUT, **kwargs):
    return subprocess.run([str(a) for a in args], env=env, capture_output=True, text=True, timeout=timeout, **kwargs)


def wait_until_listed(daemon, title, phase=None):
    def listed():
        for notice in daemon.notices("list"):
            if notice["title"] == title and (phase is None or notice["phase"] == phase):
                return notice
        return None

    return wait_for(listed, timeout=TIMEOUT, what=f"'{title}' in notifyctl list")


class LineReader:
    """Lines of a running process's stdout, read with a deadline."""

    def __init__(self, process):
        self.process = process
        self.buffer = b""
        self.lines = []

    def next_line(self, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no line within {timeout}s; got {self.lines}")
            ready, _, _ = select.select([self.process.stdout], [], [], remaining)
            if ready:
                chunk = os.read(self.process.stdout.fileno(), 65536)
                if not chunk:
                    raise AssertionError(f"the process ended; got {self.lines}")
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        text = line.decode()
        self.lines.append(text)
        return text

    def until(self, predicate, what, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        while True:
            line = self.next_line(max(0.1, deadline - time.monotonic()))
            if predicate(line):
                return line
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what}; got {self.lines}")


def stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# MARK: - varlink-socat.sh


def test_socat_script_shows_a_notice_and_reports_its_outcome(fast_daemon):
    title = 'Backup "nightly"\tdone \\ ok'
    result = run([EXAMPLES / "varlink-socat.sh", title, "312 files\nsecond line"], client_env(fast_daemon))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("id ") and lines[1] == "outcome completed", lines
    notice = fast_daemon.get(int(lines[0].split()[1]))
    # Quotes, backslashes and control characters went over the wire as JSON escapes, intact.
    assert notice["title"] == title and notice["body"] == "312 files\nsecond line"
    assert notice["outcome"] == "completed"


def test_socat_script_exits_3_when_its_notice_is_cancelled(fast_daemon):
    fast_daemon.notifyctl("suspend", check=True)
    script = subprocess.Popen(
        [str(EXAMPLES / "varlink-socat.sh"), "held back"], env=client_env(fast_daemon),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        notice = wait_until_listed(fast_daemon, "held back")
        fast_daemon.notifyctl("cancel", str(notice["id"]), check=True)
        out, err = script.communicate(timeout=TIMEOUT)
    finally:
        stop(script)
    assert script.returncode == 3, err
    assert out.splitlines() == [f"id {notice['id']}", "outcome cancelled"]


def test_socat_script_fails_clearly_without_a_daemon(runtime_dir):
    env = dict(os.environ, NOTIFYD_SOCKET=str(runtime_dir / "nobody.sock"))
    result = run([EXAMPLES / "varlink-socat.sh", "x"], env)
    assert result.returncode == 1
    assert f"no notifyd socket at {runtime_dir}/nobody.sock" in result.stderr


def test_readme_one_liners(fast_daemon):
    """The two commands examples/README.md gives for a quick look, run as written."""
    readme = (EXAMPLES / "README.md").read_text()
    one_liner, description = (block.split("```")[0].strip() for block in readme.split("```sh\n")[1:])
    status = run(["bash", "-c", one_liner], client_env(fast_daemon))
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout.strip())["parameters"]["suspended"] is False
    described = run(["bash", "-c", description], client_env(fast_daemon))
    assert described.returncode == 0, described.stderr
    assert "interface io.notifyd.Queue" in json.loads(described.stdout)["description"]


# MARK: - show-and-watch.py (the Python varlink package)


def test_python_script_follows_its_notice_through_every_phase(fast_daemon):
    result = run(
        ["python3", EXAMPLES / "show-and-watch.py", "From Python", "a body", "--urgency", "low", "--frames"],
        client_env(fast_daemon),
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    notice_id = int(lines[0].split()[0].lstrip("#"))
    assert lines[0] == f"#{notice_id} added"
    assert lines[-1] == f"#{notice_id} finished completed"
    phases = [line.split()[1] for line in lines[1:-1]]
    assert {"fadingIn", "holding", "fadingOut"} <= set(phases), lines
    # Frames while fading in: the opacity only grows.
    fading_in = [float(line.split()[2]) for line in lines if line.split()[1] == "fadingIn"]
    assert len(fading_in) >= 3 and fading_in == sorted(fading_in), lines
    notice = fast_daemon.get(notice_id)
    assert notice["urgency"] == "low" and notice["body"] == "a body"


def test_python_script_exits_3_when_its_notice_is_cancelled(fast_daemon):
    script = subprocess.Popen(
        ["python3", str(EXAMPLES / "show-and-watch.py"), "Long one", "--hold", "60"],
        env=client_env(fast_daemon), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        reader = LineReader(script)
        line = reader.until(lambda line: line.endswith("holding 1.00"), "holding line")
        fast_daemon.notifyctl("cancel", line.split()[0], check=True)
        reader.until(lambda line: line.endswith("finished cancelled"), "finished line")
        assert script.wait(timeout=TIMEOUT) == 3
    finally:
        stop(script)


# MARK: - cron-notify


def cron_env(daemon):
    """What cron gives a job: a bare environment. The runtime directory stands in for
    /run/user/UID, where notifyctl looks when nothing else is set."""
    return {
        "PATH": f"{BIN}:/usr/bin:/bin",
        "HOME": str(daemon.runtime_dir),
        "SHELL": "/bin/sh",
        "XDG_RUNTIME_DIR": str(daemon.runtime_dir),
    }


def test_cron_wrapper_runs_a_job_under_an_indicator(fast_daemon):
    result = run([EXAMPLES / "cron-notify", "--title", "Nightly backup", "--", "sh", "-c", "echo working"],
                 cron_env(fast_daemon))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "working\n"  # the job's output still reaches cron
    indicator = wait_for(
        lambda: next((n for n in fast_daemon.notices("history") if n["title"] == "Nightly backup"), None),
        what="the indicator in history",
    )
    assert indicator["kind"] == "progress" and indicator["outcome"] == "completed"
    assert indicator["message"].startswith("succeeded in")
    assert fast_daemon.notices("list") == []  # no failure notice


def test_cron_wrapper_leaves_a_critical_notice_when_the_job_fails(fast_daemon):
    result = run([EXAMPLES / "cron-notify", "--title=Backup", "sh", "-c", "echo disk full >&2; exit 3"],
                 cron_env(fast_daemon))
    assert result.returncode == 3  # cron sees the job's own status
    assert "disk full" in result.stdout
    failure = wait_until_listed(fast_daemon, "Backup failed")
    assert failure["urgency"] == "critical" and failure["hold"] == 0  # stays until ended
    assert failure["body"].startswith("exit status 3 at ") and "disk full" in failure["body"]
    indicator = wait_for(
        lambda: next((n for n in fast_daemon.notices("history") if n["title"] == "Backup"), None),
        what="the indicator in history",
    )
    assert indicator["message"].startswith("failed (exit 3)")


def test_cron_wrapper_still_runs_the_job_without_a_daemon(runtime_dir):
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(runtime_dir), "XDG_RUNTIME_DIR": str(runtime_dir)}
    marker = runtime_dir / "ran"
    result = run([EXAMPLES / "cron-notify", "--", "sh", "-c", f"touch {marker}; exit 4"], env)
    assert result.returncode == 4 and marker.exists()
    assert "cannot connect to notifyd" in result.stdout + result.stderr
    assert "could not leave a notice" in result.stderr


def test_cron_wrapper_refuses_a_missing_command():
    result = run([EXAMPLES / "cron-notify", "--title", "x"], dict(os.environ))
    assert result.returncode == 2 and "usage: cron-notify" in result.stderr


# MARK: - Waybar


def waybar_module():
    config = json.loads((EXAMPLES / "waybar" / "config.json").read_text())
    assert "custom/notifyd" in config["modules-right"]
    return config["custom/notifyd"]


def test_waybar_module_prints_what_the_bar_shows(fast_daemon):
    module = waybar_module()
    assert module["return-type"] == "json" and module["escape"] is True
    # Waybar runs `exec` through sh -c and reads one JSON object per line.
    bar = subprocess.Popen(["/bin/sh", "-c", module["exec"]], env=client_env(fast_daemon),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        reader = LineReader(bar)
        idle = json.loads(reader.next_line())
        assert idle["text"] == "" and "idle" in idle["class"]
        fast_daemon.notifyctl("show", "Build <b>done</b>", "all green", "--urgency", "critical", "--hold", "1",
                              check=True)
        shown = json.loads(reader.until(lambda line: "Build" in line, "the notice on the bar"))
        assert shown["text"] == "Build <b>done</b>"  # Waybar escapes it ("escape": true)
        assert "critical" in shown["class"] and "all green" in shown["tooltip"]
        assert 0 <= shown["percentage"] <= 100
        back = json.loads(reader.until(lambda line: "idle" in line, "the bar idle again"))
        # Drawn nowhere (this daemon has no display), it went unread: the bar counts it.
        assert back["text"] == "1" and "unread" in back["class"] and back["alt"] == "unread"
    finally:
        stop(bar)


def test_waybar_module_middle_click_toggles_do_not_disturb_and_a_click_asks_for_the_center(fast_daemon):
    module = waybar_module()
    env = client_env(fast_daemon)

    def suspended():
        return json.loads(fast_daemon.notifyctl("status", "--json", check=True).stdout)["suspended"]

    assert run(["/bin/sh", "-c", module["on-click-middle"]], env).returncode == 0
    assert suspended() is True
    assert run(["/bin/sh", "-c", module["on-click-middle"]], env).returncode == 0
    assert suspended() is False
    # The center (test_center.py opens it on sway and X11); this daemon draws nothing, and says so.
    opened = run(["/bin/sh", "-c", module["on-click"]], env)
    assert opened.returncode == 1 and "NoDisplay" in opened.stderr, opened
    fast_daemon.notifyctl("show", "left over", "--hold", "60", check=True)
    assert run(["/bin/sh", "-c", module["on-click-right"]], env).returncode == 0
    wait_for(lambda: fast_daemon.notices("list") == [], what="cancel --all to empty the queue")


def test_waybar_style_names_only_classes_the_module_sets():
    css = re.sub(r"/\*.*?\*/", "", (EXAMPLES / "waybar" / "style.css").read_text(), flags=re.S)
    known = {"idle", "low", "normal", "critical", "waiting", "queued", "fadingIn", "holding", "fadingOut",
             "progress", "suspended", "dnd", "quiet-hours", "unread", "disconnected"}
    used = set(re.findall(r"#custom-notifyd\.([A-Za-z]+)", css))
    assert used and used <= known, used - known


# MARK: - ssh -R


def notice_titled(daemon, title):
    return wait_for(
        lambda: next((n for n in daemon.notices("list") + daemon.notices("history") if n["title"] == title), None),
        what=f"'{title}' on the local daemon",
    )


def test_a_forwarded_socket_carries_notices_to_the_daemon(fast_daemon, runtime_dir):
    """What ssh -R does, done by socat: a socket elsewhere relays every connection to the daemon's."""
    remote = runtime_dir / "remote.sock"
    relay = subprocess.Popen(
        ["socat", f"UNIX-LISTEN:{remote},fork,mode=600", f"UNIX-CONNECT:{fast_daemon.socket_path}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        wait_for(remote.exists, what="socat to listen")
        env = client_env(fast_daemon, NOTIFYD_SOCKET=str(remote))
        shown = run([BIN / "notifyctl", "show", "through the relay"], env)
        assert shown.returncode == 0, shown.stderr
        assert fast_daemon.get(int(shown.stdout))["title"] == "through the relay"
        waited = run(["python3", EXAMPLES / "show-and-watch.py", "python through the relay"], env)
        assert waited.returncode == 0 and waited.stdout.splitlines()[-1].endswith("finished completed")
    finally:
        stop(relay)


SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
needs_sshd = pytest.mark.skipif(
    not (os.path.exists(SSHD) and shutil.which("ssh") and shutil.which("ssh-keygen") and os.geteuid() == 0),
    reason="runs a real sshd on a loopback port: needs root and openssh-server/openssh-client",
)


class Sshd:
    """sshd on 127.0.0.1 with a throwaway host key and one authorized key, for root."""

    def __init__(self, base: Path):
        self.base = base
        self.host_key = base / "host_key"
        self.user_key = base / "user_key"
        self.known_hosts = base / "known_hosts"
        for key in (self.host_key, self.user_key):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
        (base / "authorized_keys").write_text((base / "user_key.pub").read_text())
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.config = base / "sshd_config"
        self.config.write_text(
            f"ListenAddress 127.0.0.1\nPort {self.port}\nHostKey {self.host_key}\n"
            f"AuthorizedKeysFile {base}/authorized_keys\nPermitRootLogin prohibit-password\n"
            "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
            "PidFile none\nAllowStreamLocalForwarding yes\nPrintMotd no\n"
        )
        self.process = None

    def start(self):
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation directory
        self.log = open(self.base / "sshd.log", "wb")
        self.process = subprocess.Popen([SSHD, "-D", "-e", "-f", str(self.config)],
                                        stdout=self.log, stderr=self.log, start_new_session=True)

        def listening():
            if self.process.poll() is not None:
                raise AssertionError(f"sshd exited: {(self.base / 'sshd.log').read_text()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return True
            except OSError:
                return False

        wait_for(listening, timeout=TIMEOUT, what="sshd to listen")
        return self

    def stop(self):
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=10)
        self.log.close()

    def ssh_options(self):
        return ["-p", str(self.port), "-i", str(self.user_key), "-o", f"UserKnownHostsFile={self.known_hosts}",
                "-o", "StrictHostKeyChecking=accept-new", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR"]


@pytest.fixture
def sshd(tmp_path):
    instance = Sshd(tmp_path).start()
    yield instance
    instance.stop()


@needs_sshd
def test_notifyd_ssh_runs_a_remote_command_whose_notices_show_here(fast_daemon, sshd):
    # The remote command says where its socket is, then shows a notice through it.
    remote_command = ["sh", "-c", 'echo "$NOTIFYD_SOCKET"; exec "$0" show "$1" "$2"', BIN / "notifyctl",
                      "built on the remote", "make: done (it's 'quoted')"]
    result = run([EXAMPLES / "ssh" / "notifyd-ssh", *sshd.ssh_options(), "root@127.0.0.1", *remote_command],
                 client_env(fast_daemon))
    assert result.returncode == 0, result.stderr
    remote_socket, notice_id = result.stdout.splitlines()
    assert remote_socket.startswith("/tmp/notifyd-forward-") and remote_socket.endswith(".sock")
    notice = fast_daemon.get(int(notice_id))
    assert (notice["title"], notice["body"]) == ("built on the remote", "make: done (it's 'quoted')")
    # sshd leaves the socket file behind; notifyd-ssh removed it when the command ended.
    assert not os.path.exists(remote_socket)


@needs_sshd
def test_notifyd_ssh_login_shell_has_the_socket(fast_daemon, sshd, tmp_path):
    remote_socket = tmp_path / "remote" / "notifyd.sock"
    remote_socket.parent.mkdir()
    # No command: a login shell on the remote host, here fed from stdin instead of a terminal.
    commands = f'test "$NOTIFYD_SOCKET" = {remote_socket} && {BIN}/notifyctl show "from the shell"\n'
    result = run([EXAMPLES / "ssh" / "notifyd-ssh", "-r", remote_socket, *sshd.ssh_options(), "root@127.0.0.1"],
                 client_env(fast_daemon), input=commands)
    assert result.returncode == 0, result.stderr
    assert notice_titled(fast_daemon, "from the shell")
    assert not remote_socket.exists()


@needs_sshd
def test_ssh_config_recipe_forwards_to_the_local_daemon(fast_daemon, sshd, tmp_path):
    # The README's ~/.ssh/config entry, with %r and ${XDG_RUNTIME_DIR} expanded by ssh.
    config = tmp_path / "ssh_config"
    config.write_text(
        f"Host buildbox\n    HostName 127.0.0.1\n    User root\n"
        f"    RemoteForward {tmp_path}/notifyd-%r.sock ${{XDG_RUNTIME_DIR}}/notifyd.sock\n"
        "    ExitOnForwardFailure yes\n"
    )
    remote = tmp_path / "notifyd-root.sock"
    command = f"NOTIFYD_SOCKET={remote} {BIN}/notifyctl show 'via ssh_config'"
    result = run(["ssh", "-F", config, *sshd.ssh_options(), "buildbox", command], client_env(fast_daemon))
    assert result.returncode == 0, result.stderr
    assert fast_daemon.get(int(result.stdout))["title"] == "via ssh_config"
    # sshd leaves the socket file behind: without StreamLocalBindUnlink the next login could not
    # forward to it, as the README warns.
    assert remote.is_socket()
    again = run(["ssh", "-F", config, *sshd.ssh_options(), "buildbox", "true"], client_env(fast_daemon))
    assert again.returncode != 0 and "forwarding failed" in again.stderr
