"""The config file end to end: --check-config, rules, hooks, and live reload through a running daemon."""

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
import varlink

from conftest import BIN, Daemon, wait_for

EXAMPLE = Path(__file__).resolve().parent.parent / "config" / "notifyd.conf"


def write_config(daemon, text):
    path = Path(daemon.env["XDG_CONFIG_HOME"]) / "notifyd" / "notifyd.conf"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def check_config(*args, env=None):
    return subprocess.run([str(BIN / "notifyd"), "--check-config", *args], capture_output=True, text=True, env=env)


def test_example_config_passes_check_config():
    result = check_config("--config", str(EXAMPLE))
    assert result.returncode == 0, result.stderr
    assert "[Queue]\nMaxVisible=5\nMaxSticky=3\n" in result.stdout
    assert "[Progress]\nMaxVisible=4\nTimeout=30s\nEndHold=1.5s" in result.stdout


def test_check_config_names_file_line_and_key(tmp_path):
    bad = tmp_path / "bad.conf"
    bad.write_text("[Queue]\nMaxVisible=2\n\n[Timing]\nFadeIn=soon\n")
    result = check_config("--config", str(bad))
    assert result.returncode == 1
    assert result.stderr.strip() == f"notifyd: {bad}:5: FadeIn: 'soon' is not a duration ≥ 0 (e.g. 1.5, 300ms, 2s, 1m)"


def test_check_config_finds_the_xdg_file(tmp_path):
    config_home = tmp_path / "config"
    (config_home / "notifyd").mkdir(parents=True)
    (config_home / "notifyd" / "notifyd.conf").write_text("[Queue]\nMaxVisible=3\n")
    env = dict(os.environ, XDG_CONFIG_HOME=str(config_home), XDG_CONFIG_DIRS=str(tmp_path / "none"))
    result = check_config(env=env)
    assert result.returncode == 0 and "MaxVisible=3" in result.stdout
    assert str(config_home / "notifyd" / "notifyd.conf") in result.stdout


def test_a_bad_config_keeps_the_daemon_from_starting(runtime_dir):
    daemon = Daemon(runtime_dir)
    write_config(daemon, "[Queue]\nMaxVisble=2\n")
    daemon.start(wait=False)
    assert daemon.process.wait(timeout=10) == 1
    assert "notifyd.conf:2: MaxVisble: unknown key in [Queue]" in daemon.stderr()


def test_socket_path_in_the_config_is_where_notifyd_listens_and_notifyctl_goes(runtime_dir):
    """[Socket] Path= is one rule for both sides: notifyctl reads it from the same file."""
    daemon = Daemon(runtime_dir)
    elsewhere = runtime_dir / "elsewhere" / "n.sock"
    write_config(daemon, f"[Socket]\nPath={elsewhere}\n")
    daemon.socket_path = str(elsewhere)
    daemon.start()
    try:
        assert not (runtime_dir / "notifyd.sock").exists()
        unset = {"NOTIFYD_SOCKET": ""}  # empty counts as unset
        shown = daemon.notifyctl("show", "found by the config", check=True, env=unset)
        assert shown.stdout.strip().isdigit()
        # --socket still comes first; an empty --socket counts as unset.
        assert daemon.notifyctl("--socket", str(runtime_dir / "nowhere.sock"), "status", env=unset).returncode == 1
        assert daemon.notifyctl("--socket=", "status", env=unset).returncode == 0
    finally:
        assert daemon.stop() == 0


def test_timing_layers_resolve_in_order(runtime_dir):
    daemon = Daemon(runtime_dir)
    write_config(
        daemon,
        "[Timing]\nFadeIn=2s\nHold=9s\n\n[Urgency:low]\nHold=3s\n\n"
        "[Rule:backup]\nMatchApp=backup*\nUrgency=low\nFadeOut=4s\n\n[Rule:later]\nMatchApp=backup-nightly\nFadeOut=6s\n",
    )
    daemon.start()
    try:
        with daemon.queue() as queue:
            queue.Suspend()
            plain = queue.Get(queue.Show(title="plain")["id"])["notice"]
            backup = queue.Get(queue.Show(title="b", app="backup-nightly")["id"])["notice"]
            explicit = queue.Get(queue.Show(title="e", app="backup-nightly", hold=1.0)["id"])["notice"]
        assert (plain["fadeIn"], plain["hold"], plain["fadeOut"], plain["urgency"]) == (2, 9, 1, "normal")
        assert (backup["fadeIn"], backup["hold"], backup["fadeOut"], backup["urgency"]) == (2, 3, 6, "low")
        assert explicit["hold"] == 1
    finally:
        assert daemon.stop() == 0


def test_suppressed_notices_get_an_id_and_go_to_history_as_cancelled(runtime_dir):
    daemon = Daemon(runtime_dir)
    write_config(daemon, "[Rule:spam]\nMatchTitle=*newsletter*\nSuppress=yes\n")
    daemon.start()
    try:
        with daemon.queue() as queue:
            shown = queue.Show(title="Weekly newsletter")["id"]
            notice = queue.Get(shown)["notice"]
            assert notice["outcome"] == "cancelled"
            assert notice.get("shown") is None
            assert notice["phase"] == "finished"
            assert queue.List()["notices"] == []
            assert [n["id"] for n in queue.History()["notices"]] == [shown]
    finally:
        assert daemon.stop() == 0


