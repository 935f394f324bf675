"""notifyd's own popups on a real Wayland compositor: headless sway, judged by grim's pixels.

sway refuses to run as root, so the compositor, the daemon that draws on it and the clients that
talk to the daemon run as an unprivileged user the tests create; the screenshots (grim) and the
virtual pointer are root's, which any compositor client may be.
"""

import json
import os
import re
import struct
import subprocess
import tempfile
import time
import zlib
from pathlib import Path

import pytest

from conftest import cpu_used_over, wait_for
from display import (BACKGROUND, BORDER, CARD, GAP, MARGIN, OUTPUT, PARKED, WIDTH, as_user, as_user_with_bus, bus,
                     bus_config, display_config, held_while_away_then_goes_once_back, needs_wayland, send_many,
                     serving_with_pointer, session, settled_rss_kib, spawn_as_user_with_bus, user)  # noqa: F401
from pixels import Image, close_to, fully_drawn
from session_bus import notification_signals
from wayland_pointer import VirtualPointer

pytestmark = needs_wayland


def card_region(top=MARGIN, height=200):
    x1 = OUTPUT[0] - MARGIN
    return (x1 - WIDTH, top, x1, top + height)


def test_a_popup_appears_at_its_anchor_and_holds_fully_opaque(session):
    sway, make_daemon = session
    daemon = make_daemon()
    notice = daemon.show("Build finished", "all 240 tests passed", "--fade-in", "0", "--hold", "30s")
    shot = wait_for(lambda: (lambda image: image if image.box() else None)(sway.screenshot()), timeout=10,
                    what="the popup to appear")
    x0, y0, x1, y1 = shot.box()
    # The card's border is its outermost pixels: anchored top-right, MARGIN from both edges, WIDTH wide.
    assert (x0, y0, x1) == (OUTPUT[0] - MARGIN - WIDTH, MARGIN, OUTPUT[0] - MARGIN), shot.box()
    assert 40 <= y1 - y0 <= 200, shot.box()
    # Holding: inside the border the card's own colour, at full opacity, beside the text.
    assert close_to(shot.pixel(x0 + 6, (y0 + y1) // 2), CARD), shot.pixel(x0 + 6, (y0 + y1) // 2)
    assert close_to(shot.pixel(x0 + WIDTH // 2, y0), BORDER, 40), shot.pixel(x0 + WIDTH // 2, y0)
    assert daemon.get(notice)["phase"] == "holding"


def opacity_of(rgb):
    """How far `rgb` is from the background towards the card colour (0 background, 1 card)."""
    channel = max(range(3), key=lambda c: abs(CARD[c] - BACKGROUND[c]))
    return (rgb[channel] - BACKGROUND[channel]) / (CARD[channel] - BACKGROUND[channel])


@pytest.mark.alone
def test_the_middle_of_a_linear_fade_in_is_half_way_between_background_and_card(session):
    sway, make_daemon = session
    daemon = make_daemon()
    fade = 2.0
    notice = daemon.show("Fading", "--fade-in", f"{fade}s", "--ease-in", "linear", "--hold", "30s")
    shown = wait_for(lambda: daemon.get(notice).get("shown"), what="the notice to be shown")
    # The card's left edge, inside the border, half-way down a card of at least 40 pixels.
    x, y = OUTPUT[0] - MARGIN - WIDTH + 6, MARGIN + 20
    region = (x, y, x + 1, y + 1)
    time.sleep(max(0.0, shown + fade / 2 - 0.05 - time.time()))
    before = time.time()
    image = sway.screenshot(region=region)
    after = time.time()
    measured = opacity_of(image.pixel(x, y))
    # The engine's opacity somewhere between the two clock readings, plus one frame of the
    # compositor (1/60 s: the frame it shows was drawn at most that long ago), within ±0.1.
    low = (before - shown - 1 / 60) / fade
    high = (after - shown) / fade
    assert after - before < 0.5, "grim took too long for this measurement to mean anything"
    assert low - 0.1 <= measured <= high + 0.1, (measured, low, high)
    assert 0.3 < measured < 0.7, measured
    # And the same pixel, once holding, is the card's.
    wait_for(lambda: daemon.get(notice)["phase"] == "holding", what="holding")
    wait_for(lambda: close_to(sway.screenshot(region=region).pixel(x, y), CARD), timeout=2,
             what="the card at full opacity")


def test_a_popup_is_gone_after_its_fade_out(session):
    sway, make_daemon = session
    daemon = make_daemon()
    notice = daemon.show("Short", "--fade-in", "0", "--hold", "1s", "--fade-out", "0.3s")
    wait_for(lambda: sway.screenshot().box(), what="the popup to appear")
    result = daemon.notifyctl("wait", str(notice), timeout=10)
    assert result.returncode == 0, result.stderr
    wait_for(lambda: sway.screenshot().box() is None, timeout=5, what="the popup to go")
    # Drawn while nobody was away: seen, so not unread.
    assert "unread" not in daemon.get(notice) and daemon.status()["unread"] == 0


def test_two_notices_stack_newest_at_the_anchor_with_the_configured_gap(session):
    sway, make_daemon = session
    daemon = make_daemon()
    daemon.show("First", "--fade-in", "0", "--hold", "30s")
    wait_for(lambda: len(sway.screenshot().runs_down(OUTPUT[0] - MARGIN - WIDTH // 2)) == 1, what="one card")
    daemon.show("Second", "a body that makes this card taller", "--fade-in", "0", "--hold", "30s")
    column = OUTPUT[0] - MARGIN - WIDTH // 2
    image = wait_for(lambda: (lambda i: i if len(i.runs_down(column)) == 2 else None)(sway.screenshot()),
                     what="two cards")
    sway.save(Path(os.environ.get("NOTIFYD_SCREENSHOTS", tempfile.gettempdir())) / "notifyd-stack.png")
    (top0, top1), (bottom0, bottom1) = image.runs_down(column)
    assert top0 == MARGIN
    assert bottom0 - top1 == GAP, image.runs_down(column)
    # The newest (with a body: taller) is at the anchor end, the top.
    assert top1 - top0 > bottom1 - bottom0


def test_a_cjk_title_is_drawn_with_a_cjk_font_not_as_boxes(session):
    sway, make_daemon = session
    daemon = make_daemon()
    # 一 (U+4E00) is one horizontal stroke: from a CJK font its ink is a few pixels high and an em
    # wide per character; pango's box for a missing glyph is as high as a line of text.
    daemon.show("一一一一", "--fade-in", "0", "--hold", "30s")
    near_white = lambda value: value > 200  # the text, in every channel: not card or border
    image = wait_for(lambda: (lambda i: i if i.box() else None)(sway.screenshot()), what="the popup")
    x0, y0, x1, y1 = image.box()
    text = Image(b"P6 %d %d 255\n" % (x1 - x0 - 8, y1 - y0 - 8) + b"".join(
        bytes(image.pixel(x, y)) for y in range(y0 + 4, y1 - 4) for x in range(x0 + 4, x1 - 4)))
    ink = text.box_of(text.mask(near_white, near_white, near_white))
    assert ink is not None, "no text drawn"
    width, height = ink[2] - ink[0], ink[3] - ink[1]
    assert width >= 4 * 11, ink  # four characters of an 11-point font, each about an em wide
    assert height <= 4, f"ink {height} pixels high: boxes, not strokes"


ICON = (0x20, 0xC0, 0x50)  # unlike the background, the card, the border and the text


def png(width, height, rgba):
    """A PNG of one colour, written with zlib: the icon the tests hand over as a file."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + bytes(rgba) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8 bits, RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def icon_box(image):
    return image.box_near(ICON, tolerance=6)


def test_an_icon_file_is_drawn_at_the_cards_leading_edge_scaled_to_48_pixels(session):
    sway, make_daemon = session
    daemon = make_daemon()
    icon = daemon.runtime_dir / "icon.png"
    icon.write_bytes(png(96, 96, ICON + (255,)))
    os.chown(icon, daemon.user.pw_uid, daemon.user.pw_gid)
    # notifyctl makes a relative path absolute: the daemon takes absolute ones only.
    relative = daemon.notifyctl("show", "With an icon", "--icon", "icon.png", "--fade-in", "0", "--hold", "30s",
                                check=True, cwd=daemon.runtime_dir)
    notice = int(relative.stdout)
    assert daemon.get(notice)["icon"] == str(icon)
    image = wait_for(lambda: (lambda i: i if icon_box(i) else None)(sway.screenshot()), what="the icon")
    x0, y0, x1, y1 = image.box()
    # 96×96 scaled to 48×48, inside the card's 12-pixel padding, the text beside it.
    assert icon_box(image) == (x0 + 12, y0 + 12, x0 + 60, y0 + 60), (icon_box(image), image.box())
    assert y1 - y0 >= 48 + 24, image.box()
    sway.save(Path(os.environ.get("NOTIFYD_SCREENSHOTS", tempfile.gettempdir())) / "notifyd-icon.png")
    assert not daemon.notifyctl("show", "No", "--icon", "", check=False).returncode == 0


def test_image_data_over_d_bus_is_drawn_and_kept_as_a_file_a_bad_one_is_refused_by_name(session, bus):
    sway, make_daemon = session
    daemon = make_daemon(bus_config(), env={"DBUS_SESSION_BUS_ADDRESS": bus})
    wait_for(lambda: "dbus: serving org.freedesktop.Notifications" in daemon.stderr(), timeout=10,
             what="notifyd to serve the bus for its popups")

    def notify(summary, width, height, rowstride, pixels):
        image = ["(iiibiiay)", str(width), str(height), str(rowstride), "true", "8", "4", str(len(pixels))]
        return as_user_with_bus(
            daemon, bus, "busctl", f"--address={bus}", "call", "org.freedesktop.Notifications",
            "/org/freedesktop/Notifications", "org.freedesktop.Notifications", "Notify", "susssasa{sv}i",
            "test", "0", "", summary, "", "0", "1", "image-data", *image, *map(str, pixels), "0")

    # 32×32 RGBA, a row 4 bytes longer than its pixels (rowstride is honoured), not scaled up.
    row = list(ICON + (255,)) * 32 + [0, 0, 0, 0]
    sent = notify("Pixels", 32, 32, 32 * 4 + 4, row * 31 + row[:32 * 4])
    assert sent.returncode == 0, sent.stderr
    notice = int(sent.stdout.split()[1])
    kept = daemon.get(notice)["icon"]
    assert kept.startswith(str(daemon.runtime_dir / ".cache" / "notifyd" / "icons") + "/"), kept
    assert Path(kept).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = wait_for(lambda: (lambda i: i if icon_box(i) and close_to(i.pixel(*icon_box(i)[:2]), ICON, 6) else None)(
        sway.screenshot()), what="the icon at full opacity")
    x0, y0, _, _ = image.box()
    # Centred in its 48-pixel square: 8 pixels in.
    assert icon_box(image) == (x0 + 20, y0 + 20, x0 + 52, y0 + 52), (icon_box(image), image.box())

    # Too few bytes for the size claimed: an error naming the hint, no notice.
    before = len(json.loads(daemon.notifyctl("list", "--json", check=True).stdout)["notices"])
    refused = notify("Short", 32, 32, 128, [1, 2, 3])
    assert refused.returncode != 0
    assert "hints: image-data" in refused.stderr and "needs" in refused.stderr, refused.stderr
    assert len(json.loads(daemon.notifyctl("list", "--json", check=True).stdout)["notices"]) == before


GREEN = (0x20, 0xC0, 0x20)
EDGE_COLUMN = OUTPUT[0] - MARGIN - 8  # just inside the cards' right border


def an_old_card_under_newer_ones(session, *options):
    """A tall card (app `old`, green by a rule), then nineteen newer short ones (tag `newer`) until the
    stack is far taller than the output. Answers the daemon, the green runs down the cards' edge
    column (a function) and where the old card first was."""
    sway, make_daemon = session
    config = display_config().replace("MaxVisible=5", "MaxVisible=20")
    config += "[Rule:old]\nMatchApp=old\nBackground=#%02x%02x%02x\n" % GREEN
    daemon = make_daemon(config)

    def column():
        return sway.screenshot(region=(EDGE_COLUMN, 0, EDGE_COLUMN + 1, OUTPUT[1]))

    def greens():
        return column().runs_down(EDGE_COLUMN, lambda rgb: close_to(rgb, GREEN, 8))

    # Taller than the cards that come after it: where it last fitted, it would show below them.
    daemon.show("Old", "one\ntwo\nthree\nfour\nfive", "--app", "old", "--fade-in", "0", "--fade-out", "0",
                "--hold", "120s", *options)
    first = wait_for(greens, what="the old card")
    assert MARGIN <= first[0][0] <= MARGIN + 4, first  # inside its border
    for index in range(1, 20):
        daemon.show(f"Newer {index}", "--tag", "newer", "--fade-in", "0", "--fade-out", "0", "--hold", "120s")
    wait_for(lambda: (column().runs_down(EDGE_COLUMN) or [(0, 0)])[-1][1] > 600, what="newer cards down to the bottom")
    return daemon, greens, first


def test_a_card_pushed_past_the_bottom_by_newer_ones_leaves_the_screen_and_comes_back_when_they_go(session):
    """Newer cards stack above; one pushed past the output's bottom edge must leave the screen, not
    stay where it last fitted under the cards that took its place (found by the soak, issue 37)."""
    daemon, greens, first = an_old_card_under_newer_ones(session)
    # Gone, not merely covered (it is taller than they are: where it last fitted it would show
    # between and below them).
    wait_for(lambda: not greens(), timeout=10, what="the old card to leave the screen")
    # When the newer ones go, it has room again and is drawn at the top.
    daemon.notifyctl("cancel", "--tag", "newer", "--now", check=True)
    back = wait_for(lambda: (lambda runs: runs if runs and runs[0][0] == first[0][0] else None)(greens()),
                    what="the old card back at the top")
    assert back == first, (back, first)


def test_a_critical_card_stays_on_the_screen_while_newer_normal_ones_overflow_it(session):
    """What does not fit is the least urgent, oldest first: a critical notice held on screen is not
    pushed away by a stream of normal ones (the soak's person lost one for a minute, issue 37)."""
    daemon, greens, first = an_old_card_under_newer_ones(session, "--urgency", "critical")
    # Drawn whole below the newer ones that fit, the older normal ones waiting off the screen.
    runs = wait_for(lambda: (lambda runs: runs if runs and runs[0][0] > first[0][0] else None)(greens()),
                    what="the critical card below the newer ones")
    assert runs[0][1] - runs[0][0] == first[0][1] - first[0][0], (runs, first)
    assert runs[0][1] <= OUTPUT[1] - MARGIN, runs


def test_a_left_click_dismisses_and_a_default_action_is_invoked(session):
    sway, make_daemon = session
    daemon = make_daemon()
    pointer = VirtualPointer(str(sway.directory), sway.display)
    pointer.move_to(*PARKED, *OUTPUT)
    try:
        notice = daemon.show("Click me", "--fade-in", "0", "--hold", "30s")
        image = wait_for(lambda: (lambda i: i if i.box() else None)(sway.screenshot()), what="the popup")
        x0, y0, x1, y1 = image.box()
        pointer.move_to((x0 + x1) // 2, (y0 + y1) // 2, *OUTPUT)
        pointer.click()
        pointer.move_to(*PARKED, *OUTPUT)
        result = daemon.notifyctl("wait", str(notice), timeout=10)
        assert result.returncode == 6, (result.returncode, result.stderr)  # dismissed
        wait_for(lambda: sway.screenshot().box() is None, timeout=5, what="the dismissed popup to go")

        waiting = subprocess.Popen(
            as_user(daemon.user) + [str(daemon.bin / "notifyctl"), "show", "Deploy?", "--fade-in", "0", "--hold", "30s",
                                    "--action", "default=Deploy", "--wait"],
            env={**daemon.env, "NOTIFYD_SOCKET": daemon.socket_path}, stdout=subprocess.PIPE, text=True)
        image = wait_for(lambda: (lambda i: i if i.box() else None)(sway.screenshot()), what="the second popup")
        x0, y0, x1, y1 = image.box()
        pointer.move_to((x0 + x1) // 2 + 1, (y0 + y1) // 2, *OUTPUT)
        pointer.click()
        pointer.move_to(*PARKED, *OUTPUT)
        output, _ = waiting.communicate(timeout=10)
        assert (waiting.returncode, output.strip()) == (0, "default")
    finally:
        pointer.close()


def test_away_from_sway_a_popup_outlasts_its_hold_and_once_the_pointer_moves_holds_it_again_and_goes(session):
    sway, make_daemon = session
    hold = 1.0
    daemon = make_daemon(display_config() + "[Idle]\nAfter=1s\n")
    wait_for(daemon.drawing, what="the popups to connect")
    assert daemon.status()["display"] == {"backend": "wayland", "drawing": True, "detail": "Wayland (HEADLESS-1)"}
    # Headless sway has no input devices: nobody touches it, so a second after the daemon asked, the
    # compositor says the seat is idle (sway 1.7 offers org_kde_kwin_idle, not ext-idle-notify-v1).
    wait_for(lambda: daemon.status().get("idle", {}).get("idle"), timeout=15, what="sway to say the seat is idle")
    assert daemon.status()["idle"] == {"idle": True, "source": "org_kde_kwin_idle"}
    assert "Idle:     away, holds stand still (org_kde_kwin_idle)" in daemon.notifyctl("status", check=True).stdout
    notice = daemon.show("While you were away", "--fade-in", "0", "--hold", f"{hold:g}s", "--fade-out", "0")
    wait_for(lambda: sway.screenshot().box(), what="the popup")
    pointer = VirtualPointer(str(sway.directory), sway.display)
    try:
        held_while_away_then_goes_once_back(
            daemon, notice, hold, drawn=lambda: sway.screenshot().box() is not None,
            give_input=lambda step: pointer.move_to(PARKED[0] + step % 2, PARKED[1], *OUTPUT))
    finally:
        pointer.close()
    wait_for(lambda: sway.screenshot().box() is None, timeout=5, what="the popup to go")
    assert "unread" not in daemon.get(notice)  # seen once the person was back
    # Away again: a notice its sender ends before the person is back was drawn for nobody.
    wait_for(lambda: daemon.status().get("idle", {}).get("idle"), timeout=15, what="the seat idle again")
    missed = daemon.show("Ended while away", "--fade-in", "0", "--hold", "60s", "--fade-out", "0")
    wait_for(lambda: sway.screenshot().box(), what="its popup")
    daemon.notifyctl("end", str(missed), check=True)
    wait_for(lambda: daemon.get(missed).get("outcome") == "completed", what="it to end")
    assert daemon.get(missed)["unread"] is True and daemon.status()["unread"] == 1


def test_a_right_click_dismisses_even_with_a_default_action(session):
    sway, make_daemon = session
    daemon = make_daemon()
    pointer = VirtualPointer(str(sway.directory), sway.display)
    pointer.move_to(*PARKED, *OUTPUT)
    try:
        notice = daemon.show("Right", "--fade-in", "0", "--hold", "30s", "--action", "default=Open")
        image = wait_for(lambda: (lambda i: i if i.box() else None)(sway.screenshot()), what="the popup")
        x0, y0, x1, y1 = image.box()
        pointer.move_to((x0 + x1) // 2, (y0 + y1) // 2, *OUTPUT)
        pointer.click(VirtualPointer.BTN_RIGHT)
        pointer.move_to(*PARKED, *OUTPUT)
        result = daemon.notifyctl("wait", str(notice), timeout=10)
        assert result.returncode == 6, (result.returncode, result.stderr)
        assert daemon.get(notice).get("invoked") is None
    finally:
        pointer.close()


def test_mode_auto_draws_on_wayland_when_a_layer_shell_compositor_answers_even_with_display_set(session, no_x_display):
    sway, make_daemon = session
    # DISPLAY names no X server: were it chosen, nothing would be drawn.
    daemon = make_daemon(display_config().replace("Mode=wayland", "Mode=auto"), env={"DISPLAY": no_x_display})
    daemon.show("Automatic", "--fade-in", "0", "--hold", "30s")
    wait_for(lambda: sway.screenshot().box(), what="the popup on sway")
    assert "display: drawing popups on Wayland" in daemon.stderr(), daemon.stderr()
    assert "X11" not in daemon.stderr()


def test_the_compositor_dying_mid_fade_loses_nothing_and_popups_return_with_it(session):
    sway, make_daemon = session
    daemon = make_daemon()
    notice = daemon.show("Mid-fade", "--fade-in", "3s", "--hold", "30s")
    wait_for(lambda: daemon.get(notice).get("phase") == "fadingIn", what="the fade-in")
    sway.kill()
    # The daemon keeps answering and the notice its timing.
    assert daemon.answers()
    wait_for(lambda: daemon.get(notice)["phase"] == "holding", timeout=10, what="holding without a compositor")
    sway.start()
    # Reconnected (the backoff starts at 0.25 s): the holding notice is drawn again, and new ones too.
    wait_for(lambda: sway.screenshot().box(), timeout=15, what="the popup on the new compositor")
    second = daemon.show("After", "--fade-in", "0", "--hold", "30s")
    column = OUTPUT[0] - MARGIN - WIDTH // 2
    wait_for(lambda: len(sway.screenshot().runs_down(column)) == 2, timeout=10, what="both popups")
    assert daemon.get(second)["phase"] == "holding"
    assert "display:" in daemon.stderr()


# With the session bus: notify-send reaches the popups, clicks reach the bus, and another server
# (mako) takes the notices while it runs.

def test_notify_send_shows_a_popup_when_no_other_server_runs_and_a_click_closes_it_with_reason_2(session, bus):
    sway, make_daemon = session
    daemon, pointer = serving_with_pointer(sway, make_daemon, bus)
    try:
        with notification_signals(bus, sway.directory) as signals:
            sent = as_user_with_bus(daemon, bus, "notify-send", "--print-id", "From notify-send", "over the bus")
            assert sent.returncode == 0, sent.stderr
            bus_id = int(sent.stdout.strip())
            # The built-in fade-in, then the card at full opacity.
            image = wait_for(lambda: fully_drawn(sway.screenshot(), CARD), what="the popup")
            x0, y0, x1, y1 = image.box()
            pointer.move_to((x0 + x1) // 2, (y0 + y1) // 2, *OUTPUT)
            pointer.click(VirtualPointer.BTN_RIGHT)
            pointer.move_to(*PARKED, *OUTPUT)
            # NotificationClosed(id, 2): dismissed by a person.
            signals.closed(bus_id, 2)
    finally:
        pointer.close()


def test_a_click_that_chooses_an_action_sends_an_activation_token_before_action_invoked(session, bus):
    sway, make_daemon = session
    daemon, pointer = serving_with_pointer(sway, make_daemon, bus)
    try:
        with notification_signals(bus, sway.directory) as signals:
            # -A waits for the action: notify-send prints the id, then the action's name.
            sender = spawn_as_user_with_bus(daemon, bus, "notify-send", "--print-id", "-A", "default=Open", "Deploy?")
            image = wait_for(lambda: fully_drawn(sway.screenshot(), CARD), what="the popup")
            x0, y0, x1, y1 = image.box()
            pointer.move_to((x0 + x1) // 2, (y0 + y1) // 2, *OUTPUT)
            pointer.click()
            pointer.move_to(*PARKED, *OUTPUT)
            output, _ = sender.communicate(timeout=15)
            printed = output.split()
            assert len(printed) == 2 and printed[1] == "default", output
            bus_id = int(printed[0])
            text = wait_for(lambda: (lambda t: t if "member=ActionInvoked" in t else None)(signals.log.read_text()),
                            what="ActionInvoked")
            token = re.search(r'member=ActivationToken\n\s+uint32 %d\n\s+string "([^"]+)"' % bus_id, text)
            invoked = re.search(r'member=ActionInvoked\n\s+uint32 %d\n\s+string "default"' % bus_id, text)
            assert token and invoked, text
            # The token comes first, so that the program the action starts can take the focus with it.
            assert token.start() < invoked.start(), text
    finally:
        pointer.close()


def test_while_mako_serves_notices_go_to_it_and_our_popups_stand_aside_until_it_leaves(session, bus):
    sway, make_daemon = session
    mako_config = sway.directory / "mako.conf"
    # mako's own look, unlike our cards: a grey card, top-right.
    mako_config.write_text("background-color=#808080\nborder-color=#808080\ntext-color=#000000\ndefault-timeout=0\n")
    os.chown(mako_config, sway.user.pw_uid, sway.user.pw_gid)
    mako_log = open(sway.directory / "mako.log", "wb")
    mako = subprocess.Popen(
        as_user(sway.user) + ["mako", "--config", str(mako_config)],
        env={"PATH": os.environ["PATH"], "XDG_RUNTIME_DIR": str(sway.directory), "WAYLAND_DISPLAY": sway.display,
             "DBUS_SESSION_BUS_ADDRESS": bus}, stdout=mako_log, stderr=mako_log)
    try:
        wait_for(lambda: subprocess.run(["busctl", f"--address={bus}", "status", "org.freedesktop.Notifications"],
                                        capture_output=True).returncode == 0, what="mako to own the name")
        daemon = make_daemon(bus_config(), env={"DBUS_SESSION_BUS_ADDRESS": bus})
        wait_for(lambda: "dbus: forwarding notices" in daemon.stderr(), what="notifyd to forward to mako")
        notice = daemon.show("Forwarded", "--fade-in", "0", "--hold", "60s")
        grey = (0x80, 0x80, 0x80)  # mako's card, and ours: each within 2 in every channel
        # mako draws it; by the time mako's card is on the screen, ours (drawn within a frame of the
        # notice becoming visible, as every other test shows) would be too.
        image = wait_for(lambda: (lambda i: i if i.box_near(grey, tolerance=2) else None)(sway.screenshot()), timeout=10,
                         what="mako's popup")
        wait_for(lambda: daemon.get(notice)["phase"] == "holding", what="holding")
        image = sway.screenshot()
        assert image.box_near(grey, tolerance=2) is not None
        assert image.box_near(CARD, tolerance=2) is None, "notifyd drew a popup while forwarding to mako"
        # mako leaves: notifyd serves the bus itself and draws the notice that is still holding.
        mako.terminate()
        mako.wait(timeout=10)
        wait_for(lambda: (lambda i: i.box_near(CARD, tolerance=2) is not None)(sway.screenshot()), timeout=10,
                 what="our popup once mako has gone")
        wait_for(lambda: "dbus: serving org.freedesktop.Notifications" in daemon.stderr(), what="notifyd to serve")
    finally:
        if mako.poll() is None:
            mako.kill()
            mako.wait()
        mako_log.close()


@pytest.mark.alone
def test_200_quick_notices_leave_the_daemon_idle_and_1000_popups_leave_memory_flat(session):
    # This test once disabled the output first, to draw while there was none: wlroots 0.15's
    # headless outputs cannot be disabled ("Cannot disable a headless output": sway logs that the
    # commit failed and the output stays), so it never went away. An output that goes and comes is
    # tested by plugging one in (test_screens.py), and the compositor going away by killing sway.
    sway, make_daemon = session
    # A short history, so that the warm-up fills it: history grows until it is full.
    daemon = make_daemon(display_config().replace("MaxVisible=5", "MaxVisible=5\nHistorySize=100"))
    holding = daemon.show("Holding on", "--fade-in", "0", "--hold", "120s")
    column = OUTPUT[0] - MARGIN - WIDTH // 2
    wait_for(lambda: sway.screenshot().box(), what="the popup")
    send_many(daemon, 200, title="quick", fadeIn=0, hold=0.01, fadeOut=0)
    assert daemon.get(holding)["phase"] == "holding"
    # Once those notices are done, the daemon is idle: a holding card costs no wakeups.
    settled_rss_kib(daemon)
    assert cpu_used_over(daemon.process.pid, 1.0) < 0.05
    wait_for(lambda: len(sway.screenshot().runs_down(column)) == 1, timeout=10,
             what="the holding notice alone on the output")
    # 1,000 popups drawn and taken down: a surface or buffer kept per popup would be 60 KiB or
    # more each (300 × 50 pixels × 4 bytes), 60 MiB in all. Allow 4 KiB each for the allocator
    # and pango's caches, which settle in steps (measured after a warm-up of 1,000: +0.1 to
    # +1.2 MiB per further 1,000, not growing with the count).
    send_many(daemon, 1000, title="warm-up", body="drawn and gone", fadeIn=0, hold=0.01, fadeOut=0)
    before = settled_rss_kib(daemon)
    send_many(daemon, 1000, title="popup", body="drawn and gone", fadeIn=0, hold=0.01, fadeOut=0)
    after = settled_rss_kib(daemon)
    if not os.environ.get("NOTIFYD_SANITIZER"):  # a sanitizer keeps or shadows what is freed
        assert after - before <= 4000, f"RSS grew {after - before} KiB over 1,000 popups ({before} → {after} KiB)"
    assert daemon.get(holding)["phase"] == "holding"
    assert len(sway.screenshot().runs_down(column)) == 1
