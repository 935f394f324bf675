"""Every method of io.notifyd.Queue through the Python varlink package, a client nobody here wrote."""

import threading
import time

import pytest
import varlink

from conftest import wait_for

FAST = dict(fadeIn=0.05, hold=0.1, fadeOut=0.05)


def test_get_info_lists_both_interfaces(daemon):
    with daemon.client() as client:
        with client.open("org.varlink.service") as service:
            info = service.GetInfo()
    assert info["product"] == "notifyd"
    assert set(info["interfaces"]) == {"org.varlink.service", "io.notifyd.Queue"}


def test_interface_description_parses_with_the_python_scanner(daemon):
    with daemon.client() as client:
        with client.open("org.varlink.service") as service:
            description = service.GetInterfaceDescription("io.notifyd.Queue")["description"]
    interface = varlink.Interface(description)
    assert interface.name == "io.notifyd.Queue"
    for method in ["Show", "Progress", "Update", "End", "Cancel", "Invoke", "Suspend", "Resume",
                   "Get", "List", "History", "Status", "Wait", "Watch", "Reload"]:
        assert method in interface.members


def test_unknown_interface_description_is_interface_not_found(daemon):
    with daemon.client() as client:
        with client.open("org.varlink.service") as service:
            with pytest.raises(varlink.VarlinkError) as error:
                service.GetInterfaceDescription("org.example.Nope")
    assert error.value.error() == "org.varlink.service.InterfaceNotFound"


def test_show_then_wait_reports_completed(daemon):
    with daemon.queue() as queue:
        shown = queue.Show(title="Backup done", body="312 files", app="backup", **FAST)
        notice = queue.Wait(shown["id"])["notice"]
    assert notice["id"] == shown["id"]
    assert notice["outcome"] == "completed"
    assert notice["phase"] == "finished"
    assert notice["title"] == "Backup done" and notice["body"] == "312 files" and notice["app"] == "backup"
    assert notice["shown"] >= notice["created"]
    assert notice["finished"] >= notice["shown"]


def test_show_applies_defaults_for_fields_left_out(daemon):
    with daemon.queue() as queue:
        queue.Suspend()
        notice = queue.Get(queue.Show(title="x")["id"])["notice"]
    assert (notice["delay"], notice["fadeIn"], notice["hold"], notice["fadeOut"]) == (0, 1.0, 5.0, 1.0)
    assert (notice["easeIn"], notice["easeOut"]) == ("easeOut", "easeIn")
    assert notice["urgency"] == "normal" and notice["style"] == "clear"
    assert notice["phase"] == "queued"


def test_ids_increase_and_are_positive(daemon):
    with daemon.queue() as queue:
        ids = [queue.Show(title=f"n{i}", **FAST)["id"] for i in range(5)]
    assert ids == sorted(ids) and ids[0] > 0 and len(set(ids)) == 5


def test_progress_update_end_lifecycle(daemon):
    with daemon.queue() as queue:
        progress = queue.Progress(title="Building", value=0, fadeIn=0.05, fadeOut=0.05)
        assert progress["existing"] is False
        updated = queue.Update(progress["id"], None, "step 2", 50)["notice"]
        assert updated["value"] == 50 and updated["body"] == "step 2"
        ended = queue.End(progress["id"], "Build succeeded", 0.1)["notice"]
        assert ended["message"] == "Build succeeded"
        final = queue.Wait(progress["id"])["notice"]
    assert final["outcome"] == "completed"
    assert final["kind"] == "progress"


def test_progress_with_existing_key_answers_existing(daemon):
    with daemon.queue() as queue:
        first = queue.Progress(title="Sync", key="sync", value=10)
        second = queue.Progress(title="Sync", key="sync", value=20)
        notice = queue.Get(first["id"])["notice"]
    assert second == {"id": first["id"], "existing": True}
    assert notice["value"] == 20


