"""The relay through NATS JetStream end to end (DESIGN §10): two daemons, "server" (publishes its
notices) and "desk" (shows the other hosts' notices), each on its own runtime directory and store,
through a real nats-server: delivery once each and in order, a desk or NATS that was down, a
publisher that starts with NATS down, a three-node cluster losing a node, keys across hosts, and
what goes wrong (credentials, TLS, permissions, garbage on the stream) never stopping local service.
Answers back and `notifyctl --relay` are in test_relay_answers.py.

nats-py (a client nobody here wrote) looks into the stream and injects messages of its own."""

import json
import re
import time
import uuid

import pytest

from conftest import Daemon, wait_for
from relay_helpers import (FAST, NOT_CONNECTED, assert_each_once, desk_and_server, make_ca, make_server_cert,  # noqa: F401
                           nats_cluster, nats_server, nats_tools, numbered, one_line, relay_daemon, secret_file,
                           stream_name, subject, tls_context, wait_arrived, wait_connected, wait_consumer,
                           wait_drained, wait_outbox_empty, wait_relay, wait_stream_holds)  # (and fixtures)


# MARK: - 1. Delivery


def test_a_thousand_notices_reach_the_desk_once_each_in_order_as_app_at_host(nats_server, desk_and_server, subject):
    nats = nats_server()
    peer = nats.client()
    desk, server = desk_and_server([nats.url], peer)
    before = time.time()
    notices = numbered(1000)
    for index in range(0, 1000, 100):  # every hundredth names no app: it shows as just the host
        del notices[index]["app"]
    sent = server.send(notices)
    after = time.time()
    titles = {i: n["title"] for i, n in zip(sent, notices)}
    apps = {i: n.get("app") for i, n in zip(sent, notices)}

    relayed = wait_arrived(desk, sent, timeout=90)
    wait_drained(peer, desk)
    relayed = desk.relayed()
    assert_each_once(relayed, sent)
    stores = {n["origin"]["store"] for n in relayed}
    assert len(stores) == 1 and "" not in stores, stores
    store = stores.pop()
    for notice in relayed:
        origin = notice["origin"]
        assert notice["title"] == titles[origin["id"]], notice
        assert notice["app"] == (f"{apps[origin['id']]}@server" if apps[origin["id"]] else "server"), notice
        assert isinstance(origin["sent"], float) and before - 1 <= origin["sent"] <= after + 1, origin
        assert (notice["fadeIn"], notice["hold"], notice["fadeOut"]) == (0, 0.05, 0), notice

    # On the wire: one stream of the subject's, file storage; the first message as the contract says.
    stream = stream_name(subject)
    info = peer.stream(stream)
    assert info.config.subjects == [f"{subject}.>"], info.config
    assert str(getattr(info.config.storage, "value", info.config.storage)) == "file", info.config
    held = peer.count(stream, f"{subject}.notice.server")
    assert held == 1000, f"the stream holds {held} messages from the server for its 1000 notices"
    first = peer.first_message(stream, f"{subject}.notice.server")
    assert first.subject == f"{subject}.notice.server"
    assert (first.headers or {}).get("Nats-Msg-Id") == f"server/{store}/{sent[0]}", first.headers
    payload = json.loads(first.data)
    assert (payload["host"], payload["store"], payload["id"]) == ("server", store, sent[0]), payload
    assert isinstance(payload["sent"], float)
    assert payload["notice"]["title"] == titles[sent[0]] and payload["notice"]["hold"] == 0.05, payload
    consumer = peer.consumer(stream, "notifyd_desk").config
    assert consumer.durable_name == "notifyd_desk" and consumer.deliver_subject is None, consumer  # durable, pull
    assert consumer.filter_subject == f"{subject}.notice.>" or consumer.filter_subjects == [f"{subject}.notice.>"], consumer

    # The same notice published again (a new message id, so JetStream keeps it): the desk drops it.
    # A marker published after it shows that the desk has read past the copy.
    peer.publish(f"{subject}.notice.server", [first.data], headers={"Nats-Msg-Id": f"test/copy/{uuid.uuid4()}"})
    marker = server.call("Show", title="marker", **FAST)["id"]
    wait_arrived(desk, [marker], timeout=30)
    wait_drained(peer, desk)
    relayed = desk.relayed()
    assert_each_once(relayed, sent + [marker])
    wait_outbox_empty(server)


