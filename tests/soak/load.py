"""The soak's load: Varlink clients of every kind, all at once, each recording what it was told."""

import collections
import json
import os
import random
import socket
import subprocess
import threading

from conftest import Connection
from soak.host import History, Host, SoakFailure, call
from soak.settings import QUEUE


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