def test_show_with_key_replaces_a_queued_notice(daemon):
    with daemon.queue() as queue:
        queue.Suspend()
        old = queue.Show(title="old", key="k")["id"]
        new = queue.Show(title="new", key="k")["id"]
        assert new != old
        assert queue.Get(old)["notice"]["outcome"] == "replaced"
        assert queue.Get(new)["notice"]["phase"] == "queued"


def test_cancel_by_id_tag_and_all(daemon):
    with daemon.queue() as queue:
        queue.Suspend()
        a = queue.Show(title="a", tag="t")["id"]
        b = queue.Show(title="b", tag="t")["id"]
        c = queue.Show(title="c")["id"]
        d = queue.Show(title="d")["id"]
        assert queue.Cancel(id=a)["cancelled"] == [a]
        assert queue.Cancel(tag="t")["cancelled"] == [b]
        assert queue.Cancel(all=True)["cancelled"] == [c, d]
        assert queue.Get(c)["notice"]["outcome"] == "cancelled"
        assert queue.List()["notices"] == []


def test_cancel_needs_exactly_one_selector(daemon):
    with daemon.queue() as queue:
        with pytest.raises(varlink.VarlinkError) as error:
            queue.Cancel(id=1, all=True)
    assert error.value.error() == "io.notifyd.Queue.InvalidArgument"


def test_invoke_chooses_an_action_of_a_visible_notice(daemon):
    with daemon.queue() as queue:
        shown = queue.Show(title="Update ready", actions=[{"key": "restart", "label": "Restart"}],
                           fadeIn=0.01, hold=0, fadeOut=0.05)["id"]
        wait_for(lambda: queue.Get(shown)["notice"]["phase"] in ("fadingIn", "holding"), what="visible")
        invoked = queue.Invoke(shown, "restart")["notice"]
        assert invoked["invoked"] == "restart"
        final = queue.Wait(shown)["notice"]
    assert final["outcome"] == "completed" and final["invoked"] == "restart"


def test_reply_answers_a_notice_that_offers_a_field_and_a_watcher_sees_it(daemon):
    with daemon.queue() as queue:
        shown = queue.Show(title="Ada", body="Lunch?", reply="Type a reply", fadeIn=0.01, hold=0, fadeOut=0.05)["id"]
        assert queue.Get(shown)["notice"]["reply"] == "Type a reply"
        wait_for(lambda: queue.Get(shown)["notice"]["phase"] in ("fadingIn", "holding"), what="visible")
        with daemon.client() as client, client.open("io.notifyd.Queue") as watching:
            events = watching.Watch(_more=True)
            next(events)  # the snapshot
            replied = queue.Reply(shown, "on my way")["notice"]
            assert replied["replied"] == "on my way"
            kinds = []
            for reply in events:
                kinds.append(reply["event"]["kind"])
                if reply["event"]["kind"] == "replied":
                    assert reply["event"]["notice"]["replied"] == "on my way"
                    break
        final = queue.Wait(shown)["notice"]
        assert (final["outcome"], final["replied"]) == ("completed", "on my way")
        # A notice without a field, a finished one, and a reply too long are refused by name.
        plain = queue.Show(title="plain", fadeIn=0.01, hold=0)["id"]
        wait_for(lambda: queue.Get(plain)["notice"]["phase"] in ("fadingIn", "holding"), what="visible")
        for notice, text in [(plain, "x"), (shown, "x"), (plain, "a" * 4097)]:
            with pytest.raises(varlink.VarlinkError) as error:
                queue.Reply(notice, text)
            assert error.value.error() == "io.notifyd.Queue.InvalidArgument", error.value
        with pytest.raises(varlink.VarlinkError) as error:
            queue.Show(title="long placeholder", reply="p" * 257)
        assert error.value.parameters()["field"] == "reply"


def test_suspend_holds_and_resume_releases(daemon):
    with daemon.queue() as queue:
        assert queue.Suspend()["suspended"] is True
        held = queue.Show(title="held", **FAST)["id"]
        time.sleep(0.3)
        status = queue.Status()
        assert status["suspended"] is True and status["queued"] == 1
        assert queue.Get(held)["notice"]["phase"] == "queued"
        assert queue.Resume()["suspended"] is False
        assert queue.Wait(held)["notice"]["outcome"] == "completed"


