"""The full freedesktop server (DESIGN §7, issue 18) checked with clients nobody here wrote.

`notify-send` with every option, `gdbus call` and `busctl` with hand-built hints and markup, the
PyPI client `desktop-notifier`, and `dbus-monitor` for the signals, on a private session bus; a
person's dismissal through `notifyctl dismiss`; sounds through a stand-in `canberra-gtk-play` that
records how it was started (there is no sound card here to hear it).
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
import tempfile
import textwrap
import time

import pytest

from conftest import rss_kib, unprivileged_user, wait_for
from display import as_user
from session_bus import FAST_TIMING, NAME, PATH, bus, monitor, scratch, start_daemon  # noqa: F401 (fixtures)
from test_dbus import display  # noqa: F401 (a fixture)

NEEDED = ["dbus-daemon", "busctl", "gdbus", "dbus-monitor", "notify-send", "zenity", "Xvfb"]
missing = [tool for tool in NEEDED if shutil.which(tool) is None]
pytestmark = pytest.mark.skipif(bool(missing), reason=f"missing tools: {', '.join(missing)}")

@pytest.fixture
def serve(start_daemon, bus):
    """notifyd serving the module's bus (test_dbus's fixtures) with `extra` config; `env` adds to
    its environment; returns once it owns the name."""

    def start(extra="", env=None):
        instance = start_daemon("server", FAST_TIMING + extra, env={**bus.env(), **(env or {})})
        wait_for(lambda: bus.name_owner_pid(NAME) == instance.process.pid, what="notifyd to own the name")
        return instance

    return start


# MARK: - notify-send, every option


def test_notify_send_with_every_option_reaches_the_notice(serve, bus, tmp_path):
    daemon = serve()
    icon = tmp_path / "icon.png"
    icon.write_bytes(b"\x89PNG\r\n\x1a\n")
    sender = subprocess.Popen(
        ["notify-send", "-p", "-u", "critical", "-t", "0", "-a", "mail", "-i", str(icon), "-c", "email.arrived",
         "-h", "string:desktop-entry:org.gnome.Evolution", "-h", "string:sound-name:message-new-email",
         "-h", "int:x:10", "-h", "int:y:20", "-h", "string:x-notifyd-unknown:ignored", "-e",
         "-A", "open=Open", "-A", "later=Later", "New mail", "From <b>Ada</b> &amp; Bob"],
        env={**os.environ, **bus.env()}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    id = wait_for(lambda: (lambda found: found[0]["id"] if found else None)(daemon.notices("list")),
                  what="the notice")
    shown = daemon.get(id)
    assert (shown["title"], shown["app"], shown["urgency"], shown["hold"]) == ("New mail", "mail", "critical", 0)
    assert shown["body"] == "From <b>Ada</b> &amp; Bob"  # kept as sent; views flatten it
    assert shown["icon"] == str(icon)
    assert shown["hints"] == {"category": "email.arrived", "desktopEntry": "org.gnome.Evolution",
                              "transient": True, "soundName": "message-new-email"}
    assert shown["actions"] == [{"key": "open", "label": "Open"}, {"key": "later", "label": "Later"}]
    # The CLI shows the body as text, the JSON as it came.
    shown_text = daemon.notifyctl("get", str(id), check=True).stdout
    assert "From Ada & Bob" in shown_text, shown_text
    # -A waits (as -w does): choosing an action prints its name.
    daemon.visible(id)
    with daemon.queue() as queue:
        queue.Invoke(id=id, action="later")
    output, errors = sender.communicate(timeout=15)
    assert sender.returncode == 0, errors
    assert output.split() == [str(id), "later"]
    # -r replaces it in place while it is shown.
    replacing = int(bus.run("notify-send", "-p", "-t", "0", "First").stdout)
    daemon.visible(replacing)
    assert int(bus.run("notify-send", "-p", "-r", str(replacing), "Second").stdout) == replacing
    assert daemon.get(replacing)["title"] == "Second"


def test_an_icon_name_the_icon_theme_has_is_kept_as_the_name(serve, bus):
    daemon = serve()
    # Kept as the name: the popups look it up for the size and scale they draw at.
    named = int(bus.run("notify-send", "-p", "-i", "dialog-information", "Named icon").stdout)
    assert daemon.get(named)["icon"] == "dialog-information"
    symbolic = int(bus.run("notify-send", "-p", "-i", "dialog-information-symbolic", "Symbolic").stdout)
    assert daemon.get(symbolic)["icon"] == "dialog-information-symbolic"
    # As image-path too, and a name no theme has is no icon; then app_icon is taken, by the
    # specification's order.
    hinted = int(bus.run("notify-send", "-p", "-h", "string:image-path:dialog-warning", "Hinted").stdout)
    assert daemon.get(hinted)["icon"] == "dialog-warning"
    unknown = int(bus.run("notify-send", "-p", "-i", "no-such-icon-anywhere", "Unknown").stdout)
    assert "icon" not in daemon.get(unknown)
    fallback = int(bus.run("notify-send", "-p", "-i", "dialog-error", "-h", "string:image-path:no-such-icon-anywhere",
                       "Fallback").stdout)
    assert daemon.get(fallback)["icon"] == "dialog-error"


def test_zenity_notification_goes_through_libnotify_to_the_queue(serve, bus, display):
    daemon = serve()
    result = bus.run("zenity", "--notification", "--text=Zenity says <b>hi</b> &amp; bye",
                 env={"DISPLAY": display.display}, timeout=60)
    assert result.returncode == 0, result.stderr
    found = wait_for(lambda: daemon.notices("list") or None, what="zenity's notice")
    assert len(found) == 1
    shown = found[0]
    # zenity sends its text as the summary or the body, as its version does; either way it arrives.
    print("zenity sent", shown)
    text = f"{shown['title']}\n{shown.get('body') or ''}"
    assert "Zenity says" in text, shown


def test_notify_send_wait_ends_when_a_person_dismisses_it_with_reason_2(serve, bus, monitor):
    daemon = serve()
    sender = subprocess.Popen(["notify-send", "-p", "-w", "-t", "0", "Waiting"], env={**os.environ, **bus.env()},
                              stdout=subprocess.PIPE, text=True)
    id = wait_for(lambda: (lambda found: found[0]["id"] if found else None)(daemon.notices("list")),
                  what="the notice")
    daemon.visible(id)
    result = daemon.notifyctl("dismiss", str(id))
    assert (result.returncode, result.stdout.split()) == (0, [str(id)]), result.stderr
    sender.communicate(timeout=15)
    assert sender.returncode == 0
    assert daemon.get(id)["outcome"] == "dismissed"
    wait_for(lambda: ("NotificationClosed", id, 2) in monitor.signals(), what="NotificationClosed(id, 2)")


def test_dismiss_all_closes_what_is_visible_and_each_reason_is_reported(serve, bus, monitor):
    # MaxSticky=0: held until closed, the first two keep their slots, so the third waits for one.
    daemon = serve("[Queue]\nMaxVisible=2\nMaxSticky=0\n")
    first = int(bus.run("notify-send", "-p", "-t", "0", "One").stdout)
    second = int(bus.run("notify-send", "-p", "-t", "0", "Two").stdout)
    daemon.visible(first)
    daemon.visible(second)
    later = int(bus.run("notify-send", "-p", "-t", "0", "Three").stdout)  # no slot: not visible yet
    result = daemon.notifyctl("dismiss", "--all")
    assert sorted(map(int, result.stdout.split())) == [first, second], result.stderr
    daemon.visible(later)
    bus.run("busctl", f"--address={bus.address}", "call", NAME, PATH, NAME, "CloseNotification", "u", str(later))
    expired = int(bus.run("notify-send", "-p", "-t", "100", "Expires").stdout)
    daemon.finished(expired)
    wait_for(lambda: {("NotificationClosed", first, 2), ("NotificationClosed", second, 2),
                      ("NotificationClosed", later, 3), ("NotificationClosed", expired, 1)} <= set(monitor.signals()),
             what="reasons 2, 2, 3 and 1")
    # Bad requests are refused clearly; with no id and nothing visible, that is said.
    assert daemon.notifyctl("dismiss", "5", "--all").returncode == 2
    nothing = daemon.notifyctl("dismiss")
    assert nothing.returncode == 1 and "no notice is visible" in nothing.stderr, nothing.stderr
    gone = daemon.notifyctl("dismiss", "9999")
    assert gone.returncode == 1 and "9999" in gone.stderr, gone.stderr


# MARK: - Hints


def test_transient_notices_are_not_kept_in_history(serve, bus):
    daemon = serve()
    kept = int(bus.run("notify-send", "-p", "-t", "100", "Kept").stdout)
    passing = int(bus.run("notify-send", "-p", "-e", "-t", "100", "Passing").stdout)
    daemon.finished(kept)
    # Waiting on it still answers as it finishes; then it is forgotten.
    waited = daemon.notifyctl("wait", str(passing), timeout=15)
    assert waited.returncode in (0, 1), waited.stderr
    wait_for(lambda: daemon.notifyctl("get", str(passing)).returncode == 1, what="the transient notice to go")
    history = daemon.notifyctl("history", "--json", check=True).stdout
    assert '"Kept"' in history and '"Passing"' not in history, history


def test_a_resident_notice_stays_when_its_action_is_chosen(serve, bus, monitor):
    daemon = serve()
    id = bus.gdbus_notify("Resident", "stays", hints="{'resident': <true>}", actions="['default', 'Open']",
                      expire=0, app="gdbus")
    daemon.visible(id)
    with daemon.queue() as queue:
        queue.Invoke(id=id, action="default")
    wait_for(lambda: ("ActionInvoked", id, "default") in monitor.signals(), what="ActionInvoked")
    assert daemon.get(id)["phase"] in ("fadingIn", "holding")
    # A plain one closes on its action.
    plain = bus.gdbus_notify("Plain", "goes", actions="['default', 'Open']", expire=0, app="gdbus")
    daemon.visible(plain)
    with daemon.queue() as queue:
        queue.Invoke(id=plain, action="default")
    assert daemon.finished(plain)["outcome"] == "completed"
    assert daemon.get(id)["phase"] in ("fadingIn", "holding")


@pytest.mark.parametrize("hints, kept", [
    # Wrong types are ignored, as unknown hints are: the notice still comes.
    (["3", "urgency", "s", "critical", "transient", "s", "yes", "category", "u", "7"], None),
    (["2", "desktop-entry", "s", "firefox.desktop", "x-unknown", "as", "2", "a", "b"], {"desktopEntry": "firefox"}),
    (["1", "resident", "y", "1"], {"resident": True}),
])
def test_hints_of_the_wrong_type_or_unknown_are_ignored(serve, bus, hints, kept):
    daemon = serve()
    result = bus.busctl_notify(app="busctl", hints=hints, check=True)
    id = int(result.stdout.split()[1])
    shown = daemon.get(id)
    assert shown.get("hints") == kept
    assert shown["urgency"] == "normal"


@pytest.mark.parametrize("image, reason", [
    # 2×2 RGBA needs 16 bytes at rowstride 8: 3 is too few.
    (["2", "2", "8", "true", "8", "4", "3", "1", "2", "3"], "image-data"),
    # A rowstride too short for the width.
    (["4", "1", "4", "true", "8", "4", "16"] + ["0"] * 16, "image-data"),
])
def test_image_data_that_does_not_describe_an_image_is_refused_by_name(serve, bus, image, reason):
    daemon = serve()
    result = bus.busctl_notify(app="busctl", hints=["1", "image-data", "(iiibiiay)", *image])
    assert result.returncode != 0 and reason in result.stderr, result.stderr
    assert daemon.notices("list") == []


def test_huge_image_data_is_refused_without_holding_it(serve, bus):
    daemon = serve()
    # 4096×4096 RGBA (64 MiB) claimed, with a byte array to match: past the icon limit.
    width = height = 4096
    hints = f"{{'image-data': <({width}, {height}, {width * 4}, true, 8, 4, @ay [])>}}"
    result = bus.gdbus_notify("Huge", "image", hints=hints, check=False, app="gdbus")
    assert result.returncode != 0 and "image-data" in result.stderr, result.stderr
    assert daemon.notices("list") == []
    if not os.environ.get("NOTIFYD_SANITIZER"):  # a sanitizer keeps or shadows what is freed
        assert rss_kib(daemon.process.pid) < 64 * 1024


BIG_IMAGES = """
import asyncio, sys
from dbus_fast import Variant
from dbus_fast.aio import MessageBus