# MARK: - 2. A desk that was down


def test_a_desk_killed_while_the_server_publishes_gets_all_it_missed_once_each(nats_server, desk_and_server, subject):
    nats = nats_server()
    peer = nats.client()
    desk, server = desk_and_server([nats.url], peer)
    desk.kill()
    sent = server.send(numbered(500))
    wait_relay(server, lambda r: r["outbox"] == 0 and r["state"] == "connected", "the server's outbox to empty")
    wait_stream_holds(peer, subject, "server", 500)
    assert desk.process.poll() is not None  # nothing could have reached it

    desk.start()
    # Killed again while it catches up: what it took but had not acknowledged comes again (after the
    # consumer's ack wait), and what it had committed must not show a second time.
    wait_for(lambda: len(desk.relayed()) >= 50, timeout=60, interval=0.02, what="the desk to start catching up")
    desk.kill()
    desk.start()
    # Generous: messages the killed desk held unacknowledged come back only after the ack wait.
    wait_arrived(desk, sent, timeout=150)
    wait_drained(peer, desk, timeout=150)
    assert_each_once(desk.relayed(), sent, in_order=False)
    assert not [n for n in desk.relayed() if n.get("outcome") == "missed"], "MaxAge=1h: none is too old"


def test_a_notice_that_comes_after_thousands_of_later_ones_is_shown_once(nats_server, relay_daemon, subject):
    """A delivery lost with a NATS node comes again only after the consumer's ack wait (10 s), by
    when the desk may have taken thousands of later notices from the same store: the hour-long soak
    lost ten that way, to a mark that held what was missing only 1,024 ids back. Played here through
    the stream, in the contract's wire format: a host whose ids have gaps (its progress indicators
    are not published) publishes places 2 to 1,500 of its sequence, then place 1, then place 700
    again (a redelivery of one the desk has)."""
    nats = nats_server()
    peer = nats.client()
    desk = relay_daemon("desk", [nats.url], publish=False, subscribe=True)
    wait_connected(desk)
    wait_consumer(peer, desk)
    now = time.time()

    def message(place):
        return json.dumps({"host": "laptop", "store": "0123abcd", "id": 10 + 2 * place, "sent": now,
                           "sequence": place, "notice": {"title": f"place {place}", **FAST}}).encode()

    on = f"{subject}.notice.laptop"
    later = [10 + 2 * place for place in range(2, 1501)]
    peer.publish(on, [message(place) for place in range(2, 1501)])
    wait_arrived(desk, later, timeout=120, host="laptop")
    peer.publish(on, [message(1), message(700)])
    wait_arrived(desk, [12], timeout=30, host="laptop")
    wait_drained(peer, desk)
    relayed = desk.relayed("laptop")
    assert_each_once(relayed, [12] + later, in_order=False)
    first = next(n for n in relayed if n["origin"]["id"] == 12)
    assert first["title"] == "place 1" and first["origin"]["sequence"] == 1, first


def test_notices_older_than_max_age_when_the_desk_returns_go_to_history_as_missed(
        nats_server, desk_and_server, subject):
    nats = nats_server()
    peer = nats.client()
    # MaxAge=2s rather than 1s: the fresh notice at the end must cross the relay within it even on a
    # loaded machine.
    desk, server = desk_and_server([nats.url], peer, desk_max_age="2s")
    desk.kill()
    sent = server.send(numbered(100))
    sent_by = time.time()
    wait_stream_holds(peer, subject, "server", 100)
    wait_for(lambda: time.time() > sent_by + 3, timeout=10, what="the notices to be older than MaxAge")

    desk.start()
    relayed = wait_arrived(desk, sent, timeout=60)
    wait_drained(peer, desk)
    relayed = desk.relayed()
    assert_each_once(relayed, sent, in_order=False)
    not_missed = [n for n in relayed if n.get("outcome") != "missed" or n.get("shown") is not None]
    assert not not_missed, f"{len(not_missed)} too-old notices were shown or not missed: {not_missed[:3]}"
    assert not [n for n in desk.listed() if n.get("origin")], "a missed notice is in List"

    # MaxAge is about age, not about having been away: a fresh notice shows.
    fresh = server.call("Show", title="fresh", fadeIn=0, hold=600, fadeOut=0)["id"]
    notice = next(n for n in wait_arrived(desk, [fresh], timeout=30) if n["origin"]["id"] == fresh)
    assert notice.get("outcome") is None and notice["phase"] != "finished", notice


