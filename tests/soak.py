#!/usr/bin/env python3
"""`make soak [SECONDS=180] [SEED=n]`: mixed load for a long while, with faults injected on a seeded
schedule, then every rule checked from the recorded history (issue 37).

What runs, all at once, as a person's session would have it:
- notifyd as a `systemd --user` service (a real user manager in a private mount namespace, socket
  activation, `WatchdogSec=2s`, restarted on failure), its store on a small tmpfs, drawing its cards
  on headless sway, serving org.freedesktop.Notifications on a private session bus, and publishing
  every notice through the relay to a three-node JetStream cluster; a second notifyd, the desk,
  takes them from it.
- Varlink clients: `Show` (one at a time and pipelined, some delayed, some waiting for another),
  `Progress`/`Update`/`End`, `Cancel` (by id, and the backlog by tag), `Invoke`, `Wait`, a `Watch`
  that records every event, and clients that die mid-call; D-Bus clients: `notify-send` (and `-r`
  replacing), `CloseNotification`; a person at the screen who finds a marker card by its pixels,
  clicks it with a virtual pointer and watches it go.
- Faults, one at a time on a schedule the seed decides and the report prints: the daemon SIGKILLed
  (systemd starts it again), SIGSTOPped past the watchdog (systemd aborts and restarts it),
  SIGSTOPped for less than the watchdog and continued, the session bus stopped and started again,
  one NATS node killed and started again, the store's filesystem filled and freed, the daemon's
  descriptors exhausted and given back, sway killed and started again, the machine's wall clock
  stepped and put back.

Afterwards, with the load stopped and every fault cleared, every notice left is cancelled, and the
history is checked (`Checker`): every acknowledged notice ended exactly once with one outcome, in the
host's history (read as the run goes: a long one passes a full history) and once on the desk; no id
was given twice; every `Wait` got at most one answer, with
the outcome its notice finished with; no notice the watcher saw finished came back with another
outcome; every marker was drawn, dismissed by its click and gone from the screen within two seconds of
finishing (or of the fault then under way clearing); the daemon's RSS, descriptors and threads are
within their bounds after every fault and at the end; it is idle afterwards, with no more threads
than it had at rest before (give or take two). A failed run keeps its
directory (seed, history, logs, a screenshot) and says where.
"""

import argparse
import bisect
import collections
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest import BIN, Connection, Daemon, cpu_seconds, rss_kib, unprivileged_user, wait_for  # noqa: E402
from popup_helpers import close_to  # noqa: E402
from relay_helpers import NatsCluster, NatsPeer, missing_tools  # noqa: E402
from test_bounds import HISTORY_KIB, open_file_limits  # noqa: E402
from test_dbus import SessionBus  # noqa: E402
from test_systemd import UserManager  # noqa: E402
from test_popups_wayland import OUTPUT, Sway  # noqa: E402
from wayland_pointer import VirtualPointer, WaylandError  # noqa: E402

QUEUE = "io.notifyd.Queue"
SUBJECT = "notifyd.soak"
STREAM = "NOTIFYD_notifyd_soak"
HOST = "soakhost"

# The host's cards, top right on sway's 1280×720 output. A person at the screen now and then gets a
# notice in the marker's colour (a rule's look, nothing else is red), finds it by its pixels down
# the column just inside the cards' right border, and clicks it.
WIDTH, MARGIN = 300, 20
COLUMN = OUTPUT[0] - MARGIN - 8
CLICK_X = OUTPUT[0] - MARGIN - 40
PARKED = (5, OUTPUT[1] - 5)
MARKER_APP = "soak-marker"
MARKER = (0xE0, 0x10, 0x10)
# A card is gone this long after its notice finished (its 50 ms fade-out is in `finished`): a frame,
# the compositor's repaint and a screenshot, on a machine running the whole load (measured: p50
# 0.04 s, at most 0.9 s); a card left on the screen stays for good.
GONE_WITHIN = 2.0

HOST_CONFIG = """\
[Queue]
MaxVisible=6
Capacity=200000
HistorySize={history}
StackDuplicates=no

[Timing]
FadeIn=50ms
Hold=300ms
FadeOut=50ms

[DBus]
Mode=server

[Display]
Mode=wayland
Anchor=top-right
Margin={margin}
Width={width}
Gap=6
Font=DejaVu Sans 9
Background=#303030
Border=#808080
Progress=#40a040

[Display:critical]
Background=#30304a
Border=#8080ff
Progress=#40a040

[Rule:marker]
MatchApp={marker_app}
Background={marker}
Border={marker}

[Idle]
After=off

[Relay]
URL={urls}
Subject={subject}
Host={host}
Publish=yes
Subscribe=no
MaxAge=1h
"""

DESK_CONFIG = """\
[Queue]
MaxVisible=1000
Capacity=200000
HistorySize={history}
StackDuplicates=no

[Timing]
FadeIn=0
Hold=10ms
FadeOut=0

[DBus]
Mode=off

[Display]
Mode=off

[Relay]
URL={urls}
Subject={subject}
Host=desk
Publish=no
Subscribe=yes
MaxAge=1h
"""

