"""Every attack of issue 13 at once, for a bounded time, against one daemon; afterwards its memory
and CPU are back where they were and a normal client is served promptly.

The attacks: oneway Watches that asked for more; Waits whose clients vanish; megabyte calls piled
up behind an unanswered Wait; clients that ask for long replies and never read; names and actions
past their limits. Meanwhile notices fade (so that frames flow to any watcher left behind) and a
normal client shows notices and times each call.
"""

import json
import os
import socket
import statistics
import threading
import time

import pytest

from conftest import Connection, Daemon, cpu_used_over, median_round_trip, rss_kib

ATTACK_SECONDS = float(os.environ.get("NOTIFYD_ATTACK_SECONDS", "10"))

CONFIG = """\
[Queue]
MaxVisible=20

[DBus]
Mode=off
"""


class Attack:
    def __init__(self, path, held):
        self.path = path
        self.held = held
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.counts = {}
        self.errors = []
        self.latencies = []
        self.kept_open = []

    def count(self, kind, n=1):
        with self.lock:
            self.counts[kind] = self.counts.get(kind, 0) + n

    def failed(self, what):
        with self.lock:
            self.errors.append(what)


def oneway_watchers(attack):
    while not attack.stop.is_set():
        try:
            client = Connection(attack.path)
        except BlockingIOError:
            time.sleep(0.001)
            continue
        call = {"method": "io.notifyd.Queue.Watch", "parameters": {"frames": True, "fps": 240}, "more": True, "oneway": True}
        try:
            client.socket.sendall((json.dumps(call).encode() + b"\0") * 200)
            for _ in range(200):
                if client.receive().get("error") != "io.notifyd.Queue.InvalidArgument":
                    attack.failed("a oneway Watch was not refused")
            attack.count("oneway watches", 200)
        except (BrokenPipeError, ConnectionResetError, ConnectionError):
            attack.count("refused")  # at the client limit, see vanishing_waiters
        client.close()


def vanishing_waiters(attack):
    while not attack.stop.is_set():
        try:
            client = Connection(attack.path)
        except BlockingIOError:
            # The listen backlog is full: the daemon accepts as fast as it can; try again.
            attack.count("backlog full")
            time.sleep(0.001)
            continue
        try:
            client.send("io.notifyd.Queue.Wait", {"id": attack.held})
            attack.count("vanished waits")
        except (BrokenPipeError, ConnectionResetError):
            # Refused: the daemon serves its maximum of clients (those that vanished and are not
            # reaped yet count until it has read their end of file).
            attack.count("refused")
        client.close()


def byte_pinner(attack):
    """A Wait, then megabyte calls until the daemon stops reading; kept open to the end."""
    client = Connection(attack.path)
    client.send("io.notifyd.Queue.Wait", {"id": attack.held})
    call = b'{"method": "io.notifyd.Queue.Status", "parameters": {"pad": "' + b"x" * ((1 << 20) - 100) + b'"}}\0'
    client.socket.settimeout(0.5)
    sent = 0
    while not attack.stop.is_set():
        try:
            sent += client.socket.send(call[sent % len(call):])
        except socket.timeout:
            continue
    with attack.lock:
        attack.kept_open.append(client)
    attack.count("pinned MiB", sent >> 20)


def non_reader(attack):
    """Asks for the long List, again and again, and reads nothing; kept open to the end."""
    client = Connection(attack.path)
    client.socket.settimeout(0.5)
    while not attack.stop.is_set():
        try:
            client.socket.sendall(b'{"method": "io.notifyd.Queue.List"}\0')
            attack.count("unread Lists")
        except socket.timeout:
            attack.stop.wait(0.5)
    with attack.lock:
        attack.kept_open.append(client)


def oversized(attack):
    client = Connection(attack.path)
    bad = [{"title": "x", "app": "a" * 300}, {"title": "x", "key": "k" * 300},
           {"title": "x", "actions": [{"key": f"k{i}", "label": "l" * 300} for i in range(20)]}]
    while not attack.stop.is_set():
        for parameters in bad:
            if client.call("io.notifyd.Queue.Show", parameters).get("error") != "io.notifyd.Queue.InvalidArgument":
                attack.failed(f"oversized {list(parameters)} was accepted")
        attack.count("oversized")
    client.close()


def fader(attack):
    client = Connection(attack.path)
    while not attack.stop.is_set():
        client.call("io.notifyd.Queue.Show", {"title": "fading", "fadeIn": 0.3, "hold": 0, "fadeOut": 0.3})
        attack.stop.wait(0.1)
    client.close()


def normal_client(attack):
    client = Connection(attack.path, timeout=30)
    while not attack.stop.is_set():
        started = time.monotonic()
        reply = client.call("io.notifyd.Queue.Show", {"title": "normal", "fadeIn": 0, "hold": 0.05, "fadeOut": 0})
        with attack.lock:
            attack.latencies.append(time.monotonic() - started)
        if "error" in reply:
            attack.failed(f"a normal Show failed: {reply}")
        attack.stop.wait(0.05)
    client.close()


