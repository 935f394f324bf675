"""Notices spoken (DESIGN §18, `[Speech]`): a real speech-dispatcher with its dummy output module
(headless with `AudioOutputMethod "libao"`), whose protocol log records what it was asked to say —
once per card as it shows, `Speak=` by rule, nothing during do-not-disturb, critical notices
interrupting, and nothing while a screen reader (an AT-SPI client listening for cards showing) reads
the cards itself."""

import shutil
import time

import pytest

from atspi import AccessibilityBus, available, readable
from conftest import wait_for
from display import needs_x11, x11_bus, x11_config, x11_session  # noqa: F401
from speech_server import SpeechServer

pytestmark = [needs_x11, pytest.mark.skipif(shutil.which("speech-dispatcher") is None,
                                            reason="speech-dispatcher is not installed (scripts/deps.sh installs it)")]


@pytest.fixture
def speechd(x11_session):
    x, _ = x11_session
    server = SpeechServer(x.directory).start()
    yield server
    server.stop()


def speaking_config(speechd, *rules):
    return x11_config() + f"[Speech]\nSpeak=yes\nSocket={speechd.socket}\n" + "".join(rules)


def test_a_notice_is_said_once_as_its_card_shows_a_rule_may_silence_it_and_a_critical_one_interrupts(x11_session,
                                                                                                     speechd):
    x, make_daemon = x11_session
    daemon = make_daemon(speaking_config(speechd, "[Rule:quiet]\nMatchApp=quiet\nSpeak=no\n",
                                         "[Rule:brief]\nMatchApp=brief\nSpeak=title\n"))
    quiet = daemon.show("Not to be said", "--app", "quiet", "--hold", "60s")
    daemon.visible(quiet)
    daemon.show("Backup done", "312 files", "--app", "backup", "--hold", "60s")
    said = speechd.said("Backup done")
    # The quiet card showed first: had it been said, it would be said before.
    assert said == ["backup. Backup done. 312 files."], said
    daemon.show("Build 42 failed", "see the log", "--app", "brief", "--hold", "60s")
    daemon.show("Disk full", "/home has 0 bytes left", "--urgency", "critical", "--app", "df")
    speechd.said("Disk full")
    spoken = speechd.utterances()
    # Each once, however many frames their fades took; the title alone by its rule; the critical
    # one at the priority that interrupts.
    assert spoken == [("message", "backup. Backup done. 312 files."), ("message", "brief. Build 42 failed."),
                      ("important", "df. Disk full. /home has 0 bytes left.")], spoken


def test_nothing_is_said_of_a_notice_do_not_disturb_holds_back(x11_session, speechd):
    x, make_daemon = x11_session
    daemon = make_daemon(speaking_config(speechd))
    daemon.notifyctl("suspend", check=True)
    held = daemon.show("Held back", "--hold", "60s")
    wait_for(lambda: daemon.status()["suspended"] and daemon.get(held)["phase"] in ("waiting", "queued", "delayed"),
             timeout=10, what="the notice held back")
    # A critical one comes through do-not-disturb, and is said; the one held back was not, before it.
    daemon.show("Server down", "--urgency", "critical")
    said = speechd.said("Server down")
    assert not any("Held back" in text for text in said), said


@pytest.mark.skipif(not available(), reason="at-spi2-core or python3-pyatspi is not installed")
def test_while_a_screen_reader_listens_for_cards_notifyd_says_nothing_itself(x11_session, x11_bus, speechd):
    x, make_daemon = x11_session
    a11y = AccessibilityBus(x11_bus, x.directory).start()
    try:
        daemon = readable(make_daemon, speaking_config(speechd), x11_bus)
        listener = a11y.listen(seconds=30)
        try:
            wait_for(lambda: "a screen reader listens for cards" in daemon.stderr(), timeout=15,
                     what="notifyd to hear of the screen reader")
            read = daemon.show("Read by the screen reader", "--hold", "60s")
            daemon.visible(read)
            a11y.tree_with(lambda tree: tree["children"], "the card in the tree")
        finally:
            listener.terminate()
            listener.wait(timeout=10)
        wait_for(lambda: "no screen reader listens" in daemon.stderr(), timeout=15,
                 what="notifyd to hear the screen reader go")
        daemon.show("Said by notifyd", "--hold", "60s")
        said = speechd.said("Said by notifyd")
        assert not any("screen reader" in text for text in said), said
    finally:
        a11y.stop()


def test_a_speech_dispatcher_not_there_is_said_once_and_notices_are_spoken_once_it_answers(x11_session):
    x, make_daemon = x11_session
    server = SpeechServer(x.directory)
    daemon = make_daemon(speaking_config(server))
    first = daemon.show("Nobody hears this", "--hold", "60s")
    daemon.visible(first)
    wait_for(lambda: "notices are not spoken until it answers" in daemon.stderr(), timeout=10,
             what="notifyd to say speech-dispatcher is not there")
    failed = time.monotonic()
    server.start()
    try:
        # Tried again no sooner than its retry interval after the failure (5 s).
        time.sleep(max(0.0, failed + 5.5 - time.monotonic()))
        daemon.show("Heard now", "--hold", "60s")
        said = server.said("Heard now")
        # What could not be said then is not said late.
        assert said == ["Heard now."], said
        assert daemon.stderr().count("notices are not spoken until it answers") == 1
        assert "answers again" in daemon.stderr()
    finally:
        server.stop()
