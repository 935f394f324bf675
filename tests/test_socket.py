"""The daemon's socket: where it lives, its mode, stale files, a second daemon, clean stops."""

import os
import signal
import socket
import stat
import subprocess
import time

from conftest import BIN, Daemon


def test_socket_is_private_to_the_user(daemon):
    mode = stat.S_IMODE(os.stat(daemon.socket_path).st_mode)
    assert mode == 0o600


def test_sigterm_removes_the_socket_and_exits_zero(runtime_dir):
    daemon = Daemon(runtime_dir).start()
    assert daemon.stop(signal.SIGTERM) == 0
    assert not os.path.exists(daemon.socket_path)


def test_sigint_stops_cleanly_too(runtime_dir):
    daemon = Daemon(runtime_dir).start()
    assert daemon.stop(signal.SIGINT) == 0
    assert not os.path.exists(daemon.socket_path)


def test_a_second_daemon_refuses_to_start(daemon, runtime_dir):
    second = subprocess.run([str(BIN / "notifyd")], env=daemon.env, capture_output=True, text=True, timeout=10)
    assert second.returncode == 1
    assert "already answers on " + daemon.socket_path in second.stderr
    with daemon.queue() as queue:
        assert queue.Status()


def test_a_stale_socket_file_is_replaced(runtime_dir):
    path = str(runtime_dir / "notifyd.sock")
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(path)
    stale.close()
    assert os.path.exists(path)
    daemon = Daemon(runtime_dir).start()
    with daemon.queue() as queue:
        assert queue.Status()
    assert daemon.stop() == 0


def test_a_regular_file_at_the_path_is_left_alone(runtime_dir):
    path = runtime_dir / "notifyd.sock"
    path.write_text("precious")
    daemon = Daemon(runtime_dir).start(wait=False)
    assert daemon.process.wait(timeout=10) == 1
    assert path.read_text() == "precious"
    assert "not a socket" in daemon.stderr()


def test_socket_option_and_environment_override(runtime_dir):
    custom = runtime_dir / "custom.sock"
    daemon = Daemon(runtime_dir, ["--socket", str(custom)])
    daemon.socket_path = str(custom)
    daemon.start()
    assert custom.exists() and not (runtime_dir / "notifyd.sock").exists()
    assert daemon.stop() == 0

    env_path = runtime_dir / "env.sock"
    daemon = Daemon(runtime_dir, env={"NOTIFYD_SOCKET": str(env_path)})
    daemon.socket_path = str(env_path)
    daemon.start()
    assert env_path.exists()
    assert daemon.stop() == 0


def test_version_and_help():
    version = subprocess.run([str(BIN / "notifyd"), "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("notifyd ")
    helptext = subprocess.run([str(BIN / "notifyd"), "--help"], capture_output=True, text=True)
    assert helptext.returncode == 0 and "--socket" in helptext.stdout
    bad = subprocess.run([str(BIN / "notifyd"), "--bogus"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--bogus" in bad.stderr