# How many finished notices each daemon keeps: a full history is part of what the host holds, and
# an hour's run goes past it (a history read as the run goes, `HistoryRecorder`, keeps what it forgets
# for the checker).
HISTORY = 150_000
# The bounds the daemon must be within after each fault and at the end: RSS for the debug build
# with a full history (64 MiB, some 20 over what it has at rest, and HISTORY_KIB a notice kept, the
# bound `test_bounds.py` holds a history to); descriptors and threads over what it had at rest
# before the load. Under load
# the descriptors are the clients' connections, and the threads Dispatch's overcommit pool at work:
# six serial queues of the daemon's (the root, the display, three buses, the session's sockets)
# each hold a worker while they run, and a worker that finished lingers 5 s before it leaves, so
# that more can be alive than are busy (the soak saw up to nine more than at rest, on ASan).
BOUNDS = {"rss_mib": 64 + HISTORY * HISTORY_KIB // 1024, "fds": 64, "threads": 16}
# Once the load has stopped the lingering workers leave: within REST_SECONDS of the idle window the
# daemon is back within REST_THREADS of the threads it had at rest before. A thread left blocked by
# a fault, or one started per reconnection and never joined, stays, and fails this.
REST_THREADS = 2
REST_SECONDS = 15
# At rest afterwards the daemon uses under this share of a core: the soak's watchdog wants a ping
# every second (the debug build measured 0.3%, the ASan one 1.6%); a spinning daemon, or one
# pacing frames for nothing, uses far more.
IDLE_SHARE = 0.05
# Every RECORD_EVERY seconds the newest RECORD_LIMIT finished notices of each daemon are read: a
# thousand a second, where at most 3,919 finished in any 10 s of the runs measured (a sweep of the
# backlog on top of the load). A read that is full and whose oldest notice was not read before may
# have missed some: a problem of the soak's, reported (as it was with a history of 3,000).
RECORD_EVERY = 10
RECORD_LIMIT = 10_000
# ASan keeps what is freed in quarantine: the resident set is not bounded on a sanitized build.
SANITIZED = bool(os.environ.get("NOTIFYD_SANITIZER"))
SANITIZER_ENVIRONMENT = ("ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "SWIFT_BACKTRACE", "NOTIFYD_SANITIZER")
FAULT_KINDS = ["kill", "watchdog", "pause", "bus", "nats", "disk", "descriptors", "compositor", "clock"]
# How long a `pause` stops the daemon, at most: it pings the 2 s watchdog every second, so a stop
# that starts up to a second after a ping must end within the other second, with room left for the
# loop's latency under load (a History read of 10,000 takes 0.1 s). The first hour-long run drew
# stops of up to 1.2 s, and at 3,260 s one that began late after a ping was taken for a hang.
PAUSE_SECONDS = (0.2, 0.7)


class SoakFailure(AssertionError):
    pass


class History:
    """Every call, reply and event, in order, with the monotonic instant it was seen."""

    def __init__(self):
        self.lock = threading.Lock()
        self.entries = []
        self.started = time.monotonic()

    def now(self):
        return round(time.monotonic() - self.started, 4)

    def add(self, kind, **fields):
        with self.lock:
            self.entries.append({"t": self.now(), "kind": kind, **fields})

    def of(self, *kinds):
        with self.lock:
            return [entry for entry in self.entries if entry["kind"] in kinds]

    def write(self, path):
        with self.lock, open(path, "w") as file:
            for entry in self.entries:
                file.write(json.dumps(entry) + "\n")


class Host:
    """The notifyd under test: a systemd --user service with everything around it."""

    def __init__(self, base: Path, urls, display: str):
        self.base = base
        self.manager = UserManager(base / "manager")
        # The store on a filesystem of its own, small enough to fill in a moment.
        self.store_mount = self.manager.state_home
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256m,mode=0700", "tmpfs", str(self.store_mount)], check=True)
        environment = {
            # The compositor's socket by its path: sway runs as another user, in its own runtime directory.
            "WAYLAND_DISPLAY": display,
            # On a sanitized build (bench/sanitized-tests.sh) the service reports where the run looks.
            **{key: os.environ[key] for key in SANITIZER_ENVIRONMENT if key in os.environ},
        }
        # LeakSanitizer stops the world with ptrace at exit, which the unit's filter denies.
        sanitizer_lines = ["SystemCallFilter="] if SANITIZED else []
        self.manager.write_dropin("--log-level=warning", service_lines=[
            *(f"Environment={key}={value}" for key, value in environment.items()), *sanitizer_lines,
            "TimeoutAbortSec=2s", "RestartSec=300ms", "[Unit]", "StartLimitIntervalSec=0"])
        config = self.manager.config_home / "notifyd" / "notifyd.conf"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(HOST_CONFIG.format(
            urls=",".join(urls), subject=SUBJECT, host=HOST, history=HISTORY, margin=MARGIN, width=WIDTH,
            marker_app=MARKER_APP, marker="#%02x%02x%02x" % MARKER))
        # The session bus is the soak's own dbus-daemon, stopped and started by the bus fault: the
        # user manager's socket-activated one (dbus-user-session) would take its path.
        for unit in ("dbus.socket", "dbus.service"):
            (self.manager.unit_dir / unit).symlink_to("/dev/null")
        self.bus = SessionBus(self.manager.runtime_dir)
        self.socket_path = str(self.manager.socket_path)
        self.bus_address = self.bus.address

    def start(self):
        self.bus.start()
        self.manager.start()
        self.manager.systemctl("start", "notifyd.socket")
        call(self.socket_path, "Status", timeout=30)
        self.manager.wait_show(lambda s: s["SubState"] == "running", "notifyd.service to run")

    def pid(self):
        state = self.manager.show()
        return int(state["MainPID"]) if state["SubState"] == "running" and state["MainPID"] != "0" else None

    def serves_dbus(self):
        return self.bus.name_owner_pid("org.freedesktop.Notifications") == self.pid()

    def journal_text(self, started=0.0):
        """notifyd's lines, each at its instant on the soak's clock (seconds since `started`, a
        `time.monotonic()`: the journal's monotonic stamps are the same clock), as the history has
        them."""
        entries = self.manager.journal("SYSLOG_IDENTIFIER=notifyd")
        return "\n".join(f"{int(entry.get('__MONOTONIC_TIMESTAMP', 0)) / 1e6 - started:9.3f} {entry.get('MESSAGE', '')}"
                         for entry in entries)

    def stop(self):
        try:
            self.manager.stop()
        finally:
            self.bus.stop()
            subprocess.run(["umount", "-l", str(self.store_mount)], check=False)


def call(path, method, parameters=None, timeout=5):
    """One call on a fresh connection; the reply's parameters, or raises (an error reply too)."""
    connection = Connection(path, timeout=timeout)
    try:
        reply = connection.call(f"{QUEUE}.{method}", parameters)
    finally:
        connection.close()
    if reply is None or "error" in reply:
        raise SoakFailure(f"{method}({parameters}) answered {reply}")
    return reply.get("parameters", {})


class Load:
    """The clients, each a thread with a random generator of its own (from the seed)."""

    def __init__(self, host: Host, history: History, seed: int):
        self.host = host
        self.history = history
        self.seed = seed
        self.stop = threading.Event()
        self.threads = []
        self.lock = threading.Lock()
        self.acknowledged = {}  # id → how it was acknowledged (varlink, progress, dbus)
        # The newest the load showed, for the clients that act on others' notices: picking from a copy
        # of `acknowledged` cost more with every notice, and the first hour-long run's load fell from
        # 203 a second to 37 while the lock was held for it.
        self.recent = collections.deque(maxlen=200)
        self.waits = []  # each: the id waited for, the replies, when it was sent and ended, and how
        self.errors = []

    def acknowledge(self, notice, how):
        with self.lock:
            earlier = self.acknowledged.get(notice)
            if earlier is not None and not (how == "dbus-replace" or earlier == "progress" and how == "progress"):
                self.errors.append(f"id {notice} acknowledged twice: as {earlier}, then as {how}")
            self.acknowledged.setdefault(notice, how)
            if how != "marker":
                self.recent.append(notice)
        self.history.add("ack", id=notice, how=how)

    def some_acknowledged(self, rng):
        """One of the newest notices the load showed (not the person's markers: theirs to click)."""
        with self.lock:
            return rng.choice(self.recent) if self.recent else None

    def start(self):
        clients = [(self.shower, 3), (self.pipeliner, 1), (self.progress, 1), (self.changer, 1), (self.waiter, 2),
                   (self.watcher, 1), (self.vanisher, 1), (self.dbus_client, 1), (self.sweeper, 1)]
        for client, count in clients:
            for index in range(count):
                rng = random.Random(f"{self.seed}.{client.__name__}.{index}")
                thread = threading.Thread(target=self.guard, args=(client, rng, index), daemon=True)
                thread.start()
                self.threads.append(thread)

    def guard(self, client, rng, index):
        """Runs a client until told to stop; a client may lose its daemon at any moment."""
        while not self.stop.is_set():
            try:
                client(rng, index)
            except (OSError, ValueError, SoakFailure) as error:
                self.history.add("client-error", client=client.__name__, error=repr(error)[:200])
                self.stop.wait(0.1)

    def finish(self):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=30)
        alive = [thread for thread in self.threads if thread.is_alive()]
        if alive:
            raise SoakFailure(f"{len(alive)} client threads did not stop")

    def connect(self, timeout=5):
        return Connection(self.host.socket_path, timeout=timeout)

    # MARK: the clients

    def show_parameters(self, rng, label):
        parameters = {"title": f"soak {label}", "body": "x" * rng.randrange(80), "app": rng.choice(["cron", "build", "mail"]),
                      "tag": "load"}
        roll = rng.random()
        if roll < 0.1:
            parameters["delay"] = round(rng.uniform(0.2, 3), 3)
        elif roll < 0.15:
            after = self.some_acknowledged(rng)
            if after:
                parameters["after"] = after
        elif roll < 0.2:
            parameters["actions"] = [{"key": "open", "label": "Open"}]
        elif roll < 0.22:
            # Critical ones go first: few and short, or they would hold every slot and the person's
            # markers (critical too) would wait behind them.
            parameters["urgency"] = "critical"
            parameters["hold"] = 0.3
        return parameters

    def shower(self, rng, index):
        """`Show`, one at a time, on a connection kept until it fails."""
        connection = self.connect()
        try:
            serial = 0
            while not self.stop.is_set():
                serial += 1
                parameters = self.show_parameters(rng, f"s{index}.{serial}")
                self.shown(connection.call(f"{QUEUE}.Show", parameters))
                self.stop.wait(rng.uniform(0.005, 0.03))
        finally:
            connection.close()

    def shown(self, reply):
        """A `Show`'s reply: acknowledged, or refused (a full queue, a full disk)."""
        if reply is None:
            raise OSError("closed")
        if "error" in reply:
            self.history.add("refused", method="Show", error=reply["error"])
        else:
            self.acknowledge(reply["parameters"]["id"], "varlink")

    def pipeliner(self, rng, index):
        """Eight `Show`s in one write, then their replies."""
        connection = self.connect()
        try:
            serial = 0
            while not self.stop.is_set():
                batch = []
                for _ in range(8):
                    serial += 1
                    batch.append(self.show_parameters(rng, f"p{index}.{serial}"))
                for parameters in batch:
                    connection.send(f"{QUEUE}.Show", parameters)
                for _ in batch:
                    self.shown(connection.receive())
                self.stop.wait(rng.uniform(0.02, 0.1))
        finally:
            connection.close()

    def progress(self, rng, index):
        """A progress indicator: `Progress`, a few `Update`s, `End` with a message."""
        parameters = {"title": f"soak build {rng.randrange(10**6)}", "value": 0, "timeout": 30}
        started = call(self.host.socket_path, "Progress", parameters)
        self.acknowledge(started["id"], "progress")
        for value in range(10, 101, 30):
            if self.stop.wait(rng.uniform(0.05, 0.3)):
                break
            call(self.host.socket_path, "Update", {"id": started["id"], "value": value})
        call(self.host.socket_path, "End", {"id": started["id"], "message": "done"})

    def changer(self, rng, index):
        """`Cancel` (by id, now or fading) and `Invoke` on notices others showed."""
        self.stop.wait(rng.uniform(0.05, 0.2))
        target = self.some_acknowledged(rng)
        if target is None:
            return
        connection = self.connect()
        try:
            if rng.random() < 0.7:
                reply = connection.call(f"{QUEUE}.Cancel", {"id": target, "now": rng.random() < 0.5})
            else:
                reply = connection.call(f"{QUEUE}.Invoke", {"id": target, "action": "open"})
            self.history.add("change", id=target, reply=(reply or {}).get("error", "ok"))
        finally:
            connection.close()

    def sweeper(self, rng, index):
        """Every 10–30 s, the load's backlog cancelled by its tag (`notifyctl cancel --tag`): the
        load shows faster than six cards can go, and a long soak would fill the queue."""
        if self.stop.wait(rng.uniform(10, 30)):
            return
        cancelled = call(self.host.socket_path, "Cancel", {"tag": "load"}, timeout=60)["cancelled"]
        self.history.add("swept", count=len(cancelled))

    def waiter(self, rng, index):
        """`Wait` for a notice: one answer, or the connection lost with the daemon; never two."""
        target = self.some_acknowledged(rng)
        if target is None:
            self.stop.wait(0.1)
            return
        connection = self.connect(timeout=8)
        wait = {"target": target, "replies": [], "sent": self.history.now()}
        replies = wait["replies"]
        with self.lock:
            self.waits.append(wait)
        try:
            connection.send(f"{QUEUE}.Wait", {"id": target})
            try:
                reply = connection.receive()
            except socket.timeout:
                wait.update(ended=self.history.now(), how="timeout")  # the notice outlasted 8 s
                return
            except OSError as error:
                reply, wait["error"] = None, repr(error)
            if reply is None:
                wait.update(ended=self.history.now(), how="closed")  # the daemon went away
                return
            wait.update(ended=self.history.now(), how="answered")
            replies.append(reply)
            connection.socket.settimeout(0.2)
            try:
                extra = connection.receive()
                if extra is not None:
                    replies.append(extra)
            except OSError:
                pass
        finally:
            connection.close()

    def watcher(self, rng, index):
        """A `Watch` kept open, every event recorded (a new one after each restart)."""
        connection = self.connect(timeout=2)
        try:
            connection.send(f"{QUEUE}.Watch", {}, more=True)
            while not self.stop.is_set():
                try:
                    reply = connection.receive()
                except socket.timeout:
                    continue
                if reply is None:
                    raise OSError("closed")
                event = (reply.get("parameters") or {}).get("event") or {}
                if event.get("kind") == "finished":
                    notice = event.get("notice") or {}
                    self.history.add("finished", id=event.get("id"), outcome=notice.get("outcome"))
        finally:
            connection.close()

    def vanisher(self, rng, index):
        """Clients that die mid-call: half a message, or a call and gone before its reply."""
        connection = self.connect()
        kind = rng.randrange(3)
        if kind == 0:
            whole = json.dumps({"method": f"{QUEUE}.Show", "parameters": {"title": "half"}}).encode()
            connection.socket.sendall(whole[: rng.randrange(1, len(whole))])
        elif kind == 1:
            connection.send(f"{QUEUE}.Wait", {"id": self.some_acknowledged(rng) or 1})
        else:
            connection.send(f"{QUEUE}.Show", {"title": "gone before the reply"})
        connection.close()
        self.stop.wait(0.05)

    def dbus_client(self, rng, index):
        """`notify-send` (some replacing the one before), and `CloseNotification` now and then."""
        env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=self.host.bus_address)
        last = None
        while not self.stop.is_set():
            command = ["notify-send", "-p", "-t", "400", f"soak dbus {rng.randrange(10**6)}", "from a D-Bus client"]
            replacing = last is not None and rng.random() < 0.2
            if replacing:
                command[1:1] = ["-r", str(last)]
            result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=30)
            if result.returncode != 0:
                self.history.add("refused", method="Notify", error=result.stderr.strip()[:200])
                self.stop.wait(0.2)
                continue
            notice = int(result.stdout.strip())
            self.acknowledge(notice, "dbus-replace" if replacing and notice == last else "dbus")
            if replacing and notice != last:
                self.history.add("replaced-anew", old=last, new=notice)
            last = notice
            if rng.random() < 0.2:
                subprocess.run(
                    ["busctl", f"--address={self.host.bus_address}", "call", "org.freedesktop.Notifications",
                     "/org/freedesktop/Notifications", "org.freedesktop.Notifications", "CloseNotification", "u",
                     str(notice)], capture_output=True, timeout=30)
            self.stop.wait(rng.uniform(0.05, 0.2))


