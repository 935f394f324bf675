"""The soak's faults, one at a time on the seed's schedule, each cleared before the next; and the
bounds checked after each."""

import collections
import contextlib
import os
import random
import signal
import subprocess
import time

from conftest import rss_kib, wait_for
from relay_helpers import NatsCluster
from test_bounds import open_file_limits
from soak.checker import Probe
from soak.host import History, Host, SoakFailure, call
from soak.screen import Screen
from soak.settings import BOUNDS, COLUMN, FAULT_KINDS, PAUSE_SECONDS, SANITIZED


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