# MARK: - 3. NATS killed and restarted mid-stream


def test_nats_killed_and_restarted_mid_stream_loses_and_repeats_nothing(nats_server, desk_and_server, subject):
    nats = nats_server()
    peer = nats.client()
    desk, server = desk_and_server([nats.url], peer)
    sent = server.send(numbered(300))
    nats.kill()
    wait_relay(server, lambda r: r["state"] == "reconnecting", "the server's relay to say reconnecting")
    # Sending goes on while NATS is away: the local service does not wait for it.
    started = time.monotonic()
    sent += server.send(numbered(400, start=301))
    assert time.monotonic() - started < 30, "400 local Shows took over 30 s with NATS down"
    relay = wait_relay(server, lambda r: r["outbox"] >= 400, "the 400 notices sent while NATS is down to wait")
    assert relay["state"] == "reconnecting" and one_line(relay["detail"]), relay

    nats.start()
    wait_relay(server, lambda r: r["state"] == "connected" and r["outbox"] == 0,
               "the server to reconnect and publish what waited", timeout=60)
    wait_connected(desk)
    sent += server.send(numbered(300, start=701))
    wait_arrived(desk, sent, timeout=120)
    wait_drained(peer, desk, timeout=120)
    assert_each_once(desk.relayed(), sent, in_order=False)
    wait_outbox_empty(server)
    assert_connected_again(desk, server, [nats.url])


# MARK: - 4. Publishing with NATS down from the start, across a restart of the publisher


def test_notices_accepted_while_nats_is_down_wait_in_the_store_across_a_restart_and_go_out_in_order(
        nats_server, relay_daemon, subject):
    nats = nats_server()
    peer = nats.client()
    # The desk's consumer comes first, so that what the server publishes later is kept for it.
    desk = relay_daemon("desk", [nats.url], publish=False, subscribe=True)
    wait_connected(desk)
    wait_consumer(peer, desk)
    nats.stop()

    server = relay_daemon("server", [nats.url], publish=True, subscribe=False)
    sent = server.send(numbered(50))
    relay = wait_relay(server, lambda r: r["outbox"] == 50, "50 notices waiting in the server's outbox")
    assert relay["state"] in NOT_CONNECTED and one_line(relay["detail"]), relay

    assert server.stop() == 0, server.stderr()[-2000:]
    server.start()
    relay = wait_relay(server, lambda r: r["outbox"] == 50, "the outbox to come back with the store")
    assert relay["state"] in NOT_CONNECTED, relay

    nats.start()
    wait_relay(server, lambda r: r["state"] == "connected" and r["outbox"] == 0,
               "the server to publish what waited", timeout=60)
    relayed = wait_arrived(desk, sent, timeout=60)
    wait_drained(peer, desk)
    assert_each_once(desk.relayed(), sent, in_order=True)
    assert [n["title"] for n in sorted(relayed, key=lambda n: n["id"])] == [f"n {i}" for i in range(1, 51)]


# MARK: - 5. A three-node cluster


def test_a_three_node_cluster_losing_a_node_mid_stream_loses_nothing(nats_cluster, desk_and_server, subject):
    cluster = nats_cluster()
    desk, server = desk_and_server(cluster.urls, cluster.client())
    stream = stream_name(subject)
    info = cluster.client().stream(stream)
    assert info.config.num_replicas == 3, f"with three URLs the stream has {info.config.num_replicas} replicas"

    sent = server.send(numbered(200))
    # The node that leads the stream goes: the other two must carry on with it.
    leader = cluster.client().stream(stream).cluster.leader
    cluster.node(leader).kill()
    sent += server.send(numbered(400, start=201))
    peer = cluster.client()  # the two nodes left
    wait_relay(server, lambda r: r["state"] == "connected" and r["outbox"] == 0,
               "the server to publish everything through the nodes left", timeout=90)
    wait_arrived(desk, sent, timeout=120)
    wait_drained(peer, desk, timeout=60)
    assert_each_once(desk.relayed(), sent, in_order=False)
    assert_connected_again(desk, server, cluster.urls)