def marker_runs(image):
    """The stretches of the marker's colour, at full opacity, down the column inside the cards' edge."""
    return [(y0, y1) for y0, y1 in image.runs_down(COLUMN, lambda rgb: close_to(rgb, MARKER, 8)) if y1 - y0 >= 8]


def reddish(image):
    """Whether any of the marker's colour shows down the column, at any opacity over what is below
    (the background, or a grey or blue card: nothing else there is red)."""
    return any(r > g + 40 and r > b + 40 for r, g, b in (image.pixel(COLUMN, y) for y in range(image.height)))


class Screen:
    """Headless sway, as the popups' user, which the host draws on and the compositor fault kills."""

    def __init__(self):
        self.user = unprivileged_user()
        # Its own folder in /tmp: the soak's is root's alone, and sway runs as the popups' user.
        self.directory = Path(tempfile.mkdtemp(prefix="notifyd-soak-sway-"))
        os.chown(self.directory, self.user.pw_uid, self.user.pw_gid)
        self.directory.chmod(0o700)
        self.sway = Sway(self.directory, self.user)
        self.lock = threading.Lock()  # the compositor fault and the person at the screen take turns

    def start(self):
        self.sway.start()
        return str(self.directory / self.sway.display)

    def column(self):
        """What shows down the cards' right edge, or None while there is no compositor."""
        with self.lock:
            try:
                return self.sway.screenshot(region=(COLUMN, 0, COLUMN + 1, OUTPUT[1]))
            except (AssertionError, OSError, subprocess.SubprocessError):
                return None

    def pointer(self):
        with self.lock:
            return VirtualPointer(str(self.directory), self.sway.display)

    def restart(self, down):
        with self.lock:
            display = self.sway.display
            self.sway.kill()
            time.sleep(down)
            self.sway.start()
            if self.sway.display != display:
                raise SoakFailure(f"sway came back on {self.sway.display}, not {display}, where the host looks")

    def stop(self):
        self.sway.kill()
        shutil.rmtree(self.directory, ignore_errors=True)