def test_suspend_for_a_duration_resumes_by_itself(daemon):
    with daemon.queue() as queue:
        queue.Suspend(0.3)
        status = queue.Status()
        assert status["suspended"] and status["suspendedUntil"] > time.time()
        wait_for(lambda: not queue.Status()["suspended"], what="auto-resume")


def test_list_and_history(daemon):
    with daemon.queue() as queue:
        done = queue.Show(title="done", **FAST)["id"]
        queue.Wait(done)
        queue.Suspend()
        pending = queue.Show(title="pending")["id"]
        assert [n["id"] for n in queue.List()["notices"]] == [pending]
        history = queue.History(10)["notices"]
        assert [n["id"] for n in history] == [done]
        assert queue.History(limit=0)["notices"] == []


def test_get_unknown_id_is_no_such_notice(daemon):
    with daemon.queue() as queue:
        with pytest.raises(varlink.VarlinkError) as error:
            queue.Get(999)
    assert error.value.error() == "io.notifyd.Queue.NoSuchNotice"
    assert error.value.parameters()["id"] == 999


def test_invalid_argument_names_the_field(daemon):
    with daemon.queue() as queue:
        with pytest.raises(varlink.VarlinkError) as error:
            queue.Show(title="x", hold=-1)
    assert error.value.error() == "io.notifyd.Queue.InvalidArgument"
    assert error.value.parameters()["field"] == "hold"


def test_watch_streams_snapshot_then_events(daemon):
    events = []
    done = threading.Event()

    def watch():
        with daemon.client() as client:
            with client.open("io.notifyd.Queue") as queue:
                for reply in queue.Watch(False, None, _more=True):
                    events.append(reply["event"])
                    if reply["event"]["kind"] == "finished":
                        done.set()
                        return

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    wait_for(lambda: events, what="snapshot")
    with daemon.queue() as queue:
        queue.Show(title="watched", **FAST)
    assert done.wait(10)
    kinds = [event["kind"] for event in events]
    assert kinds[0] == "snapshot"
    assert kinds[1:] == ["added", "phase", "phase", "phase", "phase", "finished"]
    phases = [event["phase"] for event in events if event["kind"] == "phase"]
    assert phases == ["queued", "fadingIn", "holding", "fadingOut"]


def test_watch_with_frames_sends_opacity_while_fading(daemon):
    frames = []
    finished = threading.Event()

    def watch():
        with daemon.client() as client:
            with client.open("io.notifyd.Queue") as queue:
                for reply in queue.Watch(True, 60, _more=True):
                    event = reply["event"]
                    if event["kind"] == "frame":
                        frames.append(event)
                    if event["kind"] == "finished":
                        finished.set()
                        return

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    time.sleep(0.2)
    with daemon.queue() as queue:
        queue.Show(title="fading", fadeIn=0.3, hold=0.2, fadeOut=0.3)
    assert finished.wait(10)
    assert len(frames) >= 10
    assert all(0.0 <= frame["opacity"] <= 1.0 for frame in frames)
    rising = [f["opacity"] for f in frames if f["phase"] == "fadingIn"]
    assert rising == sorted(rising)


def test_watch_without_more_is_expected_more(daemon):
    with daemon.queue() as queue:
        with pytest.raises(varlink.VarlinkError) as error:
            queue.Watch(False, None)
    assert error.value.error() == "org.varlink.service.ExpectedMore"


def test_reload_answers(daemon):
    with daemon.queue() as queue:
        assert not queue.Reload()


def test_status_counts(daemon):
    with daemon.queue() as queue:
        queue.Suspend()
        queue.Show(title="a")
        queue.Show(title="b", delay=60)
        status = queue.Status()
    assert status["version"]
    assert (status["queued"], status["waiting"], status["visible"]) == (1, 1, 0)
