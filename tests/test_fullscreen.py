"""Notices under a fullscreen window (issue 34, `Fullscreen=show|delay|pushback`): a real window made
fullscreen — zenity by `swaymsg fullscreen` on headless sway, which tells notifyd through
wlr-foreign-toplevel-management; xmessage by `wmctrl -b add,fullscreen` under openbox on Xvfb, which
tells it through `_NET_WM_STATE_FULLSCREEN` — judged by the pixels on the screen and by `Status`.

What waits is proved to wait by something that does not: a notice that shows over the window, with
the same timing, is drawn (or finishes) first, so a screenshot or a status read after it would have
seen the waiting one had it shown."""

import time

from conftest import wait_for
from display import CARD, needs_wayland, needs_x11, session, user, x11_config, x11_session  # noqa: F401 (fixtures)
from pixels import hex_colour
from test_screens import PAGER_CARD, rule_config

pytestmark = [needs_wayland, needs_x11]

CALL_CARD = PAGER_CARD


def shown(sway, colour):
    """The box of the pixels of `colour` on the screen, or None."""
    return sway.screenshot().box_near(colour, tolerance=8)


def fullscreen_state(daemon):
    return daemon.status().get("fullscreen")


def test_a_normal_notice_waits_under_a_fullscreen_window_while_a_call_shows_over_it_and_it_shows_after(session):
    sway, make_daemon = session
    # The call's rule says show, and nothing else of where: it goes over the window on the top layer's
    # behalf (a card that shows there is raised to the overlay layer).
    daemon = make_daemon(rule_config(("call", {"MatchApp": "phone", "Fullscreen": "show",
                                               "Background": hex_colour(CALL_CARD)})))
    window = sway.gtk_window()
    try:
        sway.swaymsg("[app_id=zenity]", "fullscreen", "enable")
        assert '"fullscreen_mode": 1' in sway.tree()
        wait_for(lambda: fullscreen_state(daemon) == {"delayed": 0, "pushedBack": 0}, timeout=10,
                 what="Status to say a fullscreen window has the keyboard")
        mail = daemon.show("Lunch?", "--app", "mail", "--fade-in", "0", "--hold", "60s")
        call = daemon.show("Incoming call", "--app", "phone", "--fade-in", "0", "--hold", "60s")
        wait_for(lambda: shown(sway, CALL_CARD), timeout=10, what="the call's card over the fullscreen window")
        sway.save_output("fullscreen-delay.png")
        # Drawn after the mail was accepted: had the mail shown, it would be on the screen too.
        assert shown(sway, CARD) is None
        assert daemon.get(mail)["phase"] == "queued"
        assert daemon.get(call)["phase"] == "holding"
        status = daemon.status()
        assert status["fullscreen"] == {"delayed": 1, "pushedBack": 0}, status
        assert "fullscreen window has the keyboard: 1 waiting" in daemon.notifyctl("status", check=True).stdout

        left = time.time()
        sway.swaymsg("[app_id=zenity]", "fullscreen", "disable")
        wait_for(lambda: shown(sway, CARD), timeout=10, what="the mail's card once the window left fullscreen")
        notice = daemon.get(mail)
        # Its timeline started only then: it holds its whole minute from there.
        assert notice["phase"] == "holding" and notice["shown"] >= left - 0.5, (notice, left)
        assert "fullscreen" not in daemon.status()
    finally:
        window.kill()
        window.wait()


