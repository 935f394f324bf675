"""The desktop bridge (DESIGN §7) against real peers on a private session bus.

Server mode is driven by `notify-send` (libnotify), `busctl` and `dbus-monitor`; forward mode is
checked against dunst on a virtual X display, with `dunstctl` as the probe. Every bus, display and
helper process is private to this module and stopped at the end. A screenshot of a forwarded popup
is kept in $NOTIFYD_ARTIFACTS (default /tmp/notifyd-artifacts)/forwarded-popup.png.
"""

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conftest import wait_for
from display import OUTPUT, X
from session_bus import FAST_TIMING, SessionBus, bus, monitor, scratch, start_daemon  # noqa: F401 (fixtures)

NEEDED = ["dbus-daemon", "busctl", "dbus-monitor", "notify-send", "gdbus", "dunst", "dunstctl", "Xvfb", "xsetroot",
          "import"]
missing = [tool for tool in NEEDED if shutil.which(tool) is None]
pytestmark = pytest.mark.skipif(bool(missing), reason=f"missing tools: {', '.join(missing)}")

ARTIFACTS = Path(os.environ.get("NOTIFYD_ARTIFACTS", "/tmp/notifyd-artifacts"))
DUNSTRC = """[global]
    monitor = 0
    follow = none
    width = 420
    origin = top-right
    offset = 20x40
    idle_threshold = 0
    show_age_threshold = -1
    font = Monospace 11
    markup = full
    format = "<b>%s</b>\\n%b"
    frame_width = 2
    progress_bar = true
[urgency_low]
    background = "#222222"
    foreground = "#aaaaaa"
    frame_color = "#444444"
[urgency_normal]
    background = "#285577"
    foreground = "#ffffff"
    frame_color = "#4c7899"
[urgency_critical]
    background = "#900000"
    foreground = "#ffffff"
    frame_color = "#ff0000"
"""


