"""Unread notices, restore and forget end to end (DESIGN §13, issue 33), against a real daemon, its
socket and its SQLite store: what nobody saw is counted (Status, STATUS=, notifyctl status, the
Waybar and i3bar lines) through restarts, and read, restore and forget act on history."""

import json
import sqlite3
import subprocess
from pathlib import Path

from conftest import wait_for
from test_examples import LineReader


def store(daemon):
    return Path(daemon.env["XDG_STATE_HOME"]) / "notifyd" / "notifyd.db"


def ids(result):
    return [int(line) for line in result.stdout.split()]


def configured(make_daemon, runtime_dir, text):
    path = runtime_dir / "unread.conf"
    path.write_text(text)
    return make_daemon("--config", str(path))


def test_drawn_nowhere_a_notice_is_unread_counted_everywhere_and_kept_through_a_restart(make_daemon, runtime_dir):
    # No display and no other server: nobody saw what ran its course.
    daemon = configured(make_daemon, runtime_dir, "[Display]\nMode=off\n[DBus]\nMode=off\n")
    first = daemon.show("Backup done", "--app", "backup", "--fade-in", "0", "--hold", "0.2", "--fade-out", "0")
    second = daemon.show("Disk 91%", "--app", "df", "--fade-in", "0", "--hold", "0.2", "--fade-out", "0")
    cancelled = daemon.show("Taken back", "--hold", "60")
    daemon.notifyctl("cancel", str(cancelled), "--now", check=True)
    assert daemon.finished(first)["unread"] is True
    assert daemon.finished(second)["unread"] is True
    assert "unread" not in daemon.finished(cancelled)  # its sender took it back
    assert daemon.status()["unread"] == 2
    text = daemon.notifyctl("status", check=True).stdout
    assert "(2 unread)" in text, text
    assert [n["id"] for n in daemon.notices("history", "--unread")] == [second, first]
    assert f"#{second}*" in daemon.notifyctl("history", check=True).stdout
    # Kept in the store: a restart counts them again.
    daemon.stop()
    with sqlite3.connect(store(daemon)) as db:
        assert sorted(r[0] for r in db.execute("SELECT id FROM notices WHERE unread = 1")) == [first, second]
    daemon.start()
    assert daemon.status()["unread"] == 2
    assert ids(daemon.notifyctl("read", str(first), check=True)) == [first]
    assert daemon.status()["unread"] == 1
    assert ids(daemon.notifyctl("read", check=True)) == [second]  # no id: all of them
    assert daemon.status()["unread"] == 0
    daemon.stop()
    daemon.start()
    assert daemon.status()["unread"] == 0 and "unread" not in daemon.get(first)


def test_folded_notices_are_unread_and_restore_brings_back_what_was_missed(make_daemon, runtime_dir):
    daemon = configured(make_daemon, runtime_dir,
                        "[Display]\nMode=off\n[DBus]\nMode=off\n[DoNotDisturb]\nSummary=yes\n")
    daemon.notifyctl("suspend", "--allow", "none", check=True)
    held = [daemon.show(f"Mail {n}", "--app", "mail", "--hold", "0.2", "--fade-in", "0", "--fade-out", "0")
            for n in range(3)]
    daemon.notifyctl("resume", check=True)
    for notice in held:
        assert daemon.finished(notice)["outcome"] == "folded"
        assert daemon.get(notice)["unread"] is True
    # restore with no id: the last notice to finish; --last N, ids: newest first.
    restored = ids(daemon.notifyctl("restore", str(held[0]), check=True))
    copy = daemon.get(restored[0])
    assert copy["restoredFrom"] == held[0] and copy["title"] == "Mail 0" and copy["app"] == "mail"
    assert copy["id"] not in held and "outcome" not in copy
    assert "unread" not in daemon.get(held[0])  # restoring it read it
    assert copy["phase"] in ("waiting", "queued", "fadingIn", "holding", "fadingOut")
    more = ids(daemon.notifyctl("restore", "--last", "2", check=True))
    assert len(more) == 2 and len(set(more) | set(restored)) == 3
    assert all(daemon.get(n)["restoredFrom"] for n in more)
    # Under do-not-disturb a restore still shows, as a critical notice does: a person asked for it.
    daemon.notifyctl("suspend", check=True)
    again = ids(daemon.notifyctl("restore", str(held[2]), check=True))[0]
    wait_for(lambda: daemon.get(again)["phase"] in ("fadingIn", "holding", "fadingOut", "finished"),
             what="the restored notice shown under do-not-disturb")


