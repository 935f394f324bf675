"""The soak's screen: headless sway kept for the run, and a person at it who finds a marker card by its
pixels, clicks it and watches it go."""

import os
import random
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from conftest import unprivileged_user
from display import OUTPUT, Sway
from pixels import close_to
from wayland_pointer import VirtualPointer, WaylandError
from soak.host import History, Host, SoakFailure, call
from soak.load import Load
from soak.settings import CLICK_X, COLUMN, MARKER, MARKER_APP, PARKED


def marker_runs(image):
    """The stretches of the marker's colour, at full opacity, down the column inside the cards' edge."""
    return [(y0, y1) for y0, y1 in image.runs_down(COLUMN, lambda rgb: close_to(rgb, MARKER, 8)) if y1 - y0 >= 8]


def reddish(image):
    """Whether any of the marker's colour shows down the column, at any opacity over what is below
    (the background, or a grey or blue card: nothing else there is red)."""
    return any(r > g + 40 and r > b + 40 for r, g, b in (image.pixel(COLUMN, y) for y in range(image.height)))


class Screen:
    """Headless sway, as the popups' user, which the host draws on and the compositor fault kills."""

    def __init__(self):
        self.user = unprivileged_user()
        # Its own folder in /tmp: the soak's is root's alone, and sway runs as the popups' user.
        self.directory = Path(tempfile.mkdtemp(prefix="notifyd-soak-sway-"))
        os.chown(self.directory, self.user.pw_uid, self.user.pw_gid)
        self.directory.chmod(0o700)
        self.sway = Sway(self.directory, self.user)
        self.lock = threading.Lock()  # the compositor fault and the person at the screen take turns

    def start(self):
        self.sway.start()
        return str(self.directory / self.sway.display)

    def column(self):
        """What shows down the cards' right edge, or None while there is no compositor."""
        with self.lock:
            try:
                return self.sway.screenshot(region=(COLUMN, 0, COLUMN + 1, OUTPUT[1]))
            except (AssertionError, OSError, subprocess.SubprocessError):
                return None

    def pointer(self):
        with self.lock:
            return VirtualPointer(str(self.directory), self.sway.display)

    def restart(self, down):
        with self.lock:
            display = self.sway.display
            self.sway.kill()
            time.sleep(down)
            self.sway.start()
            if self.sway.display != display:
                raise SoakFailure(f"sway came back on {self.sway.display}, not {display}, where the host looks")

    def stop(self):
        self.sway.kill()
        shutil.rmtree(self.directory, ignore_errors=True)


class Person:
    """Someone at the screen: every few seconds a critical notice in the marker's colour, held until
    ended; they wait to see it drawn, click it (again if it moved away under the pointer), and watch
    it go. Each marker's instants go into the history for the checker."""

    def __init__(self, host: Host, screen: Screen, load: "Load", history: History, seed: int):
        self.host = host
        self.screen = screen
        self.load = load
        self.history = history
        self.rng = random.Random(f"{seed}.person")
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.pointer = None
        self.count = 0

    def run(self):
        while not self.stop.is_set():
            try:
                self.one()
            except (OSError, ValueError, WaylandError, SoakFailure) as error:
                self.history.add("person-error", error=repr(error)[:200])
                self.drop_pointer()
            self.stop.wait(self.rng.uniform(1, 3))
        self.drop_pointer()

    def drop_pointer(self):
        if self.pointer is not None:
            try:
                self.pointer.close()
            except OSError:
                pass
            self.pointer = None

    def click(self, y):
        if self.pointer is None:
            self.pointer = self.screen.pointer()
        self.pointer.move_to(CLICK_X, y, *OUTPUT)
        self.pointer.click()
        self.pointer.move_to(*PARKED, *OUTPUT)  # a pointer over a card holds it

    def phase(self, notice):
        try:
            return call(self.host.socket_path, "Get", {"id": notice}, timeout=3)["notice"]
        except (OSError, SoakFailure):
            return None

    def one(self):
        self.count += 1
        notice = call(self.host.socket_path, "Show", {
            "title": f"soak marker {self.count}", "app": MARKER_APP, "urgency": "critical", "hold": 0,
            "fadeIn": 0.05, "fadeOut": 0.05})["id"]
        self.load.acknowledge(notice, "marker")
        entry = {"id": notice, "shown": self.history.now()}
        # Seen: a run of the marker's colour at full opacity (a minute: a fault may be under way).
        deadline = time.monotonic() + 60
        clicks, finished = 0, None
        while time.monotonic() < deadline and finished is None:
            image = self.screen.column()
            runs = marker_runs(image) if image else []
            if not runs:
                got = self.phase(notice)
                if got and got["phase"] == "finished":
                    finished = got
                    break
                time.sleep(0.05)
                continue
            entry.setdefault("drawn", self.history.now())
            y0, y1 = runs[0]
            try:
                self.click((y0 + y1) // 2)
            except (OSError, ValueError, WaylandError):
                self.drop_pointer()  # sway went away under the pointer: click again when it is back
                continue
            clicks += 1
            # The click went through the compositor and the daemon's queue: it has finished within
            # its fade-out, or the card moved (a card above it went) and the click found another.
            settle = time.monotonic() + 1.5
            while time.monotonic() < settle:
                got = self.phase(notice)
                if got and got["phase"] == "finished":
                    finished = got
                    break
                time.sleep(0.05)
        entry["clicks"] = clicks
        if finished is None:
            entry["unfinished"] = True
            self.history.add("marker", **entry)
            return
        entry["finished"] = self.history.now()
        entry["outcome"] = finished.get("outcome")
        # Gone: nothing of the marker's colour, at any opacity.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            image = self.screen.column()
            if image is not None and not reddish(image):
                entry["gone"] = self.history.now()
                break
            time.sleep(0.02)
        self.history.add("marker", **entry)


