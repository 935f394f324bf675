"""The notification center notifyd draws (DESIGN §13), on headless sway: opened and closed by
command, by Escape and by a click outside; what it lists, read by being shown; keys, filter, scroll,
buttons, the do-not-disturb switch; judged by grim's pixels and by the daemon's answers.

The compositor, the daemon and its clients run as an unprivileged user (test_popups_wayland's
fixtures); the virtual pointer and keyboard are root's.
"""

import json
import os
import re
import tempfile
from pathlib import Path

from conftest import wait_for
from display import (BACKGROUND, OUTPUT, PARKED, UserClient, as_user, bus, needs_wayland, needs_x11, session,
                     spawn_as_user_with_bus, user, x11_session)  # noqa: F401 (fixtures)
from pixels import blend, close_to
from session_bus import notification_signals
from wayland_pointer import VirtualKeyboard, VirtualPointer

pytestmark = [needs_wayland, needs_x11]

PANEL = (0x18, 0x30, 0x50)  # [Display:normal] Background: the panel's, far from sway's background
FOREGROUND = (0xF0, 0xF0, 0xF0)
ACCENT = (0xE0, 0x40, 0x20)  # [Display:normal] Border: the edge, the switch, the chosen row
WIDTH = 400


def center_config(anchor="right", extra=""):
    return "\n".join([
        "[DBus]", "Mode=off", "[Display]", "Mode=wayland", "Font=DejaVu Sans 11", "Anchor=top-right",
        "[Display:normal]", "Background=#%02x%02x%02x" % PANEL, "Foreground=#%02x%02x%02x" % FOREGROUND,
        "Border=#%02x%02x%02x" % ACCENT, "[Idle]", "After=off", "[DoNotDisturb]", "Summary=yes",
        "[Center]", f"Anchor={anchor}", f"Width={WIDTH}", extra]) + "\n"


def panel_region(anchor="right"):
    return (OUTPUT[0] - WIDTH, 0, OUTPUT[0], OUTPUT[1]) if anchor == "right" else (0, 0, WIDTH, OUTPUT[1])


def center_open(daemon):
    return daemon.status()["display"].get("center") is True


def shows_panel(sway, anchor="right"):
    """The panel fills its edge from top to bottom: its colour near both ends, beside the edge line."""
    x0, _, x1, _ = panel_region(anchor)
    image = sway.screenshot(region=panel_region(anchor))
    middle = (x0 + x1) // 2
    return close_to(image.pixel(middle, 2), PANEL) and close_to(image.pixel(middle, OUTPUT[1] - 3), PANEL)


