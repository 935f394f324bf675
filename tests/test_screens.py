"""Sharp on every screen (issue 34): cards and the center drawn at the output's scale on headless
sway (`swaymsg output … scale 2`, a second output made with `create_output`) and at `Xft.dpi` on
Xvfb, judged by the pixels of screenshots taken at the device's resolution.

A card drawn at scale 1 and scaled up by the compositor is as large as one drawn at scale 2; what
tells them apart is its edges. `sharpness` measures how much of a text line's change from pixel to
pixel happens in steps of a quarter of the range or more (crisp edges), and `between_pairs` how many
of those steps fall inside a pair of device pixels — where a card scaled up from scale 1 has none
(nearest) or only half steps (smooth filters)."""

import os
import subprocess

from conftest import wait_for
from display import (BACKGROUND, BORDER, CARD, MARGIN, OUTPUT, SCREENSHOTS, WIDTH, display_config, needs_wayland,
                     needs_x11, session, user, x11_config, x11_session)  # noqa: F401 (fixtures)
from pixels import button_centres, close_to, hex_colour
from test_popups_x11 import card_left_edges
from wayland_pointer import VirtualKeyboard, VirtualPointer

pytestmark = [needs_wayland, needs_x11]

TITLE = "Sharp at every scale"
BODY = "The quick brown fox jumps over the lazy dog, 0123456789"


def card_box(image):
    """The card: the box of pixels near its colour (its border and text are inside it)."""
    return image.box_near(CARD, tolerance=8)


def luminance(rgb):
    """What tells text from the card: its blue (the card's yellow has little, the text's grey much)."""
    return rgb[2]


def device_steps(image, region):
    """Each step from one pixel to the next along the rows of `region` (x0, y0, x1, y1) of a
    screenshot in device pixels, as (x relative to the region's left edge, |change|)."""
    x0, y0, x1, y1 = region
    steps = []
    for y in range(y0, y1):
        row = [luminance(image.pixel(x, y)) for x in range(x0, x1)]
        steps += [(x, abs(b - a)) for x, (a, b) in enumerate(zip(row, row[1:]))]
    return steps


def text_steps(image, box, scale):
    """The steps along the rows of a card's text: its `box` inside its padding (an even number of
    device pixels, so that pairs stay pairs)."""
    x0, y0, x1, y1 = box
    inset = int(14 * scale)
    return device_steps(image, (x0 + inset, y0 + inset, x1 - inset, y1 - inset))


def sharpness(steps, contrast):
    """The share of the change along the text that happens in steps of a quarter of `contrast` or
    more: near 1 for crisp edges, lower for edges smeared over two pixels."""
    total = sum(change for _, change in steps)
    assert total > 0, "no text found"
    return sum(change for _, change in steps if change >= contrast / 4) / total


def between_pairs(steps, contrast):
    """The share of large steps that fall inside a pair of device pixels (x even → x + 1, the card
    starting on an even pixel): none where each logical pixel became two."""
    large = [x for x, change in steps if change >= contrast / 4]
    assert len(large) > 50, f"only {len(large)} edges in the text"
    return sum(1 for x in large if x % 2 == 0) / len(large)