async def main(count, edge):
    bus = await MessageBus().connect()
    introspection = await bus.introspect("org.freedesktop.Notifications", "/org/freedesktop/Notifications")
    proxy = bus.get_proxy_object("org.freedesktop.Notifications", "/org/freedesktop/Notifications", introspection)
    notifications = proxy.get_interface("org.freedesktop.Notifications")
    pixels = bytes(range(256)) * (edge * edge * 4 // 256)
    for index in range(count):
        image = Variant("(iiibiiay)", [edge, edge, edge * 4, True, 8, 4, pixels[index:] + pixels[:index]])
        id = await notifications.call_notify("big", 0, "", f"Big {index}", "", [], {"image-data": image}, 100)
        print(id, flush=True)

asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
"""


def test_big_images_are_kept_small_and_memory_stays_flat(serve, bus, tmp_path):
    # 1024×1024 RGBA, 4 MiB each over the bus: each is kept as a PNG scaled to fit 96 pixels, and
    # what the daemon holds does not grow with how many came.
    daemon = serve()
    script = tmp_path / "big.py"
    script.write_text(BIG_IMAGES)

    def send(count):
        result = bus.run(sys.executable, str(script), str(count), "1024", timeout=120)
        return [int(line) for line in result.stdout.split()]

    first = send(3)
    icon = daemon.get(first[0])["icon"]
    assert os.path.getsize(icon) < 64 * 1024, icon
    before = rss_kib(daemon.process.pid)
    ids = send(20)
    assert len(set(daemon.get(id)["icon"] for id in ids)) == 20
    grown = rss_kib(daemon.process.pid) - before
    # Twenty images of 4 MiB came; far less than one of them stays.
    if not os.environ.get("NOTIFYD_SANITIZER"):  # a sanitizer keeps or shadows what is freed
        assert grown < 4 * 1024, f"RSS grew by {grown} KiB"


# MARK: - Markup


@pytest.mark.parametrize("body, text", [
    ("<b>bold</b> and <i>italic</i> and <u>under</u>", "bold and italic and under"),
    ("I <3 you", "I <3 you"),
    ("a < b > c", "a < b > c"),
    ("&amp; &lt; &gt; &quot; &apos; &#65; &#x42;", "& < > \" ' A B"),
    ("<a href=\"https://example.org/?a=1&amp;b=2\">the link</a>", "the link"),
    ("<b>never closed", "<b>never closed"),
    ("<font color='red'>not the subset</font>", "<font color='red'>not the subset</font>"),
    ("<img src=\"/x.png\" alt=\"a cat\"/> purrs", "[a cat] purrs"),
    ("Tom & Jerry &nbsp;", "Tom & Jerry &nbsp;"),
])
def test_body_markup_is_read_tolerantly_and_shown_as_text_by_the_cli(serve, bus, body, text):
    daemon = serve()
    id = bus.gdbus_notify("<b>Summary</b> &amp; plain", body, app="gdbus")
    got = daemon.notifyctl("get", str(id), check=True).stdout
    assert re.search(r"^body:\s+" + re.escape(text) + r"\s*$", got, re.M), got
    # The summary is plain text, always: its tags stay as written.
    assert "<b>Summary</b> &amp; plain" in got, got
    assert daemon.get(id)["body"] == body


# MARK: - Capabilities, IgnoreClose, sound


def test_capabilities_list_exactly_what_is_implemented(serve, bus):
    daemon = serve()
    assert bus.call_notifications("GetCapabilities")[0] == ["actions", "body", "body-markup", "inline-reply",
                                                             "persistence"]
    assert bus.call_notifications("GetServerInformation")[3] == "1.2"
    daemon.stop()
    daemon = serve("[Sound]\nEnabled=yes\n")
    assert bus.call_notifications("GetCapabilities")[0] == ["actions", "body", "body-markup", "inline-reply",
                                                             "persistence", "sound"]


def test_ignore_close_keeps_notices_their_app_closes_at_once(serve, bus, monitor):
    daemon = serve("[DBus]\nIgnoreClose=1s\n[Rule:patient]\nMatchApp=patient\nIgnoreClose=0\n")

    def close(id):
        bus.busctl("call", NAME, PATH, NAME, "CloseNotification", "u", str(id))

    sent = time.monotonic()
    hasty = bus.gdbus_notify("Hasty", "closes itself", expire=0, app="gdbus")
    close(hasty)
    # CloseNotification is answered after it is carried out: a close that was not ignored has
    # started the fade-out already.
    assert daemon.get(hasty)["phase"] in ("queued", "fadingIn", "holding")
    # The rule says 0 for this app: its close is honoured.
    patient = bus.gdbus_notify("Patient", "closes itself", app="patient", expire=0)
    close(patient)
    assert daemon.finished(patient)["outcome"] == "cancelled"
    wait_for(lambda: ("NotificationClosed", patient, 3) in monitor.signals(), what="NotificationClosed(patient, 3)")
    # Past the window (1 s after its Notify), a close is honoured too.
    wait_for(lambda: time.monotonic() - sent > 1.2, what="the window to pass")
    close(hasty)
    assert daemon.finished(hasty)["outcome"] == "cancelled"
    wait_for(lambda: ("NotificationClosed", hasty, 3) in monitor.signals(), what="NotificationClosed(hasty, 3)")


PLAYER = """#!/bin/sh
# A stand-in for canberra-gtk-play: records its arguments, one call per line.
echo "$*" >> "{log}"
"""


def test_sounds_play_through_canberra_when_enabled_and_reach_hooks_otherwise(serve, bus, tmp_path, no_x_display):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "played.log"
    player = bin_dir / "canberra-gtk-play"
    player.write_text(PLAYER.format(log=log))
    player.chmod(0o755)
    sound = tmp_path / "chime.oga"
    sound.write_bytes(b"OggS")
    # canberra-gtk-play is used only with a display (it is a GTK program): the stand-in needs none.
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "DISPLAY": no_x_display}
    daemon = serve("[Sound]\nEnabled=yes\nDefault=message-new-instant\n", env=env)
    silent = int(bus.run("notify-send", "-p", "-t", "100", "-h", "string:sound-name:silenced",
                     "-h", "boolean:suppress-sound:true", "Silent").stdout)
    daemon.finished(silent)
    named = int(bus.run("notify-send", "-p", "-t", "100", "-h", "string:sound-name:bell", "Named").stdout)
    wait_for(lambda: log.exists() and "--id=bell" in log.read_text(), what="the named sound")
    filed = int(bus.run("notify-send", "-p", "-t", "100", "-h", f"string:sound-file:file://{sound}", "Filed").stdout)
    wait_for(lambda: f"--file={sound}" in log.read_text(), what="the sound file")
    plain = int(bus.run("notify-send", "-p", "-t", "100", "Plain").stdout)
    wait_for(lambda: "--id=message-new-instant" in log.read_text(), what="the default sound")
    for id in (named, filed, plain):
        daemon.finished(id)
    assert "silenced" not in log.read_text(), log.read_text()
    assert len(log.read_text().splitlines()) == 3, log.read_text()
    daemon.stop()
    # Off: nothing plays, and a hook sees the sound.
    log.unlink()
    hooked = tmp_path / "hook.log"
    daemon = serve(f"[Hooks]\nOnShow=echo \"$NOTIFYD_SOUND_NAME|$NOTIFYD_SOUND_FILE\" >> {hooked}\n", env=env)
    id = int(bus.run("notify-send", "-p", "-t", "100", "-h", "string:sound-name:bell", "Hooked").stdout)
    wait_for(lambda: hooked.exists() and "bell|" in hooked.read_text(), what="the hook")
    daemon.finished(id)
    assert not log.exists()


class PulseAudio:
    """A real sound server with nothing but a null sink, as an unprivileged user (pulseaudio will
    not run as root), answering anyone on its socket; `pactl subscribe` counts the streams played."""

    def __init__(self, directory):
        user = unprivileged_user()
        self.directory = directory
        directory.parent.chmod(0o755)
        directory.mkdir(mode=0o755)
        home = directory / "home"
        home.mkdir(mode=0o700)
        os.chown(home, user.pw_uid, user.pw_gid)
        self.socket = home / "native"  # where the server's user may create it
        self.log = open(directory / "pulseaudio.log", "w")
        self.process = subprocess.Popen(
            as_user(user) + ["env", f"HOME={home}", f"XDG_RUNTIME_DIR={home}", "pulseaudio", "-n", "--daemonize=no",
                             "--exit-idle-time=-1", "--disable-shm=yes", "-L", "module-null-sink sink_name=null",
                             "-L", f"module-native-protocol-unix socket={self.socket} auth-anonymous=1"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.env = {"PULSE_SERVER": f"unix:{self.socket}"}
        wait_for(lambda: subprocess.run(["pactl", "info"], env={**os.environ, **self.env}, capture_output=True)
                 .returncode == 0, what="pulseaudio to answer")
        self.events = directory / "events.log"
        self.subscriber = subprocess.Popen(["pactl", "subscribe"], env={**os.environ, **self.env},
                                           stdout=open(self.events, "w"), stderr=subprocess.STDOUT)
        # pactl is subscribed once it sees what it causes itself: a client of its own.
        wait_for(lambda: subprocess.run(["pactl", "stat"], env={**os.environ, **self.env}).returncode == 0 and
                 "on client" in self.events.read_text(), what="pactl subscribe to listen")

    def streams(self):
        """How many playback streams were opened so far."""
        return len(re.findall(r"Event 'new' on sink-input", self.events.read_text()))

    def stop(self):
        for process in (self.subscriber, self.process):
            process.terminate()
            process.wait(timeout=10)
        self.log.close()


@pytest.fixture
def pulseaudio():
    # Not under pytest's tmp_path: its parents are root's alone, and the server's user must get in.
    directory = Path(tempfile.mkdtemp(prefix="notifyd-pulse-"))
    instance = PulseAudio(directory / "pulse")
    yield instance
    instance.stop()
    shutil.rmtree(directory, ignore_errors=True)


@pytest.mark.parametrize("player", ["paplay", "canberra-gtk-play"])
def test_sounds_really_play_on_a_sound_server(serve, bus, display, pulseaudio, player):
    # paplay when the daemon has no display (a name then found in the freedesktop theme);
    # canberra-gtk-play, a GTK program, when it has one.
    env = dict(pulseaudio.env)
    if player == "canberra-gtk-play":
        env["DISPLAY"] = display.display
    daemon = serve("[Sound]\nEnabled=yes\n", env=env)
    named = int(bus.run("notify-send", "-p", "-t", "100", "-h", "string:sound-name:bell", "Named").stdout)
    wait_for(lambda: pulseaudio.streams() >= 1, timeout=15, what="the named sound to play")
    bell = "/usr/share/sounds/freedesktop/stereo/complete.oga"
    filed = int(bus.run("notify-send", "-p", "-t", "100", "-h", f"string:sound-file:{bell}", "Filed").stdout)
    wait_for(lambda: pulseaudio.streams() >= 2, timeout=15, what="the sound file to play")
    for id in (named, filed):
        daemon.finished(id)
    assert f"Sound hook for notice" not in daemon.stderr(), daemon.stderr()


# MARK: - A client from PyPI

CLIENT = """
import asyncio, sys
from desktop_notifier import DesktopNotifier, Sound, Urgency

async def main():
    notifier = DesktopNotifier(app_name="pyclient")
    done = asyncio.Event()
    def said(what):
        print(what, flush=True)
        done.set()
    await notifier.send(title="From Python", message="<b>markup</b> & more", urgency=Urgency.Critical,
                        sound=Sound(name="bell"), on_dismissed=lambda: said("dismissed"),
                        on_clicked=lambda: said("clicked"), timeout=0)
    print("sent", flush=True)
    await asyncio.wait_for(done.wait(), 20)

asyncio.run(main())
"""


@pytest.mark.parametrize("person", ["dismiss", "click"])
def test_desktop_notifier_from_pypi_hears_a_dismissal_and_a_click(serve, bus, tmp_path, person):
    daemon = serve("[Sound]\nEnabled=yes\n")
    script = tmp_path / "client.py"
    script.write_text(textwrap.dedent(CLIENT))
    client = subprocess.Popen([sys.executable, str(script)], env={**os.environ, **bus.env()}, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    assert client.stdout.readline().strip() == "sent", client.stderr.read()
    found = daemon.notices("list")
    assert len(found) == 1
    shown = found[0]
    assert (shown["title"], shown["app"], shown["urgency"]) == ("From Python", "pyclient", "critical")
    # With [Sound] Enabled, the client sends its sound by name.
    assert shown["hints"]["soundName"] == "bell"
    daemon.visible(shown["id"])
    if person == "dismiss":
        assert daemon.notifyctl("dismiss", str(shown["id"])).returncode == 0
    else:
        with daemon.queue() as queue:
            queue.Invoke(id=shown["id"], action="default")
    output, errors = client.communicate(timeout=30)
    assert client.returncode == 0, errors
    assert output.strip() == ("dismissed" if person == "dismiss" else "clicked"), (output, errors)


REPLYING_CLIENT = """
import asyncio, sys
from desktop_notifier import Button, DesktopNotifier, ReplyField

async def main():
    notifier = DesktopNotifier(app_name="chat")
    done = asyncio.Event()
    def said(what):
        print(what, flush=True)
        done.set()
    await notifier.send(title="Ada", message="Lunch at noon?", timeout=0,
                        buttons=[Button(title="Later", on_pressed=lambda: said("pressed Later"))],
                        reply_field=ReplyField(title="Answer Ada", on_replied=lambda text: said("replied " + text)))
    print("sent", flush=True)
    await asyncio.wait_for(done.wait(), 20)

asyncio.run(main())
"""


@pytest.mark.parametrize("person", ["reply", "button"])
def test_desktop_notifier_from_pypi_hears_a_reply_and_a_button(serve, bus, tmp_path, person):
    daemon = serve()
    script = tmp_path / "client.py"
    script.write_text(textwrap.dedent(REPLYING_CLIENT))
    client = subprocess.Popen([sys.executable, str(script)], env={**os.environ, **bus.env()}, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    assert client.stdout.readline().strip() == "sent", client.stderr.read()
    shown = daemon.notices("list")[0]
    # The inline-reply action is a field, not a button: its label is the placeholder.
    assert shown["reply"] == "Answer Ada"
    buttons = [action for action in shown["actions"] if action["key"] != "default"]
    assert [action["label"] for action in buttons] == ["Later"]
    daemon.visible(shown["id"])
    if person == "reply":
        assert daemon.notifyctl("reply", str(shown["id"]), "on my way").returncode == 0
        expected = "replied on my way"
    else:
        assert daemon.notifyctl("invoke", str(shown["id"]), buttons[0]["key"]).returncode == 0
        expected = "pressed Later"
    output, errors = client.communicate(timeout=30)
    assert client.returncode == 0, errors
    assert output.strip() == expected, (output, errors)
    finished = daemon.finished(shown["id"])
    assert finished["outcome"] == "completed"
    assert finished.get("replied") == ("on my way" if person == "reply" else None)