def test_pushback_takes_a_shown_card_off_the_screen_its_hold_standing_still_and_brings_it_back(session):
    sway, make_daemon = session
    # Both on the overlay layer, so that the fullscreen window covers neither: only pushback can
    # take the mail's card away.
    daemon = make_daemon(rule_config(
        ("mail", {"MatchApp": "mail", "Fullscreen": "pushback", "Layer": "overlay"}),
        ("call", {"MatchApp": "phone", "Fullscreen": "show", "Layer": "overlay",
                  "Background": hex_colour(CALL_CARD)})))
    window = sway.gtk_window()
    # The mail must still be holding when the window goes fullscreen: a hold of HOLD outlasts the
    # seconds that takes on a machine busy with other tests (a hold of 3 s did not, once).
    hold = 8
    try:
        mail = daemon.show("Lunch?", "--app", "mail", "--fade-in", "0", "--hold", f"{hold}s", "--fade-out", "0")
        wait_for(lambda: shown(sway, CARD), timeout=10, what="the mail's card")
        sway.swaymsg("[app_id=zenity]", "fullscreen", "enable")
        wait_for(lambda: shown(sway, CARD) is None, timeout=10, what="the mail's card pushed off the screen")
        assert fullscreen_state(daemon) == {"delayed": 0, "pushedBack": 1}
        # A call with the same hold, shown now, finishes; the mail, shown before it, does not.
        call = daemon.show("Incoming call", "--app", "phone", "--fade-in", "0", "--hold", f"{hold}s", "--fade-out", "0")
        wait_for(lambda: shown(sway, CALL_CARD), timeout=10, what="the call's card over the fullscreen window")
        assert shown(sway, CARD) is None
        wait_for(lambda: daemon.get(call).get("outcome") == "completed", timeout=hold + 12, what="the call to finish")
        assert daemon.get(mail)["phase"] == "holding"

        back = time.time()
        sway.swaymsg("[app_id=zenity]", "fullscreen", "disable")
        wait_for(lambda: shown(sway, CARD), timeout=10, what="the mail's card back")
        # It holds its whole hold again from there, not what was left.
        finished = wait_for(lambda: daemon.get(mail).get("finished"), timeout=hold + 12, what="the mail to finish")
        assert daemon.get(mail)["outcome"] == "completed"
        assert finished - back >= hold - 0.5, (back, finished)
    finally:
        window.kill()
        window.wait()


def test_on_x11_a_fullscreen_window_delays_a_normal_notice_a_critical_one_shows_over_it_and_the_rest_follow(x11_session):
    x, make_daemon = x11_session
    processes = [x.window_manager()]
    try:
        game, window = x.xmessage("notifyd-game", "300x100+100+500", "a game")
        processes.append(game)
        x.run("xdotool", "windowactivate", "--sync", window)
        daemon = make_daemon(x11_config() + f"[Display:critical]\nBackground={hex_colour(CALL_CARD)}\n")

        def boxes(colour):
            return x.screenshot().box_near(colour, tolerance=8)

        # A critical card on the screen before the window goes fullscreen: the window manager raises
        # the window over it, and notifyd raises the card again.
        critical = daemon.show("Disk failing", "--urgency", "critical", "--fade-in", "0", "--hold", "60s")
        wait_for(lambda: boxes(CALL_CARD), what="the critical card")
        x.run("wmctrl", "-i", "-r", window, "-b", "add,fullscreen")
        wait_for(lambda: fullscreen_state(daemon) is not None, timeout=10,
                 what="Status to say a fullscreen window has the keyboard")
        normal = daemon.show("Build passed", "--fade-in", "0", "--hold", "60s")
        # A second critical card, drawn after the normal one was accepted: had that one shown, it
        # would be on the screen by the time this one is.
        daemon.show("Disk still failing", "--urgency", "critical", "--fade-in", "0", "--hold", "60s")
        # Each card some 40 pixels high: both, with the gap between them, over 80.
        wait_for(lambda: (lambda box: box and box[3] - box[1] > 80)(boxes(CALL_CARD)),
                 what="both critical cards over the fullscreen window")
        x.save(x.directory / "x11-fullscreen.png")
        assert daemon.get(critical)["phase"] == "holding"
        assert daemon.get(normal)["phase"] == "queued"
        assert boxes(CARD) is None
        assert fullscreen_state(daemon) == {"delayed": 1, "pushedBack": 0}

        x.run("wmctrl", "-i", "-r", window, "-b", "remove,fullscreen")
        wait_for(lambda: boxes(CARD), what="the normal card once the window left fullscreen")
        assert daemon.get(normal)["phase"] == "holding"
        assert fullscreen_state(daemon) is None
    finally:
        for process in reversed(processes):
            process.terminate()
            process.wait(timeout=10)
