"""Sharp on every screen (issue 34): cards and the center drawn at the output's scale on headless
sway (`swaymsg output … scale 2`, a second output made with `create_output`) and at `Xft.dpi` on
Xvfb, judged by the pixels of screenshots taken at the device's resolution.

A card drawn at scale 1 and scaled up by the compositor is as large as one drawn at scale 2; what
tells them apart is its edges. `sharpness` measures how much of a text line's change from pixel to
pixel happens in steps of a quarter of the range or more (crisp edges), and `between_pairs` how many
of those steps fall inside a pair of device pixels — where a card scaled up from scale 1 has none
(nearest) or only half steps (smooth filters)."""

import subprocess
import time

import pytest

from conftest import wait_for
from popup_helpers import Image as Screenshot, close_to, daemon_status
from test_popups_wayland import (BACKGROUND, CARD, MARGIN, OUTPUT, SCREENSHOTS, WIDTH, as_user, display_config,
                                 session, swaymsg, user)
from test_popups_x11 import session as x11_session

__all__ = ["session", "user", "x11_session"]

TITLE = "Sharp at every scale"
BODY = "The quick brown fox jumps over the lazy dog, 0123456789"


def output_shot(sway, output="HEADLESS-1"):
    """All of `output` at its own scale: device pixels."""
    result = subprocess.run(["grim", "-o", output, "-t", "ppm", "-"], capture_output=True, timeout=20,
                            env={"XDG_RUNTIME_DIR": str(sway.directory), "WAYLAND_DISPLAY": sway.display})
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    return Screenshot(result.stdout, background=BACKGROUND)


def card_box(image):
    """The card: the box of pixels near its colour (its border and text are inside it)."""
    box = image.box(differs=lambda rgb: close_to(rgb, CARD, 8))
    return box


def luminance(rgb):
    return (rgb[0] * 3 + rgb[1] * 6 + rgb[2]) // 10


def text_steps(image, box, scale):
    """Each step from one pixel to the next along the rows of the card's text (inside its padding,
    right of where an icon would be), as (x relative to the card, |change|)."""
    x0, y0, x1, y1 = box
    inset = int(14 * scale)
    steps = []
    for y in range(y0 + inset, y1 - inset):
        row = [luminance(image.pixel(x, y)) for x in range(x0 + inset, x1 - inset)]
        steps += [(x, abs(b - a)) for x, (a, b) in enumerate(zip(row, row[1:]))]
    return steps


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


def save(image_bytes_source, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    image_bytes_source(SCREENSHOTS / name)


def test_at_scale_2_a_card_is_twice_its_logical_size_with_edges_as_sharp_as_at_scale_1_and_redrawn_as_the_scale_changes(
        session):
    sway, make_daemon = session
    daemon = make_daemon()
    daemon.show(TITLE, BODY, "--fade-in", "0", "--hold", "120s")
    one = wait_for(lambda: (lambda image: image if card_box(image) else None)(output_shot(sway)), timeout=10,
                   what="the card at scale 1")
    box_one = card_box(one)
    contrast = max(change for _, change in text_steps(one, box_one, 1))
    assert box_one[2] - box_one[0] >= WIDTH - 6, box_one
    sharp_one = sharpness(text_steps(one, box_one, 1), contrast)

    swaymsg(sway, "output", "HEADLESS-1", "scale", "2")

    def drawn_at_scale_2():
        image = output_shot(sway)
        box = card_box(image)
        # The output is 640×360 logical now: the card is MARGIN logical pixels from its top right.
        if image.width != OUTPUT[0] or not box or box[2] - box[0] < 2 * WIDTH - 12:
            return None
        steps = text_steps(image, box, 2)
        return (image, box, steps) if between_pairs(steps, contrast) > 0.2 else None

    two, box_two, steps_two = wait_for(drawn_at_scale_2, timeout=10, what="the card redrawn at scale 2")
    subprocess.run(["grim", "-o", "HEADLESS-1", str(SCREENSHOTS / "scale-2-card.png")], check=False,
                   env={"XDG_RUNTIME_DIR": str(sway.directory), "WAYLAND_DISPLAY": sway.display})
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
    swaymsg(sway, "output", "HEADLESS-1", "scale", "1")
    again = wait_for(
        lambda: (lambda image: image if (card_box(image) or (0, 0, 0, 0))[2] - (card_box(image) or (0, 0, 0, 0))[0]
                 <= WIDTH + 4 and card_box(image) else None)(output_shot(sway)),
        timeout=10, what="the card redrawn at scale 1")
    box_again = card_box(again)
    assert box_again == box_one, (box_one, box_again)
    assert sharpness(text_steps(again, box_again, 1), contrast) >= sharp_one - 0.05
