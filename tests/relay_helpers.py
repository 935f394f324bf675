"""What the relay tests (test_relay.py, test_relay_answers.py; DESIGN §10) run: daemons with a
[Relay] section (`RelayDaemon`, fixtures `relay_daemon` and `desk_and_server`), what they wait for,
nats-server processes (one node, or a three-node JetStream cluster), certificates made with openssl,
and a small blocking wrapper around nats-py (a NATS client nobody here wrote) to look into streams
and inject messages."""

import asyncio
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import urllib.request
from pathlib import Path

try:
    import nats
    from nats.js.errors import NotFoundError
except ImportError:  # the tests say so, clearly, rather than erroring at collection
    nats = None
    NotFoundError = None

import collections
import re
import uuid

import pytest

from conftest import Connection, Daemon, wait_for

NATS_SERVER = shutil.which("nats-server") or ("/usr/sbin/nats-server" if Path("/usr/sbin/nats-server").exists() else None)


def missing_tools():
    """Why the relay tests cannot run here, or None. scripts/deps.sh installs both."""
    if NATS_SERVER is None:
        return "nats-server is not installed (Debian package nats-server; scripts/deps.sh installs it)"
    if nats is None:
        return "the Python NATS client is not installed (pip install nats-py; scripts/deps.sh installs it)"
    return None


def free_ports(count):
    """`count` distinct TCP ports free on 127.0.0.1 now (held open together, so never the same twice)."""
    sockets = []
    try:
        for _ in range(count):
            probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            probe.bind(("127.0.0.1", 0))
            sockets.append(probe)
        return [probe.getsockname()[1] for probe in sockets]
    finally:
        for probe in sockets:
            probe.close()


def free_port():
    return free_ports(1)[0]


def accepts(port, host="127.0.0.1"):
    """Whether something accepts TCP connections on `port` and greets like a NATS server (INFO)."""
    try:
        with socket.create_connection((host, port), timeout=0.5) as probe:
            probe.settimeout(1)
            return probe.recv(5) == b"INFO "
    except OSError:
        return False