def test_at_scale_2_a_card_is_twice_its_logical_size_with_edges_as_sharp_as_at_scale_1_and_redrawn_as_the_scale_changes(
        session):
    sway, make_daemon = session
    daemon = make_daemon()
    daemon.show(TITLE, BODY, "--fade-in", "0", "--hold", "120s")
    one = wait_for(lambda: (lambda image: image if card_box(image) else None)(sway.output_shot()), timeout=10,
                   what="the card at scale 1")
    box_one = card_box(one)
    contrast = max(change for _, change in text_steps(one, box_one, 1))
    assert box_one[2] - box_one[0] >= WIDTH - 6, box_one
    sharp_one = sharpness(text_steps(one, box_one, 1), contrast)

    sway.swaymsg("output", "HEADLESS-1", "scale", "2")

    def drawn_at_scale_2():
        image = sway.output_shot()
        box = card_box(image)
        # The output is 640×360 logical now: the card is MARGIN logical pixels from its top right.
        if image.width != OUTPUT[0] or not box or box[2] - box[0] < 2 * WIDTH - 12:
            return None
        steps = text_steps(image, box, 2)
        return (image, box, steps) if between_pairs(steps, contrast) > 0.2 else None

    two, box_two, steps_two = wait_for(drawn_at_scale_2, timeout=10, what="the card redrawn at scale 2")
    sway.save_output("scale-2-card.png")
    # Twice its logical size, where scale 1 put it (its right edge MARGIN from the output's, in
    # device pixels twice that).
    assert abs((box_two[2] - box_two[0]) - 2 * (box_one[2] - box_one[0])) <= 4, (box_one, box_two)
    assert abs((box_two[3] - box_two[1]) - 2 * (box_one[3] - box_one[1])) <= 4, (box_one, box_two)
    assert abs(box_two[2] - (OUTPUT[0] - 2 * MARGIN)) <= 4, box_two
    # As sharp as at scale 1, with edges a scaled-up card cannot have.
    sharp_two = sharpness(steps_two, contrast)
    assert sharp_two >= sharp_one - 0.1, (sharp_one, sharp_two)
    assert 0.3 <= between_pairs(steps_two, contrast) <= 0.7

    # Back to scale 1: drawn again at 1, as large and as sharp as before.
    sway.swaymsg("output", "HEADLESS-1", "scale", "1")
    def drawn_at_scale_1():
        image = sway.output_shot()
        box = card_box(image)
        return (image, box) if box and box[2] - box[0] <= WIDTH + 4 else None

    again, box_again = wait_for(drawn_at_scale_1, timeout=10, what="the card redrawn at scale 1")
    assert box_again == box_one, (box_one, box_again)
    assert sharpness(text_steps(again, box_again, 1), contrast) >= sharp_one - 0.05


def test_on_two_outputs_a_card_the_compositor_puts_on_the_scale_2_one_is_drawn_at_2_once_it_enters_it(session):
    sway, make_daemon = session
    # A second output at scale 2 beside the first, focused: with no Output= the compositor puts
    # new cards there, on an output other than the one they were laid out for first.
    sway.swaymsg("create_output")
    colour = "#%02x%02x%02x" % BACKGROUND
    sway.swaymsg("output", "HEADLESS-2", "mode", f"{OUTPUT[0]}x{OUTPUT[1]}", "position", f"{OUTPUT[0]}", "0",
            "scale", "2", "bg", colour, "solid_color")
    sway.swaymsg("focus", "output", "HEADLESS-2")
    wait_for(lambda: sway.output_shot("HEADLESS-2").pixel(4, 4) == BACKGROUND, what="the second output's background")
    daemon = make_daemon()
    daemon.show(TITLE, BODY, "--fade-in", "0", "--hold", "60s")

    def sharp_on_the_second():
        image = sway.output_shot("HEADLESS-2")
        box = card_box(image)
        if image.width != OUTPUT[0] or not box:
            return None
        steps = text_steps(image, box, 2)
        contrast = max(change for _, change in steps)
        return (image, box) if between_pairs(steps, contrast) > 0.3 else None

    image, box = wait_for(sharp_on_the_second, timeout=10, what="the card at scale 2 on HEADLESS-2")
    assert abs((box[2] - box[0]) - 2 * WIDTH) <= 8, box
    # Nothing on the first.
    assert card_box(sway.output_shot("HEADLESS-1")) is None


