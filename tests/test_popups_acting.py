"""Acting on a notice where it shows (issue 32), on headless sway: its buttons, the pointer over
a card, the bindings, the picker (fuzzel and a command of one's own), and a reply typed into the
card; what was chosen reaches the bus (ActionInvoked, NotificationReplied) and `show --wait`.
"""

import re
import shutil
import time

import pytest

from conftest import wait_for
from display import (BORDER, CARD, MARGIN, OUTPUT, PARKED, SCREENSHOTS, WIDTH, bus, bus_config, click_at,  # noqa: F401
                     display_config, needs_wayland, serving_with_pointer, session, spawn_as_user_with_bus, user)
from pixels import blend, button_centres, button_fill_at, close_to, fully_drawn
from session_bus import notification_signals
from wayland_pointer import VirtualKeyboard, VirtualPointer

pytestmark = needs_wayland


def test_each_button_on_a_card_chooses_its_action_on_the_bus_and_for_show_wait(session, bus):
    sway, make_daemon = session
    daemon, pointer = serving_with_pointer(sway, make_daemon, bus)
    try:
        with notification_signals(bus, sway.directory) as signals:
            for index, key in enumerate(["approve", "reject", "later"]):
                # notify-send -A waits for the action: it prints the id, then the key chosen.
                sender = spawn_as_user_with_bus(daemon, bus, "notify-send", "--print-id", "-A", "approve=Approve",
                                                "-A", "reject=Reject", "-A", "later=Remind me later, after lunch",
                                                "Deploy 42?", "to production")
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
                                           signals.log.read_text()), what=f"ActionInvoked({bus_id}, {key})")
                # Closed because a person chose: reason 2.
                signals.closed(bus_id, 2)
                wait_for(lambda: sway.screenshot().box() is None, timeout=5, what="the card to go")

        waiting = daemon.notifyctl_waiting("Merge?", "--fade-in", "0", "--hold", "30s", "--action", "merge=Merge",
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
        waiting = daemon.notifyctl_waiting("Mail", "--fade-in", "0", "--hold", "30s", *actions)
        box = wait_for(lambda: fully_drawn(sway.screenshot(), CARD), what="the card").box()
        sway.save(SCREENSHOTS / "notifyd-more.png")
        # MaxButtons=1: "Open", then "…".
        click_at(pointer, button_centres(box, 2)[1])
        output, _ = waiting.communicate(timeout=15)
        assert (waiting.returncode, output.strip()) == (0, "spam")
        wait_for(lambda: sway.screenshot().box() is None, timeout=5, what="the card to go")

        waiting = daemon.notifyctl_waiting("Mail again", "--fade-in", "0", "--hold", "30s", *actions)
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
        waiting = daemon.notifyctl_waiting("Mail from Ada", "--fade-in", "0", "--hold", "60s", "--action",
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
    try:
        # Over Varlink: show --wait --reply prints what was typed. Its hold (2 s) stands still
        # while the field has the keyboard.
        waiting = daemon.notifyctl_waiting("Ada", "Lunch at noon?", "--fade-in", "0", "--hold", "2s", "--reply",
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
        with notification_signals(bus, sway.directory) as signals:
            sender = spawn_as_user_with_bus(daemon, bus, "notify-send", "--print-id", "-A", "inline-reply=Reply",
                                            "Bob", "Are you coming?")
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
                                       signals.log.read_text()), what="NotificationReplied")
            signals.closed(bus_id, 2)
    finally:
        keyboard.close()
        pointer.close()


def test_with_the_action_icons_hint_the_buttons_show_the_icons_their_keys_name(session, bus):
    sway, make_daemon = session
    daemon, pointer = serving_with_pointer(sway, make_daemon, bus)
    try:
        with notification_signals(bus, sway.directory) as signals:
            sender = spawn_as_user_with_bus(daemon, bus, "notify-send", "--print-id", "-h", "boolean:action-icons:true",
                                            "-A", "edit-delete=Delete", "-A", "mail-send=Send", "Draft", "Send it?")
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
            signals.closed(int(bus_id), 2)
    finally:
        pointer.close()


def test_remind_me_takes_the_card_away_and_it_comes_back_with_its_buttons_for_the_same_bus_id(session, bus):
    # Snooze (DESIGN §19): a click on "Remind me" snoozes for the first of Snooze='s times.
    sway, make_daemon = session
    config = bus_config().replace("[Display]\n", "[Display]\nSnoozeButton=yes\nSnooze=3s,1h\n")
    daemon = make_daemon(config, env={"DBUS_SESSION_BUS_ADDRESS": bus})
    wait_for(lambda: "dbus: serving org.freedesktop.Notifications" in daemon.stderr(), timeout=10,
             what="notifyd to serve the bus for its popups")
    pointer = VirtualPointer(str(sway.directory), sway.display)
    pointer.move_to(*PARKED, *OUTPUT)
    try:
        with notification_signals(bus, sway.directory) as signals:
            sender = spawn_as_user_with_bus(daemon, bus, "notify-send", "--print-id", "-A", "join=Join",
                                            "Standup in 5 minutes", "room 4")
            box = wait_for(lambda: fully_drawn(sway.screenshot(), CARD), what="the card with its buttons").box()
            sway.save(SCREENSHOTS / "notifyd-remind-me.png")
            notice = daemon.notices("list")[0]["id"]
            # Join, then Remind me.
            click_at(pointer, button_centres(box, 2)[1])
            pointer.move_to(*PARKED, *OUTPUT)
            wait_for(lambda: daemon.get(notice).get("snoozedUntil"), what="the notice snoozed")
            wait_for(lambda: sway.screenshot().box() is None, timeout=5, what="the card to leave")
            snoozed = daemon.get(notice)
            assert snoozed["phase"] == "waiting" and "outcome" not in snoozed
            back = wait_for(lambda: fully_drawn(sway.screenshot(), CARD), timeout=10, what="the card back")
            assert time.time() >= snoozed["snoozedUntil"] - 0.1
            assert sender.poll() is None, "notify-send heard the notice close while it was snoozed"
            click_at(pointer, button_centres(back.box(), 2)[0])
            pointer.move_to(*PARKED, *OUTPUT)
            output, _ = sender.communicate(timeout=15)
            printed = output.split()
            assert len(printed) == 2 and printed == [str(notice), "join"], output
            wait_for(lambda: ("ActionInvoked", notice, "join") in signals.signals(), what="ActionInvoked")
            signals.closed(notice, 2)
            assert [s for s in signals.signals() if s[0] == "NotificationClosed"] == [("NotificationClosed", notice, 2)]
    finally:
        pointer.close()