def gone(sway, anchor="right"):
    x0, _, x1, _ = panel_region(anchor)
    image = sway.screenshot(region=panel_region(anchor))
    return image.pixel((x0 + x1) // 2, OUTPUT[1] - 3) == BACKGROUND


def seed(daemon, read=1, unread=3):
    """History: `read` notices of app backup, seen as popups, and `unread` of app mail, folded into
    do-not-disturb's summary (never shown: unread)."""
    for n in range(read):
        daemon.finished(daemon.show(f"Backup {n} done", "all files copied", "--app", "backup", "--fade-in", "0",
                                     "--hold", "0.3", "--fade-out", "0"))
    daemon.notifyctl("suspend", "--allow", "none", check=True)
    held = [daemon.show(f"Mail {n}", "from a colleague", "--app", "mail", "--hold", "0.3", "--fade-in", "0",
                        "--fade-out", "0") for n in range(unread)]
    daemon.notifyctl("resume", check=True)
    for notice in held:
        daemon.finished(notice)
    # The summary of what was held back goes too: nothing is live.
    daemon.notifyctl("dismiss", "--all", check=True)
    wait_for(lambda: not json.loads(daemon.notifyctl("list", "--json", check=True).stdout)["notices"],
             what="nothing live")
    return held


def ink_bottom(sway, anchor="right"):
    """The lowest row of the panel with anything drawn on it but the panel's colour and its edge."""
    x0, _, x1, _ = panel_region(anchor)
    image = sway.screenshot(region=panel_region(anchor))
    for y in range(OUTPUT[1] - 1, -1, -1):
        if any(not close_to(image.pixel(x, y), PANEL, 6) for x in range(x0 + 8, x1 - 8, 2)):
            return y
    return None


def box_of(sway, colour, region, tolerance=6):
    image = sway.screenshot(region=region)
    return image.box_near(colour, tolerance=tolerance)


def lit_rows(sway, alpha, anchor="right"):
    """The rows (y0, y1) lit in the accent colour at `alpha`, down a column near the panel's outer
    edge, where rows are filled and nothing else is drawn; None when none is."""
    x = OUTPUT[0] - 4 if anchor == "right" else 4
    image = sway.screenshot(region=(x, 0, x + 1, OUTPUT[1]))
    lit = [y for y in range(OUTPUT[1]) if close_to(image.pixel(x, y), blend(ACCENT, PANEL, alpha), 4)]
    return (lit[0], lit[-1] + 1) if lit and lit[-1] - lit[0] + 1 == len(lit) else None


def save(sway, name):
    sway.save(Path(os.environ.get("NOTIFYD_SCREENSHOTS", tempfile.gettempdir())) / name)


def test_the_center_opens_on_its_edge_reads_what_it_shows_and_closes_by_command_escape_and_a_click_outside(session):
    sway, make_daemon = session
    daemon = make_daemon(center_config())
    seed(daemon)
    assert daemon.status()["unread"] == 3
    assert not center_open(daemon)

    assert daemon.notifyctl("center", "open").returncode == 0
    wait_for(lambda: shows_panel(sway), what="the center's panel, its output's full height")
    assert center_open(daemon)
    # Its edge toward the screen's middle, in the accent colour; sway's background beside it.
    image = sway.screenshot(region=(OUTPUT[0] - WIDTH - 4, 0, OUTPUT[0], 40))
    assert close_to(image.pixel(OUTPUT[0] - WIDTH, 20), ACCENT, 10), image.pixel(OUTPUT[0] - WIDTH, 20)
    assert image.pixel(OUTPUT[0] - WIDTH - 2, 20) == BACKGROUND
    # The three unread mails are shown: read now, everywhere.
    wait_for(lambda: daemon.status()["unread"] == 0, what="what the center shows to be read")
    save(sway, "notifyd-center.png")
    # Opening again leaves it open; the same command toggles.
    assert daemon.notifyctl("center", "open").returncode == 0 and center_open(daemon)
    assert daemon.notifyctl("center").returncode == 0
    wait_for(lambda: gone(sway), what="the center to close")
    assert not center_open(daemon)

    keyboard = VirtualKeyboard(str(sway.directory), sway.display)
    pointer = VirtualPointer(str(sway.directory), sway.display)
    pointer.move_to(*PARKED, *OUTPUT)
    try:
        daemon.notifyctl("center", "toggle", check=True)
        wait_for(lambda: shows_panel(sway), what="the center, again")
        keyboard.press("Escape")
        wait_for(lambda: gone(sway), what="Escape to close the center")
        wait_for(lambda: not center_open(daemon), what="Status to say it is closed")

        daemon.notifyctl("center", "open", check=True)
        wait_for(lambda: shows_panel(sway), what="the center, once more")
        pointer.move_to(300, 300, *OUTPUT)
        pointer.click()
        pointer.move_to(*PARKED, *OUTPUT)
        wait_for(lambda: gone(sway), what="a click outside to close the center")
        assert not center_open(daemon)
    finally:
        keyboard.close()
        pointer.close()

    bad = daemon.notifyctl("center", "sideways")
    assert bad.returncode == 2 and "open, close and toggle" in bad.stderr, bad.stderr


def test_typing_filters_escape_clears_and_keys_restore_and_forget(session):
    sway, make_daemon = session
    daemon = make_daemon(center_config())
    seed(daemon, read=1, unread=3)
    keyboard = VirtualKeyboard(str(sway.directory), sway.display)
    # Made first: the daemon binds the seat's new pointer before any click of it comes.
    pointer = VirtualPointer(str(sway.directory), sway.display)
    pointer.move_to(*PARKED, *OUTPUT)
    try:
        daemon.notifyctl("center", "open", check=True)
        wait_for(lambda: shows_panel(sway), what="the center")
        full = wait_for(lambda: ink_bottom(sway), what="the list drawn")
        # "backup" matches one notice of four: the list ends higher, under a filter field.
        keyboard.type("backup")
        filtered = wait_for(lambda: (lambda b: b if b and b < full - 40 else None)(ink_bottom(sway)),
                            what="the filtered list to be shorter")
        save(sway, "notifyd-center-filter.png")
        keyboard.press("Escape")  # ends the filter; the center stays
        wait_for(lambda: ink_bottom(sway) == full, what="the whole list back")
        assert center_open(daemon)
        assert filtered < full

        def history_ids():
            return [n["id"] for n in json.loads(daemon.notifyctl("history", "--json", check=True).stdout)["notices"]]

        # Down: the first group's heading, lit; Enter folds it (the list ends higher), Enter again
        # unfolds it.
        keyboard.press("Down")
        wait_for(lambda: lit_rows(sway, 0.3), what="the heading lit")
        keyboard.press("Return")
        wait_for(lambda: (ink_bottom(sway) or full) < full, what="Enter to fold the group")
        keyboard.press("Return")
        wait_for(lambda: ink_bottom(sway) == full, what="Enter to unfold it")
        # Down: its first entry, lit: the newest notice (groups go by their newest). Its × (at the
        # row's top right) forgets it.
        keyboard.press("Down")
        top, bottom = wait_for(lambda: lit_rows(sway, 0.22), what="the chosen row lit")
        assert 30 <= bottom - top <= 120, (top, bottom)
        history = history_ids()
        pointer.move_to(OUTPUT[0] - 20, top + 18, *OUTPUT)
        pointer.click()
        wait_for(lambda: history[0] not in history_ids(), what="its × to forget it")
        pointer.move_to(*PARKED, *OUTPUT)
        # Down, Down: the next group's heading and its first entry, the newest left; Delete forgets
        # it, and the row after it is chosen; Enter shows that one again and closes the center.
        keyboard.press("Down")
        keyboard.press("Down")
        keyboard.press("Delete")
        wait_for(lambda: history[1] not in history_ids(), what="Delete to forget it")
        keyboard.press("Return")
        wait_for(lambda: gone(sway), what="Enter to close the center")
        # Shown again as a new notice: while it shows (it holds 0.3 s), or in history once it has
        # gone (a poll beside another make test can take longer than that).
        restored = wait_for(lambda: [n for n in daemon.notices("list") + daemon.notices("history")
                                     if n.get("restoredFrom")], what="the chosen notice restored")
        assert restored[0]["restoredFrom"] == history[2], (restored, history[:3])
    finally:
        keyboard.close()
        pointer.close()


def test_a_long_history_scrolls_and_the_switch_suspends(session):
    sway, make_daemon = session
    daemon = make_daemon(center_config())
    for n in range(40):
        daemon.show(f"Job {n} finished", "--app", f"ci-{n % 3}", "--fade-in", "0", "--hold", "0.05", "--fade-out", "0")
    wait_for(lambda: daemon.status()["finished"] >= 40, timeout=30, what="40 notices to finish")
    pointer = VirtualPointer(str(sway.directory), sway.display)
    pointer.move_to(*PARKED, *OUTPUT)
    try:
        daemon.notifyctl("center", "open", check=True)
        wait_for(lambda: shows_panel(sway), what="the center")
        # The titles' side of the panel: the pointer's cursor, over the other side, is not in it.
        region = (OUTPUT[0] - WIDTH, 0, OUTPUT[0] - WIDTH // 2 - 20, OUTPUT[1])
        top = sway.screenshot(region=region)
        pointer.move_to(OUTPUT[0] - WIDTH // 2, OUTPUT[1] // 2, *OUTPUT)
        for _ in range(5):
            pointer.scroll(15, wheel=True)
        scrolled = wait_for(lambda: (lambda i: i if i.pixels != top.pixels else None)(sway.screenshot(region=region)),
                            what="the list to scroll")
        save(sway, "notifyd-center-scrolled.png")
        for _ in range(5):
            pointer.scroll(-15, wheel=True)
        wait_for(lambda: sway.screenshot(region=region).pixels == top.pixels or None, what="the list back at its top")
        assert scrolled.pixels != top.pixels

        # The switch: the pill at the start of the header's second line, dim while nothing is held
        # back; a click suspends.
        header = (OUTPUT[0] - WIDTH, 36, OUTPUT[0] - WIDTH + 60, 80)
        pill = wait_for(lambda: box_of(sway, blend(FOREGROUND, PANEL, 0.25), header, 4), what="the switch")
        pointer.move_to((pill[0] + pill[2]) // 2, (pill[1] + pill[3]) // 2, *OUTPUT)
        pointer.click()
        wait_for(lambda: daemon.status()["suspended"], what="the switch to suspend")
        wait_for(lambda: box_of(sway, ACCENT, (pill[0], pill[1], pill[2], pill[3]), 6), what="the switch lit")
        pointer.click()
        wait_for(lambda: not daemon.status()["suspended"], what="the switch to resume")

        # "Clear all", the header's button at its top right: the history goes, the list is empty.
        fill = blend(FOREGROUND, PANEL, 0.14)
        button = wait_for(lambda: box_of(sway, fill, (OUTPUT[0] - 120, 0, OUTPUT[0], 40), 4), what="Clear all")
        pointer.move_to(button[0] + 6, (button[1] + button[3]) // 2, *OUTPUT)
        pointer.click()
        wait_for(lambda: daemon.status()["finished"] == 0, what="Clear all to forget the history")
        wait_for(lambda: (ink_bottom(sway) or 0) < 200, what="an empty list")
        save(sway, "notifyd-center-empty.png")
    finally:
        pointer.close()


def test_popups_stand_aside_while_it_is_open_and_a_live_notices_button_invokes(session):
    sway, make_daemon = session
    daemon = make_daemon(center_config(anchor="left"))
    notice = daemon.show("Deploy ready", "--fade-in", "0", "--hold", "60s", "--action", "later=Later")
    popups = (OUTPUT[0] // 2, 0, OUTPUT[0], OUTPUT[1])
    wait_for(lambda: sway.screenshot(region=popups).box(), what="the popup")
    pointer = VirtualPointer(str(sway.directory), sway.display)
    pointer.move_to(*PARKED, *OUTPUT)
    try:
        daemon.notifyctl("center", "open", check=True)
        wait_for(lambda: shows_panel(sway, "left"), what="the center on the left")
        wait_for(lambda: sway.screenshot(region=popups).box() is None, what="the popup to stand aside")
        assert daemon.get(notice)["phase"] == "holding"
        # The live notice's one button, in the "Now" group, at its row's foot.
        # The live notice's one button, in the "Now" group, at its row's foot: the rows of its fill
        # down a column at its left end, away from its label.
        fill = blend(FOREGROUND, PANEL, 0.14)

        def button_rows():
            image = sway.screenshot(region=(0, 0, WIDTH, OUTPUT[1]))
            return [y for y in range(80, OUTPUT[1]) if close_to(image.pixel(30, y), fill, 4)]

        rows = wait_for(button_rows, what="the entry's button")
        save(sway, "notifyd-center-live.png")
        assert rows[-1] - rows[0] + 1 == len(rows) >= 16, rows  # one button, a line of text high
        pointer.move_to(WIDTH // 4, (rows[0] + rows[-1]) // 2, *OUTPUT)
        pointer.click()
        # Off the panel and off the popups' half: the cursor is ink too.
        pointer.move_to(WIDTH + 100, OUTPUT[1] - 5, *OUTPUT)
        wait_for(lambda: daemon.get(notice).get("invoked") == "later", what="the button to invoke its action")
        # Invoked, it finishes: its entry goes from "Now" to its app's history, without its button,
        # and the panel is drawn again so. The new notice's row is measured against that layout (it
        # was measured against the old one when, under TSan, the move came after the reading).
        daemon.finished(notice)
        # (Its app's heading is as light as a button, but not a button's height.)
        wait_for(lambda: len(button_rows()) < 16, what="the invoked notice's button to go")
        # A notice that comes while it is open shows in it, not as a popup.
        before = ink_bottom(sway, "left")
        arrived = daemon.show("Arrives while open", "a body of two words", "--fade-in", "0", "--hold", "30s")
        wait_for(lambda: (ink_bottom(sway, "left") or 0) > (before or 0) + 20, what="the new notice in the center")
        assert daemon.get(arrived)["phase"] == "holding"
        assert sway.screenshot(region=popups).box() is None
        daemon.notifyctl("center", "close", check=True)
        wait_for(lambda: gone(sway, "left"), what="the center to close")
        # Closed, the popups come back.
        other = daemon.show("After", "--fade-in", "0", "--hold", "30s")
        wait_for(lambda: sway.screenshot(region=popups).box(), what="popups again")
        assert daemon.get(other)["phase"] == "holding"
    finally:
        pointer.close()


def button_rows(sway, anchor="right"):
    """The rows of the buttons' fill down a column at the left end of an entry's first button."""
    x = (OUTPUT[0] - WIDTH if anchor == "right" else 0) + 30
    image = sway.screenshot(region=(x, 0, x + 1, OUTPUT[1]))
    return [y for y in range(80, OUTPUT[1]) if close_to(image.pixel(x, y), blend(FOREGROUND, PANEL, 0.14), 4)]


def test_a_button_in_the_center_sends_action_invoked_on_the_bus(session, bus):
    sway, make_daemon = session
    daemon = make_daemon(center_config().replace("[DBus]\nMode=off", "[DBus]\nMode=server"),
                         env={"DBUS_SESSION_BUS_ADDRESS": bus})
    wait_for(lambda: "dbus: serving org.freedesktop.Notifications" in daemon.stderr(), timeout=10,
             what="notifyd to serve the bus")
    pointer = VirtualPointer(str(sway.directory), sway.display)
    pointer.move_to(*PARKED, *OUTPUT)
    try:
        with notification_signals(bus, sway.directory) as signals:
            # -A waits for the action: notify-send prints the id, then the action's name.
            sender = spawn_as_user_with_bus(daemon, bus, "notify-send", "--print-id", "-A", "approve=Approve", "-A",
                                            "later=Later", "Deploy 42?")
            wait_for(lambda: json.loads(daemon.notifyctl("list", "--json", check=True).stdout)["notices"],
                     what="the notice")
            daemon.notifyctl("center", "open", check=True)
            wait_for(lambda: shows_panel(sway), what="the center")
            # Its two buttons side by side at its row's foot: "Approve" is the left one.
            rows = wait_for(lambda: button_rows(sway), what="the entry's buttons")
            pointer.move_to(OUTPUT[0] - WIDTH + 40, (rows[0] + rows[-1]) // 2, *OUTPUT)
            pointer.click()
            pointer.move_to(*PARKED, *OUTPUT)
            output, _ = sender.communicate(timeout=15)
            printed = output.split()
            assert len(printed) == 2 and printed[1] == "approve", output
            text = wait_for(lambda: (lambda t: t if "member=ActionInvoked" in t else None)(signals.log.read_text()),
                            what="ActionInvoked")
            assert re.search(r'member=ActionInvoked\n\s+uint32 %d\n\s+string "approve"' % int(printed[0]), text), text
            # The center stays open: a button acts where it is.
            assert center_open(daemon)
    finally:
        pointer.close()


def test_remind_me_in_the_center_snoozes_and_enter_on_a_snoozed_entry_brings_it_back(session):
    # Snooze (DESIGN §19): a shown entry's "Remind me" (after its buttons) snoozes it; it is listed
    # under "Snoozed", without buttons, until it comes back; Enter on it brings it back now.
    sway, make_daemon = session
    daemon = make_daemon(center_config())
    notice = daemon.show("Call the plumber", "--fade-in", "0", "--hold", "60s", "--action", "later=Later")
    keyboard = VirtualKeyboard(str(sway.directory), sway.display)
    pointer = VirtualPointer(str(sway.directory), sway.display)
    pointer.move_to(*PARKED, *OUTPUT)
    try:
        daemon.visible(notice)
        daemon.notifyctl("center", "open", check=True)
        wait_for(lambda: shows_panel(sway), what="the center")
        rows = wait_for(lambda: button_rows(sway), what="the entry's buttons")
        save(sway, "notifyd-center-remind-me.png")
        # Later on the left, Remind me on the right.
        pointer.move_to(OUTPUT[0] - WIDTH + int(WIDTH * 0.75), (rows[0] + rows[-1]) // 2, *OUTPUT)
        pointer.click()
        pointer.move_to(*PARKED, *OUTPUT)
        wait_for(lambda: daemon.get(notice).get("snoozedUntil"), what="Remind me to snooze it")
        assert daemon.get(notice).get("invoked") is None and center_open(daemon)
        # Under "Snoozed" now, without buttons.
        wait_for(lambda: len(button_rows(sway)) < 16, what="the snoozed entry without its buttons")
        save(sway, "notifyd-center-snoozed.png")
        keyboard.press("Down")  # the heading
        keyboard.press("Down")  # the entry
        keyboard.press("Return")
        wait_for(lambda: gone(sway), what="Enter to close the center")
        back = daemon.visible(notice)
        assert "snoozedUntil" not in back and "outcome" not in back
    finally:
        keyboard.close()
        pointer.close()


def test_ten_thousand_in_history_open_and_go_end_to_end(session):
    sway, make_daemon = session
    daemon = make_daemon(center_config(extra="[Queue]\nHistorySize=10000\n"))
    client = UserClient(as_user(daemon.user), daemon.socket_path)
    try:
        # Shown with a delay, then cancelled: 10,000 in history without 10,000 popups.
        for start in range(0, 10_000, 500):
            client.call(*[("Show", {"title": f"Job {n} finished", "body": f"build {n}: <b>all</b> tests passed",
                                    "app": f"ci-{n % 12}", "delay": 3600}) for n in range(start, start + 500)])
        client.call(("Cancel", {"all": True, "now": True}))
        wait_for(lambda: daemon.status()["finished"] == 10_000, timeout=30, what="10,000 in history")
    finally:
        client.close()
    keyboard = VirtualKeyboard(str(sway.directory), sway.display)
    try:
        daemon.notifyctl("center", "open", check=True)
        wait_for(lambda: shows_panel(sway), what="the center with 10,000 entries")
        region = (OUTPUT[0] - WIDTH, 80, OUTPUT[0] - WIDTH // 2, OUTPUT[1])
        top = wait_for(lambda: (lambda i: i if ink_bottom(sway) else None)(sway.screenshot(region=region)),
                       what="the list drawn")
        keyboard.press("End")
        end = wait_for(lambda: (lambda i: i if i.pixels != top.pixels else None)(sway.screenshot(region=region)),
                       what="End to go to the last of 10,000")
        save(sway, "notifyd-center-end.png")
        # The last row is the oldest notice, chosen and lit at the foot of the panel.
        assert lit_rows(sway, 0.22)[1] >= OUTPUT[1] - 2, lit_rows(sway, 0.22)
        keyboard.press("Home")
        wait_for(lambda: lit_rows(sway, 0.3), what="Home to choose the first heading")
        assert end.pixels != top.pixels
    finally:
        keyboard.close()


# MARK: - X11: Xvfb with picom, xdotool


def x11_center_config():
    return center_config().replace("Mode=wayland", "Mode=x11")


def x_shows_panel(x):
    image = x.screenshot(region=(OUTPUT[0] - WIDTH, 0, OUTPUT[0], OUTPUT[1]))
    middle = OUTPUT[0] - WIDTH // 2
    return close_to(image.pixel(middle, 2), PANEL) and close_to(image.pixel(middle, OUTPUT[1] - 3), PANEL)


def x_gone(x):
    return x.screenshot(region=(OUTPUT[0] - WIDTH, 0, OUTPUT[0], OUTPUT[1])).pixel(
        OUTPUT[0] - WIDTH // 2, OUTPUT[1] - 3) == x.background


def test_on_x11_the_center_takes_the_keyboard_scrolls_and_closes_by_escape_and_a_click_outside(x11_session):
    x, make_daemon = x11_session
    x.start_picom()
    daemon = make_daemon(x11_center_config())
    for n in range(30):
        daemon.show(f"Job {n} finished", "--app", f"ci-{n % 2}", "--fade-in", "0", "--hold", "0.05", "--fade-out", "0")
    wait_for(lambda: daemon.status()["finished"] >= 30, timeout=30, what="30 notices to finish")
    daemon.notifyctl("center", "open", check=True)
    wait_for(lambda: x_shows_panel(x), what="the center on X11, its monitor's full height")
    assert center_open(daemon)
    x.save(Path(os.environ.get("NOTIFYD_SCREENSHOTS", tempfile.gettempdir())) / "notifyd-x11-center.png")
    # The wheel (buttons 5, then 4) scrolls the list; the titles' side is compared.
    region = (OUTPUT[0] - WIDTH, 80, OUTPUT[0] - WIDTH // 2, OUTPUT[1])
    top = x.screenshot(region=region)
    x.run("xdotool", "mousemove", str(OUTPUT[0] - 60), str(OUTPUT[1] // 2))
    x.run("xdotool", "click", "--repeat", "4", "--delay", "30", "5")
    wait_for(lambda: x.screenshot(region=region).pixels != top.pixels, what="the list to scroll")
    x.run("xdotool", "click", "--repeat", "4", "--delay", "30", "4")
    wait_for(lambda: x.screenshot(region=region).pixels == top.pixels, what="the list back at its top")
    # The keyboard is the center's: typing filters, Escape ends the filter, Escape again closes.
    x.run("xdotool", "type", "--delay", "20", "zzz")
    wait_for(lambda: x.screenshot(region=region).pixels != top.pixels, what="the filter to empty the list")
    x.run("xdotool", "key", "Escape")
    wait_for(lambda: x.screenshot(region=region).pixels == top.pixels, what="the whole list again")
    x.run("xdotool", "key", "Escape")
    wait_for(lambda: x_gone(x), what="Escape to close the center")
    assert not center_open(daemon)
    # A click anywhere outside closes it: the pointer is grabbed while it is open.
    daemon.notifyctl("center", check=True)
    wait_for(lambda: x_shows_panel(x), what="the center, again")
    x.click(200, 300)
    wait_for(lambda: x_gone(x), what="a click outside to close the center")
    assert not center_open(daemon)


# MARK: - Without a display


def test_without_a_display_the_center_fails_with_no_display_and_says_why(make_daemon, runtime_dir):
    config = runtime_dir / "off.conf"
    config.write_text("[Display]\nMode=off\n[DBus]\nMode=off\n")
    daemon = make_daemon("--config", str(config))
    result = daemon.notifyctl("center", "open")
    assert result.returncode == 1, result
    assert "NoDisplay" in result.stderr and "[Display] Mode=off" in result.stderr, result.stderr
    raw = daemon.notifyctl("call", "Center", "{}")  # toggle, the default: it would open
    assert raw.returncode == 1 and "NoDisplay" in raw.stderr, raw
    # Closing is done: nothing is open.
    assert daemon.notifyctl("center", "close").returncode == 0
    assert "center" not in daemon.status().get("display", {})
