"""Bad input gets a precise error or that one connection closed; the daemon keeps serving."""

import json
import os
import pwd
import socket
import subprocess
import threading
import time

import pytest
import varlink

from conftest import call_raw, read_reply, wait_for


def still_serves(daemon):
    with daemon.queue() as queue:
        assert queue.Status()["version"]


def test_malformed_json_gets_an_error_and_the_connection_lives(daemon):
    with daemon.raw() as connection:
        reply = call_raw(connection, b'{"method": "io.notifyd.Queue.Status", ')
        assert reply["error"] == "io.notifyd.Queue.InvalidArgument"
        assert "JSON" in reply["parameters"]["reason"]
        reply = call_raw(connection, b'{"method": "io.notifyd.Queue.Status"}')
        assert "error" not in reply and reply["parameters"]["version"]
    still_serves(daemon)


@pytest.mark.parametrize("message", [b"[1, 2, 3]", b'"text"', b"42", b"null", b'{"parameters": {}}'])
def test_a_message_that_is_not_a_call_object_gets_an_error(daemon, message):
    with daemon.raw() as connection:
        reply = call_raw(connection, message)
        assert reply["error"] == "io.notifyd.Queue.InvalidArgument"
        assert reply["parameters"]["field"] == "(message)"
    still_serves(daemon)


def test_invalid_utf8_gets_an_error(daemon):
    with daemon.raw() as connection:
        reply = call_raw(connection, b'{"method": "io.notifyd.Queue.Show", "parameters": {"title": "\xff\xfe"}}')
        assert "error" in reply
    still_serves(daemon)


@pytest.mark.parametrize(
    "parameters, field",
    [
        ({"title": 5}, "title"),
        ({}, "title"),
        ({"title": "x", "hold": "long"}, "hold"),
        ({"title": "x", "urgency": "urgent"}, "urgency"),
        ({"title": "x", "actions": [{"key": "a"}]}, "actions.0.label"),
        ({"title": "x", "after": 1.5}, "after"),
    ],
)
def test_wrong_types_are_invalid_parameter_naming_the_field(daemon, parameters, field):
    with daemon.raw() as connection:
        reply = call_raw(connection, json.dumps({"method": "io.notifyd.Queue.Show", "parameters": parameters}).encode())
    assert reply["error"] == "org.varlink.service.InvalidParameter"
    assert reply["parameters"]["parameter"] == field


@pytest.mark.parametrize("method", ["Show", "Progress"])
@pytest.mark.parametrize(
    "parameters, field",
    [
        ({"app": "a" * 257}, "app"),
        ({"tag": "t" * 257}, "tag"),
        ({"key": "k" * 257}, "key"),
        ({"app": "é" * 129}, "app"),  # 258 bytes in 129 characters
    ],
)
def test_names_past_256_bytes_are_invalid_argument_naming_the_field(daemon, method, parameters, field):
    with daemon.raw() as connection:
        call = {"method": f"io.notifyd.Queue.{method}", "parameters": {"title": "x", **parameters}}
        reply = call_raw(connection, json.dumps(call).encode())
        assert reply["error"] == "io.notifyd.Queue.InvalidArgument"
        assert reply["parameters"]["field"] == field
        assert "256 bytes" in reply["parameters"]["reason"]
        assert call_raw(connection, b'{"method": "io.notifyd.Queue.List"}')["parameters"]["notices"] == []


@pytest.mark.parametrize(
    "actions, field",
    [
        ([{"key": f"k{i}", "label": "l"} for i in range(9)], "actions"),
        ([{"key": "a", "label": "A"}, {"key": "k" * 257, "label": "B"}], "actions.1.key"),
        ([{"key": "a", "label": "l" * 257}], "actions.0.label"),
        ([{"key": "", "label": "l"}], "actions.0.key"),
    ],
)
def test_actions_past_their_limits_are_invalid_argument_naming_the_field(daemon, actions, field):
    with daemon.queue() as queue:
        with pytest.raises(varlink.VarlinkError) as raised:
            queue.Show(title="x", actions=actions)
        assert raised.value.error() == "io.notifyd.Queue.InvalidArgument"
        assert raised.value.parameters()["field"] == field
        assert queue.Show(title="x", actions=[{"key": f"k{i}", "label": "l" * 256} for i in range(8)])["id"]


