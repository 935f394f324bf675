"""Settings for people with low vision and for reduced motion, judged by what is on the screen:
`FontScale=` (the text grows, the card with it), `Animation=none` (a card there in full for the
whole of its fades), and the high-contrast example (its colours' contrast measured in the pixels
against WCAG's 7:1)."""

import subprocess
import time
from pathlib import Path

from conftest import BIN, wait_for
from display import (CARD, MARGIN, OUTPUT, SCREENSHOTS, WIDTH, display_config, needs_wayland, session,  # noqa: F401
                     user)
from pixels import close_to

pytestmark = needs_wayland

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "high-contrast.conf"


def samples_until_finished(sway, daemon, notice, x, y):
    """The pixel (x, y) read again and again until the notice finishes: (before, after, rgb) each,
    the times around the screenshot."""
    region = (x, y, x + 1, y + 1)
    samples = []
    while daemon.get(notice)["phase"] != "finished":
        before = time.time()
        rgb = sway.screenshot(region=region).pixel(x, y)
        samples.append((before, time.time(), rgb))
    return samples


def test_animation_none_draws_a_card_whole_from_the_start_of_its_fade_in_to_the_end_of_its_fade_out(session):
    sway, make_daemon = session
    daemon = make_daemon(display_config(Animation="none"))
    fade_in, hold, fade_out = 2.0, 1.0, 2.0
    notice = daemon.show("Calm", "--fade-in", f"{fade_in}s", "--hold", f"{hold}s", "--fade-out", f"{fade_out}s",
                         "--ease-in", "linear", "--ease-out", "linear")
    # Inside the border at the card's left edge, where a fading card shows a blend of the two.
    samples = samples_until_finished(sway, daemon, notice, OUTPUT[0] - MARGIN - WIDTH + 6, MARGIN + 20)
    shown = daemon.get(notice)["shown"]
    fade_out_starts = shown + fade_in + hold
    # Judged where a whole reading lies inside a fade, a quarter second off each end for the
    # daemon's wake-up and the compositor's frame under a loaded machine; a linear fade there is
    # between 12 % and 88 % of the way, far from the card's colour.
    margin = 0.25
    fading_in = [rgb for start, end, rgb in samples if shown + margin <= start and end <= shown + fade_in - margin]
    fading_out = [rgb for start, end, rgb in samples
                  if fade_out_starts + margin <= start and end <= fade_out_starts + fade_out - margin]
    assert fading_in and fading_out, (len(samples), len(fading_in), len(fading_out))
    assert all(close_to(rgb, CARD) for rgb in fading_in + fading_out), (fading_in, fading_out)
    # And once finished, it is gone.
    wait_for(lambda: sway.screenshot().box() is None, timeout=5, what="the card to go")


def card_boxes(image):
    """The cards down the stack: each (x0, y0, x1, y1), found in the column just inside their left
    border."""
    x = OUTPUT[0] - MARGIN - WIDTH + 6
    return [(OUTPUT[0] - MARGIN - WIDTH, top, OUTPUT[0] - MARGIN, bottom)
            for top, bottom in image.runs_down(x, differs=lambda rgb: close_to(rgb, CARD, 10))]


def ink_box(image, box, paper, tolerance=60):
    """The smallest box around the pixels of `box` (10 pixels in from its edges: the border and the
    rounded corners) that differ from `paper` by more than `tolerance` in some channel: its text."""
    x0, y0, x1, y1 = box
    inside = (x0 + 10, y0 + 10, x1 - 10, y1 - 10)
    found = None
    for y in range(inside[1], inside[3]):
        for x in range(inside[0], inside[2]):
            if max(abs(a - b) for a, b in zip(image.pixel(x, y), paper)) > tolerance:
                found = (min(found[0], x), min(found[1], y), max(found[2], x + 1), max(found[3], y + 1)) \
                    if found else (x, y, x + 1, y + 1)
    return found


