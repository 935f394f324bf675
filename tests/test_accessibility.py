"""notifyd read by a screen reader (DESIGN §18): at-spi2-core's real bus launcher and registry on
a private session bus, and what an AT-SPI client (pyatspi over libatspi, as Orca reads) finds
there — the cards on the screen as notification objects, their buttons pressed, each card
announced once, and notifyd off the accessibility bus while accessibility is off. On X11 and on
headless sway. And Orca itself, the screen reader, saying a card as it shows."""

import shutil
import subprocess

import pytest

from atspi import AccessibilityBus, Orca, available, cards, heard, readable, serving
from conftest import wait_for
from display import (bus, display_config, needs_wayland, needs_x11, session, user, x11_bus,  # noqa: F401
                     x11_config, x11_session)
from session_bus import notification_signals
from speech_server import SpeechServer

pytestmark = pytest.mark.skipif(not available(),
                                reason="at-spi2-core or python3-pyatspi is not installed (scripts/deps.sh installs them)")


@pytest.fixture
def x11_a11y(x11_session, x11_bus):
    """Xvfb, its session bus with an accessibility bus launcher (accessibility on), and a notifyd on
    both, embedded in the registry: (x, the accessibility bus, the daemon)."""
    x, make_daemon = x11_session
    a11y = AccessibilityBus(x11_bus, x.directory).start()
    try:
        yield x, a11y, readable(make_daemon, x11_config(), x11_bus)
    finally:
        a11y.stop()