def test_hooks_get_names_and_bodies_at_their_limits(make_daemon, runtime_dir):
    """At every limit at once a hook still starts: its environment stays far below E2BIG."""
    seen = runtime_dir / "hook-saw"
    config = runtime_dir / "config" / "notifyd"
    config.mkdir(parents=True)
    (config / "notifyd.conf").write_text(
        f'[Hooks]\nOnFinish=printf "%s %s" "${{#NOTIFYD_APP}}" "${{#NOTIFYD_BODY}}" > {seen}\n[DBus]\nMode=off\n')
    daemon = make_daemon()
    with daemon.queue() as queue:
        queue.Show(title="t" * 1024, body="b" * 16384, app="a" * 256, tag="g" * 256, key="k" * 256,
                   fadeIn=0, hold=0.01, fadeOut=0)
    wait_for(lambda: seen.exists() and seen.read_text(), what="the hook to run")
    assert seen.read_text() == "256 16384"
    assert "E2BIG" not in daemon.stderr() and "could not start" not in daemon.stderr()


def test_parameters_that_are_not_an_object_are_invalid_parameter(daemon):
    with daemon.raw() as connection:
        reply = call_raw(connection, b'{"method": "io.notifyd.Queue.Get", "parameters": [1]}')
    assert reply["error"] == "org.varlink.service.InvalidParameter"


def test_unknown_method_is_method_not_found(daemon):
    with daemon.raw() as connection:
        reply = call_raw(connection, b'{"method": "io.notifyd.Queue.Explode"}')
        assert reply["error"] == "org.varlink.service.MethodNotFound"
        assert reply["parameters"]["method"] == "io.notifyd.Queue.Explode"
        reply = call_raw(connection, b'{"method": "org.example.Thing.Do"}')
        assert reply["error"] == "org.varlink.service.InterfaceNotFound"


def test_title_over_one_kib_is_refused(daemon):
    with daemon.queue() as queue:
        import varlink

        with pytest.raises(varlink.VarlinkError) as error:
            queue.Show(title="x" * 1025)
    assert error.value.parameters()["field"] == "title"