@pytest.fixture
def attacked(runtime_dir):
    config = runtime_dir / "attack.conf"
    config.write_text(CONFIG)
    daemon = Daemon(runtime_dir, ["--config", str(config), "--log-level", "warning"]).start()
    yield daemon
    if daemon.process.poll() not in (None, 0):
        print(f"notifyd exited with {daemon.process.returncode}; its stderr:\n{daemon.stderr()[-4000:]}")
    daemon.kill()


@pytest.mark.alone
def test_every_attack_at_once_leaves_memory_and_cpu_flat_and_a_normal_client_served(attacked):
    daemon = attacked
    pid = daemon.process.pid
    setup = Connection(daemon.socket_path)
    held = setup.call("io.notifyd.Queue.Show", {"title": "held", "urgency": "critical", "fadeIn": 0})["parameters"]["id"]
    # Long notices for the List that nobody reads: 100 of 96 KiB once escaped.
    setup.call("io.notifyd.Queue.Suspend")
    setup.socket.sendall(b"".join(
        json.dumps({"method": "io.notifyd.Queue.Show", "parameters": {"title": f"long {i}", "body": "\x01" * 16384}}).encode() + b"\0"
        for i in range(100)))
    for _ in range(100):
        assert "error" not in setup.receive()
    setup.call("io.notifyd.Queue.Resume")
    setup.close()
    # Warm up what steady use allocates, then take the baseline.
    warm = Connection(daemon.socket_path)
    for _ in range(2000):
        warm.call("io.notifyd.Queue.Show", {"title": "warm", "fadeIn": 0, "hold": 0.01, "fadeOut": 0})
    warm.close()
    time.sleep(1)
    baseline_rss = rss_kib(pid)
    baseline_trip = median_round_trip(daemon.socket_path)

    attack = Attack(daemon.socket_path, held)
    kinds = [(oneway_watchers, 2), (vanishing_waiters, 4), (byte_pinner, 4), (non_reader, 4), (oversized, 1),
             (fader, 1), (normal_client, 1)]
    threads = [threading.Thread(target=guarded(target, attack), daemon=True) for target, n in kinds for _ in range(n)]
    for thread in threads:
        thread.start()
    time.sleep(ATTACK_SECONDS)
    during_rss = rss_kib(pid)
    attack.stop.set()
    for thread in threads:
        thread.join(timeout=30)
    assert not [t for t in threads if t.is_alive()], "some attackers did not stop"
    assert not attack.errors, (attack.errors[:5], daemon.stderr()[-3000:])
    for client in attack.kept_open:
        client.close()
    assert daemon.process.poll() is None, daemon.stderr()[-2000:]

    # Each attack ran, and hard.
    assert attack.counts.get("oneway watches", 0) >= 1000, attack.counts
    assert attack.counts.get("vanished waits", 0) >= 1000, attack.counts
    assert attack.counts.get("unread Lists", 0) >= 4, attack.counts
    # Memory: what the attackers held while connected is bounded (4 pinners could have held
    # 4 GiB), and it is let go with them. What is in flight grows with how fast the daemon serves
    # the attackers (some 350,000 vanished Waits and 20,000 oneway Watches in 10 s, 85–100 MiB at
    # the peak on a 2-core machine): the bound is far from 4 GiB, not a measure of that speed.
    assert during_rss - baseline_rss < 192 << 10, f"RSS grew by {(during_rss - baseline_rss) >> 10} MiB during the attacks"
    # Once they are gone, what they made the daemon allocate is given back within a second or two.
    time.sleep(2)
    after_rss = rss_kib(pid)
    assert after_rss - baseline_rss < 16 << 10, f"RSS grew by {(after_rss - baseline_rss) >> 10} MiB and stayed"
    # CPU: with the attackers gone and nothing fading, the daemon is asleep.
    used = cpu_used_over(pid, 2.0)
    assert used < 0.1, f"after the attacks the daemon used {used:.2f} s of CPU in 2 s"
    # The normal client was served throughout, and is served promptly now.
    assert len(attack.latencies) >= ATTACK_SECONDS * 2, f"only {len(attack.latencies)} normal calls answered"
    assert max(attack.latencies) < 5, f"a normal call waited {max(attack.latencies):.2f} s during the attacks"
    after_trip = median_round_trip(daemon.socket_path)
    assert after_trip < max(10 * baseline_trip, 0.25), f"{after_trip * 1000:.1f} ms after, {baseline_trip * 1000:.1f} ms before"
    assert daemon.stop() == 0
    print(f"attacks: {attack.counts}; RSS {baseline_rss >> 10} → {during_rss >> 10} → {after_rss >> 10} MiB; "
          f"normal Show p50 {statistics.median(attack.latencies) * 1000:.1f} ms, max {max(attack.latencies) * 1000:.1f} ms")


def guarded(target, attack):
    def run():
        try:
            target(attack)
        except (OSError, ConnectionError, ValueError) as error:
            if not attack.stop.is_set():
                attack.failed(f"{target.__name__}: {error!r}")
    return run
