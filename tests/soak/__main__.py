"""`python3 tests/soak [--seconds N] [--seed N]` (`make soak`): the run, and its report (the package's
docstring says what runs and what is checked)."""

import sys
from pathlib import Path

# tests/: conftest and the harness the soak shares with the suites, and this package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import argparse  # noqa: E402 (from here on, after the path)
import collections
import os
import random
import shutil
import signal
import statistics
import tempfile
import time

from conftest import Daemon, cpu_seconds, wait_for
from relay_helpers import NatsCluster, NatsPeer, missing_tools
import soak  # noqa: E402
from soak.checker import Checker, HistoryRecorder, Probe
from soak.faults import Faults, restore_wall_clock
from soak.host import History, Host, SoakFailure, call
from soak.load import Load
from soak.screen import Person, Screen
from soak.settings import (BOUNDS, DESK_CONFIG, FAULT_KINDS, HISTORY, IDLE_SHARE, REST_SECONDS, REST_THREADS, STREAM,
                           SUBJECT)


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
    parser = argparse.ArgumentParser(prog="tests/soak", description=soak.__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=180)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--keep", default=str(Path(__file__).resolve().parents[2] / ".build" / "soak"))
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


main()