def test_a_message_over_one_mib_closes_only_that_connection(daemon):
    with daemon.raw() as connection:
        payload = b'{"method": "io.notifyd.Queue.Show", "parameters": {"title": "' + b"x" * (1 << 20) + b'"}}'
        try:
            connection.sendall(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass
        reply = read_reply(connection)
        assert reply is not None and reply["error"] == "io.notifyd.Queue.InvalidArgument"
        assert connection.recv(1) == b""
    still_serves(daemon)


def test_pipelined_calls_are_answered_in_order(daemon):
    with daemon.raw() as connection:
        calls = b"".join(
            json.dumps({"method": "io.notifyd.Queue.Show", "parameters": {"title": f"p{i}", "delay": 60}}).encode() + b"\0"
            for i in range(50)
        )
        connection.sendall(calls + b'{"method": "io.notifyd.Queue.Status"}\0')
        ids = [read_reply(connection)["parameters"]["id"] for _ in range(50)]
        status = read_reply(connection)["parameters"]
    assert ids == sorted(ids) and len(set(ids)) == 50
    assert status["waiting"] == 50


def test_a_pipelined_call_after_wait_is_answered_after_it(daemon):
    with daemon.raw() as connection:
        shown = call_raw(connection, b'{"method": "io.notifyd.Queue.Show", "parameters": {"title": "w", "fadeIn": 0.05, "hold": 0.1, "fadeOut": 0.05}}')
        wait = json.dumps({"method": "io.notifyd.Queue.Wait", "parameters": {"id": shown["parameters"]["id"]}}).encode()
        connection.sendall(wait + b"\0" + b'{"method": "io.notifyd.Queue.Status"}\0')
        first = read_reply(connection)
        second = read_reply(connection)
    assert first["parameters"]["notice"]["outcome"] == "completed"
    assert second["parameters"]["finished"] == 1


def test_oneway_calls_get_no_reply_but_take_effect(daemon):
    with daemon.raw() as connection:
        connection.sendall(b'{"method": "io.notifyd.Queue.Show", "parameters": {"title": "silent", "delay": 60}, "oneway": true}\0')
        reply = call_raw(connection, b'{"method": "io.notifyd.Queue.List"}')
    assert [n["title"] for n in reply["parameters"]["notices"]] == ["silent"]


def test_a_client_that_disconnects_mid_call_harms_nobody(daemon):
    for _ in range(20):
        connection = daemon.raw()
        connection.sendall(b'{"method": "io.notifyd.Queue.Wait", "parameters": {"id": ')
        connection.close()
        connection = daemon.raw()
        with daemon.queue() as queue:
            waited = queue.Show(title="gone", delay=60)["id"]
        connection.sendall(json.dumps({"method": "io.notifyd.Queue.Wait", "parameters": {"id": waited}}).encode() + b"\0")
        connection.close()
        watcher = daemon.raw()
        watcher.sendall(b'{"method": "io.notifyd.Queue.Watch", "parameters": {"frames": true}, "more": true}\0')
        watcher.close()
    still_serves(daemon)


def test_a_watcher_that_never_reads_does_not_stall_others(daemon):
    stalled = daemon.raw()
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stalled.sendall(b'{"method": "io.notifyd.Queue.Watch", "parameters": {"frames": true, "fps": 240}, "more": true}\0')
    with daemon.queue() as queue:
        for i in range(200):
            queue.Show(title="x" * 1000, body="y" * 8000, fadeIn=0.01, hold=0.01, fadeOut=0.01)
        start = time.monotonic()
        queue.Status()
        assert time.monotonic() - start < 2
    stalled.close()
    still_serves(daemon)


def test_a_peer_with_another_uid_is_refused(runtime_dir, make_daemon):
    nobody = pwd.getpwnam("nobody")
    runtime_dir.chmod(0o755)
    daemon = make_daemon()
    os.chmod(daemon.socket_path, 0o666)

    def demote():
        os.setgid(nobody.pw_gid)
        os.setuid(nobody.pw_uid)

    # socat (a Debian package, world-executable) is the client, running as nobody.
    result = subprocess.run(
        ["socat", "-u", "UNIX-CONNECT:" + daemon.socket_path, "STDOUT"],
        preexec_fn=demote,
        capture_output=True,
        timeout=10,
    )
    assert result.returncode == 0, result.stderr
    assert b"PermissionDenied" in result.stdout
    assert b"version" not in result.stdout
    still_serves(daemon)
    assert "refused a client with uid" in daemon.stderr()


def test_a_client_that_shuts_down_its_sending_side_still_gets_its_replies(daemon):
    with daemon.raw() as connection:
        connection.sendall(
            b'{"method": "io.notifyd.Queue.Show", "parameters": {"title": "half-closed", "delay": 60}}\0'
            b'{"method": "io.notifyd.Queue.Status"}\0'
        )
        connection.shutdown(socket.SHUT_WR)
        first = read_reply(connection)
        second = read_reply(connection)
        assert first["parameters"]["id"] > 0
        assert second["parameters"]["waiting"] == 1
        assert connection.recv(1) == b""
    still_serves(daemon)


def test_calls_pipelined_behind_a_wait_are_held_then_all_answered_in_order(daemon):
    with daemon.queue() as queue:
        waited = queue.Show(title="held", delay=60)["id"]
    with daemon.raw() as connection:
        connection.sendall(json.dumps({"method": "io.notifyd.Queue.Wait", "parameters": {"id": waited}}).encode() + b"\0")
        # Far more than the daemon holds behind a call before it stops reading (1024).
        burst = b"".join(
            json.dumps({"method": "io.notifyd.Queue.Get", "parameters": {"id": waited}}).encode() + b"\0"
            for _ in range(3000)
        )
        sender = threading.Thread(target=connection.sendall, args=(burst,))
        sender.start()
        time.sleep(0.5)
        with daemon.queue() as queue:
            assert queue.Status()["waiting"] == 1
            queue.Cancel(id=waited)
        first = read_reply(connection)
        assert first["parameters"]["notice"]["outcome"] == "cancelled"
        for _ in range(3000):
            assert read_reply(connection)["parameters"]["notice"]["id"] == waited
        sender.join(10)
    still_serves(daemon)
