"""The display harness: the screens the popup suites draw on, and the daemons that draw there.

- Wayland: headless sway (`Sway`) as the unprivileged test user, since sway refuses root, with a
  notifyd drawing on it as that user (`UserDaemon`); fixtures `user` and `session`, and `bus`, a
  session bus of that session's own. Screenshots by grim; clicks and typing by the virtual pointer
  and keyboard of wayland_pointer.py (root's, which any compositor client may be).
- X11: Xvfb on a free display number (`X`), picom on it or openbox when a test asks, with a notifyd
  drawing on it (`X11Daemon`); fixture `x11_session`. Screenshots by ImageMagick's `import`,
  clicks by xdotool.

Both screens are OUTPUT large with a BACKGROUND of one colour, and `display_config()` draws cards
of CARD with a BORDER, WIDTH wide, MARGIN from the top right corner, GAP apart; `pixels.Image`
reads what is on them.
"""

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from conftest import BIN, CLIENT_BIN, Daemon, XDisplayReservation, rss_kib, unprivileged_user, wait_for
from pixels import Image, hex_colour
from session_bus import private_bus
from wayland_pointer import VirtualPointer

OUTPUT = (1280, 720)
BACKGROUND = (0x20, 0x40, 0x60)
CARD = (0xF0, 0xE0, 0x30)  # [Display:normal] Background: far from the background in every channel
BORDER = (0xE0, 0x20, 0x20)
WIDTH, MARGIN, GAP = 300, 20, 10
POPUP_AREA = (OUTPUT[0] // 2, 0, OUTPUT[0], OUTPUT[1])  # the right half, where the cards are
PARKED = (5, OUTPUT[1] - 5)  # where the virtual pointer waits between clicks
SCREENSHOTS = Path(os.environ.get("NOTIFYD_SCREENSHOTS", tempfile.gettempdir()))

WAYLAND_TOOLS = ("sway", "grim")
X11_TOOLS = ("Xvfb", "picom", "import", "xdotool", "xsetroot", "xrandr", "xprop", "xwininfo")
needs_wayland = pytest.mark.skipif(any(shutil.which(tool) is None for tool in WAYLAND_TOOLS),
                                   reason="sway and grim are not installed (scripts/deps.sh installs them)")
needs_x11 = pytest.mark.skipif(any(shutil.which(tool) is None for tool in X11_TOOLS),
                               reason="Xvfb, picom, ImageMagick, xdotool or the X utilities are not installed "
                                      "(scripts/deps.sh installs them)")


def display_config(mode="wayland", **keys):
    """A config that draws cards in the suites' look on `mode`, with `keys` added to [Display]."""
    lines = ["[DBus]", "Mode=off", "[Queue]", "MaxVisible=5", "[Display]", f"Mode={mode}", "Anchor=top-right",
             f"Margin={MARGIN}", f"Width={WIDTH}", f"Gap={GAP}", "Font=DejaVu Sans 11"]
    lines += [f"{key}={value}" for key, value in keys.items()]
    lines += ["[Display:normal]", f"Background={hex_colour(CARD)}", f"Border={hex_colour(BORDER)}"]
    # Nobody gives input to the test display: idleness would stop the holds of a long test.
    lines += ["[Idle]", "After=off"]
    return "\n".join(lines) + "\n"


def x11_config(**keys):
    return display_config("x11", **keys)


def bus_config():
    """[DBus] and [Display] both auto: the default, as users run it."""
    return display_config().replace("[DBus]\nMode=off\n", "").replace("Mode=wayland", "Mode=auto")


@contextlib.contextmanager
def daemons_drawing_on(screen, directory, new_daemon, lost):
    """Yields `make_daemon(config=None, env=None)`, which starts a notifyd drawing on `screen` (made
    by `new_daemon(runtime, config, env)` in a runtime directory of its own under `directory`).
    At the end each must exit 0, and, unless the test killed the screen, never have lost it (`lost`
    in its log: a protocol error looks like that); then the screen goes, and `directory`."""
    started = []

    def make_daemon(config=None, env=None):
        runtime = directory / f"daemon{len(started)}"
        runtime.mkdir(mode=0o700)
        daemon = new_daemon(runtime, config, env)
        started.append(daemon)
        return daemon.start()

    try:
        yield make_daemon
        for daemon in started:
            status = daemon.stop()
            assert status == 0, f"notifyd exited with {status}: {daemon.stderr()}"
            if screen.kills == 0:
                assert lost not in daemon.stderr(), daemon.stderr()
    finally:
        for daemon in started:
            if daemon.process and daemon.process.poll() is None:
                daemon.process.kill()
                daemon.process.wait()
        screen.stop()
        shutil.rmtree(directory, ignore_errors=True)


# MARK: - Wayland: headless sway as the test user


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
        return Image(result.stdout, origin=(x0, y0), background=BACKGROUND)

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

    def stop(self):
        """At the end of a test: killed, as nothing of it is judged any more."""
        self.kill()

    def swaymsg(self, *command):
        """swaymsg `command` on this sway's socket, as its user; answers what it printed."""
        ipc = next(self.directory.glob("sway-ipc.*.sock"))
        result = subprocess.run(as_user(self.user) + ["swaymsg", "-s", str(ipc), *command], capture_output=True,
                                text=True, timeout=20)
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout

    def tree(self):
        """sway's tree, as `swaymsg -t get_tree` prints it (JSON)."""
        return self.swaymsg("-t", "get_tree")

    def focused_node(self):
        """The focused node of sway's tree (its JSON), or "" when none is."""
        def find(node):
            if node.get("focused"):
                return node
            for child in node.get("nodes", []) + node.get("floating_nodes", []):
                found = find(child)
                if found:
                    return found
            return None
        found = find(json.loads(self.tree() or "{}"))
        return json.dumps(found) if found else ""

    def output_shot(self, output="HEADLESS-1"):
        """All of `output` at its own scale: device pixels."""
        result = subprocess.run(["grim", "-o", output, "-t", "ppm", "-"], capture_output=True, timeout=20,
                                env={"XDG_RUNTIME_DIR": str(self.directory), "WAYLAND_DISPLAY": self.display})
        assert result.returncode == 0, result.stderr.decode(errors="replace")
        return Image(result.stdout, background=BACKGROUND)

    def save_output(self, name, output="HEADLESS-1"):
        """A PNG of `output` at its scale among the screenshots kept, to look at."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        subprocess.run(["grim", "-o", output, str(SCREENSHOTS / name)], check=False,
                       env={"XDG_RUNTIME_DIR": str(self.directory), "WAYLAND_DISPLAY": self.display})

    def second_output(self):
        """HEADLESS-2, as large as the first, to its right, at scale 1."""
        self.swaymsg("create_output")
        self.swaymsg("output", "HEADLESS-2", "mode", f"{OUTPUT[0]}x{OUTPUT[1]}", "position", f"{OUTPUT[0]}", "0",
                     "bg", hex_colour(BACKGROUND), "solid_color")
        wait_for(lambda: self.output_shot("HEADLESS-2").pixel(4, 4) == BACKGROUND,
                 what="the second output's background")

    def gtk_window(self, title="notifyd-test"):
        """A GTK window (zenity) titled `title` on the focused workspace: answers its process once
        sway has mapped it."""
        environment = {"PATH": os.environ["PATH"], "HOME": str(self.directory), "XDG_RUNTIME_DIR": str(self.directory),
                       "WAYLAND_DISPLAY": self.display, "GDK_BACKEND": "wayland", "NO_AT_BRIDGE": "1"}
        window = subprocess.Popen(as_user(self.user) + ["zenity", "--info", "--title", title, "--text", title],
                                  env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: f'"name": "{title}"' in self.tree(), timeout=15, what=f"the window {title} mapped")
        return window


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
    shutil.copy2(BIN / "notifyd", target / "notifyd")
    shutil.copy2(CLIENT_BIN / "notifyctl", target / "notifyctl")
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

    def stop(self, sig=signal.SIGTERM, timeout=10):
        return super().stop(sig, timeout)


@pytest.fixture(scope="module")
def user():
    """The test user, with notifyd and notifyctl where it may run them."""
    user = unprivileged_user()
    directory = Path(tempfile.mkdtemp(prefix="notifyd-popups-bin-"))
    directory.chmod(0o755)
    UserDaemon.bin = user_binaries(directory)
    yield user
    UserDaemon.bin = BIN
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def session(user):
    """A fresh headless sway, and `make_daemon` for notifyd daemons drawing on it, all as the test user."""
    directory = Path(tempfile.mkdtemp(prefix="notifyd-sway-"))
    os.chown(directory, user.pw_uid, user.pw_gid)
    directory.chmod(0o700)
    sway = Sway(directory, user).start()

    def new_daemon(runtime, config, env):
        return UserDaemon(runtime, user, str(directory / sway.display), config or display_config(), env)

    with daemons_drawing_on(sway, directory, new_daemon, "connection to the compositor was lost") as make_daemon:
        yield sway, make_daemon


@pytest.fixture
def bus(session):
    """A session bus of the session's own, that its user may reach; its address."""
    sway, _ = session
    with private_bus(sway.directory) as address:
        yield address


@pytest.fixture
def x11_bus(x11_session):
    """A session bus of the X session's own; its address."""
    x, _ = x11_session
    with private_bus(x.directory) as address:
        yield address


def serving_with_pointer(sway, make_daemon, bus):
    """A daemon serving `bus` for its popups, and a virtual pointer parked off them."""
    daemon = make_daemon(bus_config(), env={"DBUS_SESSION_BUS_ADDRESS": bus})
    wait_for(lambda: "dbus: serving org.freedesktop.Notifications" in daemon.stderr(), timeout=10,
             what="notifyd to serve the bus for its popups")
    pointer = VirtualPointer(str(sway.directory), sway.display)
    pointer.move_to(*PARKED, *OUTPUT)
    return daemon, pointer


def click_at(pointer, point, button=VirtualPointer.BTN_LEFT):
    pointer.move_to(*point, *OUTPUT)
    pointer.click(button)
    pointer.move_to(*PARKED, *OUTPUT)


def bus_client_environment(daemon, bus_address):
    return {"PATH": os.environ["PATH"], "DBUS_SESSION_BUS_ADDRESS": bus_address,
            "XDG_RUNTIME_DIR": str(daemon.runtime_dir)}


def as_user_with_bus(daemon, bus_address, *command, **options):
    """`command` as the daemon's user, a client of `bus_address`, to its end."""
    return subprocess.run(as_user(daemon.user) + list(command), env=bus_client_environment(daemon, bus_address),
                          capture_output=True, text=True, timeout=30, **options)


def spawn_as_user_with_bus(daemon, bus_address, *command):
    """`command` as the daemon's user, a client of `bus_address`, running; what it prints, piped."""
    return subprocess.Popen(as_user(daemon.user) + list(command), env=bus_client_environment(daemon, bus_address),
                            stdout=subprocess.PIPE, text=True)


# MARK: - X11: Xvfb, picom, openbox


class X:
    """An Xvfb of OUTPUT's size on a reserved display number, its root painted BACKGROUND; and picom on
    it when asked."""

    def __init__(self, directory):
        self.directory = directory
        self.reservation = None
        self.number = None
        self.process = None
        self.picom = None
        self.background = BACKGROUND
        self.kills = 0

    @property
    def display(self):
        return f":{self.number}"

    def env(self):
        return {**os.environ, "DISPLAY": self.display}

    def start(self):
        """Xvfb on a display number reserved for this X's whole life, so that once killed it starts
        again on the same one (the daemon under test reconnects to its DISPLAY)."""
        if self.reservation is None:
            # A number free when reserved may still be taken by a server outside the tests: then another.
            for _ in range(20):
                self.reservation = XDisplayReservation()
                self.number = self.reservation.number
                if self.launch():
                    break
                self.reservation.release()
                self.reservation = None
            else:
                raise AssertionError("Xvfb started on none of 20 reserved display numbers")
        else:
            # The same number again: a killed server leaves its lock and socket behind.
            for stale in (Path(f"/tmp/.X{self.number}-lock"), Path(f"/tmp/.X11-unix/X{self.number}")):
                stale.unlink(missing_ok=True)
            assert self.launch(), f"Xvfb did not start again on {self.display}: see xvfb.log"
        self.run("xsetroot", "-solid", "#%02x%02x%02x" % BACKGROUND)
        self.background = BACKGROUND
        wait_for(lambda: self.screenshot((0, 0, 4, 4)).pixel(2, 2) == BACKGROUND, what="the root background")
        return self

    def launch(self):
        """Xvfb on this X's number; whether it accepts clients there (-displayfd: it writes the number
        once it does, and exits without a word when another server holds it)."""
        read, write = os.pipe()
        with open(self.directory / "xvfb.log", "ab") as log:
            self.process = subprocess.Popen(["Xvfb", self.display, "-displayfd", str(write), "-screen", "0",
                                             f"{OUTPUT[0]}x{OUTPUT[1]}x24", "-nolisten", "tcp", "-noreset"],
                                            stdout=log, stderr=log, pass_fds=(write,))
        os.close(write)
        with os.fdopen(read) as pipe:
            if pipe.readline().strip() == str(self.number):
                return True
        self.process.wait(timeout=10)
        return False

    def run(self, *command, check=True):
        result = subprocess.run(command, env=self.env(), capture_output=True, text=True, timeout=30)
        if check:
            assert result.returncode == 0, f"{command}: {result.stdout}{result.stderr}"
        return result

    def start_picom(self):
        log = open(self.directory / "picom.log", "ab")
        self.picom = subprocess.Popen(["picom", "--backend", "xrender", "--config", "/dev/null"], env=self.env(),
                                      stdout=log, stderr=log)
        log.close()
        # picom paints the root itself (no wallpaper is set: its grey); from then on it composites.
        wait_for(lambda: self.screenshot((0, 0, 4, 4)).pixel(2, 2) != BACKGROUND, what="picom to paint")
        self.background = self.screenshot((0, 0, 4, 4)).pixel(2, 2)

    def stop_picom(self):
        if self.picom and self.picom.poll() is None:
            self.picom.terminate()
            self.picom.wait(timeout=10)
        self.picom = None
        wait_for(lambda: self.screenshot((0, 0, 4, 4)).pixel(2, 2) == BACKGROUND, what="picom to go")
        self.background = BACKGROUND

    def screenshot(self, region=POPUP_AREA):
        """The pixels of `region` (x0, y0, x1, y1) of the root window, by default its right half."""
        x0, y0, x1, y1 = region
        result = subprocess.run(["import", "-window", "root", "-crop", f"{x1 - x0}x{y1 - y0}+{x0}+{y0}",
                                 "-depth", "8", "ppm:-"], env=self.env(), capture_output=True, timeout=20)
        assert result.returncode == 0, result.stderr.decode(errors="replace")
        return Image(result.stdout, origin=(x0, y0), background=self.background)

    def save(self, path):
        subprocess.run(["import", "-window", "root", str(path)], env=self.env(), check=True, timeout=20)

    def click(self, x, y, button=1):
        self.run("xdotool", "mousemove", str(x), str(y), "click", str(button))
        self.run("xdotool", "mousemove", "2", str(OUTPUT[1] - 2))  # parked, off the popups

    def kill(self):
        self.kills += 1
        for process in (self.picom, self.process):
            if process and process.poll() is None:
                process.kill()
                process.wait()
        self.picom = None

    def window_manager(self):
        """openbox on this display, once it manages the screen (it names the window with the
        keyboard in _NET_ACTIVE_WINDOW, and makes windows fullscreen); answers its process."""
        log = open(self.directory / "openbox.log", "ab")
        process = subprocess.Popen(["openbox", "--sm-disable"], env=self.env(), stdout=log, stderr=log)
        log.close()
        wait_for(lambda: self.run("wmctrl", "-m", check=False).returncode == 0, what="openbox to manage the screen")
        return process

    def xmessage(self, title, geometry, text):
        """A window (xmessage) titled `title` at `geometry` (WxH+X+Y); answers its process and, once
        it is mapped, its window id."""
        with open(self.directory / "xmessage.log", "ab") as log:
            process = subprocess.Popen(["xmessage", "-title", title, "-geometry", geometry, text], env=self.env(),
                                       stdout=log, stderr=log)
        window = wait_for(lambda: self.run("xdotool", "search", "--name", f"^{title}$", check=False).stdout.split(),
                          what=f"the window {title}")[0]
        return process, window

    def stop(self):
        for process in (self.picom, self.process):
            if process and process.poll() is None:
                process.terminate()
                process.wait(timeout=10)
        if self.reservation is not None:
            self.reservation.release()


class X11Daemon(Daemon):
    """notifyd drawing on `x`."""

    def __init__(self, runtime_dir, x, config, env=None):
        config_dir = runtime_dir / "config" / "notifyd"
        config_dir.mkdir(parents=True, exist_ok=True)
        (config_dir / "notifyd.conf").write_text(config)
        super().__init__(runtime_dir, env={"DISPLAY": x.display, "WAYLAND_DISPLAY": "", **(env or {})})


@pytest.fixture
def x11_session():
    """A fresh Xvfb, and `make_daemon` for notifyd daemons drawing on it."""
    directory = Path(tempfile.mkdtemp(prefix="notifyd-x11-"))
    x = X(directory)
    try:
        x.start()
    except BaseException:
        x.stop()
        raise

    def new_daemon(runtime, config, env):
        return X11Daemon(runtime, x, config or x11_config(), env)

    with daemons_drawing_on(x, directory, new_daemon, "connection to the display server was lost") as make_daemon:
        yield x, make_daemon


# MARK: - Clients of a daemon, and what it holds


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


def send_many(daemon, count, **parameters):
    """`count` Show calls from one connection as the daemon's user, 50 at a time."""
    send_shows(daemon, count, as_user(daemon.user), **parameters)


def settled_rss_kib(daemon, holding=1):
    """The daemon's resident set once the queue is down to `holding` visible notices and freed
    memory has gone back (the daemon trims a second after notices finish)."""
    def drained():
        status = daemon.status()
        return status["visible"] == holding and status["queued"] == 0 and status["waiting"] == 0
    wait_for(drained, timeout=60, what="the queue to drain")
    time.sleep(1.5)
    return rss_kib(daemon.process.pid)


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
        wait_for(lambda: daemon.status()["idle"]["idle"] is False, timeout=10,
                 what="the source to say the person is back")
        result = daemon.notifyctl("wait", str(notice), timeout=30)
        gone_at = time.monotonic()
    finally:
        present.set()
        mover.join()
    assert result.returncode == 0, (result.returncode, result.stderr)  # completed: its hold ran out
    assert gone_at - back_at >= hold


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