def test_hooks_run_with_the_notice_in_the_environment(runtime_dir):
    daemon = Daemon(runtime_dir)
    log = runtime_dir / "hooks.log"
    write_config(
        daemon,
        "[Hooks]\n"
        f'OnShow=echo "show $NOTIFYD_ID $NOTIFYD_TITLE|$NOTIFYD_BODY|$NOTIFYD_APP|$NOTIFYD_URGENCY" >> {log}\n'
        f'OnFinish=echo "finish $NOTIFYD_ID $NOTIFYD_OUTCOME $NOTIFYD_ACTION" >> {log}\n'
        f'OnComplete=echo "complete $NOTIFYD_ID" >> {log}\n',
    )
    daemon.start()
    try:
        with daemon.queue() as queue:
            done = queue.Show(title="Backup done", body="ok", app="backup", urgency="low",
                              actions=[{"key": "open", "label": "Open"}], fadeIn=0.05, hold=0, fadeOut=0.05)["id"]
            wait_for(lambda: queue.Get(done)["notice"]["phase"] in ("fadingIn", "holding"))
            queue.Invoke(done, "open")
            queue.Wait(done)
            queue.Suspend()
            cancelled = queue.Show(title="never shown")["id"]
            queue.Cancel(id=cancelled)
        wait_for(lambda: log.exists() and len(log.read_text().splitlines()) >= 4, what="hooks to run")
        # A hook that should not run for `cancelled` would be started with its OnFinish, before any
        # hook of a later notice. Measure how long a later notice's hook takes to appear after it
        # finishes, then give the unwanted one three times that.
        with daemon.queue() as queue:
            queue.Resume()
            marker = queue.Show(title="marker", fadeIn=0, hold=0.01, fadeOut=0)["id"]
            queue.Wait(marker)
        finished_at = time.monotonic()
        wait_for(lambda: f"complete {marker}" in log.read_text().splitlines(), what="the marker's hook")
        time.sleep(3 * (time.monotonic() - finished_at))
        lines = log.read_text().splitlines()
        assert f"show {done} Backup done|ok|backup|low" in lines
        assert f"finish {done} completed open" in lines
        assert f"complete {done}" in lines
        assert f"finish {cancelled} cancelled " in lines
        assert f"complete {cancelled}" not in lines
        assert not any(line.startswith(f"show {cancelled}") for line in lines)
    finally:
        assert daemon.stop() == 0


def test_a_failing_hook_is_logged_not_fatal(runtime_dir):
    daemon = Daemon(runtime_dir)
    write_config(daemon, "[Hooks]\nOnFinish=exit 3\n")
    daemon.start()
    try:
        with daemon.queue() as queue:
            shown = queue.Show(title="x", fadeIn=0.01, hold=0.01, fadeOut=0.01)["id"]
            queue.Wait(shown)
        wait_for(lambda: "OnFinish hook for notice" in daemon.stderr(), what="hook failure in the log")
        assert "failed with exit status 3" in daemon.stderr()
        with daemon.queue() as queue:
            assert queue.Status()
    finally:
        assert daemon.stop() == 0


def test_reload_puts_a_good_file_in_force_for_new_notices(runtime_dir):
    daemon = Daemon(runtime_dir)
    path = write_config(daemon, "[Timing]\nHold=4s\n")
    daemon.start()
    try:
        with daemon.queue() as queue:
            queue.Suspend()
            before = queue.Show(title="before")["id"]
            path.write_text("[Timing]\nHold=8s\n[Queue]\nMaxVisible=2\n")
            queue.Reload()
            after = queue.Show(title="after")["id"]
            assert queue.Get(before)["notice"]["hold"] == 4
            assert queue.Get(after)["notice"]["hold"] == 8
    finally:
        assert daemon.stop() == 0


def test_reload_refuses_a_bad_file_and_keeps_the_old_config(runtime_dir):
    daemon = Daemon(runtime_dir)
    path = write_config(daemon, "[Timing]\nHold=4s\n")
    daemon.start()
    try:
        with daemon.queue() as queue:
            path.write_text("[Timing]\nHold=4s\nEaseIn=wobbly\n")
            with pytest.raises(varlink.VarlinkError) as error:
                queue.Reload()
            assert error.value.error() == "io.notifyd.Queue.InvalidArgument"
            assert error.value.parameters()["reason"] == f"{path}:3: EaseIn: 'wobbly' is not one of linear, easeIn, easeOut, easeInOut"
            queue.Suspend()
            assert queue.Get(queue.Show(title="still")["id"])["notice"]["hold"] == 4
    finally:
        assert daemon.stop() == 0


def test_sighup_reloads_and_logs_a_bad_file(runtime_dir):
    daemon = Daemon(runtime_dir)
    path = write_config(daemon, "[Timing]\nHold=4s\n")
    daemon.start()
    try:
        path.write_text("[Timing]\nHold=6s\n")
        daemon.process.send_signal(signal.SIGHUP)
        wait_for(lambda: "reloaded config" in daemon.stderr(), what="SIGHUP reload")
        path.write_text("[Timing]\nHold=x\n")
        daemon.process.send_signal(signal.SIGHUP)
        wait_for(lambda: "reload refused" in daemon.stderr(), what="refused reload")
        assert f"{path}:2: Hold:" in daemon.stderr()
        with daemon.queue() as queue:
            queue.Suspend()
            assert queue.Get(queue.Show(title="x")["id"])["notice"]["hold"] == 6
    finally:
        assert daemon.stop() == 0