def http_json(port, path):
    """The JSON a nats-server monitoring endpoint answers (its status code aside), or None."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as reply:
            return json.loads(reply.read())
    except urllib.error.HTTPError as error:
        try:
            return json.loads(error.read())
        except ValueError:
            return None
    except (OSError, ValueError):
        return None


# MARK: - nats-server


class NatsServer:
    """One nats-server with JetStream on 127.0.0.1: a port and store directory of its own that stay
    the same across kill and start, so a restart is the same server coming back.

    `config` is extra nats-server config text (authorization, tls); `standalone=False` means it is
    the whole config (a cluster node), ports included, and the command line adds nothing."""

    def __init__(self, directory, config="", port=None, monitor_port=None, standalone=True,
                 scheme="nats", connect_options=None, name="nats"):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.name = name
        # Chosen together: two free_port() calls were once handed the same port (the first closed
        # before the second asked), and nats-server's monitor took the port its clients needed.
        spare = [free for free in free_ports(3) if free not in (port, monitor_port)]
        self.port = port or spare[0]
        self.monitor_port = monitor_port or spare[1]
        self.store_dir = self.directory / "store"
        self.config = config
        self.standalone = standalone
        self.scheme = scheme
        # What a nats-py client needs to get in (user, password, tls): see NatsPeer.
        self.connect_options = dict(connect_options or {})
        self.config_path = self.directory / "nats.conf"
        self.log_path = self.directory / "nats.log"
        self.process = None
        self.starts = 0

    @property
    def url(self):
        return f"{self.scheme}://127.0.0.1:{self.port}"

    def command(self):
        command = [NATS_SERVER]
        if self.config or not self.standalone:
            self.config_path.write_text(self.config)
            command += ["-c", str(self.config_path)]
        if self.standalone:
            command += ["-js", "-a", "127.0.0.1", "-p", str(self.port), "-m", str(self.monitor_port),
                        "-sd", str(self.store_dir)]
        return command

    def start(self, wait=True, timeout=30):
        assert not self.running(), f"{self.name} is already running"
        self.starts += 1
        with open(self.log_path, "ab") as log:
            log.write(f"---- start {self.starts}: {' '.join(self.command())}\n".encode())
            log.flush()
            self.process = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT)
        if wait:
            wait_for(self.ready, timeout=timeout, interval=0.05,
                     what=f"{self.name} to serve JetStream on {self.url}")
        return self

    def running(self):
        return self.process is not None and self.process.poll() is None

    def ready(self):
        """Accepts clients and says JetStream is healthy; fails at once if it exited."""
        if self.process is not None and self.process.poll() is not None:
            raise AssertionError(f"{self.name} exited with {self.process.returncode}:\n{self.log()}")
        if not accepts(self.port):
            return False
        health = http_json(self.monitor_port, "/healthz")
        return bool(health) and health.get("status") == "ok"

    def kill(self):
        """SIGKILL: no goodbye to clients, nothing flushed beyond what the store already has."""
        self._signal(signal.SIGKILL)

    def stop(self):
        self._signal(signal.SIGTERM)

    def _signal(self, sig):
        if not self.running():
            return
        self.process.send_signal(sig)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        # The port is free again before the test goes on (a restart binds it at once).
        wait_for(lambda: not accepts(self.port), timeout=10, what=f"{self.name}'s port {self.port} to close")

    def restart(self):
        self.kill()
        return self.start()

    def log(self, tail=4000):
        return self.log_path.read_text(errors="replace")[-tail:] if self.log_path.exists() else ""

    def client(self):
        return NatsPeer([self.url], **self.connect_options)

    def jsz(self):
        return http_json(self.monitor_port, "/jsz") or {}


class NatsCluster:
    """Three nats-server nodes in one JetStream cluster (`cluster { name, listen, routes }`,
    `jetstream { store_dir }`, a server_name each), all on 127.0.0.1."""

    def __init__(self, directory, size=3, name="notifyd"):
        ports = free_ports(3 * size)
        client, route, monitor = ports[:size], ports[size:2 * size], ports[2 * size:]
        routes = ", ".join(f"nats-route://127.0.0.1:{port}" for port in route)
        self.nodes = []
        for index in range(size):
            node_dir = Path(directory) / f"n{index + 1}"
            node_dir.mkdir(parents=True, exist_ok=True)
            config = (
                f"server_name: n{index + 1}\n"
                f"listen: 127.0.0.1:{client[index]}\n"
                f"http: 127.0.0.1:{monitor[index]}\n"
                f'jetstream {{ store_dir: "{node_dir / "store"}" }}\n'
                f"cluster {{\n  name: {name}\n  listen: 127.0.0.1:{route[index]}\n  routes: [{routes}]\n}}\n")
            self.nodes.append(NatsServer(node_dir, config, port=client[index], monitor_port=monitor[index],
                                         standalone=False, name=f"n{index + 1}"))

    @property
    def urls(self):
        return [node.url for node in self.nodes]

    def start(self, timeout=60):
        for node in self.nodes:
            node.start(wait=False)
        for node in self.nodes:
            wait_for(node.ready, timeout=timeout, interval=0.1, what=f"cluster node {node.name} to be healthy")
        wait_for(self.formed, timeout=timeout, interval=0.2, what="the JetStream cluster to elect a meta leader")
        # And a client of the cluster can use JetStream (the API answers through any node).
        wait_for(lambda: self.client().account_ok(), timeout=timeout, interval=0.2, what="JetStream to answer")
        return self

    def formed(self):
        """Every running node knows the same meta leader and sees all its peers current."""
        leaders = set()
        for node in self.nodes:
            if not node.running():
                continue
            meta = node.jsz().get("meta_cluster") or {}
            if not meta.get("leader") or meta.get("cluster_size") != len(self.nodes):
                return False
            if not all(peer.get("current") for peer in meta.get("replicas") or []):
                return False
            leaders.add(meta["leader"])
        return len(leaders) == 1

    def node(self, name):
        return next(node for node in self.nodes if node.name == name)

    def client(self):
        return NatsPeer([node.url for node in self.nodes if node.running()] or self.urls)

    def kill_all(self):
        for node in self.nodes:
            node.kill()

    def log(self):
        return "\n".join(f"== {node.name}\n{node.log(2000)}" for node in self.nodes)


# MARK: - nats-py, blocking


async def _quiet(*_):
    pass


class NatsPeer:
    """A NATS client for the tests' own looks and injections, through nats-py. Each call connects,
    does its work and closes: slow enough for checks, never in the daemon's way."""

    def __init__(self, servers, **options):
        self.servers = list(servers)
        self.options = options

    def run(self, work, timeout=15):
        async def main():
            connection = await nats.connect(
                servers=self.servers, connect_timeout=2, allow_reconnect=True, max_reconnect_attempts=1,
                reconnect_time_wait=0.1, error_cb=_quiet, disconnected_cb=_quiet, closed_cb=_quiet,
                **self.options)
            try:
                return await asyncio.wait_for(work(connection, connection.jetstream(timeout=5)), timeout)
            finally:
                await connection.close()
        return asyncio.run(main())

    def stream(self, name):
        """The stream's info (config, state, cluster), or None while there is no such stream."""
        async def work(_, js):
            try:
                return await js.stream_info(name)
            except NotFoundError:
                return None
        return self.run(work)

    def consumer(self, stream, name):
        async def work(_, js):
            try:
                return await js.consumer_info(stream, name)
            except NotFoundError:
                return None
        return self.run(work)

    def publish(self, subject, payloads, headers=None):
        """Publishes each of `payloads` through JetStream (each stored before the next goes); answers
        the acks. `headers` (one dict for all) may carry a Nats-Msg-Id of the test's choosing."""
        async def work(_, js):
            return [await js.publish(subject, payload, headers=headers) for payload in payloads]
        return self.run(work)

    def message(self, stream, seq):
        """The stored message `seq` of `stream`: subject, headers, data."""
        async def work(_, js):
            return await js.get_msg(stream, seq)
        return self.run(work)

    def first_message(self, stream, subject):
        """The first stored message of `stream` on `subject`."""
        async def work(_, js):
            return await js.get_msg(stream, seq=1, subject=subject, next=True)
        return self.run(work)

    def count(self, stream, subject):
        """How many messages `stream` holds on `subject` (0 while there is no such stream)."""
        async def work(_, js):
            try:
                info = await js.stream_info(stream, subjects_filter=subject)
            except NotFoundError:
                return 0
            return (info.state.subjects or {}).get(subject, 0)
        return self.run(work)

    def account_ok(self):
        async def work(_, js):
            return await js.account_info()
        try:
            return self.run(work, timeout=5) is not None
        except Exception:  # noqa: BLE001 — any failure means "not yet"
            return False

    # For wait_for: these answer None instead of raising while the server is away.

    def try_stream(self, name):
        try:
            return self.stream(name)
        except Exception:  # noqa: BLE001
            return None

    def try_consumer(self, stream, name):
        try:
            return self.consumer(stream, name)
        except Exception:  # noqa: BLE001
            return None