def assert_connected_again(desk, server, urls):
    """What went wrong while NATS failed under them is over, and each one's Status comes to say so
    (the server's once what it retries is published): the soak saw a desk say "cannot consume" long
    after it consumed again."""
    details = [f"connected to {url}" for url in urls]
    for daemon in (desk, server):
        wait_relay(daemon, lambda r: r["state"] == "connected" and r["outbox"] == 0 and r["detail"] in details,
                   f"{daemon.host}'s Status to say it is connected again")


# MARK: - 6. Keys across hosts


def test_a_key_replaces_across_hosts(nats_server, desk_and_server, subject):
    nats = nats_server()
    desk, server = desk_and_server([nats.url], nats.client())
    kept = dict(key="build", app="ci", body="make all", urgency="low", tag="ci", delay=0.25, fadeIn=0.2,
                hold=600, fadeOut=0.3, actions=[{"key": "open", "label": "Open log"}])
    # Both held back on both hosts: on the server "built" takes the queued "building"'s place, and
    # on the desk likewise, deterministically (nothing is visible yet on either).
    server.call("Suspend", allow="none")
    desk.call("Suspend", allow="none")
    building = server.call("Show", title="building", **kept)["id"]
    built = server.call("Show", title="built", **kept)["id"]
    assert built != building
    wait_arrived(desk, [building, built], timeout=30)
    relayed = {n["origin"]["id"]: n for n in desk.relayed()}
    assert relayed[building].get("outcome") == "replaced", relayed[building]
    unfinished = [n for n in desk.listed() if n.get("origin")]
    assert [(n["title"], n["origin"]["id"]) for n in unfinished] == [("built", built)], unfinished
    shown = unfinished[0]
    assert shown["app"] == "ci@server" and shown["key"] == "build", shown
    assert (shown["body"], shown["urgency"], shown["tag"]) == ("make all", "low", "ci"), shown
    assert (shown["delay"], shown["fadeIn"], shown["hold"], shown["fadeOut"]) == (0.25, 0.2, 600, 0.3), shown
    assert shown["actions"] == [{"key": "open", "label": "Open log"}], shown

    # Now visible on the desk (the server draws no popups: there "built" waits for the desk's
    # answer): a third with the key replaces it on the server, and the desk's visible one changes
    # in place (DESIGN §2).
    server.call("Resume")
    desk.call("Resume")
    wait_for(lambda: desk.call("Get", id=shown["id"])["notice"]["phase"] == "holding",
             what="'built' visible on the desk")
    deployed = server.call("Show", title="deployed", **kept)["id"]
    assert server.call("Get", id=built)["notice"].get("outcome") == "replaced"
    assert deployed != built

    def follows():
        unfinished = [n for n in desk.listed() if n.get("origin")]
        return unfinished if [n["title"] for n in unfinished] == ["deployed"] else None
    try:
        unfinished = wait_for(follows, timeout=30, interval=0.1, what="the desk's 'built' to become 'deployed'")
    except AssertionError as error:
        raise AssertionError(f"{error}; the desk lists {[n['title'] for n in desk.listed()]}") from None
    assert unfinished[0]["id"] == shown["id"], "the visible notice was not changed in place"
    assert [n["title"] for n in desk.listed() if n.get("origin")] == ["deployed"]


# MARK: - 7–9. What goes wrong never stops local service


def assert_serves_locally(daemon):
    local = daemon.call("Show", title=f"local while the relay is down {uuid.uuid4().hex[:6]}", fadeIn=0, hold=600,
                        fadeOut=0)["id"]
    assert local in [n["id"] for n in daemon.listed()]
    assert daemon.call("Get", id=local)["notice"]["phase"] != "finished"
    assert daemon.process.poll() is None


def test_a_wrong_password_says_so_in_status_and_local_service_goes_on(nats_server, relay_daemon, runtime_dir, subject):
    nats = nats_server(config="authorization {\n  users = [\n    {user: desk, password: right}\n  ]\n}\n",
                       connect_options={"user": "desk", "password": "right"})
    wrong = secret_file(runtime_dir / "wrong.password", "wrong")
    desk = relay_daemon("desk", [nats.url], publish=False, subscribe=True,
                        extra=f"User=desk\nPasswordFile={wrong}\n", directory="desk-wrong")
    relay = wait_relay(desk, lambda r: r["state"] in ("failed", "reconnecting") and "authorization" in r["detail"].lower(),
                       "the relay to fail on authorization")
    assert one_line(relay["detail"]), relay
    assert_serves_locally(desk)
    assert desk.relay()["state"] != "connected"

    right = secret_file(runtime_dir / "right.password", "right")
    fresh = relay_daemon("desk", [nats.url], publish=False, subscribe=True,
                         extra=f"User=desk\nPasswordFile={right}\n", directory="desk-right")
    wait_connected(fresh)
    wait_consumer(nats.client(), fresh)


