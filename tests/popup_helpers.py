"""What the popup suites share: screenshots read for their pixels (they judge what a person would
see), many notices sent at once, and the resident set once they are gone."""

import contextlib
import json
import re
import subprocess
import sys
import threading
import time

from conftest import rss_kib, wait_for


class Image:
    """A screenshot: a binary PPM (grim's, ImageMagick's `import`), read into rows of RGB;
    coordinates are the screen's. `background` is the colour nothing is drawn over."""

    def __init__(self, data, origin=(0, 0), background=(0, 0, 0)):
        self.origin = origin
        self.background = tuple(background)
        # "P6", width, height, maxval, each ended by one whitespace byte, then the pixels (whose
        # first byte may itself be whitespace: the background's red is 0x20).
        fields, offset = [], 0
        while len(fields) < 4:
            end = offset
            while data[end:end + 1] not in (b" ", b"\n", b"\t", b"\r"):
                end += 1
            if end > offset:
                fields.append(data[offset:end])
            offset = end + 1
        assert fields[0] == b"P6" and fields[3] == b"255", fields
        self.width, self.height = int(fields[1]), int(fields[2])
        self.pixels = data[offset:]
        assert len(self.pixels) == self.width * self.height * 3

    def pixel(self, x, y):
        x, y = x - self.origin[0], y - self.origin[1]
        offset = (y * self.width + x) * 3
        return tuple(self.pixels[offset:offset + 3])

    def box(self):
        """The smallest rectangle (x0, y0, x1, y1), ends exclusive, holding every pixel that is not
        exactly the background colour."""
        box = self._box_of_non_background()
        if box is None:
            return None
        ox, oy = self.origin
        return (box[0] + ox, box[1] + oy, box[2] + ox, box[3] + oy)

    def _box_of_non_background(self):
        stride = self.width * 3
        plain = bytes(self.background) * self.width
        rows = [y for y in range(self.height) if self.pixels[y * stride:(y + 1) * stride] != plain]
        if not rows:
            return None
        left, right = self.width, 0
        for y in rows:
            row = self.pixels[y * stride:(y + 1) * stride]
            first = next(x for x in range(self.width) if row[x * 3:x * 3 + 3] != plain[:3])
            last = next(x for x in reversed(range(self.width)) if row[x * 3:x * 3 + 3] != plain[:3])
            left, right = min(left, first), max(right, last + 1)
        return (left, rows[0], right, rows[-1] + 1)

    def box_near(self, *colours, tolerance=3):
        """The smallest rectangle holding every pixel within `tolerance` of one of `colours` in each
        channel (as `close_to`), or None."""
        masks = [self.mask(*[lambda value, wanted=wanted: abs(value - wanted) <= tolerance for wanted in colour])
                 for colour in colours]
        return self.box_of(masks[0] if len(masks) == 1 else self.either(*masks))

    def mask(self, red, green, blue):
        """A byte per pixel, 1 where each channel's value passes its test (a function of 0…255), else
        0. Worked out a channel at a time by C code (a table, `bytes.translate`, then an AND of
        the three planes as integers), not a pixel at a time in Python: a 1280×720 screenshot takes
        milliseconds, where a Python test per pixel took a second of CPU every time a test polled it."""
        planes = []
        for channel, test in enumerate((red, green, blue)):
            table = bytes(1 if test(value) else 0 for value in range(256))
            planes.append(int.from_bytes(self.pixels[channel::3].translate(table), "big"))
        return (planes[0] & planes[1] & planes[2]).to_bytes(self.width * self.height, "big")

    def either(self, *masks):
        """The pixels set in any of `masks`."""
        union = 0
        for mask in masks:
            union |= int.from_bytes(mask, "big")
        return union.to_bytes(self.width * self.height, "big")

    def box_of(self, mask):
        """The smallest rectangle holding every pixel set in `mask` (from `mask`), or None."""
        first, last = mask.find(1), mask.rfind(1)
        if first < 0:
            return None
        width = self.width
        left, right = width, 0
        for y in range(first // width, last // width + 1):
            row = mask[y * width:(y + 1) * width]
            start = row.find(1)
            if start >= 0:
                left, right = min(left, start), max(right, row.rfind(1) + 1)
        ox, oy = self.origin
        return (left + ox, first // width + oy, right + ox, last // width + 1 + oy)

    def runs_down(self, x, differs=None):
        """The stretches (y0, y1) of column `x` unlike the background, top to bottom."""
        differs = differs or (lambda rgb: rgb != self.background)
        runs, start = [], None
        top = self.origin[1]
        for y in range(top, top + self.height):
            inside = differs(self.pixel(x, y))
            if inside and start is None:
                start = y
            elif not inside and start is not None:
                runs.append((start, y))
                start = None
        if start is not None:
            runs.append((start, top + self.height))
        return runs


def close_to(rgb, expected, tolerance=3):
    return max(abs(a - b) for a, b in zip(rgb, expected)) <= tolerance


def fully_drawn(image, colour):
    """`image` if it holds a card drawn at full opacity in `colour` (read inside its border, at
    its left edge), else None: for waiting until a fade-in is over."""
    box = image.box()
    return image if box and close_to(image.pixel(box[0] + 6, box[1] + 20), colour) else None


SEND_MANY = r"""
import json, socket, sys
path, count, parameters = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
connection.connect(path)
call = json.dumps({"method": "io.notifyd.Queue.Show", "parameters": parameters}).encode() + b"\0"
buffer = b""
for start in range(0, count, 50):
    batch = min(50, count - start)
    connection.sendall(call * batch)
    replies = 0
    while replies < batch:
        chunk = connection.recv(65536)
        assert chunk, "notifyd closed the connection"
        buffer += chunk
        while b"\0" in buffer:
            reply, buffer = buffer.split(b"\0", 1)
            assert b'"error"' not in reply, reply
            replies += 1
"""


def send_shows(daemon, count, command_prefix=(), **parameters):
    """`count` Show calls from one connection (run under `command_prefix`), 50 at a time."""
    result = subprocess.run([*command_prefix, "python3", "-c", SEND_MANY, daemon.socket_path, str(count),
                             json.dumps(parameters)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def settled_rss_kib(daemon, holding=1):
    """The daemon's resident set once the queue is down to `holding` visible notices and freed
    memory has gone back (the daemon trims a second after notices finish)."""
    def drained():
        status = json.loads(daemon.notifyctl("status", "--json", check=True).stdout)
        return status["visible"] == holding and status["queued"] == 0 and status["waiting"] == 0
    wait_for(drained, timeout=60, what="the queue to drain")
    time.sleep(1.5)
    return rss_kib(daemon.process.pid)


BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


@contextlib.contextmanager
def private_bus(directory):
    """A session bus of its own on a socket in `directory` that any user may reach; yields its address."""
    config = directory / "bus.conf"
    socket_path = directory / "bus"
    config.write_text(BUS_CONFIG.format(socket=socket_path))
    process = subprocess.Popen(["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        address = process.stdout.readline().strip()
        assert address.startswith(f"unix:path={socket_path}"), address
        yield f"unix:path={socket_path}"
    finally:
        process.terminate()
        process.wait(timeout=10)


@contextlib.contextmanager
def notification_signals(bus, directory):
    """dbus-monitor on `bus`, watching org.freedesktop.Notifications' signals, once it listens;
    yields `closed(id, reason)`, which waits until NotificationClosed(id, reason) was sent (its
    `log` is dbus-monitor's output)."""
    log_path = directory / "monitor.log"
    with open(log_path, "w") as log:
        monitor = subprocess.Popen(["dbus-monitor", "--address", bus,
                                    "type='signal',interface='org.freedesktop.Notifications'"],
                                   stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: "NameAcquired" in log_path.read_text(), what="dbus-monitor")

        def closed(notice_id, reason):
            pattern = r"member=NotificationClosed\n\s+uint32 %d\n\s+uint32 %d" % (notice_id, reason)
            wait_for(lambda: re.search(pattern, log_path.read_text()), timeout=10,
                     what=f"NotificationClosed({notice_id}, {reason})")

        closed.log = log_path
        yield closed
    finally:
        monitor.terminate()
        monitor.wait(timeout=10)


def daemon_status(daemon):
    return json.loads(daemon.notifyctl("status", "--json", check=True).stdout)


def held_while_away_then_goes_once_back(daemon, notice, hold, drawn, give_input):
    """With the person away (Status says so) and `notice` shown with `hold`: three of its holds later
    it still holds and is `drawn()`; then, with `give_input(step)` called every quarter second (a
    person at the screen), the idle source says they are back and the notice goes, completed, no
    sooner than its hold after the input began (shown while away, it had all of its hold left)."""
    time.sleep(3 * hold)
    assert daemon.get(notice)["phase"] == "holding"
    assert drawn()
    present = threading.Event()

    def keep_giving():
        step = 0
        while not present.is_set():
            give_input(step)
            step += 1
            present.wait(0.25)

    mover = threading.Thread(target=keep_giving)
    back_at = time.monotonic()
    mover.start()
    try:
        wait_for(lambda: daemon_status(daemon)["idle"]["idle"] is False, timeout=10, what="the source to say the person is back")
        result = daemon.notifyctl("wait", str(notice), timeout=30)
        gone_at = time.monotonic()
    finally:
        present.set()
        mover.join()
    assert result.returncode == 0, (result.returncode, result.stderr)  # completed: its hold ran out
    assert gone_at - back_at >= hold


def button_centres(box, count):
    """Points well inside each of a card's `count` buttons, left to right, for a card whose box
    (x0, y0, x1, y1) is on the screen: CardPainter draws them with equal widths across the card
    inside its 12-pixel padding, 6 apart, in a row at its foot at least 16 pixels high."""
    x0, _, x1, y1 = box
    width = (x1 - x0 - 24 - 6 * (count - 1)) / count
    return [(int(x0 + 12 + index * (width + 6) + width / 2), y1 - 12 - 8) for index in range(count)]


def button_fill_at(image, box, count, index):
    """The colour of button `index`'s fill, at its left end beside its label."""
    x0, _, x1, _ = box
    width = (x1 - x0 - 24 - 6 * (count - 1)) / count
    _, y = button_centres(box, count)[index]
    return image.pixel(int(x0 + 12 + index * (width + 6) + 4), y)


def blend(top, bottom, alpha):
    return tuple(round(alpha * a + (1 - alpha) * b) for a, b in zip(top, bottom))


# A Varlink client run as the daemon's user (notifyd serves its own uid only): each line of its
# input is a JSON list of calls, sent at once; it answers a line with when they were sent (libwayland's
# debug clock), the first errors, and the last reply.
USER_CLIENT = r"""
import json, socket, sys, time
connection = socket.socket(socket.AF_UNIX)
connection.connect(sys.argv[1])
buffer = b""
def receive():
    global buffer
    while b"\0" not in buffer:
        buffer += connection.recv(1 << 20)
    message, _, buffer = buffer.partition(b"\0")
    return json.loads(message)
for line in sys.stdin:
    calls = json.loads(line)
    sent = int(time.time() * 1_000_000) % (1 << 32)
    connection.sendall(b"".join(json.dumps(call).encode() + b"\0" for call in calls))
    replies = [receive() for _ in calls]
    print(json.dumps({"sent": sent, "errors": [r for r in replies if "error" in r][:3], "last": replies[-1]}),
          flush=True)
"""


class UserClient:
    """A raw Varlink connection to a daemon that serves another user: `as_user` (setpriv's command)
    runs the client as that user."""

    def __init__(self, as_user, socket_path):
        self.process = subprocess.Popen(as_user + [sys.executable, "-c", USER_CLIENT, socket_path],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def call(self, *calls):
        """Sends `calls` ((method, parameters) pairs) at once; answers when, and the last reply."""
        self.process.stdin.write(json.dumps([{"method": "io.notifyd.Queue." + method, "parameters": parameters}
                                             for method, parameters in calls]) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        if answer["errors"]:
            raise RuntimeError(f"notifyd refused: {answer['errors']}")
        return answer["sent"], answer["last"].get("parameters", {})

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)
