"""notifyd's own popups on a real Wayland compositor: headless sway, judged by grim's pixels.

sway refuses to run as root, so the compositor, the daemon that draws on it and the clients that
talk to the daemon run as an unprivileged user the tests create; the screenshots (grim) and the
virtual pointer are root's, which any compositor client may be.
"""

import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
import zlib
from pathlib import Path

import pytest

from conftest import BIN, Daemon, cpu_used_over, unprivileged_user, wait_for
from popup_helpers import (Image as Screenshot, blend, button_centres, button_fill_at, close_to, daemon_status,
                           fully_drawn, held_while_away_then_goes_once_back, notification_signals, private_bus,
                           send_shows, settled_rss_kib)
from wayland_pointer import VirtualKeyboard, VirtualPointer

OUTPUT = (1280, 720)
BACKGROUND = (0x20, 0x40, 0x60)
CARD = (0xF0, 0xE0, 0x30)  # [Display:normal] Background: far from the background in every channel
BORDER = (0xE0, 0x20, 0x20)
WIDTH, MARGIN, GAP = 300, 20, 10
POPUP_AREA = (OUTPUT[0] // 2, 0, OUTPUT[0], OUTPUT[1])
PARKED = (5, OUTPUT[1] - 5)  # where the virtual pointer waits between clicks

pytestmark = pytest.mark.skipif(shutil.which("sway") is None or shutil.which("grim") is None,
                                reason="sway and grim are not installed (scripts/deps.sh installs them)")


def as_user(user):
    return ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", "--"]


class Sway:
    """Headless sway as `user`, with a solid background and one 1280×720 output."""

    def __init__(self, directory, user):
        self.directory = directory
        self.user = user
        self.process = None
        self.display = None
        self.kills = 0
        self.config = directory / "sway.conf"
        colour = "#%02x%02x%02x" % BACKGROUND
        self.config.write_text(
            f"output HEADLESS-1 mode {OUTPUT[0]}x{OUTPUT[1]} position 0 0 bg {colour} solid_color\n"
            "default_border none\nfocus_follows_mouse no\n")
        os.chown(self.config, user.pw_uid, user.pw_gid)
        self.log_path = directory / "sway.log"

    def start(self):
        environment = {
            "PATH": os.environ["PATH"], "HOME": str(self.directory), "XDG_RUNTIME_DIR": str(self.directory),
            "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman",
        }
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [*as_user(self.user), "sway", "-c", str(self.config)], env=environment, stdout=self.log, stderr=self.log)

        def socket_made():
            if self.process.poll() is not None:
                raise AssertionError(f"sway exited {self.process.returncode}: {self.log_path.read_text()[-2000:]}")
            # A killed compositor leaves its socket behind: wait for one that answers.
            for path in sorted(self.directory.glob("wayland-*")):
                if path.name.endswith(".lock") or not path.is_socket():
                    continue
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                    try:
                        probe.connect(str(path))
                        return path.name
                    except OSError:
                        continue
            return None

        self.display = wait_for(socket_made, timeout=20, what="sway's Wayland socket")
        # swaybg draws the background a moment after sway starts.
        wait_for(lambda: self.screenshot(region=(0, 0, 8, 8)).pixel(4, 4) == BACKGROUND, timeout=20,
                 what="sway's background")
        return self

    def screenshot(self, region=POPUP_AREA):
        """The pixels of `region` (x0, y0, x1, y1), by default the right half of the output, where
        the popups are: the virtual pointer's cursor, which the tests park on the left, is not in it."""
        x0, y0, x1, y1 = region
        command = ["grim", "-t", "ppm", "-g", f"{x0},{y0} {x1 - x0}x{y1 - y0}"]
        result = subprocess.run(command + ["-"], capture_output=True, timeout=20,
                                env={"XDG_RUNTIME_DIR": str(self.directory), "WAYLAND_DISPLAY": self.display})
        assert result.returncode == 0, result.stderr.decode(errors="replace")
        return Screenshot(result.stdout, origin=(x0, y0), background=BACKGROUND)

    def save(self, path):
        subprocess.run(["grim", str(path)], check=True,
                       env={"XDG_RUNTIME_DIR": str(self.directory), "WAYLAND_DISPLAY": self.display})

    def kill(self):
        self.kills += 1
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.process:
            self.log.close()
        # swaybg outlives a killed sway for a moment: this sway's, not another test's.
        kill_processes_of(self.user, self.directory, "swaybg")