def test_font_scale_by_rule_draws_the_text_twice_as_tall_and_the_card_grows_to_hold_it(session):
    sway, make_daemon = session
    config = display_config() + "[Rule:large]\nMatchTitle=Large*\nFontScale=2\n"
    daemon = make_daemon(config)
    for title in ("Small print", "Large print"):
        daemon.show(title, "312 files copied", "--fade-in", "0", "--hold", "60s")
    image = wait_for(lambda: (lambda shot: shot if len(card_boxes(shot)) == 2 else None)(sway.screenshot()),
                     timeout=10, what="two cards")
    sway.save(SCREENSHOTS / "notifyd-font-scale.png")
    large, small = card_boxes(image)  # the newest nearest the anchor
    small_ink, large_ink = ink_box(image, small, CARD), ink_box(image, large, CARD)
    assert small_ink and large_ink, (small, large)
    ratio = (large_ink[3] - large_ink[1]) / (small_ink[3] - small_ink[1])
    # Two lines of text at twice the size: twice as tall, within a line's rounding.
    assert 1.8 <= ratio <= 2.2, (small_ink, large_ink, ratio)
    # Wider too, as far as the card lets it; the card itself keeps its width and grows down.
    assert large_ink[2] - large_ink[0] > 1.5 * (small_ink[2] - small_ink[0]), (small_ink, large_ink)
    assert large[2] - large[0] == small[2] - small[0] == WIDTH
    assert (large[3] - large[1]) - (small[3] - small[1]) >= (small_ink[3] - small_ink[1]) * 0.8, (small, large)


def luminance(rgb):
    """WCAG 2's relative luminance of an sRGB colour."""
    def linear(channel):
        value = channel / 255
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4
    red, green, blue = (linear(channel) for channel in rgb)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(a, b):
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_high_contrast_example_is_accepted_and_its_cards_text_has_more_than_7_to_1_contrast(session):
    checked = subprocess.run([f"{BIN}/notifyd", "--check-config", "--config", str(EXAMPLE)], capture_output=True,
                             text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
    assert "FontScale=1.5" in checked.stdout and "Animation=none" in checked.stdout, checked.stdout
    sway, make_daemon = session
    # The example as it stands, drawing on the test's sway, without D-Bus and with no idleness.
    config = "[DBus]\nMode=off\n[Idle]\nAfter=off\n" + EXAMPLE.read_text().replace(
        "[Display]\n", f"[Display]\nMode=wayland\nAnchor=top-right\nMargin={MARGIN}\n", 1)
    daemon = make_daemon(config)
    daemon.show("Backup done", "312 files", "--fade-in", "0", "--hold", "60s")
    daemon.show("Disk full", "/home has 0 bytes left", "--urgency", "critical", "--fade-in", "0",
                "--hold", "60s")
    image = wait_for(lambda: (lambda shot: shot if len(shot.runs_down(OUTPUT[0] - MARGIN - 30)) >= 2 else None)(
        sway.screenshot()), timeout=10, what="both cards")
    sway.save(SCREENSHOTS / "notifyd-high-contrast.png")
    x = OUTPUT[0] - MARGIN - 30
    cards = image.runs_down(x)
    assert len(cards) == 2, cards
    width = 460
    looks = {"critical": ((0xFF, 0xFF, 0x00), (0, 0, 0)), "normal": ((0, 0, 0), (0xFF, 0xFF, 0xFF))}
    for (top, bottom), urgency in zip(cards, ("critical", "normal")):
        box = (OUTPUT[0] - MARGIN - width, top, OUTPUT[0] - MARGIN, bottom)
        paper_expected, ink_expected = looks[urgency]
        paper = image.pixel(box[0] + 8, (top + bottom) // 2)
        assert close_to(paper, paper_expected), (urgency, paper)
        text = ink_box(image, box, paper)
        assert text, (urgency, box)
        # The text's own colour where its strokes are solid: the pixel farthest from the paper.
        ink = max((image.pixel(px, py) for py in range(text[1], text[3]) for px in range(text[0], text[2])),
                  key=lambda rgb: sum(abs(a - b) for a, b in zip(rgb, paper)))
        assert close_to(ink, ink_expected, 12), (urgency, ink)
        assert contrast(ink, paper) >= 7, (urgency, ink, paper, contrast(ink, paper))
    # The normal card's border is its urgency's yellow, 4 pixels wide.
    top = cards[1][0]
    edge = [image.pixel(OUTPUT[0] - MARGIN - width // 2, top + dy) for dy in range(4)]
    assert all(close_to(rgb, (0xFF, 0xFF, 0x00), 12) for rgb in edge), edge
    assert not close_to(image.pixel(OUTPUT[0] - MARGIN - width // 2, top + 5), (0xFF, 0xFF, 0x00), 12)