def test_forget_removes_from_history_and_the_store_by_id_app_or_all(make_daemon, runtime_dir):
    daemon = configured(make_daemon, runtime_dir, "[Display]\nMode=off\n[DBus]\nMode=off\n")
    quick = ["--fade-in", "0", "--hold", "0.1", "--fade-out", "0"]
    secret = daemon.show("Your code is 428913", "--app", "bank", *quick)
    chats = [daemon.show(f"Chat {n}", "--app", f"chat-{n}", *quick) for n in range(2)]
    kept = daemon.show("Build passed", "--app", "ci", *quick)
    running = daemon.show("Still running", "--hold", "60")
    for notice in [secret, *chats, kept]:
        daemon.finished(notice)
    assert ids(daemon.notifyctl("forget", str(secret), check=True)) == [secret]
    missing = daemon.notifyctl("get", str(secret))
    assert missing.returncode != 0
    with sqlite3.connect(store(daemon)) as db:
        assert db.execute("SELECT count(*) FROM notices WHERE id = ?", (secret,)).fetchone()[0] == 0
        assert "428913" not in " ".join(str(r) for r in db.execute("SELECT * FROM notices"))
    assert sorted(ids(daemon.notifyctl("forget", "--app", "chat-*", check=True))) == chats
    refused = daemon.notifyctl("forget", str(running))
    assert refused.returncode != 0 and "has not finished" in refused.stderr
    unknown = daemon.notifyctl("forget", "424242")
    assert unknown.returncode != 0
    usage = daemon.notifyctl("forget")
    assert usage.returncode != 0 and "say which notices" in usage.stderr
    assert [n["id"] for n in daemon.notices("history")] == [kept]
    assert ids(daemon.notifyctl("forget", "--all", check=True)) == [kept]
    assert daemon.notices("history") == [] and daemon.status()["unread"] == 0
    assert daemon.get(running)["phase"] in ("fadingIn", "holding")  # unfinished ones are not history


def test_the_bar_lines_carry_the_unread_count_and_classes(make_daemon, runtime_dir):
    daemon = configured(make_daemon, runtime_dir, "[Display]\nMode=off\n[DBus]\nMode=off\n")
    environment = {**daemon.env, "NOTIFYD_SOCKET": daemon.socket_path}
    waybar = subprocess.Popen([*daemon.notifyctl_command(), "watch", "--format", "waybar"], env=environment,
                              stdout=subprocess.PIPE)
    i3bar = subprocess.Popen([*daemon.notifyctl_command(), "watch", "--format", "i3bar"], env=environment,
                             stdout=subprocess.PIPE)
    try:
        bar, status_line = LineReader(waybar), LineReader(i3bar)
        first = json.loads(bar.next_line())
        assert first["text"] == "" and first["alt"] == "none" and "unread" not in first["class"]
        notice = daemon.show("Backup done", "--fade-in", "0", "--hold", "0.2", "--fade-out", "0")
        line = json.loads(bar.until(lambda l: json.loads(l)["text"] == "1", "the unread count on the bar"))
        assert line["alt"] == "unread" and "unread" in line["class"] and "idle" in line["class"]
        assert "1 unread notice" in line["tooltip"]
        daemon.notifyctl("suspend", check=True)
        line = json.loads(bar.until(lambda l: "dnd" in json.loads(l)["class"], "the dnd class"))
        assert line["alt"] == "dnd-unread" and "suspended" in line["class"]
        daemon.notifyctl("read", str(notice), check=True)
        line = json.loads(bar.until(lambda l: json.loads(l)["alt"] == "dnd-none", "the count read"))
        assert line["text"] == "" and "unread" not in line["class"]
        # i3bar: after the header and the array's opening, one status line per change.
        assert status_line.next_line().strip() == '{"version":1}'
        assert status_line.next_line().strip() == "["

        def text(raw):
            blocks = json.loads(raw.strip().lstrip(","))
            return blocks[0]["full_text"] if blocks else ""

        status_line.until(lambda l: text(l) == "1 unread", "1 unread on i3bar")
        status_line.until(lambda l: text(l) == "notifications suspended, 1 unread", "suspended and unread")
        status_line.until(lambda l: text(l) == "notifications suspended", "suspended, all read")
    finally:
        for process in (waybar, i3bar):
            process.kill()
            process.wait()