# MARK: - certificates


def openssl(*args, cwd):
    result = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"openssl {' '.join(args)} failed: {result.stderr}")
    return result


def make_ca(directory, name):
    """A self-signed CA (EC P-256): (certificate path, key path) in `directory`."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    cert, key = directory / f"{name}.pem", directory / f"{name}.key"
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", f"/CN=notifyd test {name}",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            cwd=directory)
    return cert, key


def make_server_cert(directory, ca, name="server", ip="127.0.0.1"):
    """A server certificate for `ip` (SAN IP:ip, serverAuth) signed by `ca` = (cert, key)."""
    directory = Path(directory)
    ca_cert, ca_key = ca
    cert, key, csr = directory / f"{name}.pem", directory / f"{name}.key", directory / f"{name}.csr"
    extensions = directory / f"{name}.ext"
    extensions.write_text(
        f"subjectAltName=IP:{ip}\nbasicConstraints=CA:FALSE\n"
        "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", str(key),
            "-out", str(csr), "-subj", f"/CN={ip}", cwd=directory)
    openssl("x509", "-req", "-in", str(csr), "-CA", str(ca_cert), "-CAkey", str(ca_key), "-CAcreateserial",
            "-out", str(cert), "-days", "2", "-extfile", str(extensions), cwd=directory)
    openssl("verify", "-CAfile", str(ca_cert), str(cert), cwd=directory)
    return cert, key


def tls_context(ca_cert):
    """A client TLS context that trusts only `ca_cert` (for nats-py)."""
    return ssl.create_default_context(cafile=str(ca_cert))


def secret_file(path, text):
    """A password or token file: the secret on its first line, readable by its owner only."""
    path = Path(path)
    path.write_text(text + "\n")
    os.chmod(path, 0o600)
    return path


# MARK: - Daemons with a relay, and what the tests wait for

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

    def relay(self):
        relay = self.call("Status").get("relay")
        assert relay is not None, f"{self.host}: Status has no relay although [Relay] is configured"
        return relay

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

    def known(self):
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
        return [n for n in self.known() if (n.get("origin") or {}).get("host") == host]


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
