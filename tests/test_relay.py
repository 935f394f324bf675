"""The relay through NATS JetStream end to end (DESIGN §10): two daemons, "server" (publishes its
notices) and "desk" (shows the other hosts' notices), each on its own runtime directory and store,
through a real nats-server: delivery once each and in order, a desk or NATS that was down, a
publisher that starts with NATS down, a three-node cluster losing a node, keys across hosts, and
what goes wrong (credentials, TLS, permissions, garbage on the stream) never stopping local service.

nats-py (a client nobody here wrote) looks into the stream and injects messages of its own."""

import collections
import json
import os
import re
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from conftest import BIN, Connection, Daemon, wait_for
from relay_helpers import (
    NatsCluster, NatsServer, free_port, make_ca, make_server_cert, missing_tools, secret_file, tls_context)
# The popup tests' headless sway, for the relayed notice on the desk's screen.
from test_popups_wayland import session, user  # noqa: F401 — fixtures

QUEUE = "io.notifyd.Queue"
# Notices that show and finish at once on both hosts: they never hold a slot for long.
FAST = {"fadeIn": 0, "hold": 0.05, "fadeOut": 0}
# States of a relay that is not connected (and may never be, with these settings).
NOT_CONNECTED = ("connecting", "reconnecting", "failed")

BASE_CONFIG = """\
[Queue]
MaxVisible=50
HistorySize=10000
StackDuplicates=no

[DBus]
Mode=off

[Display]
Mode=off

[Relay]
"""


def stream_name(subject):
    return "NOTIFYD_" + re.sub(r"[^A-Za-z0-9_-]", "_", subject)


def one_line(text):
    return isinstance(text, str) and text.strip() != "" and "\n" not in text and "\r" not in text


# MARK: - Daemons


class RelayDaemon(Daemon):
    """A notifyd with a [Relay] section, and the calls these tests make of it."""

    def __init__(self, host, runtime_dir, config_path, subject):
        super().__init__(runtime_dir, ["--config", str(config_path)])
        self.host = host
        self.subject = subject
        self.config_path = config_path

    def kill(self):
        if self.process is not None:
            super().kill()

    def call(self, method, parameters=None, timeout=30):
        connection = Connection(self.socket_path, timeout=timeout)
        try:
            reply = connection.call(f"{QUEUE}.{method}", parameters)
        finally:
            connection.close()
        if "error" in reply:
            raise AssertionError(f"{self.host}: {method}({parameters}) answered {reply}")
        return reply.get("parameters", {})

    def relay(self):
        relay = self.call("Status").get("relay")
        assert relay is not None, f"{self.host}: Status has no relay although [Relay] is configured"
        return relay

    def show(self, title, **fields):
        return self.call("Show", {"title": title, **fields})["id"]

    def send(self, notices):
        """Shows each of `notices` (Show parameters) over one connection, in order; answers the ids."""
        connection = Connection(self.socket_path, timeout=30)
        ids = []
        try:
            for parameters in notices:
                reply = connection.call(f"{QUEUE}.Show", parameters)
                assert "error" not in reply, f"{self.host}: Show({parameters}) answered {reply}"
                ids.append(reply["parameters"]["id"])
        finally:
            connection.close()
        return ids

    def listed(self):
        return self.call("List")["notices"]

    def notices(self):
        """Every notice this daemon knows, unfinished and finished, each once (by id). List is read
        before History, so a notice that finishes between the two reads is in one of them."""
        connection = Connection(self.socket_path, timeout=60)
        try:
            listed = connection.call(f"{QUEUE}.List")
            history = connection.call(f"{QUEUE}.History", {"limit": 100000})
        finally:
            connection.close()
        assert "error" not in listed and "error" not in history, (listed, history)
        known = {n["id"]: n for n in history["parameters"]["notices"]}
        known.update({n["id"]: n for n in listed["parameters"]["notices"]})
        return [known[i] for i in sorted(known)]

    def relayed(self, host="server"):
        """The relayed notices from `host`, by id here."""
        return [n for n in self.notices() if (n.get("origin") or {}).get("host") == host]


def relay_config(urls, subject, host, publish, subscribe, max_age="1h", extra=""):
    return BASE_CONFIG + (
        f"URL={','.join(urls)}\nSubject={subject}\nHost={host}\n"
        f"Publish={'yes' if publish else 'no'}\nSubscribe={'yes' if subscribe else 'no'}\n"
        f"MaxAge={max_age}\n{extra}")