@needs_x11
def test_a_notify_send_card_is_a_notification_object_and_its_button_invokes_the_action(x11_a11y, x11_bus):
    x, a11y, daemon = x11_a11y
    assert "notifyd" in a11y.reader("apps")
    with notification_signals(x11_bus, x.directory) as signals:
        sender = subprocess.Popen(["notify-send", "--print-id", "-A", "yes=Approve", "Deploy 42", "ready"],
                                  env={**x.env(), "DBUS_SESSION_BUS_ADDRESS": x11_bus}, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        tree = a11y.tree_with(lambda tree: cards(tree), "the card in the tree")
        assert tree["role"] == "application" and tree["name"] == "notifyd"
        card, = cards(tree)
        assert (card["name"], card["description"]) == ("notify-send", "ready"), card
        assert {"showing", "visible", "enabled"} <= set(card["states"]), card
        assert "dismiss" in card["actions"] and "remind me" in card["actions"]
        label, button = card["children"]
        assert (label["role"], label["name"]) == ("label", "Deploy 42. ready"), label
        assert (button["role"], button["name"], button["actions"]) == ("push button", "Approve", ["click"])
        # Pressed as a screen reader presses it: the client hears the action, as from a click.
        assert a11y.reader("press", "Approve") is True
        output, errors = sender.communicate(timeout=15)
        bus_id = int(output.split()[0])
        assert output.split()[1:] == ["yes"], (output, errors)
        wait_for(lambda: ("ActionInvoked", bus_id, "yes") in signals.signals(), timeout=10,
                 what="ActionInvoked on the bus")
    # Invoked, it goes: out of the tree too.
    a11y.tree_with(lambda tree: not cards(tree), "the invoked card to leave the tree")
    # "remind me" snoozes a card as its button would: it leaves, unfinished, to come back later.
    later = daemon.show("Water the plants", "--app", "garden", "--hold", "60s")
    a11y.tree_with(lambda tree: cards(tree), "the garden card in the tree")
    assert a11y.reader("act", "garden", "remind me") is True
    wait_for(lambda: daemon.get(later).get("snoozedUntil"), what="the notice snoozed")
    a11y.tree_with(lambda tree: not cards(tree), "the snoozed card to leave the tree")
    assert "outcome" not in daemon.get(later)
    # The registry dies; the next client's call starts another, and notifyd embeds itself in it.
    a11y.kill_registry()
    wait_for(lambda: "notifyd" in a11y.reader("apps"), timeout=15, what="notifyd in the new registry")


@needs_x11
def test_with_accessibility_off_notifyd_stays_off_the_bus_and_joins_when_it_is_turned_on(x11_session, x11_bus):
    x, make_daemon = x11_session
    a11y = AccessibilityBus(x11_bus, x.directory, enabled=False).start()
    try:
        daemon = serving(make_daemon, x11_config(), x11_bus)
        daemon.show("Backup done", "312 files", "--hold", "60s")
        wait_for(lambda: "accessibility: accessibility is off" in daemon.stderr(), timeout=15,
                 what="notifyd to read IsEnabled")
        # Nothing of notifyd's on the accessibility bus: no connection at all.
        assert daemon.process.pid not in a11y.pids_on_the_bus()
        assert "notifyd" not in a11y.reader("apps")
        # Turned on (as Orca does when it starts): notifyd joins, with the card already shown.
        a11y.set_enabled(True)
        tree = a11y.tree_with(lambda tree: cards(tree), "notifyd and its card on the accessibility bus")
        assert cards(tree)[0]["children"][0]["name"] == "Backup done. 312 files"
        assert daemon.process.pid in a11y.pids_on_the_bus()
        # And off again: it leaves.
        a11y.set_enabled(False)
        wait_for(lambda: daemon.process.pid not in a11y.pids_on_the_bus(), timeout=15,
                 what="notifyd to leave the accessibility bus")
        # The launcher goes, and another comes with accessibility on: notifyd joins its bus.
        a11y.stop()
        a11y = AccessibilityBus(x11_bus, x.directory, enabled=True).start()
        tree = a11y.tree_with(lambda tree: cards(tree), "notifyd on the new launcher's bus")
        assert daemon.process.pid in a11y.pids_on_the_bus()
    finally:
        a11y.stop()


@needs_wayland
def test_on_sway_a_layer_shell_card_is_announced_once_and_leaves_the_tree_when_it_finishes(session, bus):
    sway, make_daemon = session
    daemon = serving(make_daemon, display_config(), bus)
    a11y = AccessibilityBus(bus, sway.directory, user=daemon.user).start()
    try:
        wait_for(lambda: "accessibility: the cards are readable" in daemon.stderr(), timeout=15,
                 what="notifyd on the accessibility bus")
        listener = a11y.listen(seconds=8)
        # Fading in and out over a second each, drawn frame by frame: announced once all the same.
        notice = daemon.show("Backup done", "312 files", "--fade-in", "1s", "--hold", "1s", "--fade-out", "1s")
        tree = a11y.tree_with(lambda tree: cards(tree), "the card in the tree")
        card, = cards(tree)
        assert card["children"][0]["name"] == "Backup done. 312 files"
        wait_for(lambda: daemon.get(notice)["phase"] == "finished", timeout=15, what="the notice to finish")
        a11y.tree_with(lambda tree: not cards(tree), "the finished card to leave the tree")
        events = heard(listener)
        showing = [(event["detail1"], event["role"]) for event in events
                   if event["type"] == "object:state-changed:showing"]
        assert showing == [(1, "notification"), (0, "notification")], events
        changes = [(event["type"], event["role"]) for event in events if event["type"].startswith("object:children")]
        assert changes == [("object:children-changed:add", "application"),
                           ("object:children-changed:remove", "application")], events
    finally:
        a11y.stop()


@needs_x11
@pytest.mark.skipif(shutil.which("orca") is None or shutil.which("speech-dispatcher") is None,
                    reason="orca or speech-dispatcher is not installed (scripts/deps.sh installs them)")
def test_orca_says_a_card_as_it_shows_once_keeps_it_among_its_notifications_and_follows_the_center(x11_session, x11_bus):
    x, make_daemon = x11_session
    a11y = AccessibilityBus(x11_bus, x.directory).start()
    speech = SpeechServer(x.directory).start()
    # Orca 43 with the preferences of a first start, speaking through speech-dispatcher.
    orca = Orca(x11_bus, x.display, x.directory, speech.socket)
    try:
        daemon = readable(make_daemon, x11_config(), x11_bus)
        orca.start()
        wait_for(lambda: "a screen reader listens for cards" in daemon.stderr(), timeout=30,
                 what="notifyd to hear Orca listen")
        subprocess.run(["notify-send", "--app-name", "backup", "Backup done", "312 files"],
                       env={**x.env(), "DBUS_SESSION_BUS_ADDRESS": x11_bus}, check=True, timeout=30)
        said = wait_for(lambda: (lambda said: said if "Backup done. 312 files." in said else None)(orca.speech()),
                        timeout=15, what="Orca to say the card")
        # What it is, whose, then its words, as Orca says a notification; and it reached the
        # speech server.
        at = said.index("Backup done. 312 files.")
        assert said[at - 1] == "notification backup.", said
        wait_for(lambda: "Backup done. 312 files." in speech.plain_texts(), timeout=15,
                 what="speech-dispatcher to be asked to say the card")
        # Kept in Orca's list of notifications (what Orca+N reads again), with the card's words
        # (shown on the braille line), just after it is said.
        wait_for(lambda: "saveMessage (queue length: 1)" in orca.debug(), timeout=15,
                 what="Orca to keep the card among its notifications")
        assert "BRAILLE LINE:  'Backup done. 312 files'" in orca.debug()
        # Said once, however many frames its fade took: by the time it has gone, still once.
        notice, = [entry for entry in daemon.notices("list") if entry["title"] == "Backup done"]
        daemon.notifyctl("dismiss", str(notice["id"]), check=True)
        a11y.tree_with(lambda tree: not cards(tree), "the dismissed card to leave the tree")
        assert orca.speech().count("Backup done. 312 files.") == 1, orca.speech()
        # The center: Orca says its window as it opens, and follows the keys through its list.
        daemon.notifyctl("center", "open", check=True)
        wait_for(lambda: "Notification center window." in orca.speech(), timeout=15,
                 what="Orca to say the center's window")
        # One key at a time: Orca says only the newest of focus changes that come together.
        x.run("xdotool", "key", "Down")
        wait_for(lambda: "backup, 1 notice heading." in orca.speech(), timeout=15, what="Orca to say the heading")
        x.run("xdotool", "key", "Down")
        # The entry: its name, then its description.
        said = wait_for(lambda: (lambda said: said if said[-2:] == ["Backup done. 312 files.", "backup."] else None)(
            orca.speech()), timeout=15, what="Orca to say the chosen entry")
        opened = said.index("Notification center window.")
        assert said[opened:] == ["Notification center window.", "Notices.", "List with 1 item.",
                                 "backup, 1 notice heading.", "Backup done. 312 files.", "backup."], said
    finally:
        orca.stop()
        speech.stop()
        a11y.stop()


@needs_x11
def test_the_center_is_a_window_whose_chosen_entry_has_the_focus_and_enter_restores_it(x11_a11y):
    x, a11y, daemon = x11_a11y
    # Three in history, dismissed (shown again, each holds a minute).
    ids = [daemon.show(f"Job {n} finished", f"step {n}", "--app", "ci", "--fade-in", "0", "--hold", "60s",
                       "--fade-out", "0") for n in range(3)]
    daemon.notifyctl("dismiss", "--all", check=True)
    wait_for(lambda: daemon.status()["finished"] >= 3, timeout=30, what="3 notices to finish")
    listener = a11y.listen(60, "object:state-changed:focused", "focus:", "window:activate", "window:deactivate",
                           until="window:deactivate")
    daemon.notifyctl("center", "open", check=True)
    # A window with a list: the app's heading, then its entries, newest first.
    tree = a11y.tree_with(lambda tree: [child for child in tree["children"] if child["role"] == "window"],
                          "the center's window in the tree")
    window, = [child for child in tree["children"] if child["role"] == "window"]
    assert window["name"] == "Notification center" and "active" in window["states"], window
    rows, = [child["children"] for child in window["children"] if child["role"] == "list"]
    assert [(row["role"], row["name"]) for row in rows] == [
        ("heading", "ci, 3 notices"), ("list item", "Job 2 finished. step 2"),
        ("list item", "Job 1 finished. step 1"), ("list item", "Job 0 finished. step 0")], rows
    assert rows[1]["description"] == "ci" and rows[1]["actions"] == ["restore", "forget"], rows[1]
    # Down, Down, Down: the focus goes from row to row, as a screen reader follows it.
    for _ in range(3):
        x.run("xdotool", "key", "Down")
    a11y.tree_with(lambda tree: any("focused" in row["states"] and row["name"].startswith("Job 1")
                                    for child in tree["children"] if child["role"] == "window"
                                    for row in child["children"][0]["children"]), "the focus on Job 1's entry")
    # Enter on it: shown again (a notice restored from it, holding a minute), and the center
    # closes.
    x.run("xdotool", "key", "Return")
    wait_for(lambda: [notice for notice in daemon.notices("list") if notice.get("restoredFrom") == ids[1]],
             timeout=15, what="Job 1 shown again")
    a11y.tree_with(lambda tree: not [child for child in tree["children"] if child["role"] == "window"],
                   "the center's window to leave the tree")
    # It stops once it heard the window go: every event before that is in.
    events = heard(listener)
    focus = [event["name"] for event in events if event["type"] == "focus:"]
    assert focus == ["ci, 3 notices", "Job 2 finished. step 2", "Job 1 finished. step 1"], events
    focused = [(event["detail1"], event["name"]) for event in events
               if event["type"] == "object:state-changed:focused"]
    assert focused == [(1, "ci, 3 notices"), (0, "ci, 3 notices"), (1, "Job 2 finished. step 2"),
                       (0, "Job 2 finished. step 2"), (1, "Job 1 finished. step 1")], events
    windows = [(event["type"], event["name"]) for event in events if event["type"].startswith("window:")]
    assert windows == [("window:activate", "Notification center"), ("window:deactivate", "Notification center")]
    # The center again: an entry's "forget" action, pressed as a screen reader presses it,
    # forgets it, as Delete on its row would.
    daemon.notifyctl("center", "open", check=True)
    a11y.tree_with(lambda tree: [child for child in tree["children"] if child["role"] == "window"],
                   "the center's window again")
    assert a11y.reader("act", "Job 0 finished. step 0", "forget") is True
    wait_for(lambda: ids[0] not in [notice["id"] for notice in daemon.notices("history")], timeout=15,
             what="Job 0 forgotten")
