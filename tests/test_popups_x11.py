"""notifyd's own popups on a real X server: Xvfb, with and without picom as the compositing manager,
judged by the pixels of ImageMagick's `import`; clicks through xdotool.

Xvfb paints its root in BACKGROUND (xsetroot; -noreset, or the server would reset it when the
last client leaves); picom, which has no wallpaper to draw, paints its
own grey, so a suite with picom reads the background from the screen before it starts.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import cpu_used_over, wait_for
from display import (BACKGROUND, BORDER, CARD, GAP, MARGIN, OUTPUT, WIDTH, held_while_away_then_goes_once_back,
                     needs_x11, send_shows, settled_rss_kib, x11_bus, x11_config, x11_session)  # noqa: F401 (fixtures)
from pixels import blend, button_centres, button_fill_at, close_to, fully_drawn
from session_bus import notification_signals

pytestmark = needs_x11


def shown_image(x, region=None):
    """A screenshot once something is drawn in it."""
    return wait_for(lambda: (lambda image: image if image.box() else None)(
        x.screenshot(region) if region else x.screenshot()), what="a popup on the screen")


def opacity_of(rgb, background):
    """How far `rgb` is from `background` towards the card colour (0 background, 1 card)."""
    channel = max(range(3), key=lambda c: abs(CARD[c] - background[c]))
    return (rgb[channel] - background[channel]) / (CARD[channel] - background[channel])


def popup_windows(x):
    """The ids of notifyd's mapped windows (by WM_CLASS)."""
    result = x.run("xdotool", "search", "--onlyvisible", "--class", "notifyd", check=False)
    return result.stdout.split()