def test_a_server_certificate_from_an_unknown_ca_fails_in_status_and_the_right_ca_connects(
        nats_server, relay_daemon, runtime_dir, subject):
    pki = runtime_dir / "pki"
    ca = make_ca(pki, "ca")
    other = make_ca(pki, "other-ca")
    cert, key = make_server_cert(pki, ca)
    nats = nats_server(config=f'tls {{\n  cert_file: "{cert}"\n  key_file: "{key}"\n  timeout: 2\n}}\n',
                       scheme="tls", connect_options={"tls": tls_context(ca[0])})
    assert nats.url.startswith("tls://127.0.0.1:")
    stranger = relay_daemon("server", [nats.url], publish=True, subscribe=False,
                            extra=f"TLSCA={other[0]}\n", directory="server-other-ca")
    words = ("tls", "ssl", "certificate", "handshake", "verif")
    relay = wait_relay(stranger, lambda r: r["state"] in ("failed", "reconnecting")
                       and any(word in r["detail"].lower() for word in words), "the relay to fail on TLS")
    assert one_line(relay["detail"]), relay
    assert_serves_locally(stranger)
    assert stranger.relay()["state"] != "connected"

    desk = relay_daemon("desk", [nats.url], publish=False, subscribe=True, extra=f"TLSCA={ca[0]}\n")
    server = relay_daemon("server", [nats.url], publish=True, subscribe=False, extra=f"TLSCA={ca[0]}\n")
    wait_connected(desk)
    wait_connected(server)
    wait_consumer(nats.client(), desk)
    sent = server.call("Show", title="over TLS", **FAST)["id"]
    notice = wait_arrived(desk, [sent], timeout=30)[0]
    assert notice["title"] == "over TLS" and notice["app"] == "server", notice


def test_a_publish_permission_denied_says_so_in_one_line_and_local_service_goes_on(
        nats_server, relay_daemon, runtime_dir, subject):
    # "server" may use JetStream (create the stream, get answers) and the rest of the subject, but
    # not publish notices.
    config = (
        "authorization {\n  users = [\n    {user: server, password: secret, permissions: {\n"
        f'      publish: {{ allow: ["$JS.API.>", "$JS.ACK.>", "_INBOX.>", "{subject}.>"], '
        f'deny: ["{subject}.notice.>"] }}\n'
        "    }}\n  ]\n}\n")
    nats = nats_server(config=config, connect_options={"user": "server", "password": "secret"})
    password = secret_file(runtime_dir / "server.password", "secret")
    server = relay_daemon("server", [nats.url], publish=True, subscribe=False,
                          extra=f"User=server\nPasswordFile={password}\n")
    wait_connected(server)  # signing in and the stream are allowed
    server.call("Show", title="denied on the way out", **FAST)
    relay = wait_relay(server, lambda r: "permission" in r["detail"].lower() and "violation" in r["detail"].lower(),
                       "the relay to report the permissions violation")
    assert one_line(relay["detail"]), relay
    assert_serves_locally(server)


# MARK: - 10. Garbage on the stream