def kill_processes_of(user, runtime_dir, name):
    """SIGKILL to the processes called `name` of `user` started with XDG_RUNTIME_DIR=`runtime_dir`:
    what one compositor left, while other tests' compositors of the same user run on."""
    wanted = f"XDG_RUNTIME_DIR={runtime_dir}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry.stat().st_uid != user.pw_uid or (entry / "comm").read_text().strip() != name
                    or wanted not in (entry / "environ").read_bytes().split(b"\0")):
                continue
            os.kill(int(entry.name), signal.SIGKILL)
        except OSError:
            continue  # gone meanwhile (ProcessLookupError is one)


def user_binaries(directory):
    """notifyd and notifyctl copied where the test user may run them: the build may be in a folder
    only root can enter (CI clones under /root)."""
    target = directory / "bin"
    target.mkdir(mode=0o755)
    for name in ("notifyd", "notifyctl"):
        shutil.copy2(BIN / name, target / name)
    return target


class UserDaemon(Daemon):
    """notifyd as the test user, drawing on `sway`; clients are notifyctl as that user."""

    bin = BIN

    def __init__(self, runtime_dir, user, display, config, env=None):
        config_dir = runtime_dir / "config" / "notifyd"
        config_dir.mkdir(parents=True, exist_ok=True)
        (config_dir / "notifyd.conf").write_text(config)
        # WAYLAND_DISPLAY as an absolute path: the daemon's runtime directory is not sway's.
        super().__init__(runtime_dir, env={"WAYLAND_DISPLAY": display, "HOME": str(runtime_dir), **(env or {})})
        self.user = user
        self.start_command = as_user(user)
        self.program = self.bin / "notifyd"
        for path in [runtime_dir, *runtime_dir.rglob("*")]:
            os.chown(path, user.pw_uid, user.pw_gid)

    def answers(self):
        if self.process and self.process.poll() is not None:
            raise AssertionError(f"notifyd exited with {self.process.returncode}: {self.stderr()}")
        return self.notifyctl("status", timeout=5).returncode == 0

    def notifyctl_command(self):
        return as_user(self.user) + [str(self.bin / "notifyctl")]

    def show(self, title, *options):
        return int(self.notifyctl("show", title, *options, check=True).stdout)

    def get(self, notice_id):
        return json.loads(self.notifyctl("get", str(notice_id), "--json", check=True).stdout)["notice"]

    def stop(self, sig=signal.SIGTERM, timeout=10):
        return super().stop(sig, timeout)