class Dunst:
    """dunst on the display and the bus, with its own config; dunstctl talks to it."""

    def __init__(self, bus: SessionBus, display: X, directory: Path):
        self.bus = bus
        config_home = directory / "dunst-config"
        (config_home / "dunst").mkdir(parents=True, exist_ok=True)
        (config_home / "dunst" / "dunstrc").write_text(DUNSTRC)
        self.env = dict(os.environ, DISPLAY=display.display, XDG_CONFIG_HOME=str(config_home), **bus.env())
        self.log_path = directory / f"dunst-{time.monotonic_ns()}.log"
        self.log = open(self.log_path, "ab")
        # -print: every notification dunst receives is written out, with its urgency.
        self.process = subprocess.Popen(["dunst", "-print"], env=self.env, stdout=self.log, stderr=self.log)
        wait_for(lambda: bus.name_owner_pid("org.freedesktop.Notifications") == self.process.pid,
                 what="dunst to own org.freedesktop.Notifications")

    def ctl(self, *args):
        result = subprocess.run(["dunstctl", *args], env=self.env, capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, f"dunstctl {' '.join(args)}: {result.stderr}"
        return result.stdout

    def received(self):
        """Every notification dunst received, as -print wrote it: {field: value}, oldest first."""
        found = []
        for block in re.findall(r"^\{\n(.*?)^\}$", self.log_path.read_text(), re.M | re.S):
            fields = {}
            for key, value in re.findall(r"^\t([a-z_ ]+): (.*)$", block, re.M):
                fields[key] = value[1:-1] if value.startswith("'") and value.endswith("'") else value
            found.append(fields)
        return found

    def displayed(self):
        return int(self.ctl("count", "displayed"))

    def history(self):
        """Closed popups, newest first, as {field: value}."""
        entries = json.loads(self.ctl("history"))["data"][0]
        return [{key: value["data"] for key, value in entry.items()} for entry in entries]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.log.close()


# MARK: - Fixtures


@pytest.fixture(scope="module")
def display(scratch):
    """Xvfb for dunst to draw on (display.py's `X`)."""
    instance = X(scratch).start()
    yield instance
    instance.stop()


@pytest.fixture
def dunst(bus, display, scratch):
    instance = Dunst(bus, display, scratch)
    yield instance
    instance.stop()
    wait_for(lambda: bus.name_owner_pid("org.freedesktop.Notifications") is None, what="dunst to leave the bus")


# MARK: - Server mode: notify-send, busctl and dbus-monitor as clients


def test_server_answers_server_information_and_capabilities(start_daemon, bus):
    daemon = start_daemon("server")
    wait_for(lambda: bus.name_owner_pid("org.freedesktop.Notifications") == daemon.process.pid,
             what="notifyd to own the name")
    assert bus.call_notifications("GetServerInformation") == ["notifyd", "notifyd", "0.1.0", "1.2"]
    # No popups are drawn here (no display): no icon-static; no [Sound]: no sound. A reply, as an
    # action, can still be given (notifyctl reply).
    assert bus.call_notifications("GetCapabilities")[0] == ["actions", "body", "body-markup", "inline-reply",
                                                             "persistence"]
    assert "dbus: serving org.freedesktop.Notifications" in daemon.stderr()


def test_notify_send_puts_a_notice_on_the_queue_and_prints_its_id(start_daemon, bus):
    daemon = start_daemon("server")
    id = int(bus.notify_send("-p", "-a", "backup", "Backup done", "312 files"))
    shown = daemon.get(id)
    assert (shown["title"], shown["body"], shown["app"], shown["kind"]) == ("Backup done", "312 files", "backup", "notice")
    assert [n["id"] for n in daemon.notices("list")] == [id]
    # It fades in and out like any other notice.
    finished = daemon.finished(id)
    assert finished["outcome"] == "completed" and finished["shown"] is not None
    with daemon.queue() as queue:
        assert queue.History()["notices"][0]["id"] == id


def test_notify_send_wait_returns_when_the_notice_ends(start_daemon, bus, monitor):
    daemon = start_daemon("server")
    # How long notify-send --wait takes to return once its notice has closed, on this machine now.
    short = bus.spawn("notify-send", "--wait", "-t", "100", "Short")
    short_id = wait_for(lambda: [n["id"] for n in daemon.notices("list")], what="the short notice")[0]
    wait_for(lambda: ("NotificationClosed", short_id, 1) in monitor.signals(), what="the short notice to close")
    closed_at = time.monotonic()
    assert short.wait(timeout=20) == 0
    returns_within = time.monotonic() - closed_at

    waiting = bus.spawn("notify-send", "--wait", "-t", "0", "Held until ended")
    id = wait_for(lambda: [n["id"] for n in daemon.notices("list")], what="the notice")[0]
    # Past its fade-in, the last boundary at which a wrong close could come, and then three times
    # what notify-send took to return after a close.
    wait_for(lambda: daemon.get(id)["phase"] == "holding", what=f"notice {id} to hold")
    time.sleep(3 * returns_within + 0.1)
    assert waiting.poll() is None, "notify-send --wait returned while the notice was still showing"
    assert not [signal for signal in monitor.signals() if signal[1] == id]
    with daemon.queue() as queue:
        queue.End(id)
    assert waiting.wait(timeout=20) == 0
    assert daemon.get(id)["phase"] == "finished"


def test_action_chosen_through_varlink_is_printed_by_notify_send(start_daemon, bus, monitor):
    daemon = start_daemon("server")
    choosing = bus.spawn("notify-send", "-A", "yes=Yes", "-A", "no=No", "Overwrite?")
    id = wait_for(lambda: [n["id"] for n in daemon.notices("list")], what="the notice")[0]
    shown = daemon.visible(id) and daemon.get(id)
    assert shown["actions"] == [{"key": "yes", "label": "Yes"}, {"key": "no", "label": "No"}]
    with daemon.queue() as queue:
        queue.Invoke(id, "yes")
    out, err = choosing.communicate(timeout=20)
    assert choosing.returncode == 0, err
    assert out.strip() == "yes"
    finished = daemon.finished(id)
    assert (finished["invoked"], finished["outcome"]) == ("yes", "completed")
    wait_for(lambda: ("ActionInvoked", id, "yes") in monitor.signals(), what="ActionInvoked on the bus")
    # A person chose: reason 2 ("dismissed by the user"), as dunst, mako and GNOME send, once.
    wait_for(lambda: ("NotificationClosed", id, 2) in monitor.signals(), what="NotificationClosed(id, 2)")
    assert [signal for signal in monitor.signals() if signal[:2] == ("NotificationClosed", id)] == [
        ("NotificationClosed", id, 2)]


def test_a_chosen_action_followed_by_close_notification_is_still_reason_2(start_daemon, bus, monitor):
    # What libnotify programs do: close their notice in the action's callback.
    daemon = start_daemon("server", FAST_TIMING + "Hold=30\n")
    id = bus.gdbus_notify(summary="Mail", actions=["open", "Open"], expire=0)
    daemon.visible(id)
    with daemon.queue() as queue:
        queue.Invoke(id, "open")
    assert bus.call_notifications("CloseNotification", "u", str(id)) is None
    wait_for(lambda: ("NotificationClosed", id, 2) in monitor.signals(), what="NotificationClosed(id, 2)")
    assert daemon.finished(id)["outcome"] == "completed"
    assert ("NotificationClosed", id, 3) not in monitor.signals()


@pytest.mark.parametrize("expire, hold", [("0", 0), ("1500", 1.5), (None, 7.0)])
def test_expire_timeout_sets_the_hold(start_daemon, bus, expire, hold):
    daemon = start_daemon("server", FAST_TIMING + "Hold=7\n")
    args = ["-p", "Timed"] if expire is None else ["-p", "-t", expire, "Timed"]
    assert daemon.get(int(bus.notify_send(*args)))["hold"] == hold


@pytest.mark.parametrize("flag, urgency", [("low", "low"), ("normal", "normal"), ("critical", "critical")])
def test_urgency_hint_sets_the_urgency(start_daemon, bus, flag, urgency):
    daemon = start_daemon("server")
    assert daemon.get(int(bus.notify_send("-p", "-u", flag, "Urgent")))["urgency"] == urgency


def test_value_hint_makes_a_progress_indicator(start_daemon, bus):
    daemon = start_daemon("server")
    shown = daemon.get(int(bus.notify_send("-p", "-h", "int:value:50", "Copying")))
    assert (shown["kind"], shown["value"]) == ("progress", 50)


@pytest.mark.parametrize("hint", ["x-dunst-stack-tag", "x-canonical-private-synchronous"])
def test_stack_tag_becomes_the_key_and_replaces_in_place(start_daemon, bus, hint):
    daemon = start_daemon("server", FAST_TIMING + "Hold=30\n")
    first = int(bus.notify_send("-p", "-h", f"string:{hint}:volume", "Volume 10%"))
    assert daemon.get(first)["key"] == "volume"
    daemon.visible(first)
    second = int(bus.notify_send("-p", "-h", f"string:{hint}:volume", "Volume 20%"))
    assert second == first
    assert daemon.get(first)["title"] == "Volume 20%"
    assert [n["id"] for n in daemon.notices("list")] == [first]


def notify_call(bus, hints=(), **fields):
    """`Notify` through busctl (which, unlike notify-send with actions, returns on an error reply),
    with `hints` as (name, string value) pairs."""
    return bus.busctl_notify(hints=[str(len(hints))] + [arg for name, value in hints for arg in (name, "s", value)],
                             **fields)


@pytest.mark.parametrize(
    "call, argument",
    [
        (dict(app="a" * 257), "app_name"),
        (dict(hints=[("x-dunst-stack-tag", "t" * 257)]), "x-dunst-stack-tag"),
        (dict(actions=[arg for index in range(9) for arg in (f"k{index}", f"Label {index}")]), "actions"),
        (dict(actions=["ok", "l" * 257]), "actions[1]"),
    ],
)
def test_names_and_actions_past_their_limits_are_a_clear_dbus_error(start_daemon, bus, call, argument):
    daemon = start_daemon("server")
    wait_for(lambda: bus.name_owner_pid("org.freedesktop.Notifications") == daemon.process.pid,
             what="notifyd to own the name")
    refused = notify_call(bus, **call)
    assert refused.returncode != 0
    assert argument in refused.stderr, refused.stderr
    assert "256 bytes" in refused.stderr or "8 actions" in refused.stderr, refused.stderr
    assert daemon.notices("list") == []
    # What a libnotify client sees: the error's name and the argument.
    named = subprocess.run(["notify-send", "-p", "-a", "a" * 257, "Too long an app name"], env=dict(os.environ, **bus.env()),
                           capture_output=True, text=True, timeout=30)
    assert "org.freedesktop.DBus.Error.InvalidArgs" in named.stderr and "app_name" in named.stderr, named.stderr
    # At the limits they are accepted, from notify-send too.
    accepted = int(bus.notify_send("-p", "-a", "a" * 256, "At the limits"))
    assert daemon.get(accepted)["app"] == "a" * 256
    assert notify_call(bus, actions=["ok", "l" * 256]).returncode == 0


def test_replaces_id_changes_a_visible_notice_in_place(start_daemon, bus):
    daemon = start_daemon("server")
    id = int(bus.notify_send("-p", "-t", "0", "Downloading", "1 of 3"))
    daemon.visible(id)
    assert int(bus.notify_send("-p", "-r", str(id), "Downloading", "2 of 3")) == id
    assert daemon.get(id)["body"] == "2 of 3"
    assert [n["id"] for n in daemon.notices("list")] == [id]


def test_replaces_id_replaces_the_whole_notice(start_daemon, bus):
    # Every field the first call gave and the second does not is gone; the timeout is the second's.
    daemon = start_daemon("server", FAST_TIMING + "Hold=7\n")
    first = bus.gdbus_notify(app="mail", icon="/usr/share/icons/mail.png", summary="First", body="<b>body</b>",
        actions=["archive", "Archive", "default", "Open"],
        hints="{'urgency': <byte 2>, 'category': <'email.arrived'>, 'desktop-entry': <'thunderbird.desktop'>, "
              "'resident': <true>, 'sound-name': <'message-new-email'>}",
        expire=0)
    before = daemon.visible(first) and daemon.get(first)
    assert (before["urgency"], before["hold"], before["icon"]) == ("critical", 0, "/usr/share/icons/mail.png")
    assert before["hints"] == {"category": "email.arrived", "desktopEntry": "thunderbird", "resident": True,
                               "soundName": "message-new-email"}
    assert bus.gdbus_notify(app="mail", replaces=first, summary="Second") == first
    after = daemon.get(first)
    assert after["title"] == "Second" and after["urgency"] == "normal" and after["hold"] == 7
    for gone in ["body", "icon", "actions", "hints"]:
        assert gone not in after, (gone, after)
    assert after["phase"] in ("fadingIn", "holding")  # in place: no new fade-in from nothing
    assert [n["id"] for n in daemon.notices("list")] == [first]


@pytest.mark.parametrize("first, second, hold", [("0", None, 7), ("3000", "0", 0), ("0", "1500", 1.5)])
def test_notify_send_r_takes_the_new_timeout(start_daemon, bus, first, second, hold):
    # libnotify's test-replace: expire_timeout 0, then -1 (notify-send without -t): the default hold.
    daemon = start_daemon("server", FAST_TIMING + "Hold=7\n")
    id = int(bus.notify_send("-p", "-u", "critical", "-c", "device", "-i", "/usr/share/icons/a.png",
                         "-t", first, "First"))
    daemon.visible(id)
    timeout = [] if second is None else ["-t", second]
    assert int(bus.notify_send("-p", "-r", str(id), *timeout, "Second")) == id
    replaced = daemon.get(id)
    assert (replaced["title"], replaced["hold"], replaced["urgency"]) == ("Second", hold, "normal")
    assert "icon" not in replaced and "hints" not in replaced


def test_a_stack_tag_replacement_replaces_the_whole_notice(start_daemon, bus):
    daemon = start_daemon("server", FAST_TIMING + "Hold=30\n")
    first = int(bus.notify_send("-p", "-u", "low", "-i", "/usr/share/icons/v.png", "-h",
                            "string:x-dunst-stack-tag:volume", "Volume 10%"))
    daemon.visible(first)
    second = int(bus.notify_send("-p", "-h", "string:x-dunst-stack-tag:volume", "Volume 20%"))
    assert second == first
    replaced = daemon.get(first)
    assert (replaced["title"], replaced["urgency"], replaced["key"]) == ("Volume 20%", "normal", "volume")
    assert "icon" not in replaced


def test_a_replaced_progress_indicator_loses_what_the_new_call_leaves_out(start_daemon, bus):
    daemon = start_daemon("server", FAST_TIMING + "Hold=30\n")
    id = int(bus.notify_send("-p", "-i", "/usr/share/icons/c.png", "-h", "int:value:10", "Copying", "a.iso"))
    daemon.visible(id)
    assert int(bus.notify_send("-p", "-r", str(id), "-h", "int:value:60", "Copying")) == id
    replaced = daemon.get(id)
    assert (replaced["kind"], replaced["value"]) == ("progress", 60)
    assert "body" not in replaced and "icon" not in replaced


def test_a_rule_urgency_wins_over_the_one_notify_send_sends(start_daemon, bus):
    daemon = start_daemon("server", FAST_TIMING + "[Rule:calm]\nMatchApp=noisy\nUrgency=low\n")
    calmed = int(bus.notify_send("-p", "-a", "noisy", "-u", "critical", "Disk almost full"))
    other = int(bus.notify_send("-p", "-a", "quiet", "-u", "critical", "Battery low"))
    assert daemon.get(calmed)["urgency"] == "low"
    assert daemon.get(other)["urgency"] == "critical"


def test_replaces_id_of_a_notice_not_yet_shown_replaces_it(start_daemon, bus, monitor):
    daemon = start_daemon("server")
    with daemon.queue() as queue:
        queue.Suspend()
    old = int(bus.notify_send("-p", "Old"))
    new = int(bus.notify_send("-p", "-r", str(old), "New"))
    assert new != old
    assert daemon.get(old)["outcome"] == "replaced"
    assert [n["title"] for n in daemon.notices("list")] == ["New"]
    wait_for(lambda: ("NotificationClosed", old, 4) in monitor.signals(), what="NotificationClosed(old, 4)")


def test_close_notification_closes_with_reason_3(start_daemon, bus, monitor):
    daemon = start_daemon("server")
    id = int(bus.notify_send("-p", "-t", "0", "Close me"))
    daemon.visible(id)
    assert bus.call_notifications("CloseNotification", "u", str(id)) is None
    assert daemon.finished(id)["outcome"] == "cancelled"
    wait_for(lambda: ("NotificationClosed", id, 3) in monitor.signals(), what="NotificationClosed(id, 3)")


def test_notification_closed_says_expired_and_otherwise(start_daemon, bus, monitor):
    daemon = start_daemon("server")
    expired = int(bus.notify_send("-p", "-t", "200", "Expires"))
    assert daemon.finished(expired)["outcome"] == "completed"
    cancelled = int(bus.notify_send("-p", "-t", "0", "Cancelled"))
    with daemon.queue() as queue:
        queue.Cancel(id=cancelled)
    assert daemon.finished(cancelled)["outcome"] == "cancelled"
    wait_for(lambda: {("NotificationClosed", expired, 1), ("NotificationClosed", cancelled, 4)} <= set(monitor.signals()),
             what="NotificationClosed reasons 1 and 4")
    # Notices that did not come over D-Bus get no signals.
    with daemon.queue() as queue:
        varlink_id = queue.Show(title="From Varlink", fadeIn=0.05, hold=0.05, fadeOut=0.05)["id"]
    daemon.finished(varlink_id)
    # Signals leave in order: once a later D-Bus notice's NotificationClosed is seen, one for the
    # Varlink notice would have been seen before it.
    later = int(bus.notify_send("-p", "-t", "50", "Later, over D-Bus"))
    wait_for(lambda: ("NotificationClosed", later, 1) in monitor.signals(), what="the later notice's signal")
    assert all(signal[1] != varlink_id for signal in monitor.signals())


def test_name_taken_logs_the_holder_and_keeps_serving(start_daemon, bus, tmp_path):
    holder = start_daemon("server")
    wait_for(lambda: bus.name_owner_pid("org.freedesktop.Notifications") == holder.process.pid,
             what="the first notifyd to own the name")
    second_dir = tmp_path / "second"
    second_dir.mkdir(mode=0o700)
    second = start_daemon("server", directory=second_dir)
    wait_for(lambda: "is held by" in second.stderr(), what="the holder in the log")
    line = next(line for line in second.stderr().splitlines() if "is held by" in line)
    assert f"(pid {holder.process.pid}, notifyd)" in line, line
    assert "without D-Bus" in line
    with second.queue() as queue:
        assert queue.Status()["version"] == "0.1.0"
    assert bus.name_owner_pid("org.freedesktop.Notifications") == holder.process.pid


def test_bus_restart_is_survived_and_reconnected(scratch, start_daemon):
    (scratch / "restarting").mkdir()
    own_bus = SessionBus(scratch / "restarting").start()
    try:
        daemon = start_daemon("server", env=own_bus.env())
        wait_for(lambda: "serving org.freedesktop.Notifications" in daemon.stderr(), what="the server to start")
        own_bus.stop()
        wait_for(lambda: "lost the session bus" in daemon.stderr(), what="the loss in the log")
        with daemon.queue() as queue:
            assert queue.Status()["version"] == "0.1.0"
            queue.Show(title="Still serving", fadeIn=0.05, hold=0.05, fadeOut=0.05)
        time.sleep(0.5)
        own_bus.start()
        # The bridge tries again after 0.25 s, doubling up to 30 s (RetryTimer.longestDelay): on a busy
        # machine the bus may come back just after an attempt, and the next one come 16 or 30 s later.
        try:
            wait_for(lambda: "reconnected to the session bus" in daemon.stderr(), timeout=30 + 15,
                     what="the reconnection")
        except AssertionError as error:
            raise AssertionError(f"{error}; notifyd said:\n{daemon.stderr()[-3000:]}") from None
        id = int(own_bus.notify_send("-p", "After the restart"))
        assert daemon.get(id)["title"] == "After the restart"
        assert daemon.stderr().count("lost the session bus") == 1
    finally:
        own_bus.stop()


def test_no_session_bus_is_logged_once_and_ignored(start_daemon, runtime_dir):
    daemon = start_daemon("auto", env={"DBUS_SESSION_BUS_ADDRESS": f"unix:path={runtime_dir}/no-such-bus"})
    with daemon.queue() as queue:
        id = queue.Show(title="Fine", fadeIn=0.05, hold=0.05, fadeOut=0.05)["id"]
        assert queue.Wait(id)["notice"]["outcome"] == "completed"
    assert daemon.stderr().count("dbus:") == 1
    assert "dbus: no session bus at unix:path=" in daemon.stderr()


def test_mode_off_never_connects(start_daemon, bus):
    daemon = start_daemon("off")
    with daemon.queue() as queue:
        queue.Status()
    peers = json.loads(bus.busctl("--json=short", "list", "--unique").stdout)
    assert daemon.process.pid not in [peer["pid"] for peer in peers]
    assert "dbus:" not in daemon.stderr()


# MARK: - Forward mode: dunst on a virtual display


def test_forwarded_notice_appears_in_dunst(start_daemon, dunst, display):
    daemon = start_daemon("auto", "")
    wait_for(lambda: "forwarding notices to org.freedesktop.Notifications" in daemon.stderr(), what="forwarding")
    assert f"pid {dunst.process.pid}, dunst" in daemon.stderr()
    id = daemon.call("Show", title="Backup <done>", body="312 files & 4 folders", app="backup", urgency="critical",
                     fadeIn=1, hold=20, fadeOut=1, hints={"category": "transfer.complete", "desktopEntry": "restic"})["id"]
    wait_for(lambda: dunst.displayed() == 1, what="the popup in dunst")
    time.sleep(0.3)  # let dunst draw
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    picture = ARTIFACTS / "forwarded-popup.png"
    display.save(picture)
    assert display.screenshot((0, 0, *OUTPUT)).box() is not None, "nothing but the background on the screen"
    print(f"screenshot of the forwarded popup: {picture}")
    with daemon.queue() as queue:
        queue.Cancel(id=id, now=True)
    wait_for(lambda: dunst.displayed() == 0, what="the popup to close")
    popup = dunst.history()[0]
    assert (popup["summary"], popup["body"], popup["appname"]) == ("Backup <done>", "312 files &amp; 4 folders", "backup")
    received = dunst.received()
    assert len(received) == 1
    assert (received[0]["summary"], received[0]["urgency"], received[0]["timeout"]) == ("Backup <done>", "CRITICAL", "22000")
    # dunst reads the body as markup, so notifyd sent it as well-formed markup meaning what its own
    # popups would show (the bare & as &amp;); the popup lived fade-in + hold + fade-out.
    assert popup["timeout"] == 22_000_000
    # The notice's hints went with it, as a D-Bus client would have sent them.
    assert popup["category"] == "transfer.complete", popup


def test_a_snoozed_notice_leaves_dunst_and_comes_back_to_it(start_daemon, dunst):
    daemon = start_daemon("auto")
    with daemon.queue() as queue:
        id = queue.Show(title="Standup", fadeIn=0.1, hold=30, fadeOut=0.1)["id"]
    wait_for(lambda: dunst.displayed() == 1, what="the popup in dunst")
    daemon.notifyctl("snooze", str(id), "2s", check=True)
    wait_for(lambda: dunst.displayed() == 0, what="the snoozed popup to close in dunst")
    assert daemon.get(id)["phase"] in ("waiting", "fadingIn", "holding") and "outcome" not in daemon.get(id)
    wait_for(lambda: dunst.displayed() == 1, timeout=15, what="the popup back in dunst")
    assert [popup["summary"] for popup in dunst.received()] == ["Standup", "Standup"]


def test_update_replaces_the_popup_instead_of_adding_one(start_daemon, dunst):
    daemon = start_daemon("auto")
    with daemon.queue() as queue:
        id = queue.Progress(title="Copying", body="file 1", value=10)["id"]
    wait_for(lambda: dunst.displayed() == 1, what="the popup")
    with daemon.queue() as queue:
        queue.Update(id=id, body="file 2", value=60)
    # The forwarder sends in order: a close of the first popup would reach dunst before the update.
    wait_for(lambda: [popup["body"] for popup in dunst.received()][-1:] == ["file 2"], what="the update in dunst")
    assert dunst.displayed() == 1
    assert int(dunst.ctl("count", "waiting")) == 0
    assert dunst.history() == [], "the update closed the first popup"
    with daemon.queue() as queue:
        queue.End(id=id, message="copied", hold=0.2)
    wait_for(lambda: dunst.displayed() == 0, what="the popup to close after End")
    popups = dunst.history()
    assert len(popups) == 1
    assert (popups[0]["summary"], popups[0]["body"], popups[0]["progress"]) == ("Copying", "copied", 60)
    # One popup, changed twice in place: dunst kept its id.
    received = dunst.received()
    assert [(popup["body"], popup["progress"]) for popup in received] == [("file 1", "10"), ("file 2", "60"), ("copied", "60")]
    assert len({popup["id"] for popup in received}) == 1
    assert daemon.get(id)["outcome"] == "completed"


def test_cancel_closes_the_popup(start_daemon, dunst):
    daemon = start_daemon("forward")
    id = daemon.call("Show", title="Cancel me", hold=60)["id"]
    wait_for(lambda: dunst.displayed() == 1, what="the popup")
    with daemon.queue() as queue:
        queue.Cancel(id=id)
    wait_for(lambda: dunst.displayed() == 0, what="the popup to close")
    assert daemon.get(id)["outcome"] == "cancelled"


def test_popup_closes_at_the_end_of_the_fade_out(start_daemon, dunst):
    daemon = start_daemon("auto")
    id = daemon.call("Show", title="Short", hold=0.5)["id"]
    wait_for(lambda: dunst.displayed() == 1, what="the popup")
    with daemon.queue() as queue:
        assert queue.Wait(id)["notice"]["outcome"] == "completed"
    wait_for(lambda: dunst.displayed() == 0, timeout=3, what="the popup to close with the notice")


def test_dunstctl_close_dismisses_the_notice(start_daemon, dunst):
    daemon = start_daemon("forward")
    id = daemon.call("Show", title="Close me on the desktop", hold=60)["id"]
    wait_for(lambda: dunst.displayed() == 1, what="the popup")
    dunst.ctl("close")
    assert daemon.finished(id)["outcome"] == "dismissed"
    assert "notice %d dismissed on the desktop" % id in daemon.stderr()


def test_action_chosen_in_dunst_invokes_the_notice(start_daemon, dunst):
    daemon = start_daemon("auto")
    id = daemon.call("Show", title="Open it?", hold=60, actions=[{"key": "default", "label": "Open"}])["id"]
    wait_for(lambda: dunst.displayed() == 1, what="the popup")
    dunst.ctl("action", "0")
    finished = daemon.finished(id)
    assert (finished["invoked"], finished["outcome"]) == ("default", "completed")


def test_auto_mode_starts_forwarding_when_a_server_appears(start_daemon, bus, display, scratch):
    daemon = start_daemon("auto")
    wait_for(lambda: "no notification server on the session bus" in daemon.stderr(), what="auto mode idle")
    late = Dunst(bus, display, scratch)
    try:
        wait_for(lambda: "forwarding notices to" in daemon.stderr(), what="forwarding to the new server")
        daemon.call("Show", title="Now it shows", hold=60)
        wait_for(lambda: late.displayed() == 1, what="the popup")
    finally:
        late.stop()
    wait_for(lambda: "notification server left the session bus" in daemon.stderr(), what="the server leaving")