@pytest.fixture
def nats_tools():
    reason = missing_tools()
    if reason:
        pytest.fail(f"the relay tests need a real NATS server and client: {reason}")


@pytest.fixture
def subject():
    """A subject of this test's own, so that nothing another test left in a stream reaches it."""
    return f"notifyd.t{uuid.uuid4().hex[:12]}"


@pytest.fixture
def nats_server(nats_tools, runtime_dir):
    """Starts nats-server -js on a free port with a store of its own (extra config text optional);
    each can be killed and started again on the same port and store. All are killed at teardown."""
    servers = []

    def make(config="", start=True, scheme="nats", connect_options=None):
        name = f"nats{len(servers) + 1}"
        server = NatsServer(runtime_dir / name, config, scheme=scheme, connect_options=connect_options, name=name)
        servers.append(server)
        if start:
            server.start()
        return server

    yield make
    for server in servers:
        server.kill()


@pytest.fixture
def nats_cluster(nats_tools, runtime_dir):
    clusters = []

    def make():
        cluster = NatsCluster(runtime_dir / f"cluster{len(clusters) + 1}")
        clusters.append(cluster)
        return cluster.start()

    yield make
    for cluster in clusters:
        cluster.kill_all()


@pytest.fixture
def relay_daemon(runtime_dir, subject):
    """make(host, urls, publish, subscribe, …): a notifyd as `host` with a [Relay] config, on a runtime
    directory of its own under runtime_dir (a short path: AF_UNIX socket paths are at most 107 bytes,
    which pytest's tmp_path may pass); `directory` names another for a fresh daemon of the same host."""
    daemons = []

    def make(host, urls, publish, subscribe, max_age="1h", extra="", directory=None, start=True):
        home = runtime_dir / (directory or host)
        home.mkdir(mode=0o700)
        config = home / "relay.conf"
        config.write_text(relay_config(urls, subject, host, publish, subscribe, max_age, extra))
        daemon = RelayDaemon(host, home, config, subject)
        daemons.append(daemon)
        if start:
            daemon.start()
        return daemon

    yield make
    for daemon in daemons:
        daemon.kill()


@pytest.fixture
def desk_and_server(relay_daemon):
    """make(urls, desk_max_age="1h"): desk (Subscribe=yes, Publish=no) and server (Publish=yes,
    Subscribe=no), both connected, and the desk's durable consumer in place."""
    def make(urls, peer, desk_max_age="1h", extra=""):
        desk = relay_daemon("desk", urls, publish=False, subscribe=True, max_age=desk_max_age, extra=extra)
        server = relay_daemon("server", urls, publish=True, subscribe=False, extra=extra)
        wait_connected(desk)
        wait_connected(server)
        wait_consumer(peer, desk)
        return desk, server
    return make


def wait_connected(daemon, timeout=30):
    last = {}

    def connected():
        last["relay"] = daemon.relay()
        return last["relay"] if last["relay"]["state"] == "connected" else None
    try:
        relay = wait_for(connected, timeout=timeout, interval=0.05, what=f"{daemon.host}'s relay to connect")
    except AssertionError as error:
        raise AssertionError(f"{error}; its relay: {last.get('relay')}; its stderr ends:\n{daemon.stderr()[-2000:]}") from None
    assert one_line(relay["detail"]), relay
    return relay


def wait_relay(daemon, condition, what, timeout=30):
    """Waits until `condition(relay)` holds for the daemon's Status relay; answers that relay."""
    last = {}

    def check():
        last["relay"] = daemon.relay()
        return last["relay"] if condition(last["relay"]) else None
    try:
        return wait_for(check, timeout=timeout, interval=0.05, what=what)
    except AssertionError as error:
        raise AssertionError(f"{error}; {daemon.host}'s relay: {last.get('relay')}; its stderr ends:\n"
                             f"{daemon.stderr()[-2000:]}") from None


def wait_outbox_empty(server):
    """Waits for the server's outbox to empty once the desk has everything: JetStream's
    acknowledgement of the last notice can reach the server after the desk has it (an ASan run saw
    the outbox at 1 there), so it is waited for, not read once."""
    wait_relay(server, lambda r: r["outbox"] == 0, "the server's outbox to empty")


def wait_consumer(peer, desk, timeout=30):
    """The desk's durable consumer exists: from now on the stream keeps what the desk has not taken."""
    stream = stream_name(desk.subject)
    return wait_for(lambda: peer.try_consumer(stream, f"notifyd_{desk.host}"), timeout=timeout, interval=0.1,
                    what=f"the consumer notifyd_{desk.host} on {stream}")