def test_bad_messages_on_the_stream_are_dropped_counted_and_logged_and_good_ones_still_arrive(
        nats_server, desk_and_server, subject):
    nats = nats_server()
    peer = nats.client()
    desk, server = desk_and_server([nats.url], peer)
    assert nats.client().run(lambda connection, _: _max_payload(connection)) >= 200 * 1024
    now = time.time()
    bad = [
        b"this is not JSON \xff\xfe",
        b"",
        b'{"host":"x","store":"s","id":"seven","notice":{"title":5}}',
        json.dumps({"host": "evil", "store": "s", "id": 3, "sent": now, "notice": {"title": 5}}).encode(),
        # Well-formed but for its size (the padding is a field a reader skips).
        json.dumps({"host": "evil", "store": "s", "id": 4, "sent": now, "notice": {"title": "too big"},
                    "padding": "x" * (100 * 1024)}).encode(),
        json.dumps({"host": "evil", "store": "s", "id": 5, "sent": now}).encode(),
    ]
    for payload in bad:
        peer.publish(f"{subject}.notice.evil", [payload], headers={"Nats-Msg-Id": f"evil/{uuid.uuid4()}"})
        assert desk.call("Status")["version"], "the desk stopped answering"
    # After them: a notice from the server daemon, and one in the contract's wire format from a
    # host nobody runs here.
    good = server.call("Show", title="good", fadeIn=0, hold=600, fadeOut=0)["id"]
    laptop = {"host": "laptop", "store": "0123abcd", "id": 7, "sent": time.time(),
              "notice": {"title": "from the laptop", "app": "mail", "urgency": "critical"}}
    peer.publish(f"{subject}.notice.laptop", [json.dumps(laptop).encode()], headers={"Nats-Msg-Id": "laptop/0123abcd/7"})
    wait_arrived(desk, [good], timeout=30)
    wait_arrived(desk, [7], timeout=30, host="laptop")
    wait_drained(peer, desk)
    relay = wait_relay(desk, lambda r: r["dropped"] == len(bad), f"relay.dropped to count the {len(bad)} bad messages")
    assert relay["state"] == "connected", relay

    relayed = [n for n in desk.known() if n.get("origin")]
    assert sorted((n["origin"]["host"], n["title"]) for n in relayed) == [("laptop", "from the laptop"), ("server", "good")], relayed
    from_laptop = next(n for n in relayed if n["origin"]["host"] == "laptop")
    assert from_laptop["app"] == "mail@laptop" and from_laptop["urgency"] == "critical", from_laptop
    origin = from_laptop["origin"]
    assert (origin["host"], origin["store"], origin["id"]) == ("laptop", "0123abcd", 7), origin
    assert origin["sent"] == pytest.approx(laptop["sent"], abs=0.001), origin
    assert not [n for n in desk.known() if n["title"] == "too big" or "evil" in (n.get("app") or "")]
    assert "relay: dropped" in desk.stderr()
    assert desk.relay()["dropped"] == len(bad)
    assert desk.process.poll() is None


async def _max_payload(connection):
    return connection.max_payload


# MARK: - 11. notifyctl


def test_notifyctl_status_says_relay_connected_and_list_shows_the_origin(
        nats_server, desk_and_server, runtime_dir, subject):
    nats = nats_server()
    desk, server = desk_and_server([nats.url], nats.client())

    def relay_lines():
        text = desk.notifyctl("status", check=True).stdout
        return [line for line in text.splitlines() if line.lower().startswith("relay: ")]
    lines = relay_lines()
    assert len(lines) == 1, desk.notifyctl("status").stdout
    assert re.search(r"\bconnected\b", lines[0]) and "reconnecting" not in lines[0], lines
    status = json.loads(desk.notifyctl("status", "--json", check=True).stdout)
    assert status["relay"]["state"] == "connected", status

    sent = server.call("Show", title="seen through notifyctl", app="backup", fadeIn=0, hold=600, fadeOut=0)["id"]
    wait_arrived(desk, [sent], timeout=30)
    listed = json.loads(desk.notifyctl("list", "--json", check=True).stdout)["notices"]
    notice = next(n for n in listed if n["title"] == "seen through notifyctl")
    assert notice["app"] == "backup@server" and notice["origin"]["host"] == "server" and notice["origin"]["id"] == sent

    # The line follows the state (it is not a constant), and a daemon without [Relay] has none.
    nats.kill()
    wait_relay(desk, lambda r: r["state"] == "reconnecting", "the desk's relay to say reconnecting")
    assert [line for line in relay_lines() if "reconnecting" in line], desk.notifyctl("status").stdout
    plain_home = runtime_dir / "plain"
    plain_home.mkdir(mode=0o700)
    (plain_home / "plain.conf").write_text("[DBus]\nMode=off\n[Display]\nMode=off\n")
    plain = Daemon(plain_home, ["--config", str(plain_home / "plain.conf")]).start()
    try:
        assert "relay" not in plain.call("Status")
        assert not [line for line in plain.notifyctl("status", check=True).stdout.splitlines()
                    if line.lower().startswith("relay")]
    finally:
        assert plain.stop() == 0