def display_config(**keys):
    lines = ["[DBus]", "Mode=off", "[Queue]", "MaxVisible=5", "[Display]", "Mode=wayland", "Anchor=top-right", f"Margin={MARGIN}",
             f"Width={WIDTH}", f"Gap={GAP}", "Font=DejaVu Sans 11"]
    lines += [f"{key}={value}" for key, value in keys.items()]
    lines += ["[Display:normal]", "Background=#%02x%02x%02x" % CARD, "Border=#%02x%02x%02x" % BORDER]
    # Nobody gives input to the test display: idleness would stop the holds of a long test.
    lines += ["[Idle]", "After=off"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def user():
    user = unprivileged_user()
    # The binaries, in a folder the user can reach.
    directory = Path(tempfile.mkdtemp(prefix="notifyd-popups-bin-"))
    directory.chmod(0o755)
    UserDaemon.bin = user_binaries(directory)
    yield user
    UserDaemon.bin = BIN
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def session(user):
    """A fresh headless sway and a notifyd drawing on it, both as the test user."""
    directory = Path(tempfile.mkdtemp(prefix="notifyd-sway-"))
    os.chown(directory, user.pw_uid, user.pw_gid)
    directory.chmod(0o700)
    sway = Sway(directory, user).start()
    started = []

    def make_daemon(config=None, env=None):
        runtime = directory / f"daemon{len(started)}"
        runtime.mkdir()
        daemon = UserDaemon(runtime, user, str(directory / sway.display), config or display_config(), env)
        started.append(daemon)
        return daemon.start()

    yield sway, make_daemon
    try:
        for daemon in started:
            status = daemon.stop()
            assert status == 0, f"notifyd exited with {status}: {daemon.stderr()}"
            # A compositor that did not go away never drops us: a protocol error would look like this.
            if sway.kills == 0:
                assert "connection to the compositor was lost" not in daemon.stderr(), daemon.stderr()
    finally:
        for daemon in started:
            if daemon.process and daemon.process.poll() is None:
                daemon.process.kill()
                daemon.process.wait()
        sway.kill()
        shutil.rmtree(directory, ignore_errors=True)


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
    assert "unread" not in daemon.get(notice) and daemon_status(daemon)["unread"] == 0


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
    text = Screenshot(b"P6 %d %d 255\n" % (x1 - x0 - 8, y1 - y0 - 8) + b"".join(
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
    wait_for(lambda: daemon_status(daemon).get("display", {}).get("drawing"), what="the popups to connect")
    assert daemon_status(daemon)["display"] == {"backend": "wayland", "drawing": True, "detail": "Wayland (HEADLESS-1)"}
    # Headless sway has no input devices: nobody touches it, so a second after the daemon asked, the
    # compositor says the seat is idle (sway 1.7 offers org_kde_kwin_idle, not ext-idle-notify-v1).
    wait_for(lambda: daemon_status(daemon).get("idle", {}).get("idle"), timeout=15, what="sway to say the seat is idle")
    assert daemon_status(daemon)["idle"] == {"idle": True, "source": "org_kde_kwin_idle"}
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
    wait_for(lambda: daemon_status(daemon).get("idle", {}).get("idle"), timeout=15, what="the seat idle again")
    missed = daemon.show("Ended while away", "--fade-in", "0", "--hold", "60s", "--fade-out", "0")
    wait_for(lambda: sway.screenshot().box(), what="its popup")
    daemon.notifyctl("end", str(missed), check=True)
    wait_for(lambda: daemon.get(missed).get("outcome") == "completed", what="it to end")
    assert daemon.get(missed)["unread"] is True and daemon_status(daemon)["unread"] == 1


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

@pytest.fixture
def bus(session):
    sway, _ = session
    with private_bus(sway.directory) as address:
        yield address


def bus_config():
    # [DBus] and [Display] both auto: the default, as users run it.
    return display_config().replace("[DBus]\nMode=off\n", "").replace("Mode=wayland", "Mode=auto")


def as_user_with_bus(daemon, bus_address, *command, **options):
    environment = {"PATH": os.environ["PATH"], "DBUS_SESSION_BUS_ADDRESS": bus_address,
                   "XDG_RUNTIME_DIR": str(daemon.runtime_dir)}
    return subprocess.run(as_user(daemon.user) + list(command), env=environment, capture_output=True, text=True,
                          timeout=30, **options)


def serving_with_pointer(sway, make_daemon, bus):
    """A daemon serving `bus` for its popups, and a virtual pointer parked off them."""
    daemon = make_daemon(bus_config(), env={"DBUS_SESSION_BUS_ADDRESS": bus})
    wait_for(lambda: "dbus: serving org.freedesktop.Notifications" in daemon.stderr(), timeout=10,
             what="notifyd to serve the bus for its popups")
    pointer = VirtualPointer(str(sway.directory), sway.display)
    pointer.move_to(*PARKED, *OUTPUT)
    return daemon, pointer


def test_notify_send_shows_a_popup_when_no_other_server_runs_and_a_click_closes_it_with_reason_2(session, bus):
    sway, make_daemon = session
    daemon, pointer = serving_with_pointer(sway, make_daemon, bus)
    try:
        with notification_signals(bus, sway.directory) as closed:
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
            closed(bus_id, 2)
    finally:
        pointer.close()


def test_a_click_that_chooses_an_action_sends_an_activation_token_before_action_invoked(session, bus):
    sway, make_daemon = session
    daemon, pointer = serving_with_pointer(sway, make_daemon, bus)
    environment = {"PATH": os.environ["PATH"], "DBUS_SESSION_BUS_ADDRESS": bus,
                   "XDG_RUNTIME_DIR": str(daemon.runtime_dir)}
    try:
        with notification_signals(bus, sway.directory) as closed:
            # -A waits for the action: notify-send prints the id, then the action's name.
            sender = subprocess.Popen(as_user(daemon.user) + ["notify-send", "--print-id", "-A", "default=Open",
                                                              "Deploy?"], env=environment, stdout=subprocess.PIPE,
                                      text=True)
            image = wait_for(lambda: fully_drawn(sway.screenshot(), CARD), what="the popup")
            x0, y0, x1, y1 = image.box()
            pointer.move_to((x0 + x1) // 2, (y0 + y1) // 2, *OUTPUT)
            pointer.click()
            pointer.move_to(*PARKED, *OUTPUT)
            output, _ = sender.communicate(timeout=15)
            printed = output.split()
            assert len(printed) == 2 and printed[1] == "default", output
            bus_id = int(printed[0])
            text = wait_for(lambda: (lambda t: t if "member=ActionInvoked" in t else None)(closed.log.read_text()),
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


def send_many(daemon, count, **parameters):
    """`count` Show calls from one connection as the daemon's user, 50 at a time."""
    send_shows(daemon, count, as_user(daemon.user), **parameters)


def swaymsg(sway, *command):
    ipc = next(sway.directory.glob("sway-ipc.*.sock"))
    result = subprocess.run(as_user(sway.user) + ["swaymsg", "-s", str(ipc), *command], capture_output=True,
                            text=True, timeout=20)
    assert result.returncode == 0, result.stdout + result.stderr


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


# Acting on a notice where it shows (issue 32): buttons, the pointer over a card, the bindings, the
# picker.

SCREENSHOTS = Path(os.environ.get("NOTIFYD_SCREENSHOTS", tempfile.gettempdir()))


def notifyctl_waiting(daemon, *arguments):
    """`notifyctl show … --wait` as the test user, running: it prints the key of the action chosen."""
    return subprocess.Popen(as_user(daemon.user) + [str(daemon.bin / "notifyctl"), "show", *arguments, "--wait"],
                            env={**daemon.env, "NOTIFYD_SOCKET": daemon.socket_path}, stdout=subprocess.PIPE,
                            text=True)


def click_at(pointer, point, button=VirtualPointer.BTN_LEFT):
    pointer.move_to(*point, *OUTPUT)
    pointer.click(button)
    pointer.move_to(*PARKED, *OUTPUT)


def test_each_button_on_a_card_chooses_its_action_on_the_bus_and_for_show_wait(session, bus):
    sway, make_daemon = session
    daemon, pointer = serving_with_pointer(sway, make_daemon, bus)
    environment = {"PATH": os.environ["PATH"], "DBUS_SESSION_BUS_ADDRESS": bus,
                   "XDG_RUNTIME_DIR": str(daemon.runtime_dir)}
    try:
        with notification_signals(bus, sway.directory) as closed:
            for index, key in enumerate(["approve", "reject", "later"]):
                # notify-send -A waits for the action: it prints the id, then the key chosen.
                sender = subprocess.Popen(
                    as_user(daemon.user) + ["notify-send", "--print-id", "-A", "approve=Approve", "-A", "reject=Reject",
                                            "-A", "later=Remind me later, after lunch", "Deploy 42?",
                                            "to production"], env=environment, stdout=subprocess.PIPE, text=True)
                image = wait_for(lambda: fully_drawn(sway.screenshot(), CARD), what="the popup with buttons")
                box = image.box()
                centre = button_centres(box, 3)[index]
                # Under the pointer the button is lit in the border's colour (60 % over the card).
                plain = button_fill_at(image, box, 3, index)
                pointer.move_to(*centre, *OUTPUT)
                lit = wait_for(lambda: (lambda i: i if close_to(button_fill_at(i, box, 3, index),
                                                                  blend(BORDER, CARD, 0.6), 6) else None)(
                    sway.screenshot()), what="the button under the pointer to light up")
                assert not close_to(plain, blend(BORDER, CARD, 0.6), 40), plain
                if index == 0:
                    sway.save(SCREENSHOTS / "notifyd-buttons.png")
                    # The others stay as they were.
                    assert close_to(button_fill_at(lit, box, 3, 1), plain, 3)
                pointer.click()
                pointer.move_to(*PARKED, *OUTPUT)
                output, _ = sender.communicate(timeout=15)
                printed = output.split()
                assert len(printed) == 2 and printed[1] == key, output
                bus_id = int(printed[0])
                wait_for(lambda: re.search(r'member=ActionInvoked\n\s+uint32 %d\n\s+string "%s"' % (bus_id, key),
                                           closed.log.read_text()), what=f"ActionInvoked({bus_id}, {key})")
                # Closed because a person chose: reason 2.
                closed(bus_id, 2)
                wait_for(lambda: sway.screenshot().box() is None, timeout=5, what="the card to go")

        waiting = notifyctl_waiting(daemon, "Merge?", "--fade-in", "0", "--hold", "30s", "--action", "merge=Merge",
                                    "--action", "close=Close the request")
        box = wait_for(lambda: fully_drawn(sway.screenshot(), CARD), what="the second popup").box()
        click_at(pointer, button_centres(box, 2)[1])
        output, _ = waiting.communicate(timeout=10)
        assert (waiting.returncode, output.strip()) == (0, "close")
    finally:
        pointer.close()


def test_the_pointer_over_a_card_holds_it_past_three_of_its_holds_and_once_it_leaves_the_card_finishes(session):
    sway, make_daemon = session
    daemon = make_daemon()
    pointer = VirtualPointer(str(sway.directory), sway.display)
    pointer.move_to(*PARKED, *OUTPUT)
    hold = 2.0
    try:
        # A card beside it with a longer hold: seen to finish while the other one holds on.
        beside = daemon.show("Beside", "--fade-in", "0", "--hold", f"{2 * hold:g}s", "--fade-out", "0")
        wait_for(lambda: sway.screenshot().box(), what="the first card")
        hovered = daemon.show("Hovered", "--fade-in", "0", "--hold", f"{hold:g}s", "--fade-out", "0")
        shown_at = time.monotonic()
        # The newest card is at the top: the pointer goes over it.
        pointer.move_to(OUTPUT[0] - MARGIN - WIDTH // 2, MARGIN + 10, *OUTPUT)
        assert time.monotonic() - shown_at < hold / 2, "the pointer came too late to tell"
        assert daemon.notifyctl("wait", str(beside), timeout=20).returncode == 0
        remaining = shown_at + 3 * hold - time.monotonic()
        if remaining > 0:
            time.sleep(remaining)
        assert daemon.get(hovered)["phase"] == "holding"
        left_at = time.monotonic()
        pointer.move_to(*PARKED, *OUTPUT)
        assert daemon.notifyctl("wait", str(hovered), timeout=20).returncode == 0
        # What was left of its hold when the pointer came (most of it), at least a second.
        assert time.monotonic() - left_at >= 1.0
        wait_for(lambda: sway.screenshot().box() is None, timeout=5, what="the card to go")
    finally:
        pointer.close()


def binding_config(**keys):
    return display_config(**keys) + "[Rule:keeper]\nMatchApp=keeper\nRightClick=none\nMiddleClick=dismiss\n"


def test_each_binding_does_what_it_says_and_a_rule_overrides_it(session):
    sway, make_daemon = session
    daemon = make_daemon(binding_config(LeftClick="none", MiddleClick="dismiss-all", RightClick="default"))
    pointer = VirtualPointer(str(sway.directory), sway.display)
    pointer.move_to(*PARKED, *OUTPUT)
    try:
        other = daemon.show("Other", "--fade-in", "0", "--hold", "60s", "--app", "other")
        first = daemon.show("First", "--fade-in", "0", "--hold", "60s", "--action", "default=Open")
        wait_for(lambda: len(sway.screenshot().runs_down(OUTPUT[0] - MARGIN - 5)) == 2, what="two cards")
        top = (OUTPUT[0] - MARGIN - WIDTH // 2, MARGIN + 10)
        # Left: none; right: default, which invokes Open. Events come in order: once the right click
        # has been handled, so has the left.
        click_at(pointer, top)
        click_at(pointer, top, VirtualPointer.BTN_RIGHT)
        assert daemon.notifyctl("wait", str(first), timeout=10).returncode == 0
        assert daemon.get(first)["invoked"] == "default"
        wait_for(lambda: len(sway.screenshot().runs_down(OUTPUT[0] - MARGIN - 5)) == 1, what="one card left")
        # The rule's app: right click does nothing, middle click dismisses only it.
        keeper = daemon.show("Keeper", "--fade-in", "0", "--hold", "60s", "--app", "keeper", "--action",
                             "default=Open")
        wait_for(lambda: len(sway.screenshot().runs_down(OUTPUT[0] - MARGIN - 5)) == 2, what="two cards again")
        click_at(pointer, top, VirtualPointer.BTN_RIGHT)
        click_at(pointer, top, VirtualPointer.BTN_MIDDLE)
        assert daemon.notifyctl("wait", str(keeper), timeout=10).returncode == 6  # dismissed, not invoked
        assert daemon.get(keeper).get("invoked") is None
        assert daemon.get(other)["phase"] == "holding"
        # Middle on any other card: dismiss-all.
        third = daemon.show("Third", "--fade-in", "0", "--hold", "60s")
        wait_for(lambda: len(sway.screenshot().runs_down(OUTPUT[0] - MARGIN - 5)) == 2, what="two cards once more")
        click_at(pointer, top, VirtualPointer.BTN_MIDDLE)
        for notice in (other, third):
            assert daemon.notifyctl("wait", str(notice), timeout=10).returncode == 6
        wait_for(lambda: sway.screenshot().box() is None, timeout=5, what="every card to go")
    finally:
        pointer.close()


def test_more_and_a_middle_click_hand_the_actions_to_the_picker_and_invoke_the_one_chosen(session):
    sway, make_daemon = session
    # A picker that always takes the third line it is given: the labels, one a line, in order.
    daemon = make_daemon(display_config(MaxButtons="1", Picker="sed -n 3p"))
    pointer = VirtualPointer(str(sway.directory), sway.display)
    pointer.move_to(*PARKED, *OUTPUT)
    actions = ["--action", "open=Open", "--action", "archive=Archive", "--action", "spam=Mark as spam"]
    try:
        waiting = notifyctl_waiting(daemon, "Mail", "--fade-in", "0", "--hold", "30s", *actions)
        box = wait_for(lambda: fully_drawn(sway.screenshot(), CARD), what="the card").box()
        sway.save(SCREENSHOTS / "notifyd-more.png")
        # MaxButtons=1: "Open", then "…".
        click_at(pointer, button_centres(box, 2)[1])
        output, _ = waiting.communicate(timeout=15)
        assert (waiting.returncode, output.strip()) == (0, "spam")
        wait_for(lambda: sway.screenshot().box() is None, timeout=5, what="the card to go")

        waiting = notifyctl_waiting(daemon, "Mail again", "--fade-in", "0", "--hold", "30s", *actions)
        box = wait_for(lambda: fully_drawn(sway.screenshot(), CARD), what="the second card").box()
        click_at(pointer, ((box[0] + box[2]) // 2, box[1] + 10), VirtualPointer.BTN_MIDDLE)
        output, _ = waiting.communicate(timeout=15)
        assert (waiting.returncode, output.strip()) == (0, "spam")
    finally:
        pointer.close()


def test_a_middle_click_opens_fuzzel_with_the_actions_and_the_one_typed_is_invoked(session):
    sway, make_daemon = session
    if shutil.which("fuzzel") is None:
        pytest.skip("fuzzel is not installed (scripts/deps.sh installs it)")
    daemon = make_daemon()  # Picker= unset: fuzzel --dmenu is the first found for WAYLAND_DISPLAY
    pointer = VirtualPointer(str(sway.directory), sway.display)
    keyboard = VirtualKeyboard(str(sway.directory), sway.display)
    pointer.move_to(*PARKED, *OUTPUT)
    try:
        waiting = notifyctl_waiting(daemon, "Mail from Ada", "--fade-in", "0", "--hold", "60s", "--action",
                                    "open=Open", "--action", "archive=Archive", "--action", "spam=Mark as spam")
        box = wait_for(lambda: fully_drawn(sway.screenshot(), CARD), what="the card").box()
        click_at(pointer, ((box[0] + box[2]) // 2, box[1] + 10), VirtualPointer.BTN_MIDDLE)
        # fuzzel is a layer surface in the middle of the output that takes the keyboard.
        middle = (OUTPUT[0] // 2 - 20, OUTPUT[1] // 2 - 20, OUTPUT[0] // 2 + 20, OUTPUT[1] // 2 + 20)
        wait_for(lambda: sway.screenshot(region=middle).box(), timeout=15, what="fuzzel to open")
        sway.save(SCREENSHOTS / "notifyd-fuzzel.png")
        keyboard.type("spam")
        keyboard.press("Return")
        output, _ = waiting.communicate(timeout=15)
        assert (waiting.returncode, output.strip()) == (0, "spam")
    finally:
        keyboard.close()
        pointer.close()


def test_a_reply_typed_into_the_card_reaches_show_wait_and_notification_replied(session, bus):
    sway, make_daemon = session
    daemon, pointer = serving_with_pointer(sway, make_daemon, bus)
    keyboard = VirtualKeyboard(str(sway.directory), sway.display)
    environment = {"PATH": os.environ["PATH"], "DBUS_SESSION_BUS_ADDRESS": bus,
                   "XDG_RUNTIME_DIR": str(daemon.runtime_dir)}
    try:
        # Over Varlink: show --wait --reply prints what was typed. Its hold (2 s) stands still
        # while the field has the keyboard.
        waiting = notifyctl_waiting(daemon, "Ada", "Lunch at noon?", "--fade-in", "0", "--hold", "2s", "--reply",
                                    "Type a reply")
        box = wait_for(lambda: fully_drawn(sway.screenshot(), CARD), what="the card with a reply field").box()
        sway.save(SCREENSHOTS / "notifyd-reply-field.png")
        unfocused = sway.screenshot(region=box)
        click_at(pointer, ((box[0] + box[2]) // 2, box[3] - 12 - 8))
        # The field takes the keyboard (its border lit, a caret) before anything is typed.
        empty = wait_for(lambda: (lambda i: i if i.pixels != unfocused.pixels else None)(sway.screenshot(region=box)),
                         what="the field to take the keyboard")
        keyboard.type("on my way")
        # What is typed shows in the field.
        wait_for(lambda: sway.screenshot(region=box).pixels != empty.pixels, what="the typed text to show")
        sway.save(SCREENSHOTS / "notifyd-reply-typed.png")
        keyboard.press("Return")
        output, _ = waiting.communicate(timeout=10)
        assert (waiting.returncode, output.strip()) == (0, "on my way")
        wait_for(lambda: sway.screenshot().box() is None, timeout=5, what="the card to go")

        # Over D-Bus, as KDE's and swaync's clients ask: an inline-reply action.
        with notification_signals(bus, sway.directory) as closed:
            sender = subprocess.Popen(as_user(daemon.user) + ["notify-send", "--print-id", "-A", "inline-reply=Reply",
                                                              "Bob", "Are you coming?"], env=environment,
                                      stdout=subprocess.PIPE, text=True)
            box = wait_for(lambda: fully_drawn(sway.screenshot(), CARD), what="the second card").box()
            unfocused = sway.screenshot(region=box)
            click_at(pointer, ((box[0] + box[2]) // 2, box[3] - 12 - 8))
            wait_for(lambda: sway.screenshot(region=box).pixels != unfocused.pixels,
                     what="the second field to take the keyboard")
            keyboard.type("yes")
            keyboard.press("Return")
            output, _ = sender.communicate(timeout=15)
            bus_id = int(output.split()[0])
            wait_for(lambda: re.search(r'member=NotificationReplied\n\s+uint32 %d\n\s+string "yes"' % bus_id,
                                       closed.log.read_text()), what="NotificationReplied")
            closed(bus_id, 2)
    finally:
        keyboard.close()
        pointer.close()


def test_with_the_action_icons_hint_the_buttons_show_the_icons_their_keys_name(session, bus):
    sway, make_daemon = session
    daemon, pointer = serving_with_pointer(sway, make_daemon, bus)
    environment = {"PATH": os.environ["PATH"], "DBUS_SESSION_BUS_ADDRESS": bus,
                   "XDG_RUNTIME_DIR": str(daemon.runtime_dir)}
    try:
        with notification_signals(bus, sway.directory) as closed:
            sender = subprocess.Popen(
                as_user(daemon.user) + ["notify-send", "--print-id", "-h", "boolean:action-icons:true", "-A",
                                        "edit-delete=Delete", "-A", "mail-send=Send", "Draft", "Send it?"],
                env=environment, stdout=subprocess.PIPE, text=True)
            image = wait_for(lambda: fully_drawn(sway.screenshot(), CARD), what="the card with icon buttons")
            box = image.box()
            sway.save(SCREENSHOTS / "notifyd-action-icons.png")
            # An icon is drawn in each button: Adwaita's greys, far from the card's colours and the
            # white of a label.
            for centre in button_centres(box, 2):
                colours = {image.pixel(centre[0] + dx, centre[1] - 2 + dy) for dx in range(-8, 9) for dy in range(-6, 7)}
                assert any(max(c) - min(c) < 40 and max(c) < 200 for c in colours), colours
            click_at(pointer, button_centres(box, 2)[0])
            output, _ = sender.communicate(timeout=15)
            bus_id, key = output.split()
            assert key == "edit-delete"
            closed(int(bus_id), 2)
    finally:
        pointer.close()