def wait_stream_holds(peer, subject, host, count, timeout=60):
    """The stream holds `count` messages published by `host` (on <subject>.notice.<host>)."""
    on = f"{subject}.notice.{host}"

    def holds():
        try:
            return peer.count(stream_name(subject), on) >= count
        except Exception:  # noqa: BLE001 — NATS not answering yet
            return False
    wait_for(holds, timeout=timeout, interval=0.1, what=f"the stream to hold {count} messages on {on}")


def wait_drained(peer, desk, timeout=60):
    """The desk's consumer has nothing left to deliver and nothing delivered unacknowledged: whatever
    JetStream would redeliver has been, so a duplicate would be on the desk by now."""
    stream, name = stream_name(desk.subject), f"notifyd_{desk.host}"
    last = {}

    def drained():
        info = peer.try_consumer(stream, name)
        last["info"] = info
        return info is not None and info.num_pending == 0 and info.num_ack_pending == 0
    try:
        wait_for(drained, timeout=timeout, interval=0.2, what=f"{name} to be drained and acknowledged")
    except AssertionError as error:
        info = last.get("info")
        raise AssertionError(
            f"{error}: pending {getattr(info, 'num_pending', '?')}, unacknowledged "
            f"{getattr(info, 'num_ack_pending', '?')}, redelivered {getattr(info, 'num_redelivered', '?')}") from None


def wait_arrived(desk, origin_ids, timeout, host="server"):
    """Waits until every one of `origin_ids` (ids on `host`) is on the desk; answers its relayed notices."""
    wanted = set(origin_ids)
    seen = {}

    def arrived():
        relayed = desk.relayed(host)
        seen["count"] = len(wanted & {n["origin"]["id"] for n in relayed})
        return relayed if seen["count"] == len(wanted) else None
    try:
        return wait_for(arrived, timeout=timeout, interval=0.25, what=f"{len(wanted)} notices from {host} on the desk")
    except AssertionError as error:
        raise AssertionError(f"{error}: {seen.get('count')} arrived; desk stderr ends:\n{desk.stderr()[-2000:]}") from None


def assert_each_once(relayed, sent, in_order=True):
    """Each origin id of `sent` is on the desk exactly once, nothing else from that host is; in_order:
    the desk's ids rise with the origin's."""
    counts = collections.Counter(n["origin"]["id"] for n in relayed)
    twice = {i: c for i, c in counts.items() if c > 1}
    missing = set(sent) - set(counts)
    unknown = set(counts) - set(sent)
    assert not twice, f"shown more than once on the desk (origin id: times): {dict(list(twice.items())[:10])}"
    assert not missing, f"{len(missing)} of {len(sent)} never arrived: {sorted(missing)[:10]}"
    assert not unknown, f"the desk has origin ids nobody sent: {sorted(unknown)[:10]}"
    if in_order:
        by_origin = sorted(relayed, key=lambda n: n["origin"]["id"])
        desk_ids = [n["id"] for n in by_origin]
        out_of_order = [(a["origin"]["id"], b["origin"]["id"]) for a, b in zip(by_origin, by_origin[1:])
                        if b["id"] < a["id"]]
        assert desk_ids == sorted(desk_ids), f"shown out of origin order (origin ids swapped): {out_of_order[:10]}"


