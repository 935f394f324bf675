"""notifyctl end to end against a running daemon: every command, its output and exit status."""

import json
import os
import signal
import subprocess
import threading
import time

import pytest

from conftest import BIN, wait_for

FAST = ["--fade-in", "50ms", "--hold", "100ms", "--fade-out", "50ms"]


def test_version_and_help_need_no_daemon():
    version = subprocess.run([str(BIN / "notifyctl"), "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.strip().startswith("notifyctl ")
    helptext = subprocess.run([str(BIN / "notifyctl"), "--help"], capture_output=True, text=True)
    assert helptext.returncode == 0
    for command in ["show", "progress", "update", "end", "cancel", "invoke", "suspend", "resume", "reload",
                    "status", "list", "history", "get", "wait", "watch", "run", "call"]:
        assert command in helptext.stdout
    show_help = subprocess.run([str(BIN / "notifyctl"), "help", "show"], capture_output=True, text=True)
    assert show_help.returncode == 0 and "--fade-in" in show_help.stdout


def test_notifyctl_links_foundation_essentials_not_foundation():
    # The Swift runtime and FoundationEssentials are linked in statically, so nothing Swift is loaded
    # at start; full Foundation is not in the binary at all.
    libraries = subprocess.run(["ldd", str(BIN / "notifyctl")], capture_output=True, text=True).stdout
    assert "libswiftCore" not in libraries and "libFoundation" not in libraries
    symbols = subprocess.run(["nm", str(BIN / "notifyctl")], capture_output=True, text=True).stdout
    assert "s20FoundationEssentials" in symbols
    assert "s10Foundation" not in symbols


def test_show_prints_the_id_and_options_reach_the_daemon(daemon):
    result = daemon.notifyctl("show", "Backup done", "312 files", "--delay=1m", "--fade-in", "2s", "--hold", "300ms",
                              "--fade-out", "1.5", "--ease-in", "linear", "--ease-out=easeInOut", "--urgency", "low",
                              "--style", "blur", "--tag", "backup", "--key", "k1", "--app", "restic",
                              "--action", "open=Open", "--action", "dismiss=Dismiss", check=True)
    notice_id = int(result.stdout.strip())
    notice = json.loads(daemon.notifyctl("get", str(notice_id), "--json", check=True).stdout)
    notice = notice.get("notice", notice)
    assert (notice["title"], notice["body"], notice["app"], notice["tag"], notice["key"]) == (
        "Backup done", "312 files", "restic", "backup", "k1")
    assert (notice["delay"], notice["fadeIn"], notice["hold"], notice["fadeOut"]) == (60, 2, 0.3, 1.5)
    assert (notice["easeIn"], notice["easeOut"], notice["urgency"], notice["style"]) == ("linear", "easeInOut", "low", "blur")
    assert notice["actions"] == [{"key": "open", "label": "Open"}, {"key": "dismiss", "label": "Dismiss"}]


def test_show_wait_exits_by_outcome(daemon):
    completed = daemon.notifyctl("show", "done", *FAST, "--wait")
    assert completed.returncode == 0 and completed.stdout == ""

    daemon.notifyctl("suspend", check=True)
    waiting = subprocess.Popen([str(BIN / "notifyctl"), "--socket", daemon.socket_path, "show", "held", "--wait"],
                               stdout=subprocess.PIPE, text=True)
    wait_for(lambda: daemon.notifyctl("list").stdout.strip(), what="held notice")
    daemon.notifyctl("cancel", "--all", check=True)
    assert waiting.wait(10) == 3


def test_show_wait_prints_the_invoked_action(daemon):
    waiting = subprocess.Popen(
        [str(BIN / "notifyctl"), "--socket", daemon.socket_path, "show", "Update ready", "--action", "restart=Restart",
         "--fade-in", "10ms", "--hold", "0", "--wait"], stdout=subprocess.PIPE, text=True)
    with daemon.queue() as queue:
        notice = wait_for(lambda: [n for n in queue.List()["notices"] if n["phase"] in ("fadingIn", "holding")])[0]
    assert daemon.notifyctl("invoke", str(notice["id"]), "restart").returncode == 0
    out, _ = waiting.communicate(timeout=10)
    assert waiting.returncode == 0 and out.strip() == "restart"


@pytest.mark.parametrize("how, status", [("timedOut", 4), ("replaced", 5), ("cancelled", 3)])
def test_wait_exit_statuses(daemon, how, status):
    if how == "timedOut":
        notice_id = daemon.notifyctl("progress", "stalls", "--timeout", "100ms", "--fade-in", "10ms", "--fade-out", "10ms",
                                     check=True).stdout.strip()
        assert daemon.notifyctl("wait", notice_id).returncode == status
    elif how == "replaced":
        daemon.notifyctl("suspend", check=True)
        old = daemon.notifyctl("show", "old", "--key", "k", check=True).stdout.strip()
        waiting = subprocess.Popen([str(BIN / "notifyctl"), "--socket", daemon.socket_path, "wait", old])
        time.sleep(0.2)
        daemon.notifyctl("show", "new", "--key", "k", check=True)
        assert waiting.wait(10) == status
    else:
        daemon.notifyctl("suspend", check=True)
        notice_id = daemon.notifyctl("show", "bye", check=True).stdout.strip()
        waiting = subprocess.Popen([str(BIN / "notifyctl"), "--socket", daemon.socket_path, "wait", notice_id])
        time.sleep(0.2)
        daemon.notifyctl("cancel", notice_id, check=True)
        assert waiting.wait(10) == 3


def test_progress_update_end(daemon):
    notice_id = daemon.notifyctl("progress", "Building", "--value", "0", "--key", "build", check=True).stdout.strip()
    assert daemon.notifyctl("progress", "Building", "--value", "5", "--key", "build", check=True).stdout.strip() == notice_id
    daemon.notifyctl("update", notice_id, "--title", "Building notifyd", "--body", "linking", "--value", "90", check=True)
    notice = json.loads(daemon.notifyctl("get", notice_id, "--json", check=True).stdout)
    notice = notice.get("notice", notice)
    assert (notice["title"], notice["body"], notice["value"]) == ("Building notifyd", "linking", 90)
    daemon.notifyctl("end", notice_id, "Build succeeded", "--hold", "100ms", check=True)
    assert daemon.notifyctl("wait", notice_id).returncode == 0
    final = json.loads(daemon.notifyctl("get", notice_id, "--json", check=True).stdout)
    final = final.get("notice", final)
    assert final["message"] == "Build succeeded" and final["outcome"] == "completed"


def test_cancel_by_ids_tag_and_all(daemon):
    daemon.notifyctl("suspend", check=True)
    a = daemon.notifyctl("show", "a", check=True).stdout.strip()
    b = daemon.notifyctl("show", "b", check=True).stdout.strip()
    c = daemon.notifyctl("show", "c", "--tag", "t", check=True).stdout.strip()
    d = daemon.notifyctl("show", "d", check=True).stdout.strip()
    assert daemon.notifyctl("cancel", a, b, check=True).stdout.split() == [a, b]
    assert daemon.notifyctl("cancel", "--tag", "t", check=True).stdout.split() == [c]
    assert daemon.notifyctl("cancel", "--all", "--now", check=True).stdout.split() == [d]


def test_suspend_for_and_resume_and_status(daemon):
    daemon.notifyctl("suspend", "--for", "1h", check=True)
    status = daemon.notifyctl("status", check=True).stdout
    assert "suspended until" in status
    status_json = json.loads(daemon.notifyctl("status", "--json", check=True).stdout)
    assert status_json["suspended"] is True and status_json["suspendedUntil"] > time.time() + 3500
    daemon.notifyctl("resume", check=True)
    assert json.loads(daemon.notifyctl("status", "--json", check=True).stdout)["suspended"] is False


def test_list_history_and_get(daemon):
    done = daemon.notifyctl("show", "finished one", *FAST, "--app", "mail", check=True).stdout.strip()
    daemon.notifyctl("wait", done, check=True)
    daemon.notifyctl("suspend", check=True)
    pending = daemon.notifyctl("show", "pending one", check=True).stdout.strip()
    listing = daemon.notifyctl("list", check=True).stdout
    assert "pending one" in listing and "finished one" not in listing
    history = daemon.notifyctl("history", "-n", "5", check=True).stdout
    assert "finished one" in history and "completed" in history
    assert "finished one" in daemon.notifyctl("history", "--app", "mail", check=True).stdout
    assert "finished one" not in daemon.notifyctl("history", "--outcome", "cancelled", check=True).stdout
    assert "pending one" in daemon.notifyctl("get", pending, check=True).stdout


def test_errors_name_the_socket_or_the_field(daemon, tmp_path):
    missing = daemon.notifyctl("status", env={"NOTIFYD_SOCKET": str(tmp_path / "nope.sock")})
    assert missing.returncode == 1
    assert missing.stderr.strip() == f"notifyctl: cannot connect to notifyd at {tmp_path / 'nope.sock'}: No such file or directory"
    unknown = daemon.notifyctl("get", "4242")
    assert unknown.returncode == 1 and "4242" in unknown.stderr and len(unknown.stderr.strip().splitlines()) == 1
    invalid = daemon.notifyctl("show", "x" * 2000)
    assert invalid.returncode == 1 and "title" in invalid.stderr
    usage = daemon.notifyctl("show", "x", "--hold", "forever")
    assert usage.returncode == 2 and "--hold" in usage.stderr
    assert daemon.notifyctl("frobnicate").returncode == 2


def test_reload(daemon):
    result = daemon.notifyctl("reload")
    assert result.returncode == 0, result.stderr


def test_call_raw_methods(daemon):
    info = daemon.notifyctl("call", "org.varlink.service.GetInfo", check=True)
    assert "io.notifyd.Queue" in info.stdout
    shown = json.loads(daemon.notifyctl("call", "Show", '{"title": "raw", "delay": 60}', check=True).stdout)
    assert shown["id"] > 0
    bad = daemon.notifyctl("call", "Show", '{"title": 5}')
    assert bad.returncode == 1 and "title" in bad.stderr


def test_watch_piped_prints_one_line_per_event(daemon):
    # SIGINT's default action, as a shell gives a command in the foreground: a test run started in
    # the background of a script inherits SIGINT ignored, and so would the watcher.
    watcher = subprocess.Popen([str(BIN / "notifyctl"), "--socket", daemon.socket_path, "watch"],
                               stdout=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines = []
    reader = threading.Thread(target=lambda: [lines.append(line) for line in watcher.stdout], daemon=True)
    reader.start()
    wait_for(lambda: lines, what="the snapshot line")
    notice_id = daemon.notifyctl("show", "watched", *FAST, check=True).stdout.strip()
    wait_for(lambda: any("finished" in line for line in lines), what="finished event")
    watcher.send_signal(signal.SIGINT)
    watcher.wait(10)
    text = "".join(lines)
    for kind in ["added", "fadingIn", "holding", "fadingOut", "finished"]:
        assert kind in text
    assert "watched" in text


def test_watch_json_lines_are_events(daemon):
    watcher = subprocess.Popen([str(BIN / "notifyctl"), "--socket", daemon.socket_path, "watch", "--json"],
                               stdout=subprocess.PIPE, text=True)
    first = json.loads(watcher.stdout.readline())
    assert first["kind"] == "snapshot"
    daemon.notifyctl("show", "j", *FAST, check=True)
    kinds = []
    while "finished" not in kinds:
        kinds.append(json.loads(watcher.stdout.readline())["kind"])
    watcher.terminate()
    watcher.wait(10)
    assert kinds[0] == "added"


def test_run_reports_success_and_passes_the_exit_status_through(daemon, tmp_path):
    ok = daemon.notifyctl("run", "--title", "build", "--", "sh", "-c", "echo out; echo err >&2")
    assert ok.returncode == 0 and ok.stdout == "out\n" and "err" in ok.stderr
    failing = daemon.notifyctl("run", "--", "sh", "-c", "exit 7")
    assert failing.returncode == 7
    with daemon.queue() as queue:
        notices = queue.List()["notices"] + queue.History()["notices"]
    messages = [n.get("message") for n in notices]
    assert any(m and m.startswith("succeeded in") for m in messages)
    assert any(m and m.startswith("failed (exit 7) after") for m in messages)


def test_run_still_runs_the_command_when_the_daemon_is_down(tmp_path):
    result = subprocess.run([str(BIN / "notifyctl"), "--socket", str(tmp_path / "none.sock"), "run", "--", "sh", "-c", "exit 4"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 4
    assert "cannot connect" in result.stderr


def test_json_output_escapes_del_and_c1_controls(daemon):
    """JSON allows DEL and U+0080–U+009F raw, but a terminal acts on them (U+009B is CSI)."""
    title = "bell\x7f csi\x9b[31m nel\x85 end"
    with daemon.queue() as queue:
        id = queue.Show(title=title, body="next\x9dline", urgency="critical")["id"]
    outputs = [
        daemon.notifyctl("get", str(id), "--json", check=True).stdout,
        daemon.notifyctl("list", "--json", check=True).stdout,
        daemon.notifyctl("call", "io.notifyd.Queue.Get", json.dumps({"id": id}), check=True).stdout,
    ]
    for output in outputs:
        assert not any(0x7F <= ord(character) <= 0x9F for character in output), repr(output)
        assert "\\u007f" in output and "\\u009b" in output and "\\u0085" in output and "\\u009d" in output
    # The escapes mean the same characters.
    assert json.loads(outputs[0])["notice"]["title"] == title


@pytest.mark.parametrize("config", ["", "[Queue]\nMaxVisible=1\n"], ids=["defaults", "one-slot"])
def test_a_critical_notice_held_until_ended_keeps_nobody_waiting(make_daemon, runtime_dir, config):
    # `notifyctl show x --urgency critical; notifyctl show y`: y shows while x still holds, even
    # with a single slot (x leaves it once holding: [Queue] MaxSticky=).
    path = runtime_dir / "sticky.conf"
    path.write_text(config + "[Timing]\nFadeIn=100ms\n[DBus]\nMode=off\n")
    daemon = make_daemon("--config", str(path))
    x = daemon.notifyctl("show", "x", "--urgency", "critical", check=True).stdout.strip()
    y = daemon.notifyctl("show", "y", check=True).stdout.strip()
    phases = lambda: {n["id"]: n["phase"] for n in daemon.queue().List()["notices"]}
    wait_for(lambda: phases().get(int(x)) == "holding" and phases().get(int(y)) in ("fadingIn", "holding"),
             what="y on screen beside x holding")
    daemon.notifyctl("end", x, check=True)


# Acting on a notice without knowing its id (issue 32): the newest visible one, by app, the picker.

def shown(daemon, title, *options):
    notice_id = int(daemon.notifyctl("show", title, "--fade-in", "0", "--hold", "60s", *options, check=True).stdout)
    wait_for(lambda: daemon.get(notice_id)["phase"] == "holding", what=f"notice {notice_id} to show")
    return notice_id


def test_invoke_and_dismiss_without_an_id_act_on_the_newest_visible_notice(daemon):
    # Nothing visible: said, and status 1.
    nothing = daemon.notifyctl("dismiss")
    assert (nothing.returncode, nothing.stderr.strip()) == (1, "notifyctl: no notice is visible")
    assert daemon.notifyctl("invoke").returncode == 1
    older = shown(daemon, "Older", "--action", "default=Open", "--action", "later=Later")
    newer = shown(daemon, "Newer", "--action", "default=Open", "--action", "later=Later")
    daemon.notifyctl("suspend", check=True)
    queued = daemon.notifyctl("show", "Queued, not visible", check=True)  # held back: not the newest visible
    assert daemon.notifyctl("invoke", "later", check=True).returncode == 0
    assert daemon.get(newer)["invoked"] == "later"
    assert daemon.notifyctl("dismiss", check=True).stdout.strip() == str(older)
    assert daemon.get(older)["outcome"] == "dismissed"
    daemon.notifyctl("resume", check=True)
    # With an id and no action: the default one.
    third = shown(daemon, "Third", "--action", "default=Open")
    daemon.notifyctl("invoke", str(third), check=True)
    assert daemon.get(third)["invoked"] == "default"
    assert queued.returncode == 0


def test_dismiss_app_closes_every_unfinished_notice_of_the_apps_a_glob_matches(daemon):
    slack = [shown(daemon, f"Message {n}", "--app", "slack-desktop") for n in range(2)]
    mail = shown(daemon, "Mail", "--app", "thunderbird")
    daemon.notifyctl("suspend", check=True)
    waiting = int(daemon.notifyctl("show", "Queued", "--app", "slack", check=True).stdout)
    dismissed = daemon.notifyctl("dismiss", "--app", "slack*", check=True).stdout.split()
    assert sorted(map(int, dismissed)) == sorted(slack + [waiting])
    assert all(daemon.get(n)["outcome"] == "dismissed" for n in slack + [waiting])
    assert daemon.get(mail)["phase"] == "holding"
    assert daemon.notifyctl("dismiss", "--app", "nothing-like-it", check=True).stdout == ""


def test_menu_hands_the_labels_to_the_picker_and_invokes_the_one_chosen_with_its_exit_statuses(daemon, tmp_path):
    given = tmp_path / "given"
    # A picker that keeps what it was given and chooses the line naming "Archive".
    picker = f"tee {given} | grep Archive"
    notice = shown(daemon, "Mail", "--action", "default=Open", "--action", "archive=Archive",
                   "--action", "spam=Mark as spam")
    chosen = daemon.notifyctl("menu", "--picker", picker)
    assert (chosen.returncode, chosen.stdout.strip()) == (0, "archive"), chosen.stderr
    # The actions, then each of [Display] Snooze='s times (the built-in ones here).
    assert given.read_text() == (
        "Open\nArchive\nMark as spam\nRemind me in 10 min\nRemind me in 1 h\nRemind me tomorrow\n")
    assert daemon.get(notice)["invoked"] == "archive"
    # The picker closed, or what was typed names nothing: 9, nothing invoked.
    other = shown(daemon, "Other", "--action", "open=Open")
    assert daemon.notifyctl("menu", str(other), "--picker", "exit 1").returncode == 9
    assert daemon.notifyctl("menu", str(other), "--picker", "echo Nothing like it").returncode == 9
    assert daemon.get(other).get("invoked") is None
    # Without actions it still offers the snooze times; one chosen snoozes it.
    plain = shown(daemon, "Plain")
    snoozed = daemon.notifyctl("menu", str(plain), "--picker", "grep 'in 1 h'")
    assert snoozed.returncode == 0 and snoozed.stdout.startswith(f"#{plain} snoozed until"), snoozed
    assert daemon.get(plain)["snoozedUntil"] > time.time() + 3500
    # No picker to be found: 1, said.
    environment = {key: value for key, value in os.environ.items() if key not in ("DISPLAY", "WAYLAND_DISPLAY")}
    no_picker = subprocess.run([str(BIN / "notifyctl"), "--socket", daemon.socket_path, "menu", str(other)],
                               env={**environment, "XDG_CONFIG_HOME": str(tmp_path)}, capture_output=True, text=True,
                               timeout=30)
    assert no_picker.returncode == 1 and "no picker found" in no_picker.stderr


def test_reply_answers_the_field_and_show_wait_reply_prints_the_text(daemon):
    waiting = subprocess.Popen([str(BIN / "notifyctl"), "--socket", daemon.socket_path, "show", "Ada", "Lunch?",
                                "--fade-in", "0", "--hold", "60s", "--reply", "Type a reply", "--wait"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    notice = wait_for(lambda: [n["id"] for n in json.loads(daemon.notifyctl("list", "--json", check=True).stdout)
                               ["notices"] if n["phase"] == "holding"], what="the notice to show")[0]
    assert "reply:" in daemon.notifyctl("get", str(notice), check=True).stdout
    assert daemon.notifyctl("reply", str(notice), "on my way", check=True).returncode == 0
    output, errors = waiting.communicate(timeout=15)
    assert (waiting.returncode, output) == (0, "on my way\n"), errors
    refused = daemon.notifyctl("reply", str(notice), "again")
    assert refused.returncode == 1 and "id" in refused.stderr
