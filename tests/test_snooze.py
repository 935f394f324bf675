"""Snooze end to end (DESIGN §19, issue 55) against a real daemon, its socket and its SQLite store:
a snoozed notice leaves, waits unfinished, and comes back as itself (its id, its actions, a `Wait`
still open); it survives a SIGKILL, and a start after its time passed (as after the machine was
off) brings it back at once; D-Bus clients hear of no close in between and get their
`ActionInvoked` for the original id."""

import sqlite3
import time
from pathlib import Path

from conftest import wait_for
from session_bus import FAST_TIMING, bus, monitor, scratch, start_daemon  # noqa: F401 (fixtures)

def configured(make_daemon, runtime_dir, text="", **options):
    path = runtime_dir / "snooze.conf"
    path.write_text("[Display]\nMode=off\n[DBus]\nMode=off\n" + text)
    return make_daemon("--config", str(path), **options)


def store(daemon):
    return Path(daemon.env["XDG_STATE_HOME"]) / "notifyd" / "notifyd.db"


def test_a_snoozed_notice_leaves_waits_unfinished_and_comes_back_as_itself(make_daemon, runtime_dir):
    daemon = configured(make_daemon, runtime_dir)
    waiting = daemon.notifyctl_waiting("Deploy to production?", "--action", "yes=Deploy", "--action", "no=Later",
                                       "--fade-in", "0.2", "--hold", "30", "--fade-out", "0.3")
    notice = wait_for(lambda: [n["id"] for n in daemon.notices("list")], what="the notice")[0]
    daemon.visible(notice)
    snoozed_at = time.time()
    printed = daemon.notifyctl("snooze", str(notice), "3s", check=True).stdout
    assert printed.startswith(f"#{notice} snoozed until "), printed
    snoozed = daemon.get(notice)
    assert abs(snoozed["snoozedUntil"] - (snoozed_at + 3)) < 1.0, snoozed
    assert snoozed["phase"] in ("fadingOut", "waiting") and "outcome" not in snoozed
    # It leaves the screen and waits, counted and listed with its time.
    wait_for(lambda: daemon.get(notice)["phase"] == "waiting", what="the snoozed notice to leave")
    status = daemon.status()
    assert (status["snoozed"], status["snoozeEnds"]) == (1, snoozed["snoozedUntil"])
    assert [n["id"] for n in daemon.notices("list", "--snoozed")] == [notice]
    assert "snoozed until" in daemon.notifyctl("list", check=True).stdout
    assert "Snoozed:  1, the next back at" in daemon.notifyctl("status", check=True).stdout
    # Back at its time as the same notice, a whole timeline ahead, its Wait still open.
    back = wait_for(lambda: (lambda n: n if n["phase"] in ("fadingIn", "holding") else None)(daemon.get(notice)),
                    timeout=10, what="the notice back from its snooze")
    assert time.time() >= snoozed["snoozedUntil"] - 0.05
    assert "snoozedUntil" not in back and back["shown"] >= snoozed["snoozedUntil"] - 0.05
    assert waiting.poll() is None, "the Wait was answered while the notice was snoozed"
    assert daemon.status()["snoozed"] == 0 and daemon.notices("list", "--snoozed") == []
    # Its buttons still answer.
    daemon.notifyctl("invoke", str(notice), "yes", check=True)
    out, _ = waiting.communicate(timeout=20)
    assert (waiting.returncode, out.strip()) == (0, "yes")


def test_snooze_without_an_id_takes_the_newest_visible_and_unsnooze_brings_it_back_now(make_daemon, runtime_dir):
    daemon = configured(make_daemon, runtime_dir)
    older = daemon.show("older", "--fade-in", "0", "--hold", "60")
    newest = daemon.show("newest", "--fade-in", "0", "--hold", "60")
    daemon.visible(older)
    daemon.visible(newest)
    assert daemon.notifyctl("snooze", "--until", "tomorrow", check=True).stdout.startswith(f"#{newest} snoozed")
    assert daemon.get(older).get("snoozedUntil") is None
    until = daemon.get(newest)["snoozedUntil"]
    assert until - time.time() > 60  # tomorrow at 9:00
    wait_for(lambda: daemon.get(newest)["phase"] == "waiting", what="the notice to leave")
    daemon.notifyctl("unsnooze", str(newest), check=True)
    daemon.visible(newest)
    assert "snoozedUntil" not in daemon.get(newest)
    # Snoozed again, it goes again.
    daemon.notifyctl("snooze", str(newest), "1h", check=True)
    wait_for(lambda: daemon.get(newest)["phase"] == "waiting", what="the notice to leave again")