def numbered(count, start=1, prefix="n", **fields):
    """Show parameters of `count` notices with titles of their own (no two merge as duplicates)."""
    return [{"title": f"{prefix} {i}", "app": "build", **FAST, **fields} for i in range(start, start + count)]


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
    marker = server.show("marker", **FAST)
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
    fresh = server.show("fresh", fadeIn=0, hold=600, fadeOut=0)
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
    server.call("Suspend", {"allow": "none"})
    desk.call("Suspend", {"allow": "none"})
    building = server.show("building", **kept)
    built = server.show("built", **kept)
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
    wait_for(lambda: desk.call("Get", {"id": shown["id"]})["notice"]["phase"] == "holding", what="'built' visible on the desk")
    deployed = server.show("deployed", **kept)
    assert server.call("Get", {"id": built})["notice"].get("outcome") == "replaced"
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
    local = daemon.show(f"local while the relay is down {uuid.uuid4().hex[:6]}", fadeIn=0, hold=600, fadeOut=0)
    assert local in [n["id"] for n in daemon.listed()]
    assert daemon.call("Get", {"id": local})["notice"]["phase"] != "finished"
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
    sent = server.show("over TLS", **FAST)
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
    server.show("denied on the way out", **FAST)
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
    good = server.show("good", fadeIn=0, hold=600, fadeOut=0)
    laptop = {"host": "laptop", "store": "0123abcd", "id": 7, "sent": time.time(),
              "notice": {"title": "from the laptop", "app": "mail", "urgency": "critical"}}
    peer.publish(f"{subject}.notice.laptop", [json.dumps(laptop).encode()], headers={"Nats-Msg-Id": "laptop/0123abcd/7"})
    wait_arrived(desk, [good], timeout=30)
    wait_arrived(desk, [7], timeout=30, host="laptop")
    wait_drained(peer, desk)
    relay = wait_relay(desk, lambda r: r["dropped"] == len(bad), f"relay.dropped to count the {len(bad)} bad messages")
    assert relay["state"] == "connected", relay

    relayed = [n for n in desk.notices() if n.get("origin")]
    assert sorted((n["origin"]["host"], n["title"]) for n in relayed) == [("laptop", "from the laptop"), ("server", "good")], relayed
    from_laptop = next(n for n in relayed if n["origin"]["host"] == "laptop")
    assert from_laptop["app"] == "mail@laptop" and from_laptop["urgency"] == "critical", from_laptop
    origin = from_laptop["origin"]
    assert (origin["host"], origin["store"], origin["id"]) == ("laptop", "0123abcd", 7), origin
    assert origin["sent"] == pytest.approx(laptop["sent"], abs=0.001), origin
    assert not [n for n in desk.notices() if n["title"] == "too big" or "evil" in (n.get("app") or "")]
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

    sent = server.show("seen through notifyctl", app="backup", fadeIn=0, hold=600, fadeOut=0)
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
        assert "relay" not in _status(plain)
        assert not [line for line in plain.notifyctl("status", check=True).stdout.splitlines()
                    if line.lower().startswith("relay")]
    finally:
        assert plain.stop() == 0


def _status(daemon):
    connection = Connection(daemon.socket_path)
    try:
        return connection.call(f"{QUEUE}.Status")["parameters"]
    finally:
        connection.close()


# MARK: - Answers back