def test_the_center_at_scale_2_fills_twice_its_width_in_device_pixels_with_sharp_text(session):
    sway, make_daemon = session
    sway.swaymsg("output", "HEADLESS-1", "scale", "2")
    config = display_config().replace("[Idle]", "[Center]\nWidth=400\n[Idle]")
    daemon = make_daemon(config)
    for index in range(3):
        daemon.show(f"Mail {index}: the quarterly report", "from Alice, with three attachments",
                    "--app", "mail", "--fade-in", "0", "--hold", "60s")
    assert daemon.notifyctl("center", "open").returncode == 0

    def panel():
        image = sway.output_shot()
        # The panel's own colour (the cards' background) down its whole height, 800 device pixels
        # from the right edge, and the background beside it.
        edge = OUTPUT[0] - 800
        if not (close_to(image.pixel(edge + 20, 10), CARD, 8) and close_to(image.pixel(OUTPUT[0] - 10,
                                                                                      OUTPUT[1] - 10), CARD, 8)):
            return None
        return image if image.pixel(edge - 4, 10) == BACKGROUND else None

    image = wait_for(panel, timeout=10, what="the center 800 device pixels wide")
    sway.save_output("scale-2-center.png")
    steps = device_steps(image, (OUTPUT[0] - 800 + 8, 0, OUTPUT[0], OUTPUT[1] // 2))
    contrast = max(change for _, change in steps)
    assert between_pairs(steps, contrast) > 0.3
    assert daemon.notifyctl("center", "close").returncode == 0


# X11: the scale from Xft.dpi, or [Display] Scale=.

def test_on_x11_xft_dpi_192_draws_cards_at_scale_2_a_click_finds_its_button_and_xrdb_changes_follow(x11_session):
    x, make_daemon = x11_session
    subprocess.run(["xrdb", "-merge"], input="Xft.dpi: 192\n", text=True, env=x.env(), check=True, timeout=10)
    daemon = make_daemon(x11_config())
    waiting = subprocess.Popen(
        [*daemon.notifyctl_command(), "show", TITLE, BODY, "--fade-in", "0", "--hold", "60s", "--action",
         "merge=Merge", "--action", "close=Close", "--wait"],
        env={**daemon.env, "NOTIFYD_SOCKET": daemon.socket_path}, stdout=subprocess.PIPE, text=True)
    try:
        def drawn():
            image = x.screenshot(region=(0, 0, *OUTPUT))
            box = card_box(image)
            return (image, box) if box and box[2] - box[0] >= 2 * WIDTH - 12 else None

        image, box = wait_for(drawn, timeout=10, what="the card at scale 2")
        x.save(SCREENSHOTS / "x11-scale-2-card.png")
        # 600 device pixels wide, 2 × MARGIN from the top right.
        assert abs(box[2] - (OUTPUT[0] - 2 * MARGIN)) <= 4 and abs(box[1] - 2 * MARGIN) <= 4, box
        steps = text_steps(image, box, 2)
        contrast = max(change for _, change in steps)
        assert 0.3 <= between_pairs(steps, contrast) <= 0.7
        # The second button, found where scale 1 puts it, doubled: the click is read in logical pixels.
        logical = button_centres((0, 0, (box[2] - box[0]) // 2 + 2, (box[3] - box[1]) // 2 + 2), 2)[1]
        x.click(box[0] - 4 + 2 * logical[0], box[1] - 4 + 2 * logical[1])
        output, _ = waiting.communicate(timeout=10)
        assert (waiting.returncode, output.strip()) == (0, "close")
    finally:
        if waiting.poll() is None:
            waiting.kill()
    # xrdb changes the resources: the next card is drawn at the new scale, and Scale= wins over both.
    subprocess.run(["xrdb", "-merge"], input="Xft.dpi: 96\n", text=True, env=x.env(), check=True, timeout=10)
    daemon.show(TITLE, BODY, "--fade-in", "0", "--hold", "60s")
    box = wait_for(lambda: (lambda b: b if b and b[2] - b[0] <= WIDTH + 4 else None)(card_box(x.screenshot(region=(0, 0, *OUTPUT)))),
                   timeout=10, what="the card at scale 1 after xrdb")
    assert abs((box[2] - box[0]) - (WIDTH - 4)) <= 4, box


def test_on_x11_follow_focus_keyboard_puts_the_stack_on_the_monitor_of_the_window_with_the_keyboard(x11_session):
    x, make_daemon = x11_session
    half = OUTPUT[0] // 2
    on_left, on_right = [half - MARGIN - WIDTH], [OUTPUT[0] - MARGIN - WIDTH]
    x.run("xrandr", "--setmonitor", "*left", f"{half}/169x{OUTPUT[1]}/190+0+0", "none")
    x.run("xrandr", "--setmonitor", "right", f"{half}/169x{OUTPUT[1]}/190+{half}+0", "none")
    # A real window manager, which names the window with the keyboard in _NET_ACTIVE_WINDOW, and a
    # window on each monitor, low, away from the cards.
    processes = [x.window_manager()]
    try:
        windows = {}
        for name, left in [("left", 100), ("right", half + 100)]:
            window, windows[name] = x.xmessage(f"notifyd-{name}", f"300x100+{left}+500", f"the {name} window")
            processes.append(window)

        def activate(name):
            x.run("xdotool", "windowactivate", "--sync", windows[name])
            wait_for(lambda: active_window() == int(windows[name]), what=f"the {name} window to have the keyboard")

        def active_window():
            """The root's _NET_ACTIVE_WINDOW; None until the window manager has set it ("not found.")."""
            value = x.run("xprop", "-root", "_NET_ACTIVE_WINDOW").stdout.split()[-1]
            return int(value, 16) if value.startswith("0x") else None

        def stack_edges():
            return card_left_edges(x.screenshot((0, 0, *OUTPUT)))

        daemon = make_daemon(x11_config(FollowFocus="keyboard"))
        # The pointer on the left monitor: it is not what decides.
        x.run("xdotool", "mousemove", "100", "100")
        activate("right")
        daemon.show("Where you type", "--fade-in", "0", "--hold", "30s")
        wait_for(lambda: stack_edges() == on_right,
                 what="the card on the active window's monitor")
        activate("left")
        daemon.show("Followed", "--fade-in", "0", "--hold", "30s")
        wait_for(lambda: stack_edges() == on_left,
                 what="the stack moved to the newly active window's monitor")
        # The right window active again, then no window named at all: the primary monitor.
        activate("right")
        daemon.notifyctl("cancel", "--all", "--now", check=True)
        x.run("xprop", "-root", "-remove", "_NET_ACTIVE_WINDOW")
        daemon.show("Nobody types", "--fade-in", "0", "--hold", "30s")
        wait_for(lambda: stack_edges() == on_left,
                 what="the card on the primary monitor")
    finally:
        for process in reversed(processes):
            process.terminate()
            process.wait(timeout=10)


# Icons by name (the freedesktop icon theme lookup), SVG and symbolic, at the output's scale.

FOREGROUND = (0x10, 0x30, 0xE0)  # [Display:normal] Foreground: the text, and a symbolic icon
MAGENTA, GREEN = (0xE0, 0x10, 0xC0), (0x10, 0xC0, 0x40)


def icon_region(image, scale):
    """Where the card's icon is drawn: the 48-pixel square inside its 12-pixel padding, from the
    card's outer edge (its border)."""
    x0, y0, _, _ = image.box()
    return (x0 + 12 * scale, y0 + 12 * scale, x0 + 60 * scale, y0 + 60 * scale)


def region_pixels(image, region):
    x0, y0, x1, y1 = region
    return [image.pixel(x, y) for y in range(y0, y1) for x in range(x0, x1)]


def off_the_blend(rgb, a, b):
    """How far `rgb` is from every mix of colours `a` and `b` (0 for a pixel of an icon in `b`
    drawn over `a`, anti-aliased or not)."""
    span = [q - p for p, q in zip(a, b)]
    t = max(0.0, min(1.0, sum((c - p) * s for c, p, s in zip(rgb, a, span)) / sum(s * s for s in span)))
    return max(abs(c - (p + t * s)) for c, p, s in zip(rgb, a, span))


def test_adwaitas_symbolic_svg_by_name_is_drawn_in_the_text_colour_at_the_devices_resolution(session):
    sway, make_daemon = session
    sway.swaymsg("output", "HEADLESS-1", "scale", "2")
    colour = "#%02x%02x%02x" % FOREGROUND
    daemon = make_daemon(display_config().replace("[Idle]", f"[Display:normal]\nForeground={colour}\n[Idle]"))
    daemon.show(TITLE, BODY, "--icon", "dialog-information-symbolic", "--fade-in", "0", "--hold", "60s")

    def icon_drawn():
        image = sway.output_shot()
        box = card_box(image)
        if not box or box[2] - box[0] < 2 * WIDTH - 12:
            return None
        pixels = region_pixels(image, icon_region(image, 2))
        return (image, box, pixels) if sum(close_to(p, FOREGROUND, 12) for p in pixels) > 500 else None

    image, box, pixels = wait_for(icon_drawn, timeout=10, what="the symbolic icon in the text's colour")
    sway.save_output("scale-2-symbolic-icon.png")
    # Every pixel of the square is the card, the text's colour, or a mix of the two: Adwaita's own
    # grey is gone (it is far from that line).
    assert off_the_blend((0x2E, 0x34, 0x36), CARD, FOREGROUND) > 60
    astray = [p for p in pixels if off_the_blend(p, CARD, FOREGROUND) > 16]
    assert len(astray) <= len(pixels) // 100, astray[:10]
    # Drawn from the SVG at 96 device pixels, not a 48-pixel image doubled: edges inside pixel pairs.
    steps = device_steps(image, icon_region(image, 2))
    contrast = max(change for _, change in steps)
    assert 0.25 <= between_pairs(steps, contrast) <= 0.75


def test_a_theme_of_ones_own_draws_its_full_colour_svg_and_inherits_adwaitas_icons(session):
    sway, make_daemon = session
    # A theme in the user's data directory: a full-colour SVG of a program, Adwaita inherited.
    data = sway.directory / "data"
    theme = data / "icons" / "NotifydTest"
    (theme / "scalable" / "apps").mkdir(parents=True)
    (theme / "index.theme").write_text(
        "[Icon Theme]\nName=NotifydTest\nInherits=Adwaita\nDirectories=scalable/apps\n\n"
        "[scalable/apps]\nSize=48\nMinSize=8\nMaxSize=512\nType=Scalable\n")
    (theme / "scalable" / "apps" / "notifyd-test-app.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48">'
        '<rect width="24" height="48" fill="#%02x%02x%02x"/>' % MAGENTA
        + '<rect x="24" width="24" height="48" fill="#%02x%02x%02x"/></svg>' % GREEN)
    for path in [data, *data.rglob("*")]:
        os.chown(path, sway.user.pw_uid, sway.user.pw_gid)
    daemon = make_daemon(display_config(IconTheme="NotifydTest"), env={"XDG_DATA_HOME": str(data)})
    daemon.show(TITLE, BODY, "--icon", "notifyd-test-app", "--fade-in", "0", "--hold", "60s")

    def icon_in(colours, count):
        def drawn():
            image = sway.output_shot()
            if not card_box(image):
                return None
            pixels = region_pixels(image, icon_region(image, 1))
            return pixels if all(sum(close_to(p, c, 6) for p in pixels) >= count for c in colours) else None
        return drawn

    # Its own colours, not tinted: half magenta, half green, filling the square.
    pixels = wait_for(icon_in([MAGENTA, GREEN], 48 * 24 - 48), timeout=10, what="the theme's own SVG")
    sway.save_output("own-theme-icon.png")
    assert sum(close_to(p, MAGENTA, 6) or close_to(p, GREEN, 6) for p in pixels) >= 48 * 48 - 96

    # A name the theme lacks is Adwaita's, through Inherits= (hicolor has no symbolic icons).
    assert daemon.notifyctl("cancel", "--all", "--now").returncode == 0
    wait_for(lambda: card_box(sway.output_shot()) is None, timeout=10, what="the first card gone")
    daemon.show(TITLE, BODY, "--icon", "dialog-information-symbolic", "--fade-in", "0", "--hold", "60s")
    wait_for(icon_in([(0xE8, 0xEB, 0xF0)], 300), timeout=10, what="Adwaita's symbolic icon in the default text colour")


# Looks by rule

CI_CARD, CI_BORDER, PAGER_CARD = (0x20, 0x30, 0x80), (0xFF, 0x00, 0xFF), (0x10, 0x90, 0x40)


def rule_config(*rules):
    """`display_config()` with `[Rule:NAME]` sections, each (name, {key: value})."""
    text = display_config()
    for name, keys in rules:
        text += f"[Rule:{name}]\n" + "".join(f"{key}={value}\n" for key, value in keys.items())
    return text


def test_a_rule_gives_the_cards_it_matches_its_own_width_colours_border_corners_padding_and_format(session):
    sway, make_daemon = session
    daemon = make_daemon(rule_config(("ci", {
        "MatchApp": "ci", "Background": hex_colour(CI_CARD), "Border": hex_colour(CI_BORDER), "BorderWidth": 6,
        "Width": 480, "CornerRadius": 0, "Padding": 20, "Format": "<b>%s</b>"})))
    daemon.show(TITLE, BODY, "--app", "mail", "--fade-in", "0", "--hold", "60s")
    daemon.show("Build 42 passed", BODY, "--app", "ci", "--fade-in", "0", "--hold", "60s")

    def both_drawn():
        image = sway.screenshot()
        mail = card_box(image)
        ci = image.box_near(CI_CARD, CI_BORDER, tolerance=8)
        return (image, mail, ci) if mail and ci and ci[2] - ci[0] >= 470 else None

    image, mail, ci = wait_for(both_drawn, timeout=10, what="a card in the rule's look beside one in the default")
    sway.save_output("rule-look.png")
    right = OUTPUT[0] - MARGIN
    # Each at its own width, both against the anchor's side.
    assert (ci[2], ci[2] - ci[0]) == (right, 480), ci
    assert abs(mail[2] - right) <= 2 and abs((mail[2] - mail[0]) - WIDTH) <= 4, mail
    # Its border: six pixels of magenta, square corners (the corner pixel is the border's), then
    # its own background.
    middle = (ci[1] + ci[3]) // 2
    assert all(close_to(image.pixel(ci[0] + x, middle), CI_BORDER, 8) for x in range(6))
    assert close_to(image.pixel(ci[0] + 6, middle), CI_CARD, 8)
    assert close_to(image.pixel(ci[0], ci[1]), CI_BORDER, 8) and close_to(image.pixel(ci[2] - 1, ci[3] - 1), CI_BORDER, 8)
    # The default card's corners are round: the corner of its background's box is not its background.
    assert not close_to(image.pixel(mail[0], mail[1]), CARD, 8)
    # Its text is the format alone, the title: one line inside 20 pixels of padding.
    rows = [y for y in range(ci[1] + 6, ci[3] - 6)
            if any(not close_to(image.pixel(x, y), CI_CARD, 24) for x in range(ci[0] + 6, ci[2] - 6))]
    assert rows and rows[0] >= ci[1] + 20 and rows[-1] < ci[3] - 20, (ci, rows[:1], rows[-1:])
    assert rows[-1] - rows[0] < 24, "more than one line of text"
    assert ci[3] - ci[1] < mail[3] - mail[1], (ci, mail)


def test_a_rules_layer_overlay_shows_its_card_over_a_fullscreen_window_where_top_cards_go_under_it(session):
    sway, make_daemon = session
    daemon = make_daemon(rule_config(("pager", {"MatchApp": "pager", "Layer": "overlay",
                                                "Background": hex_colour(PAGER_CARD)})))
    window = sway.gtk_window()

    def shown(colour):
        return lambda: sway.screenshot().box_near(colour, tolerance=8)

    try:
        # Over a window that is not fullscreen, both show.
        daemon.show(TITLE, BODY, "--app", "mail", "--fade-in", "0", "--hold", "60s")
        wait_for(shown(CARD), timeout=10, what="the top card over a tiled window")
        daemon.show("Disk failing", "sda: 12 reallocated sectors", "--app", "pager", "--fade-in", "0",
                    "--hold", "60s")
        pager = wait_for(shown(PAGER_CARD), timeout=10, what="the overlay card")
        sway.swaymsg("[app_id=zenity]", "fullscreen", "enable")
        assert '"fullscreen_mode": 1' in sway.tree()
        # The fullscreen window covers the top layer's card, not the overlay's.
        wait_for(lambda: shown(CARD)() is None, timeout=10, what="the top card under the fullscreen window")
        sway.save_output("fullscreen-overlay.png")
        assert shown(PAGER_CARD)() == pager
        sway.swaymsg("[app_id=zenity]", "fullscreen", "disable")
        mail = wait_for(shown(CARD), timeout=10, what="the top card once the window is no longer fullscreen")
        assert mail[1] > pager[3], (pager, mail)
    finally:
        window.kill()
        window.wait()


def test_on_x11_a_notice_updated_into_a_rule_takes_its_look_the_window_resized_and_cut_to_its_corners(x11_session):
    x, make_daemon = x11_session
    config = x11_config() + f"[Rule:failed]\nMatchTitle=*failed*\nWidth=480\nCornerRadius=0\nBackground={hex_colour(CI_CARD)}\n"
    daemon = make_daemon(config)
    notice = daemon.show("Build 42", BODY, "--app", "ci", "--fade-in", "0", "--hold", "60s")
    right = OUTPUT[0] - MARGIN

    def card(colour, width):
        def drawn():
            image = x.screenshot(region=(0, 0, *OUTPUT))
            box = image.box_near(colour, tolerance=8)
            return (image, box) if box and abs((box[2] - box[0]) - (width - 4)) <= 2 else None
        return drawn

    image, box = wait_for(card(CARD, WIDTH), timeout=10, what="the card in the default look")
    # Nothing composites: the window is cut round at its corners (the root shows there).
    assert box[2] == right - 2, box
    assert image.pixel(right - 1, MARGIN) == x.background
    assert daemon.notifyctl("update", str(notice), "--title", "Build 42 failed").returncode == 0
    image, box = wait_for(card(CI_CARD, 480), timeout=10, what="the card in the rule's look, 480 wide")
    x.save(SCREENSHOTS / "x11-rule-look.png")
    # The same right edge; square corners: the corner pixel is the border's.
    assert box[2] == right - 2, box
    assert close_to(image.pixel(right - 1, MARGIN), BORDER, 8), image.pixel(right - 1, MARGIN)
    assert close_to(image.pixel(right - 480, MARGIN), BORDER, 8)


# Outputs: a card on the focused output, on every one, or on one by name; unplugged and plugged.

def boxes(sway, colour):
    """The box of the pixels near `colour` on each output, by name (None: none there)."""
    return {name: sway.output_shot(name).box_near(colour, tolerance=8)
            for name in ("HEADLESS-1", "HEADLESS-2")}


def test_output_all_puts_a_card_on_every_output_and_a_named_one_moves_to_its_output_once_plugged_in(session):
    sway, make_daemon = session
    # wlroots' headless outputs cannot be disabled ("Cannot disable a headless output"): the
    # output comes, it does not go. Its going is the same path in reverse (PopupStack.byOutput).
    daemon = make_daemon(rule_config(
        ("everywhere", {"MatchUrgency": "critical", "Output": "all", "Background": hex_colour(PAGER_CARD)}),
        ("side", {"MatchApp": "side", "Output": "HEADLESS-2", "Background": hex_colour(CI_CARD)})))
    alarm = daemon.show("Disk failing", "--urgency", "critical", "--fade-in", "0")
    side = daemon.show("On the side", BODY, "--app", "side", "--fade-in", "0", "--hold", "60s")

    # No HEADLESS-2 yet: its card is on the focused output, stacked with the critical one.
    def stacked_on_the_first():
        image = sway.output_shot("HEADLESS-1")
        named = image.box_near(CI_CARD, tolerance=8)
        critical = image.box_near(PAGER_CARD, tolerance=8)
        return named if named and critical and named[3] < critical[1] else None

    first = wait_for(stacked_on_the_first, timeout=10, what="both cards stacked on the only output")
    assert first[2] == OUTPUT[0] - MARGIN - 2, first  # the background ends inside the 2-pixel border

    # HEADLESS-2 plugged in: the named card moves to it, and the critical card is on both.
    sway.second_output()
    placed = wait_for(lambda: (lambda b: b if b["HEADLESS-2"] and not b["HEADLESS-1"] else None)(boxes(sway, CI_CARD)),
                      timeout=10, what="the named card moved to its output")
    critical = wait_for(lambda: (lambda b: b if all(b.values()) else None)(boxes(sway, PAGER_CARD)), timeout=10,
                        what="the critical card on both outputs")
    sway.save_output("output-all-1.png")
    sway.save_output("output-all-2.png", "HEADLESS-2")
    # On HEADLESS-2 the two stack, the newer at the top; on HEADLESS-1 the critical card moved up.
    assert critical["HEADLESS-2"][1] > placed["HEADLESS-2"][3], (critical, placed)
    assert critical["HEADLESS-1"][1] < first[3], (critical, first)
    assert placed["HEADLESS-2"][2] == OUTPUT[0] - MARGIN - 2, placed
    # Nothing was lost on the way.
    assert daemon.get(side)["phase"] == "holding" and daemon.get(alarm)["phase"] == "holding"


def test_output_focused_follows_the_window_with_the_keyboard_and_the_stack_moves_with_a_new_card(session):
    sway, make_daemon = session
    sway.second_output()
    windows = []
    try:
        for name, output in (("left", "HEADLESS-1"), ("right", "HEADLESS-2")):
            sway.swaymsg("focus", "output", output)
            windows.append(sway.gtk_window(f"notifyd-{name}"))
        daemon = make_daemon()

        def focus(name):
            sway.swaymsg(f'[title="^notifyd-{name}$"]', "focus")
            wait_for(lambda: f'"name": "notifyd-{name}"' in sway.focused_node(), what=f"the {name} window focused")

        focus("right")
        daemon.show("Where you type", "--fade-in", "0", "--hold", "60s")
        first = wait_for(lambda: boxes(sway, CARD)["HEADLESS-2"], timeout=10, what="the card on the right output")
        assert boxes(sway, CARD)["HEADLESS-1"] is None
        focus("left")
        daemon.show("Followed", "--fade-in", "0", "--hold", "60s")
        # Both cards on the left output now: the stack moved with the new one.
        both = wait_for(lambda: (lambda b: b if b["HEADLESS-1"] and not b["HEADLESS-2"] else None)(boxes(sway, CARD)),
                        timeout=10, what="the stack on the left output")
        assert both["HEADLESS-1"][3] - both["HEADLESS-1"][1] > 2 * (first[3] - first[1]), (first, both)
    finally:
        for window in windows:
            window.kill()
            window.wait()


def test_on_x11_output_all_shows_a_card_on_every_monitor_and_a_name_on_its_own(x11_session):
    x, make_daemon = x11_session
    half = OUTPUT[0] // 2
    x.run("xrandr", "--setmonitor", "*left", f"{half}/169x{OUTPUT[1]}/190+0+0", "none")
    x.run("xrandr", "--setmonitor", "right", f"{half}/169x{OUTPUT[1]}/190+{half}+0", "none")
    on_left, on_right = half - MARGIN - WIDTH, OUTPUT[0] - MARGIN - WIDTH
    config = x11_config() + (
        f"[Rule:everywhere]\nMatchUrgency=critical\nOutput=all\nBackground={hex_colour(PAGER_CARD)}\n"
        f"[Rule:side]\nMatchApp=side\nOutput=right\nBackground={hex_colour(CI_CARD)}\n")
    daemon = make_daemon(config)

    def lefts(colour):
        """The left edge of the card of `colour` on each monitor (None: none there)."""
        found = []
        for region in ((0, 0, half, OUTPUT[1]), (half, 0, *OUTPUT)):
            box = x.screenshot(region).box_near(colour, tolerance=8)
            found.append(box and box[0] - 2)  # the border is 2 pixels outside the background
        return found

    daemon.show("Disk failing", "--urgency", "critical", "--fade-in", "0")
    wait_for(lambda: lefts(PAGER_CARD) == [on_left, on_right], timeout=10, what="the critical card on both monitors")
    daemon.show("On the side", "--app", "side", "--fade-in", "0", "--hold", "60s")
    wait_for(lambda: lefts(CI_CARD) == [None, on_right], timeout=10, what="the named monitor's card on it alone")
    x.save(SCREENSHOTS / "x11-output-all.png")
    # The right monitor gone (monitors set by xrandr --setmonitor come without an event: they are
    # read again as a card appears): the named card goes to the focused (primary) monitor. (X
    # gives the uncovered part of the screen a monitor of its own again, "screen".)
    x.run("xrandr", "--delmonitor", "right")
    daemon.show("A third", "--fade-in", "0", "--hold", "60s")
    wait_for(lambda: lefts(CI_CARD) == [on_left, None], timeout=10, what="the named card on the primary monitor")
    # Back: the named card returns to its monitor, the critical card is on both again.
    x.run("xrandr", "--setmonitor", "right", f"{half}/169x{OUTPUT[1]}/190+{half}+0", "none")
    daemon.show("A fourth", "--fade-in", "0", "--hold", "60s")
    wait_for(lambda: lefts(CI_CARD) == [None, on_right] and lefts(PAGER_CARD) == [on_left, on_right], timeout=10,
             what="the named card back on its monitor")


def test_a_reply_typed_into_the_copy_on_the_second_output_of_a_card_on_every_output_reaches_show_wait(session):
    # The keyboard goes to the copy clicked (the backend remembers it). sway 1.7 gives a layer
    # surface that asks for the keyboard all of it whichever copy asked, so this passes either way
    # there; with layer-shell's on_demand it is the copy clicked that gets the keys.
    sway, make_daemon = session
    sway.second_output()
    daemon = make_daemon(rule_config(("everywhere", {"MatchApp": "chat", "Output": "all"})))
    layout = (2 * OUTPUT[0], OUTPUT[1])
    pointer = VirtualPointer(str(sway.directory), sway.display)
    keyboard = VirtualKeyboard(str(sway.directory), sway.display)
    try:
        pointer.move_to(5, OUTPUT[1] - 5, *layout)
        waiting = daemon.notifyctl_waiting("Ada", "Lunch?", "--app", "chat", "--fade-in", "0", "--hold", "60s",
                                    "--reply", "Type a reply")
        boxes_now = wait_for(lambda: (lambda b: b if all(b.values()) else None)(boxes(sway, CARD)), timeout=10,
                             what="the card on both outputs")
        # The field of the copy on HEADLESS-2 (laid out right of HEADLESS-1), above the card's foot.
        box = boxes_now["HEADLESS-2"]
        unfocused = sway.output_shot("HEADLESS-2").pixels
        pointer.move_to(OUTPUT[0] + (box[0] + box[2]) // 2, box[3] - 12 - 8, *layout)
        pointer.click()
        pointer.move_to(5, OUTPUT[1] - 5, *layout)
        wait_for(lambda: sway.output_shot("HEADLESS-2").pixels != unfocused, what="the field to take the keyboard")
        keyboard.type("on my way")
        keyboard.press("Return")
        output, _ = waiting.communicate(timeout=10)
        assert (waiting.returncode, output.strip()) == (0, "on my way")
    finally:
        keyboard.close()
        pointer.close()