class Person:
    """Someone at the screen: every few seconds a critical notice in the marker's colour, held until
    ended; they wait to see it drawn, click it (again if it moved away under the pointer), and watch
    it go. Each marker's instants go into the history for the checker."""

    def __init__(self, host: Host, screen: Screen, load: "Load", history: History, seed: int):
        self.host = host
        self.screen = screen
        self.load = load
        self.history = history
        self.rng = random.Random(f"{seed}.person")
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.pointer = None
        self.count = 0

    def run(self):
        while not self.stop.is_set():
            try:
                self.one()
            except (OSError, ValueError, WaylandError, SoakFailure) as error:
                self.history.add("person-error", error=repr(error)[:200])
                self.drop_pointer()
            self.stop.wait(self.rng.uniform(1, 3))
        self.drop_pointer()

    def drop_pointer(self):
        if self.pointer is not None:
            try:
                self.pointer.close()
            except OSError:
                pass
            self.pointer = None

    def click(self, y):
        if self.pointer is None:
            self.pointer = self.screen.pointer()
        self.pointer.move_to(CLICK_X, y, *OUTPUT)
        self.pointer.click()
        self.pointer.move_to(*PARKED, *OUTPUT)  # a pointer over a card holds it

    def phase(self, notice):
        try:
            return call(self.host.socket_path, "Get", {"id": notice}, timeout=3)["notice"]
        except (OSError, SoakFailure):
            return None

    def one(self):
        self.count += 1
        notice = call(self.host.socket_path, "Show", {
            "title": f"soak marker {self.count}", "app": MARKER_APP, "urgency": "critical", "hold": 0,
            "fadeIn": 0.05, "fadeOut": 0.05})["id"]
        self.load.acknowledge(notice, "marker")
        entry = {"id": notice, "shown": self.history.now()}
        # Seen: a run of the marker's colour at full opacity (a minute: a fault may be under way).
        deadline = time.monotonic() + 60
        clicks, finished = 0, None
        while time.monotonic() < deadline and finished is None:
            image = self.screen.column()
            runs = marker_runs(image) if image else []
            if not runs:
                got = self.phase(notice)
                if got and got["phase"] == "finished":
                    finished = got
                    break
                time.sleep(0.05)
                continue
            entry.setdefault("drawn", self.history.now())
            y0, y1 = runs[0]
            try:
                self.click((y0 + y1) // 2)
            except (OSError, ValueError, WaylandError):
                self.drop_pointer()  # sway went away under the pointer: click again when it is back
                continue
            clicks += 1
            # The click went through the compositor and the daemon's queue: it has finished within
            # its fade-out, or the card moved (a card above it went) and the click found another.
            settle = time.monotonic() + 1.5
            while time.monotonic() < settle:
                got = self.phase(notice)
                if got and got["phase"] == "finished":
                    finished = got
                    break
                time.sleep(0.05)
        entry["clicks"] = clicks
        if finished is None:
            entry["unfinished"] = True
            self.history.add("marker", **entry)
            return
        entry["finished"] = self.history.now()
        entry["outcome"] = finished.get("outcome")
        # Gone: nothing of the marker's colour, at any opacity.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            image = self.screen.column()
            if image is not None and not reddish(image):
                entry["gone"] = self.history.now()
                break
            time.sleep(0.02)
        self.history.add("marker", **entry)


class HistoryRecorder:
    """Reads both daemons' newest finished notices every RECORD_EVERY seconds and keeps them: what a
    full history forgets during a long run is still there for the checker."""

    def __init__(self, host: Host, desk: Daemon):
        self.daemons = {"host": host.socket_path, "desk": desk.socket_path}
        self.finished = {"host": {}, "desk": {}}  # id → the notice as history had it, once finished
        self.changed = []  # (daemon, id, outcome before, outcome after): history changed its mind
        self.gaps = []  # (daemon, when) of full reads that did not reach what was read before
        self.reads = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop.wait(RECORD_EVERY):
            for name in self.daemons:
                self.read(name, RECORD_LIMIT)

    def read(self, name, limit):
        """The newest `limit` finished notices of daemon `name`, kept (none if it did not answer: a
        fault under way)."""
        try:
            notices = call(self.daemons[name], "History", {"limit": limit}, timeout=60)["notices"]
        except (OSError, SoakFailure):
            return
        if limit < HISTORY and self.finished[name] and self.falls_short(name, notices, limit):
            # More finished since the last read that answered than one read holds (reads fail
            # while faults follow each other): all of it, once.
            return self.read(name, HISTORY)
        self.keep(name, notices, limit)

    def falls_short(self, name, notices, limit):
        """Whether `notices`, a read of the newest `limit`, is full and does not reach back to what
        was kept before: some between may be missed."""
        return len(notices) >= min(limit, HISTORY) and notices[-1]["id"] not in self.finished[name]

    def keep(self, name, notices, limit):
        """Keeps `notices`, the newest `limit` finished of daemon `name`, newest first."""
        kept = self.finished[name]
        if self.falls_short(name, notices, limit):
            self.gaps.append((name, time.monotonic()))
        for notice in notices:
            before = kept.get(notice["id"])
            if before is not None and before.get("outcome") != notice.get("outcome"):
                self.changed.append((name, notice["id"], before.get("outcome"), notice.get("outcome")))
            kept[notice["id"]] = notice
        self.reads += 1

    def final(self, name):
        """Daemon `name`'s unfinished notices, and its finished ones, at the end, each notice once:
        List is read before History, so one that finishes between the two reads is in both, and
        counts as finished. The finished ones join what was kept during the run."""
        connection = Connection(self.daemons[name], timeout=120)
        try:
            listed = connection.call(f"{QUEUE}.List")["parameters"]["notices"]
            finished = connection.call(f"{QUEUE}.History", {"limit": HISTORY})["parameters"]["notices"]
        finally:
            connection.close()
        self.keep(name, finished, HISTORY)
        done = {notice["id"] for notice in finished}
        return [notice for notice in listed if notice["id"] not in done], finished

    def finish(self):
        self.stop.set()
        self.thread.join(timeout=120)
        if self.thread.is_alive():
            raise SoakFailure("the history recorder did not stop")


class Probe:
    """Calls `Status` every 100 ms on a fresh connection, recording when the daemon answered."""

    def __init__(self, host: Host):
        self.host = host
        self.stop = threading.Event()
        self.answers = []  # monotonic instants of answers
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop.is_set():
            try:
                call(self.host.socket_path, "Status", timeout=3)
                self.answers.append(time.monotonic())
            except (OSError, SoakFailure):
                pass
            self.stop.wait(0.1)

    def answered_since(self, instant):
        index = bisect.bisect_left(self.answers, instant)  # appended in order
        return self.answers[index] if index < len(self.answers) else None


class Faults:
    """The seeded schedule of faults, each injected, cleared, and timed until the daemon recovered."""

    def __init__(self, host: Host, cluster: NatsCluster, screen: Screen, probe: Probe, history: History,
                 rng: random.Random):
        self.host = host
        self.cluster = cluster
        self.screen = screen
        self.probe = probe
        self.history = history
        self.rng = rng
        self.recoveries = collections.defaultdict(list)
        self.resources = []
        self.baseline = self.measure()
        self.bounds = {"rss_mib": float("inf") if SANITIZED else BOUNDS["rss_mib"],
                       "fds": self.baseline["fds"] + BOUNDS["fds"], "threads": self.baseline["threads"] + BOUNDS["threads"]}

    def schedule(self, seconds):
        """(instant from the start, kind) for the whole run: every kind at least once when the run is
        long enough, then at random; a fault every 6–12 s."""
        at, plan = 5.0, []
        kinds = list(FAULT_KINDS)
        self.rng.shuffle(kinds)
        while at < seconds - 15:
            plan.append((at, kinds.pop(0) if kinds else self.rng.choice(FAULT_KINDS)))
            at += self.rng.uniform(6, 12)
        return plan

    def inject(self, kind):
        self.wait(self.host.pid, "notifyd to be running before the next fault")
        self.history.add("fault", fault=kind)
        cleared, recovered = getattr(self, kind)()
        recovery = recovered - cleared
        self.recoveries[kind].append(recovery)
        self.history.add("recovered", fault=kind, seconds=round(recovery, 3))
        self.resources.append((kind, self.measure()))

    def wait(self, condition, what, timeout=60):
        return wait_for(condition, timeout=timeout, interval=0.02, what=what)

    def restarted_from(self, old_pid):
        """The instant a new daemon (not `old_pid`) answered."""
        def answered():
            pid = self.host.pid()
            if pid is None or pid == old_pid:
                return None
            return self.probe.answered_since(time.monotonic() - 0.2) and time.monotonic()
        return self.wait(answered, "systemd to start notifyd again and it to answer")

    def kill(self):
        pid = self.host.pid()
        os.kill(pid, signal.SIGKILL)
        return time.monotonic(), self.restarted_from(pid)

    def watchdog(self):
        """SIGSTOP past `WatchdogSec=2s`: systemd aborts it (pending while stopped), kills it after
        `TimeoutAbortSec=2s`, and starts it again."""
        pid = self.host.pid()
        os.kill(pid, signal.SIGSTOP)
        return time.monotonic(), self.restarted_from(pid)

    def pause(self):
        """SIGSTOP for less than the watchdog's slack, then SIGCONT: the same daemon goes on."""
        pid = self.host.pid()
        os.kill(pid, signal.SIGSTOP)
        time.sleep(self.rng.uniform(*PAUSE_SECONDS))
        os.kill(pid, signal.SIGCONT)
        cleared = time.monotonic()
        recovered = self.wait(lambda: self.probe.answered_since(cleared) and time.monotonic(), "the daemon to answer")
        if self.host.pid() != pid:
            raise SoakFailure(f"a pause shorter than the watchdog restarted notifyd ({pid} → {self.host.pid()})")
        return cleared, recovered

    def bus(self):
        self.host.bus.stop()
        time.sleep(self.rng.uniform(0.5, 2))
        self.host.bus.start()
        cleared = time.monotonic()
        return cleared, self.wait(lambda: self.host.serves_dbus() and time.monotonic(),
                                  "notifyd to serve org.freedesktop.Notifications on the new bus")

    def nats(self):
        node = self.cluster.node(self.rng.choice(["n1", "n2", "n3"]))
        node.kill()
        time.sleep(self.rng.uniform(1, 3))
        node.start()
        cleared = time.monotonic()

        def whole():
            relay = call(self.host.socket_path, "Status").get("relay") or {}
            try:
                formed = node.ready() and self.cluster.formed()
            except (OSError, ValueError):
                formed = False
            return relay.get("state") == "connected" and formed and time.monotonic()
        return cleared, self.wait(whole, "the node back in the cluster and the host's relay connected")

    def disk(self):
        filler = self.host.store_mount / "filler"
        # Unbuffered: a buffered file would raise ENOSPC again when closed, flushing what it held
        # (the first hour-long run died of that, at 343 s).
        with open(filler, "wb", buffering=0) as file:
            try:
                while True:
                    file.write(b"\0" * (1 << 16))
            except OSError:
                pass
        time.sleep(self.rng.uniform(1, 3))
        filler.unlink()
        cleared = time.monotonic()

        def shows():
            try:
                notice = call(self.host.socket_path, "Show", {"title": "soak: the disk has room again", "hold": 0.1})
            except (OSError, SoakFailure):
                return None
            self.history.add("ack", id=notice["id"], how="probe")
            return time.monotonic()
        return cleared, self.wait(shows, "a Show to be committed again")

    def descriptors(self):
        pid = self.host.pid()
        soft, hard = open_file_limits(pid)
        open_now = len(os.listdir(f"/proc/{pid}/fd"))
        subprocess.run(["prlimit", f"--pid={pid}", f"--nofile={open_now + 2}:{hard}"], check=True)
        time.sleep(self.rng.uniform(1, 2))
        subprocess.run(["prlimit", f"--pid={pid}", f"--nofile={soft}:{hard}"], check=True)
        cleared = time.monotonic()
        return cleared, self.wait(lambda: self.probe.answered_since(cleared) and time.monotonic(),
                                  "the daemon to accept clients again")

    def compositor(self):
        """sway killed and started again: the host draws on the new one (on the same socket path)."""
        self.screen.restart(down=self.rng.uniform(0.5, 2))
        cleared = time.monotonic()

        def drawn():
            image = self.screen.column()
            return image is not None and image.runs_down(COLUMN, lambda rgb: rgb != image.background) and time.monotonic()
        return cleared, self.wait(drawn, "a card on the new compositor")

    def clock(self):
        """The machine's wall clock stepped 5–40 minutes either way and, seconds later, stepped back
        (an NTP correction, a resume from suspend), as root does it: the kernel's, so everything sees
        it as it would (in-process fakes such as libfaketime turn the daemon's monotonic waits into
        spins). Timelines run on the monotonic clock: a notice shown while the clock is off keeps
        its own and carries the stepped time; one shown after it is back finishes on time too."""
        step = self.rng.choice([-1, 1]) * self.rng.randint(5, 40) * 60
        with stepped_wall_clock(step):
            shown = time.time()
            during = self.probe_notice("soak: while the clock is stepped")
            if abs(during["created"] - shown) > 5:
                raise SoakFailure(f"a notice shown {step:+d} s off the clock was created at {during['created']}, "
                                  f"{during['created'] - shown:+.0f} s from the stepped clock")
            time.sleep(self.rng.uniform(1, 4))
        cleared = time.monotonic()
        self.probe_notice("soak: the clock is back")
        return cleared, time.monotonic()

    def probe_notice(self, title):
        """A short critical notice, shown and waited for: it must finish on its own timeline."""
        notice = call(self.host.socket_path, "Show", {"title": title, "urgency": "critical", "fadeIn": 0, "hold": 0.2,
                                                      "fadeOut": 0})
        self.history.add("ack", id=notice["id"], how="probe")
        got = call(self.host.socket_path, "Wait", {"id": notice["id"]}, timeout=30)["notice"]
        if got.get("outcome") != "completed":
            raise SoakFailure(f"{title!r} finished {got.get('outcome')}, not completed")
        return got

    def measure(self):
        pid = self.host.pid()
        if pid is None:
            return {}
        return {"rss_mib": round(rss_kib(pid) / 1024, 1), "fds": len(os.listdir(f"/proc/{pid}/fd")),
                "threads": len(os.listdir(f"/proc/{pid}/task"))}


WALL_CLOCK_STEP = [0]  # seconds the machine's clock is stepped by now: put back whatever happens


@contextlib.contextmanager
def stepped_wall_clock(seconds):
    time.clock_settime(time.CLOCK_REALTIME, time.clock_gettime(time.CLOCK_REALTIME) + seconds)
    WALL_CLOCK_STEP[0] += seconds
    try:
        yield
    finally:
        restore_wall_clock()


def restore_wall_clock():
    step, WALL_CLOCK_STEP[0] = WALL_CLOCK_STEP[0], 0
    if step:
        time.clock_settime(time.CLOCK_REALTIME, time.clock_gettime(time.CLOCK_REALTIME) - step)


class Checker:
    """The rules, checked against what the daemons hold at the end and the history."""

    def __init__(self, host: Host, desk: Daemon, load: Load, history: History, recorder: HistoryRecorder):
        self.host = host
        self.desk = desk
        self.load = load
        self.history = history
        self.recorder = recorder
        self.problems = []
        self.figures = {}

    def problem(self, text):
        self.problems.append(text)

    def check(self):
        unfinished, finished = self.recorder.final("host")
        if unfinished:
            self.problem(f"{len(unfinished)} notices unfinished after the drain: {[n['id'] for n in unfinished][:20]}")
        counts = collections.Counter(notice["id"] for notice in finished)
        twice = sorted(i for i, c in counts.items() if c > 1)
        if twice:
            self.problem(f"ids in history more than once: {twice[:20]}")
        # Every notice the host's history held during the run, read as it went (a full one forgets).
        kept = self.recorder.finished["host"]
        if self.recorder.gaps:
            self.problem(f"the history was read too seldom: {len(self.recorder.gaps)} full reads did not reach "
                         f"the one before, notices may have been forgotten unread: {self.recorder.gaps[:5]}")
        if self.recorder.changed:
            self.problem(f"a finished notice's outcome changed in history: {self.recorder.changed[:10]}")
        outcome = {i: notice.get("outcome") for i, notice in kept.items()}
        # Progress indicators are this host's own: the relay publishes notices only (DESIGN §10).
        published = {i for i, notice in kept.items() if notice.get("kind") == "notice"}
        acknowledged = dict(self.load.acknowledged)
        acknowledged.update({entry["id"]: entry["how"] for entry in self.history.of("ack") if entry["how"] == "probe"})
        lost = sorted(set(acknowledged) - set(outcome))
        if lost:
            self.problem(f"{len(lost)} acknowledged notices lost (not in history): {lost[:20]}")
        if any(outcome.get(i) is None for i in acknowledged if i in outcome):
            self.problem("a finished notice without an outcome")
        # What the watcher saw finish must not finish again otherwise: a person saw it go.
        seen = collections.defaultdict(list)
        for entry in self.history.of("finished"):
            seen[entry["id"]].append(entry["outcome"])
        doubled = sorted(i for i, outcomes in seen.items()
                         if len(outcomes) > 1 or (i in outcome and outcome[i] != outcomes[0]))
        if doubled:
            self.problem(f"{len(doubled)} notices seen finishing twice, or otherwise than history says: "
                         f"{[(i, seen[i], outcome.get(i)) for i in doubled[:10]]}")
        answered = self.check_waits(outcome)
        # The desk: each of the host's notices once, none unknown.
        desk_unfinished, _ = self.recorder.final("desk")
        relayed = collections.Counter(
            (n.get("origin") or {}).get("id") for n in desk_unfinished + list(self.recorder.finished["desk"].values())
            if (n.get("origin") or {}).get("host") == HOST)
        relayed_twice = sorted(i for i, c in relayed.items() if c > 1)
        if relayed_twice:
            self.problem(f"{len(relayed_twice)} notices on the desk more than once: {relayed_twice[:20]}")
        missing_on_desk = sorted(published - set(relayed))
        if missing_on_desk:
            self.problem(f"{len(missing_on_desk)} of the host's notices never reached the desk: {missing_on_desk[:20]}")
        unknown = sorted(set(relayed) - published)
        if unknown:
            self.problem(f"{len(unknown)} notices on the desk the host does not know: {unknown[:20]}")
        for problem in self.load.errors:
            self.problem(problem)
        self.check_markers(outcome)
        self.figures.update({
            "acknowledged": len(acknowledged), "finished": len(kept), "history reads": self.recorder.reads,
            "lost": len(lost), "doubled": len(doubled),
            "waits": len(self.load.waits), "waits answered": answered, "relayed": sum(relayed.values()),
            "outcomes": dict(collections.Counter(outcome.values())),
        })


    def check_waits(self, outcome):
        """Every `Wait`: one answer, the outcome its notice finished with; none only when a fault was
        under way while it waited (a daemon killed closes it; one out of descriptors may not read
        it), or when its notice had not finished within the client's 8 s. Answers how many were."""
        answered = 0
        windows = self.fault_windows()
        watched = {}
        for entry in self.history.of("finished"):
            watched.setdefault(entry["id"], entry["t"])
        unanswered = []
        for wait in self.load.waits:
            target, replies = wait["target"], wait["replies"]
            ended = wait.get("ended")
            faulted = ended is None or any(start <= ended + 0.5 and end >= wait["sent"] for start, end in windows)
            if wait.get("how") == "closed" and not faulted:
                unanswered.append((target, f"connection closed ({wait.get('error', 'end of stream')}) "
                                   f"at {ended:.3f}, sent at {wait['sent']:.3f}"))
            elif wait.get("how") == "timeout" and not faulted and watched.get(target, ended) < ended - 1:
                unanswered.append((target, f"finished at {watched[target]}, nothing by {ended}"))
            if len(replies) > 1:
                self.problem(f"Wait for {target} answered {len(replies)} times")
            for reply in replies[:1]:
                if "error" in reply:
                    self.problem(f"Wait for {target} answered {reply}")
                    continue
                answered += 1
                got = reply["parameters"]["notice"].get("outcome")
                if outcome.get(target) not in (None, got):
                    self.problem(f"Wait for {target} answered {got}, history says {outcome.get(target)}")
        if unanswered:
            self.problem(f"{len(unanswered)} Waits got no answer though no fault was under way: {unanswered[:10]}")
        return answered

    def fault_windows(self):
        """(from, to) of each fault: injected until the daemon had recovered from it."""
        windows, start = [], None
        for entry in self.history.of("fault", "recovered"):
            if entry["kind"] == "fault":
                start = entry["t"]
            elif start is not None:
                windows.append((start, entry["t"]))
                start = None
        if start is not None:
            windows.append((start, float("inf")))
        return windows

    def check_markers(self, outcome):
        """What the person at the screen saw: each marker drawn, ended by their click, and its card
        gone within `GONE_WITHIN` of its notice finishing, or of the fault then under way clearing."""
        markers = self.history.of("marker")
        if not markers:
            self.problem("the person at the screen saw no marker in the whole run")
        watched = {}
        for entry in self.history.of("finished"):
            watched.setdefault(entry["id"], entry["t"])
        windows = self.fault_windows()
        gone_after, late = [], []
        for marker in markers:
            notice = marker["id"]
            if "drawn" not in marker:
                self.problem(f"marker {notice} was never drawn in full within a minute of its Show")
            if marker.get("unfinished"):
                self.problem(f"marker {notice} did not finish within a minute ({marker['clicks']} clicks)")
                continue
            if outcome.get(notice) != "dismissed" or marker["outcome"] != "dismissed":
                self.problem(f"marker {notice} finished {marker['outcome']} (history: {outcome.get(notice)}), "
                             "not dismissed by its click")
            if "gone" not in marker:
                self.problem(f"marker {notice}'s card was still on the screen a minute after it finished")
                continue
            finished = min(marker["finished"], watched.get(notice, marker["finished"]))
            due = finished + GONE_WITHIN
            for start, end in windows:
                if start <= marker["gone"] and end >= finished:
                    due = max(due, end + GONE_WITHIN)
            gone_after.append(marker["gone"] - finished)
            if marker["gone"] > due:
                late.append((notice, round(marker["gone"] - finished, 2)))
        if late:
            self.problem(f"{len(late)} cards stayed on the screen past their timeline (id, seconds after finishing): "
                         f"{late[:10]}")
        self.figures["markers"] = {
            "count": len(markers), "clicks": sum(marker.get("clicks", 0) for marker in markers),
            "gone p50": statistics.median(gone_after) if gone_after else None,
            "gone max": max(gone_after) if gone_after else None}


def drain(host: Host, desk: Daemon, peer: NatsPeer):
    """Everything left cancelled; the relay's outbox empty; the desk's consumer drained."""
    wait_for(lambda: host.serves_dbus(), timeout=60, interval=0.1, what="notifyd on the bus before the drain")
    call(host.socket_path, "Resume")
    call(host.socket_path, "Cancel", {"all": True, "now": True}, timeout=60)
    wait_for(lambda: not call(host.socket_path, "List", timeout=60)["notices"], timeout=60, interval=0.2,
             what="the host to hold no unfinished notice")

    def relayed_all():
        relay = call(host.socket_path, "Status").get("relay") or {}
        return relay.get("state") == "connected" and relay.get("outbox", 1) == 0
    wait_for(relayed_all, timeout=120, interval=0.2, what="the host's relay outbox to empty")

    def desk_drained():
        try:
            info = peer.try_consumer(STREAM, "notifyd_desk")
        except Exception:  # noqa: BLE001 — a node still electing
            return False
        return info is not None and info.num_pending == 0 and info.num_ack_pending == 0
    wait_for(desk_drained, timeout=180, interval=0.5, what="the desk's consumer to be drained")


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def report(seed, seconds, elapsed, faults: Faults, checker: Checker, idle_share, final):
    lines = [f"soak: seed {seed}, {seconds:.0f} s of load ({elapsed:.0f} s in all)"]
    figures = checker.figures
    lines.append(f"  notices acknowledged {figures['acknowledged']} ({figures['acknowledged'] / seconds:.0f}/s), "
                 f"finished {figures['finished']} (history read {figures['history reads']} times), "
                 f"relayed to the desk {figures['relayed']}; "
                 f"lost {figures['lost']}, doubled {figures['doubled']}")
    # The load's rate as the run went: it should hold (the clients pace themselves; a run whose rate
    # falls is slowing down somewhere, the daemon or the soak's own clients).
    window = seconds / 6
    per_window = collections.Counter(int(entry["t"] // window) for entry in checker.history.of("ack"))
    lines.append(f"  acknowledged a second, each {window:.0f} s: "
                 + ", ".join(f"{per_window[index] / window:.0f}" for index in range(6)))
    lines.append(f"  outcomes {figures['outcomes']}; Waits {figures['waits']}, answered {figures['waits answered']}")
    markers = figures["markers"]
    if markers["gone max"] is not None:
        lines.append(f"  markers {markers['count']} clicked {markers['clicks']} times; card gone after its notice "
                     f"finished: p50 {markers['gone p50']:.2f} s, max {markers['gone max']:.2f} s")
    lines.append("  faults (count, recovery p50 / p99):")
    for kind in FAULT_KINDS:
        times = faults.recoveries.get(kind, [])
        if times:
            lines.append(f"    {kind:12} {len(times):3}  {statistics.median(times):.2f} s / {percentile(times, 0.99):.2f} s")
        else:
            lines.append(f"    {kind:12}   0")
    worst = {key: max([m.get(key, 0) for _, m in faults.resources] + [final.get(key, 0)]) for key in BOUNDS}
    lines.append(f"  at rest before {faults.baseline}; after each fault at most {worst}, at the end {final}; "
                 f"bounds {faults.bounds}")
    lines.append(f"  idle afterwards: {idle_share:.2%} of a core over 5 s")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=180)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--keep", default=str(Path(__file__).resolve().parent.parent / ".build" / "soak"))
    arguments = parser.parse_args()
    seed = arguments.seed if arguments.seed is not None else random.SystemRandom().randrange(10**6)
    missing = missing_tools()
    if missing or os.geteuid() != 0:
        sys.exit(f"soak: needs root and NATS ({missing or 'not root'})")
    # A SIGTERM (a CI limit, Ctrl-C's cousin) ends the run through its `finally`: the wall clock is
    # put back and everything started is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    base = Path(tempfile.mkdtemp(prefix="notifyd-soak-"))
    base.chmod(0o700)
    history = History()
    rng = random.Random(seed)
    print(f"soak: seed {seed}, {arguments.seconds:.0f} s; replay with SEED={seed}", flush=True)
    cluster = NatsCluster(base / "nats")
    host = desk = probe = recorder = load = person = screen = None
    failure = None
    started = time.monotonic()
    try:
        cluster.start()
        screen = Screen()
        display = screen.start()
        host = Host(base / "host", cluster.urls, display)
        host.start()
        desk_home = base / "desk"
        desk_home.mkdir()
        (desk_home / "desk.conf").write_text(
            DESK_CONFIG.format(urls=",".join(cluster.urls), subject=SUBJECT, history=HISTORY))
        desk = Daemon(desk_home, ["--config", str(desk_home / "desk.conf"), "--log-level", "warning"]).start()
        wait_for(lambda: host.serves_dbus(), timeout=30, interval=0.1, what="notifyd to serve on the bus")
        probe = Probe(host)
        probe.thread.start()
        recorder = HistoryRecorder(host, desk)
        recorder.thread.start()
        faults = Faults(host, cluster, screen, probe, history, rng)
        plan = faults.schedule(arguments.seconds)
        print("soak: faults " + ", ".join(f"{at:.0f}s {kind}" for at, kind in plan), flush=True)
        load = Load(host, history, seed)
        load.start()
        person = Person(host, screen, load, history, seed)
        person.thread.start()
        load_started = time.monotonic()
        # Over a bound after a fault is a problem reported at the end, with everything else the
        # run finds: the run goes on.
        over_bounds = []
        for at, kind in plan:
            time.sleep(max(0.0, load_started + at - time.monotonic()))
            faults.inject(kind)
            measured = faults.resources[-1][1]
            if any(value > faults.bounds[key] for key, value in measured.items()):
                over_bounds.append(f"after the {kind} fault at {at:.0f} s the daemon holds {measured}, "
                                   f"over {faults.bounds}")
        time.sleep(max(0.0, load_started + arguments.seconds - time.monotonic()))
        load_seconds = time.monotonic() - load_started
        person.stop.set()
        person.thread.join(timeout=150)
        if person.thread.is_alive():
            raise SoakFailure("the person at the screen is still waiting for a marker 150 s after the load")
        load.finish()
        probe.stop.set()
        recorder.finish()
        peer = cluster.client()
        drain(host, desk, peer)
        checker = Checker(host, desk, load, history, recorder)
        for problem in over_bounds:
            checker.problem(problem)
        checker.check()
        # Idle afterwards: with the desk gone no answer comes back; what the host still had to take
        # in, it takes, then it rests: a 5 s window under IDLE_SHARE of a core within a minute (it
        # pings the watchdog each second and keeps its NATS connection; a spin would be all of it).
        desk.stop()
        pid = host.pid()
        deadline = time.monotonic() + 60
        while True:
            before = cpu_seconds(pid)
            time.sleep(5)
            idle_share = (cpu_seconds(pid) - before) / 5
            if idle_share < IDLE_SHARE or time.monotonic() > deadline:
                break
        final = {}

        def at_rest():
            final.update(faults.measure())
            return final["threads"] <= faults.baseline["threads"] + REST_THREADS

        try:
            wait_for(at_rest, timeout=REST_SECONDS, interval=0.5, what="the daemon's threads to settle")
        except AssertionError:
            checker.problem(f"{REST_SECONDS} s after the soak the daemon has {final['threads']} threads, "
                            f"more than {REST_THREADS} over the {faults.baseline['threads']} it had at rest before")
        if idle_share >= IDLE_SHARE:
            checker.problem(f"the daemon still used {idle_share:.1%} of a core a minute after the soak")
        # Only a kill and the watchdog restart the daemon: any other restart is a crash, or the
        # watchdog's answer to a daemon that could not ping (one out of descriptors could not).
        restarts = int(host.manager.show()["NRestarts"])
        expected = len(faults.recoveries["kill"]) + len(faults.recoveries["watchdog"])
        if restarts != expected:
            checker.problem(f"systemd restarted the daemon {restarts} times, {expected} of them for kill and "
                            f"watchdog faults")
        over = {key: value for key, value in final.items() if value > faults.bounds[key]}
        if over:
            checker.problem(f"at the end the daemon holds {final}, over {faults.bounds}")
        journal = host.journal_text(history.started)
        for bad in ("Fatal error", "AddressSanitizer", "panic"):
            if bad in journal:
                checker.problem(f"the journal says {bad!r}")
        print(report(seed, load_seconds, time.monotonic() - started, faults, checker, idle_share, final), flush=True)
        if checker.problems:
            raise SoakFailure("\n".join(checker.problems))
    except BaseException as error:  # noqa: BLE001 — every failure keeps the run's evidence
        failure = error
    finally:
        restore_wall_clock()
        if load is not None:
            load.stop.set()
        if person is not None:
            person.stop.set()
        if probe is not None:
            probe.stop.set()
        if recorder is not None:
            recorder.stop.set()
        kept = None
        if failure is not None:
            kept = Path(arguments.keep) / str(seed)
            shutil.rmtree(kept, ignore_errors=True)
            kept.mkdir(parents=True, exist_ok=True)
            history.write(kept / "history.jsonl")
            try:
                if host is not None:
                    (kept / "host-journal.txt").write_text(host.journal_text(history.started))
                    (kept / "manager.log").write_text(host.manager.log())
                if desk is not None:
                    (kept / "desk-stderr.txt").write_text(desk.stderr())
                (kept / "nats.log").write_text(cluster.log())
            except Exception as error:  # noqa: BLE001
                (kept / "collect-error.txt").write_text(repr(error))
        if failure is not None and screen is not None:
            try:
                screen.sway.save(kept / "screen.png")
                shutil.copy(screen.sway.log_path, kept / "sway.log")
            except Exception as error:  # noqa: BLE001
                (kept / "screen-error.txt").write_text(repr(error))
        for stop in (lambda: desk and desk.stop(), lambda: host and host.stop(), lambda: screen and screen.stop(),
                     cluster.kill_all):
            try:
                stop()
            except Exception:  # noqa: BLE001 — tear everything down whatever failed
                pass
        shutil.rmtree(base, ignore_errors=True)
    if failure is not None:
        print(f"soak FAILED (seed {seed}; replay with SEED={seed}); history and logs kept in {kept}:\n{failure}",
              file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