def _show_and_wait(server, *args):
    """`notifyctl show --wait …` on the server, running: it returns when the desk answers."""
    environment = dict(server.env, NOTIFYD_SOCKET=server.socket_path)
    return subprocess.Popen([*server.notifyctl_command(), "show", "--wait", *args], env=environment, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _on_the_desk(desk, title):
    def visible():
        found = [n for n in desk.listed() if n.get("origin") and n["title"] == title]
        return found[0] if found and found[0]["phase"] == "holding" else None
    return wait_for(visible, timeout=30, interval=0.05, what=f"{title!r} visible on the desk")


@pytest.mark.parametrize("answer", ["invoked", "dismissed"])
def test_show_wait_on_the_server_returns_what_the_desk_did(nats_server, desk_and_server, subject, answer):
    nats = nats_server()
    desk, server = desk_and_server([nats.url], nats.client())
    title = f"Deploy? {answer}"
    waiting = _show_and_wait(server, "--action", "ok=Approve", "--action", "no=Reject", "--hold", "10m", title)
    try:
        shown = _on_the_desk(desk, title)
        assert shown["actions"] == [{"key": "ok", "label": "Approve"}, {"key": "no", "label": "Reject"}]
        # The server draws no popups: its notice waits for the desk's answer, it has not finished.
        assert waiting.poll() is None, waiting.communicate()
        origin = shown["origin"]["id"]
        assert server.call("Get", {"id": origin})["notice"].get("outcome") is None
        if answer == "invoked":
            desk.call("Invoke", {"id": shown["id"], "action": "ok"})
        else:
            desk.call("Dismiss", {"id": shown["id"]})
        stdout, stderr = waiting.communicate(timeout=30)
    finally:
        if waiting.poll() is None:
            waiting.kill()
    if answer == "invoked":
        assert waiting.returncode == 0, stderr
        assert stdout.strip().splitlines()[-1] == "ok", stdout
        notice = server.call("Get", {"id": origin})["notice"]
        assert (notice["outcome"], notice["invoked"]) == ("completed", "ok"), notice
    else:
        assert waiting.returncode == 6, (stdout, stderr)
        assert server.call("Get", {"id": origin})["notice"]["outcome"] == "dismissed"
    assert "on desk" in server.stderr()


# MARK: - notifyctl --relay, no daemon on the host


class BareHost:
    """A host with notifyctl and nothing else: no daemon (its runtime directory is empty), a home of
    its own with the [Relay] section of notifyd.conf, and state under $XDG_STATE_HOME."""

    def __init__(self, directory, relay_section):
        self.home = directory
        self.home.mkdir(mode=0o700)
        (self.home / "runtime").mkdir(mode=0o700)
        config = self.home / "config" / "notifyd"
        config.mkdir(parents=True)
        (config / "notifyd.conf").write_text("[Relay]\n" + relay_section)
        self.env = {
            "PATH": "/usr/bin:/bin", "HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home / "config"),
            "XDG_STATE_HOME": str(self.home / "state"), "XDG_RUNTIME_DIR": str(self.home / "runtime"),
        }

    def command(self, url, *args):
        return [str(BIN / "notifyctl"), "--relay", url, *args]

    def run(self, url, *args, timeout=30):
        return subprocess.run(self.command(url, *args), env=self.env, text=True, capture_output=True,
                              timeout=timeout)

    def start(self, url, *args):
        return subprocess.Popen(self.command(url, *args), env=self.env, text=True, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)

    def origin(self):
        return (self.home / "state" / "notifyd" / "relay-origin").read_text().split()


@pytest.fixture
def bare_host(runtime_dir, subject):
    def make(extra="", host="cron", name="bare"):
        return BareHost(runtime_dir / name, f"Subject={subject}\nHost={host}\n{extra}")
    make.subject = subject
    return make


def test_notifyctl_relay_publishes_without_a_daemon_each_once_in_order_under_one_origin(
        nats_server, relay_daemon, bare_host, subject):
    nats = nats_server()
    peer = nats.client()
    desk = relay_daemon("desk", [nats.url], publish=False, subscribe=True)
    wait_connected(desk)
    wait_consumer(peer, desk)
    host = bare_host()
    first = host.run(nats.url, "show", "--app", "backup", "--hold", "0.05", "--fade-in", "0", "--fade-out", "0",
                     "nightly backup done", "3.2 GiB")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "1", first.stdout
    # Sixteen at once, as cron jobs starting in the same minute: each takes its own id, in the order
    # the stream gets them, so that the desk's mark for this origin never takes one for a redelivery.
    running = [host.start(nats.url, "show", "--app", "backup", "--hold", "0.05", "--fade-in", "0",
                          "--fade-out", "0", f"job {i}") for i in range(16)]
    ids = []
    for process in running:
        stdout, stderr = process.communicate(timeout=60)
        assert process.returncode == 0, stderr
        ids.append(int(stdout.strip()))
    assert sorted(ids) == list(range(2, 18)), ids
    store, last = host.origin()
    assert len(store) == 16 and int(last) == 17

    relayed = wait_arrived(desk, range(1, 18), timeout=60, host="cron")
    wait_drained(peer, desk)
    relayed = desk.relayed("cron")
    assert_each_once(relayed, range(1, 18))
    assert {n["origin"]["store"] for n in relayed} == {store}
    backup = next(n for n in relayed if n["origin"]["id"] == 1)
    assert (backup["app"], backup["title"], backup["body"]) == ("backup@cron", "nightly backup done", "3.2 GiB")
    assert peer.count(stream_name(subject), f"{subject}.notice.cron") == 17


@pytest.mark.parametrize("answer", ["invoked", "dismissed"])
def test_notifyctl_relay_show_wait_returns_what_the_desk_did(nats_server, relay_daemon, bare_host, answer):
    nats = nats_server()
    desk = relay_daemon("desk", [nats.url], publish=False, subscribe=True)
    wait_connected(desk)
    wait_consumer(nats.client(), desk)
    host = bare_host()
    title = f"Deploy from cron? {answer}"
    waiting = host.start(nats.url, "show", "--wait", "--action", "ok=Approve", "--action", "no=Reject",
                         "--hold", "10m", title)
    try:
        shown = _on_the_desk(desk, title)
        assert shown["app"] == "cron" and shown["origin"]["host"] == "cron", shown
        assert waiting.poll() is None, waiting.communicate()
        if answer == "invoked":
            desk.call("Invoke", {"id": shown["id"], "action": "ok"})
        else:
            desk.call("Dismiss", {"id": shown["id"]})
        stdout, stderr = waiting.communicate(timeout=30)
    finally:
        if waiting.poll() is None:
            waiting.kill()
    if answer == "invoked":
        assert (waiting.returncode, stdout) == (0, "ok\n"), stderr
    else:
        assert (waiting.returncode, stdout) == (6, ""), stderr


def test_notifyctl_relay_signs_in_with_the_config_s_relay_keys_and_says_what_is_wrong_in_one_line(
        nats_server, relay_daemon, bare_host, runtime_dir, subject):
    nats = nats_server(config="authorization {\n  users = [\n    {user: cron, password: right}\n  ]\n}\n",
                       connect_options={"user": "cron", "password": "right"})
    peer = nats.client()
    right = secret_file(runtime_dir / "right.password", "right")
    wrong = secret_file(runtime_dir / "wrong.password", "wrong")
    on = f"{subject}.notice.cron"

    def refused(result, *words):
        assert result.returncode == 1, (result.stdout, result.stderr)
        assert result.stdout == "", result.stdout
        line = result.stderr
        assert line.startswith("notifyctl: ") and line.count("\n") == 1, line
        for word in words:
            assert word in line.lower(), line
        return line

    good = bare_host(f"User=cron\nPasswordFile={right}\n", name="good")
    assert good.run(nats.url, "show", "signed in").returncode == 0
    assert peer.count(stream_name(subject), on) == 1

    refused(bare_host(f"User=cron\nPasswordFile={wrong}\n", name="wrong").run(nats.url, "show", "x"), "authorization")
    refused(bare_host(f"User=cron\nPasswordFile={runtime_dir}/absent\n", name="no-file").run(nats.url, "show", "x"),
            "passwordfile=", "no such file")
    refused(bare_host(f"User=cron\nPasswordFile={runtime_dir}\n", name="directory").run(nats.url, "show", "x"),
            "passwordfile=", "is a directory")
    refused(good.run(f"nats://127.0.0.1:{free_port()}", "show", "x"), "cannot connect", "127.0.0.1")
    refused(good.run(nats.url, "show", "t" * 1025), "title", "longer than 1 kib")
    refused(good.run(nats.url, "show", "--key", "k" * 257, "x"), "key", "longer than 256 bytes")
    # None of those reached the stream; the next good one does, with the next id.
    second = good.run(nats.url, "show", "signed in again")
    assert (second.returncode, second.stdout) == (0, "2\n"), second.stderr
    assert peer.count(stream_name(subject), on) == 2

    usage = good.run(nats.url, "list")
    assert usage.returncode == 2 and "show only" in usage.stderr, usage.stderr
    usage = good.run("http://example.org", "show", "x")
    assert usage.returncode == 2 and "nats://" in usage.stderr, usage.stderr
    usage = good.run(nats.url, "show", "--after", "3", "x")
    assert usage.returncode == 2 and "--after" in usage.stderr, usage.stderr


# MARK: - On the desk's screen


def test_a_relayed_notice_pops_up_on_the_desks_screen_as_app_at_host(nats_server, bare_host, session):
    """The desk draws relayed notices as it draws its own (headless sway, grim): published with no
    daemon on the sending host, it pops up, and the desk knows it as backup@cron."""
    from test_popups_wayland import OUTPUT, MARGIN, WIDTH, display_config
    sway, make_daemon = session
    nats = nats_server()
    desk = make_daemon(display_config() + (
        f"[Relay]\nURL={nats.url}\nSubject={bare_host.subject}\nHost=desk\nPublish=no\nSubscribe=yes\n"))
    wait_for(lambda: json.loads(desk.notifyctl("status", "--json", check=True).stdout)["relay"]["state"] == "connected",
             timeout=30, interval=0.05, what="the desk's relay to connect")
    host = bare_host()
    sent = host.run(nats.url, "show", "--app", "backup", "--fade-in", "0", "--hold", "60s", "Backup done",
                    "412 GiB in 3h12m")
    assert sent.returncode == 0, sent.stderr
    shot = wait_for(lambda: (lambda image: image if image.box() else None)(sway.screenshot()), timeout=30,
                    what="the relayed notice's popup")
    x0, y0, x1, _ = shot.box()
    assert (x0, y0, x1) == (OUTPUT[0] - MARGIN - WIDTH, MARGIN, OUTPUT[0] - MARGIN), shot.box()
    listed = json.loads(desk.notifyctl("list", "--json", check=True).stdout)["notices"]
    assert [(n["app"], n["title"], n["origin"]["host"]) for n in listed] == [("backup@cron", "Backup done", "cron")]
    keep = os.environ.get("NOTIFYD_SCREENSHOTS")
    if keep:
        sway.save(Path(keep) / "relayed-notice.png")