def test_a_popup_is_an_override_redirect_notification_window_at_its_anchor_fully_opaque(x11_session):
    x, make_daemon = x11_session
    daemon = make_daemon()
    first = daemon.show("Build finished", "all 240 tests passed", "--fade-in", "0", "--hold", "30s")
    image = shown_image(x)
    x0, y0, x1, y1 = image.box()
    assert (x0, y0, x1) == (OUTPUT[0] - MARGIN - WIDTH, MARGIN, OUTPUT[0] - MARGIN), image.box()
    assert 40 <= y1 - y0 <= 200, image.box()
    assert close_to(image.pixel(x0 + 6, (y0 + y1) // 2), CARD), image.pixel(x0 + 6, (y0 + y1) // 2)
    assert close_to(image.pixel(x0 + WIDTH // 2, y0), BORDER, 40), image.pixel(x0 + WIDTH // 2, y0)
    # Without a compositing manager the corners are cut round (Shape): the root shows there.
    assert image.pixel(x0, y0) == BACKGROUND, image.pixel(x0, y0)
    assert daemon.get(first)["phase"] == "holding"
    [window] = popup_windows(x)
    assert "_NET_WM_WINDOW_TYPE_NOTIFICATION" in x.run("xprop", "-id", window, "_NET_WM_WINDOW_TYPE").stdout
    assert "Override Redirect State: yes" in x.run("xwininfo", "-id", window).stdout
    # A second one stacks below the anchor's newest, GAP pixels apart.
    daemon.show("Second", "--fade-in", "0", "--hold", "30s")
    column = OUTPUT[0] - MARGIN - WIDTH // 2
    runs = wait_for(lambda: (lambda r: r if len(r) == 2 else None)(x.screenshot().runs_down(column)),
                    what="two popups")
    assert runs[0][0] == MARGIN and runs[1][0] - runs[0][1] == GAP, runs
    assert runs[1][1] - runs[1][0] == y1 - y0, "the older card, moved down, kept its height"
    assert "no compositing manager owns _NET_WM_CM_S0" in daemon.stderr()


@pytest.mark.alone
def test_with_picom_the_middle_of_a_linear_fade_in_is_half_way_and_the_card_goes_after_its_fade_out(x11_session):
    x, make_daemon = x11_session
    x.start_picom()
    daemon = make_daemon()
    wait_for(lambda: "a compositing manager runs, popups fade" in daemon.stderr(), what="the daemon to see picom")
    fade = 2.0
    notice = daemon.show("Fading", "--fade-in", f"{fade}s", "--ease-in", "linear", "--hold", "1s",
                         "--fade-out", "0.5s")
    shown = wait_for(lambda: daemon.get(notice).get("shown"), what="the notice to be shown")
    px, py = OUTPUT[0] - MARGIN - WIDTH + 6, MARGIN + 20
    region = (px, py, px + 1, py + 1)
    time.sleep(max(0.0, shown + fade / 2 - 0.05 - time.time()))
    before = time.time()
    image = x.screenshot(region)
    after = time.time()
    measured = opacity_of(image.pixel(px, py), x.background)
    # The engine's opacity between the two clock readings, less two frames (the daemon draws on the
    # engine's 60 Hz frames, picom repaints on the damage that makes), within ±0.1.
    low = (before - shown - 2 / 60) / fade
    high = (after - shown) / fade
    assert after - before < 0.5, "import took too long for this measurement to mean anything"
    assert low - 0.1 <= measured <= high + 0.1, (measured, low, high)
    assert 0.3 < measured < 0.7, measured
    wait_for(lambda: daemon.get(notice)["phase"] == "holding", what="holding")
    wait_for(lambda: close_to(x.screenshot(region).pixel(px, py), CARD), timeout=2, what="the card at full opacity")
    assert daemon.notifyctl("wait", str(notice), timeout=10).returncode == 0
    wait_for(lambda: x.screenshot().box() is None, timeout=5, what="the popup to go after its fade-out")


@pytest.mark.alone
def test_without_a_compositor_a_card_shows_fully_from_the_end_of_its_fade_in_to_the_start_of_its_fade_out(x11_session):
    x, make_daemon = x11_session
    daemon = make_daemon()
    fade_in, hold, fade_out = 1.5, 1.5, 1.5
    notice = daemon.show("Boundaries", "--fade-in", f"{fade_in}s", "--hold", f"{hold}s", "--fade-out",
                         f"{fade_out}s", "--ease-in", "linear", "--ease-out", "linear")
    px, py = OUTPUT[0] - MARGIN - WIDTH + 6, MARGIN + 20
    region = (px, py, px + 1, py + 1)
    samples = []
    while daemon.get(notice)["phase"] != "finished":
        before = time.time()
        rgb = x.screenshot(region).pixel(px, py)
        samples.append((before, time.time(), rgb))
    timing = daemon.get(notice)
    shown = timing["shown"]
    hold_starts, fade_out_starts = shown + fade_in, shown + fade_in + hold
    # Each sample is judged only where its whole reading lies clearly inside one span (50 ms off
    # each boundary for the daemon's wake-up and the server's redraw); every span has some.
    spans = {"fade-in": [], "holding": [], "fade-out": []}
    for start, end, rgb in samples:
        if shown + 0.05 <= start and end <= hold_starts - 0.05:
            spans["fade-in"].append(rgb)
        elif hold_starts + 0.05 <= start and end <= fade_out_starts - 0.05:
            spans["holding"].append(rgb)
        elif fade_out_starts + 0.05 <= start and end <= fade_out_starts + fade_out - 0.05:
            spans["fade-out"].append(rgb)
    assert all(spans.values()), {name: len(rgbs) for name, rgbs in spans.items()}
    assert all(rgb == BACKGROUND for rgb in spans["fade-in"] + spans["fade-out"]), spans
    assert all(close_to(rgb, CARD) for rgb in spans["holding"]), spans["holding"]


def test_a_left_click_dismisses_or_invokes_the_default_action_and_a_right_click_dismisses(x11_session):
    x, make_daemon = x11_session
    daemon = make_daemon()
    notice = daemon.show("Click me", "--fade-in", "0", "--hold", "30s")
    x0, y0, x1, y1 = shown_image(x).box()
    x.click((x0 + x1) // 2, (y0 + y1) // 2)
    result = daemon.notifyctl("wait", str(notice), timeout=10)
    assert result.returncode == 6, (result.returncode, result.stderr)  # dismissed
    wait_for(lambda: x.screenshot().box() is None, timeout=5, what="the dismissed popup to go")

    waiting = subprocess.Popen([str(daemon.program.parent / "notifyctl"), "show", "Deploy?", "--fade-in", "0",
                                "--hold", "30s", "--action", "default=Deploy", "--wait"],
                               env={**daemon.env, "NOTIFYD_SOCKET": daemon.socket_path}, stdout=subprocess.PIPE,
                               text=True)
    x0, y0, x1, y1 = shown_image(x).box()
    x.click((x0 + x1) // 2, (y0 + y1) // 2)
    output, _ = waiting.communicate(timeout=10)
    assert (waiting.returncode, output.strip()) == (0, "default")

    wait_for(lambda: x.screenshot().box() is None, timeout=5, what="the invoked popup to go")
    notice = daemon.show("Right", "--fade-in", "0", "--hold", "30s", "--action", "default=Open")
    x0, y0, x1, y1 = shown_image(x).box()
    x.click((x0 + x1) // 2, (y0 + y1) // 2, button=3)
    assert daemon.notifyctl("wait", str(notice), timeout=10).returncode == 6
    assert daemon.get(notice).get("invoked") is None


@pytest.mark.alone
def test_the_x_server_dying_mid_fade_loses_nothing_and_popups_return_with_it(x11_session):
    x, make_daemon = x11_session
    daemon = make_daemon()
    # Drawing on this X server first: a daemon whose first connection failed (a TSan daemon once did,
    # and tried again 0.25 s later) would otherwise meet only the second server and lose nothing.
    wait_for(daemon.drawing, what="the popups to connect")
    notice = daemon.show("Mid-fade", "--fade-in", "3s", "--hold", "60s")
    wait_for(lambda: daemon.get(notice).get("phase") == "fadingIn", what="the fade-in")
    x.kill()
    assert daemon.answers()
    wait_for(lambda: daemon.get(notice)["phase"] == "holding", timeout=10, what="holding without an X server")
    x.start()
    # Reconnected (the backoff starts at 0.25 s): the holding notice is drawn again, and new ones too.
    wait_for(lambda: x.screenshot().box(), timeout=15, what="the popup on the new X server")
    second = daemon.show("After", "--fade-in", "0", "--hold", "30s")
    column = OUTPUT[0] - MARGIN - WIDTH // 2
    wait_for(lambda: len(x.screenshot().runs_down(column)) == 2, timeout=10, what="both popups")
    assert daemon.get(second)["phase"] == "holding"
    assert "connection to the display server was lost" in daemon.stderr()
    assert daemon.answers()


def test_away_from_x11_a_popup_outlasts_its_hold_and_once_the_mouse_moves_holds_it_again_and_goes(x11_session):
    x, make_daemon = x11_session
    after, hold = 1.0, 2.0
    daemon = make_daemon(x11_config() + f"[Idle]\nAfter={after:g}s\n")
    wait_for(daemon.drawing, what="the popups to connect")
    assert daemon.status()["display"]["backend"] == "x11"
    assert daemon.status()["idle"] == {"idle": False, "source": "X11 screensaver"}
    # Nobody touches Xvfb, but the screensaver extension is asked only while a popup shows: a first
    # one makes the daemon look, and its idle time passes After=. The notice under test is then
    # shown while away, with all of its hold left (one shown before would keep only what was left
    # when the person went, which the end of the test could not tell from a hold cut short).
    daemon.show("Keeps the daemon looking", "--fade-in", "0", "--hold", "60s")
    shown_image(x)
    wait_for(lambda: daemon.status()["idle"]["idle"], timeout=10, what="the X server's idle time to pass After=")
    notice = daemon.show("While you were away", "--fade-in", "0", "--hold", f"{hold:g}s", "--fade-out", "0")
    column = OUTPUT[0] - MARGIN - WIDTH // 2
    wait_for(lambda: len(x.screenshot().runs_down(column)) == 2, timeout=10, what="both popups")
    held_while_away_then_goes_once_back(
        daemon, notice, hold, drawn=lambda: len(x.screenshot().runs_down(column)) == 2,
        give_input=lambda step: x.run("xdotool", "mousemove", str(2 + step % 2), str(OUTPUT[1] - 2)))
    assert "display: you are away (X11 screensaver); holds stand still" in daemon.stderr()


def card_left_edges(image):
    """The x of each card's left edge in a full-width screenshot, read along a row through the cards."""
    y = MARGIN + 20
    edges, inside = [], False
    for px in range(image.origin[0], image.origin[0] + image.width):
        drawn = image.pixel(px, y) != image.background
        if drawn and not inside:
            edges.append(px)
        inside = drawn
    return edges


def test_popups_go_to_the_named_output_the_one_under_the_pointer_or_the_primary_one_and_move_when_it_goes(x11_session):
    x, make_daemon = x11_session
    full = (0, 0, OUTPUT[0], OUTPUT[1])
    half = OUTPUT[0] // 2
    on_left, on_right = [half - MARGIN - WIDTH], [OUTPUT[0] - MARGIN - WIDTH]
    # Two monitors side by side (RandR 1.5), the left one primary; Xvfb's own spans both.
    x.run("xrandr", "--setmonitor", "*left", f"{half}/169x{OUTPUT[1]}/190+0+0", "none")
    x.run("xrandr", "--setmonitor", "right", f"{half}/169x{OUTPUT[1]}/190+{half}+0", "none")

    named = make_daemon(x11_config(Output="right"))
    named.show("On the right", "--fade-in", "0", "--hold", "30s")
    wait_for(lambda: card_left_edges(x.screenshot(full)) == on_right, what="the card on the output named")
    named.stop()
    wait_for(lambda: x.screenshot(full).box() is None, what="its card to go")

    following = make_daemon(x11_config(FollowFocus="mouse"))
    x.run("xdotool", "mousemove", str(half + 100), "100")
    following.show("Under the pointer", "--fade-in", "0", "--hold", "30s")
    wait_for(lambda: card_left_edges(x.screenshot(full)) == on_right, what="the card on the pointer's monitor")
    x.run("xdotool", "mousemove", "100", "100")
    following.show("Followed", "--fade-in", "0", "--hold", "30s")
    wait_for(lambda: card_left_edges(x.screenshot(full)) == on_left, what="the stack moved to the pointer")
    following.stop()
    wait_for(lambda: x.screenshot(full).box() is None, what="its cards to go")

    daemon = make_daemon()
    daemon.show("On the primary", "--fade-in", "0", "--hold", "30s")
    wait_for(lambda: card_left_edges(x.screenshot(full)) == on_left, what="the card on the primary monitor")
    # The primary monitor goes: the stack moves to what is left, by the time the next card shows.
    x.run("xrandr", "--delmonitor", "left")
    daemon.show("After the monitor went", "--fade-in", "0", "--hold", "30s")
    wait_for(lambda: card_left_edges(x.screenshot(full)) == on_right, what="the stack on the monitors left")
    column = OUTPUT[0] - MARGIN - WIDTH // 2
    assert len(x.screenshot().runs_down(column)) == 2
    assert "display: monitors now" in daemon.stderr()


def test_mode_auto_draws_on_x11_when_no_layer_shell_compositor_answers_and_check_config_says_why(x11_session, tmp_path):
    x, make_daemon = x11_session
    daemon = make_daemon(x11_config(Mode="auto"), env={"WAYLAND_DISPLAY": str(tmp_path / "no-compositor")})
    daemon.show("Automatic", "--fade-in", "0", "--hold", "30s")
    shown_image(x)
    assert "no layer-shell compositor at WAYLAND_DISPLAY; drawing on X11 instead" in daemon.stderr()
    check = subprocess.run([str(daemon.program), "--check-config"], env=daemon.env, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    assert re.search(r"^# display: X11 at DISPLAY=:\d+ \(screen 1280x720\): no compositing manager owns "
                     r"_NET_WM_CM_S0; popups appear at the end of their fade-in", check.stdout, re.M), check.stdout
    x.start_picom()
    check = subprocess.run([str(daemon.program), "--check-config"], env=daemon.env, capture_output=True, text=True)
    assert "a compositing manager runs, popups fade" in check.stdout, check.stdout
    wait_for(lambda: "a compositing manager runs now; popups fade" in daemon.stderr(), what="the daemon to see picom")


@pytest.mark.alone
def test_1000_popups_with_fades_leave_memory_flat_and_a_holding_popup_costs_no_cpu(x11_session):
    x, make_daemon = x11_session
    x.start_picom()
    daemon = make_daemon(x11_config().replace("MaxVisible=5", "MaxVisible=5\nHistorySize=100"))
    holding = daemon.show("Holding on", "--fade-in", "0", "--hold", "300s")
    shown_image(x)
    # 1,000 popups that fade in and out, drawn and taken down: a window or image kept per popup
    # would be 60 KiB or more each (300 × 50 pixels × 4 bytes), 60 MiB in all. 4 KiB each is
    # allowed for the allocator and pango's caches (as on Wayland).
    send_shows(daemon, 1000, title="warm-up", body="drawn and gone", fadeIn=0.02, hold=0.01, fadeOut=0.02)
    before = settled_rss_kib(daemon)
    send_shows(daemon, 1000, title="popup", body="drawn and gone", fadeIn=0.02, hold=0.01, fadeOut=0.02)
    after = settled_rss_kib(daemon)
    if not os.environ.get("NOTIFYD_SANITIZER"):
        assert after - before <= 4000, f"RSS grew {after - before} KiB over 1,000 popups ({before} → {after} KiB)"
    assert daemon.get(holding)["phase"] == "holding"
    # Holding, with picom running: no frames drawn, nothing wakes up. Judged against the same daemon
    # drawing a fade for as long (a sanitizer makes both dearer): a popup that drew frames while it
    # held would cost about that; one that draws none, under half of it.
    fading = daemon.show("Fading", "--fade-in", "4s", "--hold", "0.01s", "--fade-out", "0")
    wait_for(lambda: daemon.get(fading)["phase"] == "fadingIn", what="the fade to start")
    drawing = cpu_used_over(daemon.process.pid, 2.0)
    assert daemon.get(fading)["phase"] == "fadingIn"
    assert daemon.notifyctl("wait", str(fading), timeout=30).returncode == 0
    settled_rss_kib(daemon)  # past the trim that follows a notice's end
    holding_cpu = cpu_used_over(daemon.process.pid, 2.0)
    assert holding_cpu < drawing / 2, f"holding used {holding_cpu:.2f} s of CPU in 2 s, a fade {drawing:.2f} s"
    column = OUTPUT[0] - MARGIN - WIDTH // 2
    assert len(x.screenshot().runs_down(column)) == 1


def test_notify_send_reaches_the_x11_popups_a_click_invokes_its_action_or_closes_it_with_reason_2(x11_session, x11_bus):
    bus = x11_bus
    x, make_daemon = x11_session
    # [DBus] and [Display] both auto, as users run it: no other server, so notifyd serves for its popups.
    config = x11_config().replace("[DBus]\nMode=off\n", "").replace("Mode=x11", "Mode=auto")
    daemon = make_daemon(config, env={"DBUS_SESSION_BUS_ADDRESS": bus})
    wait_for(lambda: "dbus: serving org.freedesktop.Notifications" in daemon.stderr(), timeout=10,
             what="notifyd to serve the bus for its popups")
    client_env = {**x.env(), "DBUS_SESSION_BUS_ADDRESS": bus}
    waiting = subprocess.Popen(["notify-send", "--action", "default=Open", "--wait", "Deploy?", "from notify-send"],
                               env=client_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    image = wait_for(lambda: fully_drawn(x.screenshot(), CARD), what="the popup at full opacity")
    x0, y0, x1, y1 = image.box()
    x.click((x0 + x1) // 2, (y0 + y1) // 2)
    output, errors = waiting.communicate(timeout=10)
    assert (waiting.returncode, output.strip()) == (0, "default"), errors
    wait_for(lambda: x.screenshot().box() is None, timeout=5, what="the invoked popup to go")

    with notification_signals(bus, x.directory) as signals:
        sent = subprocess.run(["notify-send", "--print-id", "Dismiss me"], env=client_env, capture_output=True,
                              text=True, timeout=30)
        assert sent.returncode == 0, sent.stderr
        bus_id = int(sent.stdout.strip())
        image = wait_for(lambda: fully_drawn(x.screenshot(), CARD), what="the second popup")
        x0, y0, x1, y1 = image.box()
        x.click((x0 + x1) // 2, (y0 + y1) // 2, button=3)
        signals.closed(bus_id, 2)


# Acting on a notice where it shows (issue 32): buttons, the pointer over a card, the picker.

SCREENSHOTS = Path(os.environ.get("NOTIFYD_SCREENSHOTS", tempfile.gettempdir()))


def test_a_click_on_each_button_chooses_its_action_and_the_one_under_the_pointer_is_lit(x11_session):
    x, make_daemon = x11_session
    x.start_picom()
    daemon = make_daemon()
    for index, key in enumerate(["approve", "reject", "later"]):
        waiting = daemon.notifyctl_waiting("Deploy 42?", "to production", "--fade-in", "0", "--hold", "30s",
                                    "--action", "approve=Approve", "--action", "reject=Reject", "--action",
                                    "later=Remind me later, after lunch")
        image = wait_for(lambda: fully_drawn(x.screenshot(), CARD), what="the card with buttons")
        box = image.box()
        centre = button_centres(box, 3)[index]
        x.run("xdotool", "mousemove", str(centre[0]), str(centre[1]))
        wait_for(lambda: close_to(button_fill_at(x.screenshot(), box, 3, index), blend(BORDER, CARD, 0.6), 6),
                 what="the button under the pointer to light up")
        if index == 0:
            x.save(SCREENSHOTS / "notifyd-x11-buttons.png")
        x.run("xdotool", "click", "1")
        x.run("xdotool", "mousemove", "2", str(OUTPUT[1] - 2))
        output, _ = waiting.communicate(timeout=10)
        assert (waiting.returncode, output.strip()) == (0, key)
        wait_for(lambda: x.screenshot().box() is None, timeout=5, what="the card to go")


def test_the_mouse_over_a_card_holds_it_past_three_of_its_holds_and_once_it_leaves_the_card_finishes(x11_session):
    x, make_daemon = x11_session
    daemon = make_daemon()
    hold = 2.0
    beside = daemon.show("Beside", "--fade-in", "0", "--hold", f"{2 * hold:g}s", "--fade-out", "0")
    shown_image(x)
    hovered = daemon.show("Hovered", "--fade-in", "0", "--hold", f"{hold:g}s", "--fade-out", "0")
    shown_at = time.monotonic()
    x.run("xdotool", "mousemove", str(OUTPUT[0] - MARGIN - WIDTH // 2), str(MARGIN + 10))
    assert time.monotonic() - shown_at < hold / 2, "the pointer came too late to tell"
    assert daemon.notifyctl("wait", str(beside), timeout=20).returncode == 0
    remaining = shown_at + 3 * hold - time.monotonic()
    if remaining > 0:
        time.sleep(remaining)
    assert daemon.get(hovered)["phase"] == "holding"
    left_at = time.monotonic()
    x.run("xdotool", "mousemove", "2", str(OUTPUT[1] - 2))
    assert daemon.notifyctl("wait", str(hovered), timeout=20).returncode == 0
    assert time.monotonic() - left_at >= 1.0


def test_a_middle_click_opens_rofi_with_the_actions_and_the_one_typed_is_invoked(x11_session):
    x, make_daemon = x11_session
    if shutil.which("rofi") is None:
        pytest.skip("rofi is not installed (scripts/deps.sh installs it)")
    daemon = make_daemon()  # Picker= unset: rofi -dmenu is the first found for DISPLAY
    waiting = daemon.notifyctl_waiting("Mail from Ada", "--fade-in", "0", "--hold", "60s", "--action",
                                "open=Open", "--action", "archive=Archive", "--action", "spam=Mark as spam")
    box = wait_for(lambda: fully_drawn(x.screenshot(), CARD), what="the card").box()
    x.click((box[0] + box[2]) // 2, box[1] + 10, button=2)
    # rofi takes the keyboard once its window is up; what is typed filters, Return chooses.
    wait_for(lambda: x.run("xdotool", "search", "--onlyvisible", "--class", "rofi", check=False).stdout.strip(),
             timeout=15, what="rofi to open")
    x.save(SCREENSHOTS / "notifyd-x11-rofi.png")
    x.run("xdotool", "type", "--delay", "20", "spam")
    x.run("xdotool", "key", "Return")
    output, _ = waiting.communicate(timeout=15)
    assert (waiting.returncode, output.strip()) == (0, "spam")


def test_a_reply_typed_into_the_card_reaches_show_wait(x11_session):
    x, make_daemon = x11_session
    x.start_picom()
    daemon = make_daemon()
    waiting = daemon.notifyctl_waiting("Ada", "Lunch at noon?", "--fade-in", "0", "--hold", "2s", "--reply",
                                "Type a reply")
    box = wait_for(lambda: fully_drawn(x.screenshot(), CARD), what="the card with a reply field").box()
    unfocused = x.screenshot(region=box)
    x.click((box[0] + box[2]) // 2, box[3] - 12 - 8)
    wait_for(lambda: x.screenshot(region=box).pixels != unfocused.pixels, what="the field to take the keyboard")
    focused = x.screenshot(region=box)
    x.run("xdotool", "type", "--delay", "20", "On my way")
    wait_for(lambda: x.screenshot(region=box).pixels != focused.pixels, what="the typed text to show")
    x.save(SCREENSHOTS / "notifyd-x11-reply.png")
    x.run("xdotool", "key", "Return")
    output, _ = waiting.communicate(timeout=10)
    assert (waiting.returncode, output.strip()) == (0, "On my way")
    # Escape gives up: nothing is sent, and the notice goes on to its end.
    notice = daemon.show("Again", "--fade-in", "0", "--hold", "1s", "--fade-out", "0", "--reply", "Reply")
    box = wait_for(lambda: fully_drawn(x.screenshot(), CARD), what="the second card").box()
    unfocused = x.screenshot(region=box)
    x.click((box[0] + box[2]) // 2, box[3] - 12 - 8)
    wait_for(lambda: x.screenshot(region=box).pixels != unfocused.pixels, what="the field to take the keyboard")
    x.run("xdotool", "type", "no")
    x.run("xdotool", "key", "Escape")
    assert daemon.notifyctl("wait", str(notice), timeout=20).returncode == 0
    assert daemon.get(notice).get("replied") is None