def test_bad_snoozes_say_what_is_wrong_and_change_nothing(make_daemon, runtime_dir):
    daemon = configured(make_daemon, runtime_dir)
    notice = daemon.show("steady", "--fade-in", "0", "--hold", "60")
    daemon.visible(notice)
    cases = [
        (("snooze", "42"), "could be an ID or seconds"),
        (("snooze", str(notice), "soon"), "expected a duration above 0"),
        (("snooze", str(notice), "0s"), "expected a duration above 0"),
        (("snooze", str(notice), "--until", "25:00"), "expected H:MM"),
        (("snooze", str(notice), "8d"), "at most 7 days"),
        (("snooze", "999", "10m"), "999"),
        (("unsnooze", str(notice)), "is not snoozed"),
    ]
    for arguments, words in cases:
        result = daemon.notifyctl(*arguments)
        assert result.returncode != 0 and words in result.stderr, (arguments, result.stderr)
    with daemon.queue() as queue:
        for parameters in ({"id": notice}, {"id": notice, "duration": 60, "until": time.time() + 60},
                           {"id": notice, "until": time.time() - 5}):
            try:
                queue.Snooze(**parameters)
            except Exception as error:  # the varlink package raises its VarlinkError
                assert "InvalidArgument" in str(error), error
            else:
                raise AssertionError(f"Snooze({parameters}) was accepted")
    assert daemon.get(notice)["phase"] == "holding" and daemon.status()["snoozed"] == 0


def test_a_snooze_survives_a_kill_and_comes_back_on_time(make_daemon, runtime_dir):
    daemon = configured(make_daemon, runtime_dir)
    notice = daemon.show("Call the plumber", "--fade-in", "0", "--hold", "60", "--fade-out", "0")
    daemon.visible(notice)
    daemon.notifyctl("snooze", str(notice), "4s", check=True)
    until = daemon.get(notice)["snoozedUntil"]
    daemon.kill()  # SIGKILL
    with sqlite3.connect(store(daemon)) as db:
        assert db.execute("SELECT snoozed_until, outcome FROM notices WHERE id = ?", (notice,)).fetchone() == (
            until, None)
    daemon.start()
    restarted = daemon.get(notice)
    if time.time() < until - 0.5:
        assert restarted["phase"] == "waiting" and restarted["snoozedUntil"] == until
    back = wait_for(lambda: (lambda n: n if n["phase"] in ("fadingIn", "holding") else None)(daemon.get(notice)),
                    timeout=15, what="the notice back after the restart")
    assert back["shown"] >= until - 0.05, (back["shown"], until)


def test_started_after_its_time_passed_a_snoozed_notice_comes_back_at_once(make_daemon, runtime_dir):
    daemon = configured(make_daemon, runtime_dir)
    notice = daemon.show("Stand up", "--fade-in", "0", "--hold", "60", "--fade-out", "0")
    daemon.visible(notice)
    daemon.notifyctl("snooze", str(notice), "1h", check=True)
    wait_for(lambda: daemon.get(notice)["phase"] == "waiting", what="the notice to leave")
    daemon.stop()
    # The machine was off past its time: the store says what it said, and the wall clock is past it
    # (libfaketime cannot step it for a Swift program: the preload hides its arguments from it).
    with sqlite3.connect(store(daemon)) as db:
        until, = db.execute("SELECT snoozed_until FROM notices WHERE id = ?", (notice,)).fetchone()
        assert until > time.time() + 3000
        db.execute("UPDATE notices SET snoozed_until = ? WHERE id = ?", (time.time() - 60, notice))
    daemon.start()
    back = daemon.visible(notice)
    assert "snoozedUntil" not in back and daemon.status()["snoozed"] == 0


def test_dbus_clients_hear_no_close_while_snoozed_and_their_action_answers_after(start_daemon, bus, monitor):
    daemon = start_daemon("server", FAST_TIMING + "Hold=60\n")
    notice = bus.gdbus_notify(summary="Standup in 5 min", actions=["join", "Join"], expire=0)
    daemon.visible(notice)
    daemon.notifyctl("snooze", str(notice), "2s", check=True)
    back = wait_for(lambda: (lambda n: n if n["phase"] in ("fadingIn", "holding") and n.get("shown", 0) >
                             n["created"] + 1 else None)(daemon.get(notice)), timeout=10, what="the notice back")
    assert back["actions"] == [{"key": "join", "label": "Join"}]
    # Signals are sent in order: had a close gone out at the snooze, it would be seen before this one.
    daemon.notifyctl("invoke", str(notice), "join", check=True)
    wait_for(lambda: ("ActionInvoked", notice, "join") in monitor.signals(), what="ActionInvoked")
    monitor.closed(notice, 2)
    closes = [signal for signal in monitor.signals() if signal[0] == "NotificationClosed"]
    assert closes == [("NotificationClosed", notice, 2)], closes
