#!/usr/bin/env python3
"""`make test`: every suite, each build once, the waiting ones beside the working ones.

On two cores most of a serial run is spent waiting (on compositors, fades, timeouts), so the
suites are jobs with what they need, run as soon as that is done:

- builds and CPU-bound suites (the unit tests) take the machine's cores: two at once only when one
  of them keeps a single core busy (the release build's whole-module optimisation goes a module at
  a time), the one earlier in the table first (the other runs at nice 10);
- the end-to-end suites run on several pytest-xdist workers each, beside a build and each other;
- what cannot share the machine with other tests (tests marked `alone`: floods, capacity, CPU and
  tight timing; the soak) runs last, one at a time, with no other test running; and with no other
  `make test`'s alone ones either (a lock in /tmp, held from this run's first alone job to its end):
  two runs on one machine take turns there, and each waits only for the other's alone part;

Each job's output goes to .build/test-logs/JOB.log; a failing job's end is printed when it fails,
and the run goes on with everything that does not need it. At the end, one line per job: its wall
time, its CPU time, what it counted, and whether it passed. `scripts/test.py JOB…` runs those jobs
and what they need (`make unit-test` and the other targets do that); `--list` shows the jobs.
"""

import argparse
import fcntl
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LOGS = REPO / ".build" / "test-logs"
PYTHON = os.environ.get("PYTHON", "python3")
SWIFT = os.environ.get("SWIFT", "swift")
SWIFTPM = ["scripts/swiftpm.sh", SWIFT]
# The sanitized builds keep line tables, not full debug info: their reports keep file:line, and the
# builds take a seventh less CPU (docs/DECISIONS.md, "Line tables").
LINE_TABLES = ["-Xswiftc", "-gline-tables-only"]

# What runs at once: CPU jobs (builds, the unit tests) keeping at most CORES + 1 cores busy between
# them (so one that keeps a single core busy can run beside one that keeps two), never held up by the
# suites, since the builds are the run's critical path; beside them up to SUITES end-to-end suites,
# whose processes mostly wait.
CORES = os.cpu_count() or 2
SUITES = 2
# The nice value of a CPU job running beside one earlier in the table.
BEHIND = 10
# pytest-xdist workers of an end-to-end suite (`-n`); NOTIFYD_TEST_WORKERS changes it.
WORKERS = os.environ.get("NOTIFYD_TEST_WORKERS", "3")

# The end-to-end modules the sanitized runs repeat. The hostile-client tests run too, but for the
# ones that fill the queue to capacity or keep a full history (minutes under a sanitizer).
SANITIZED = ["tests/test_varlink.py", "tests/test_bad_input.py", "tests/test_store.py", "tests/test_config.py",
             "tests/test_bounds.py", "tests/test_popups_wayland.py", "tests/test_popups_acting.py", "tests/test_popups_x11.py",
             "tests/test_freedesktop.py", "tests/test_dnd.py", "tests/test_relay.py", "tests/test_relay_answers.py", "tests/test_logind.py",
             "tests/test_center.py", "tests/test_screens.py", "tests/test_fullscreen.py", "tests/test_session.py", "tests/test_accessibility.py",
             "-k", "not full_capacity and not flood_of_100000 and not history_of_60000"]
# The Debian package and `make install` need the release build that `deb` makes.
PACKAGE = ["tests/test_package.py", "tests/test_install.py"]
SOAK_SECONDS = os.environ.get("SECONDS_OF_SOAK", "180")
# The TSan build's test targets: the queue engine's suites are the ones run under TSan; and not the
# bench. (It keeps notifyctl: the daemon runs the one beside it for the picker, `notifyctl menu`.)
# The ASan build: the daemon and the client its suites run, not the bench.
ASAN_BUILD = {"NOTIFYD_LEAVE_OUT": "notifyd-bench"}
TSAN_BUILD = {**ASAN_BUILD, "NOTIFYD_TEST_TARGETS": "NotifyCoreTests"}
# Each job's processes are counted in a cpuacct cgroup of their own, where the machine has that
# hierarchy and lets us make one (as root): the report gives each job's CPU time beside its wall time.
CPUACCT = Path("/sys/fs/cgroup/cpuacct")


def pytest(*arguments, parallel=True):
    """pytest on the end-to-end suite; in parallel on WORKERS workers, a module's shared fixture
    (a container, a user manager) kept on one of them (xdist_group)."""
    return [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:benchmark", "-o", "console_output_style=classic",
            "--durations=15", *(["-n", WORKERS, "--dist", "loadgroup"] if parallel else []), *arguments]


def sanitized(kind, scratch, *command):
    """`command` against the daemon built with a sanitizer in `scratch`; any report fails it."""
    return ["bench/sanitized-tests.sh", kind, scratch, "--", *command]


@dataclass
class Job:
    name: str
    command: list
    needs: tuple = ()
    # "cpu": keeps `cores` cores busy; "suite": mostly waits; "alone": with nothing else, last.
    kind: str = "suite"
    env: dict = field(default_factory=dict)
    cores: int = 2  # of a "cpu" job: how many cores it keeps busy on its own (measured: PERFORMANCE.md)
    timed: bool = False  # a "cpu" job whose tests time things: never niced behind another
    # The SwiftPM scratch folder it runs SwiftPM on: SwiftPM locks it for as long as it runs (`swift
    # test --skip-build` too), so two jobs on one never run at once (make install waited out the
    # unit tests: 5 minutes of test_install's setup).
    scratch: str = None
    # Filled in as it runs.
    process: subprocess.Popen = None
    started: float = 0.0
    ended: float = 0.0
    status: str = "waiting"  # waiting, running, passed, failed, not run
    cgroup: Path = None
    cpu: float = None  # seconds of CPU its processes used, when counted
    nice: int = 0

    @property
    def log(self):
        return LOGS / f"{self.name}.log"


def jobs():
    debug = str(REPO / ".build" / "debug")
    deb_version = subprocess.run(["dpkg-parsechangelog", "-S", "Version"], cwd=REPO, capture_output=True,
                                 text=True).stdout.strip()
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
    deb = str(REPO / ".build" / "deb" / f"notifyd_{deb_version}_{arch}.deb")
    # In order of priority: each build as early as it can, in the order of the suites that wait for
    # them: the package's (its suite is long, and needs the release build), then TSan's, ASan's.
    return [
        Job("build", [*SWIFTPM, "build", "--build-tests"], kind="cpu", scratch=".build"),
        Job("integration", pytest("-m", "not alone", "tests", *[f"--ignore={path}" for path in PACKAGE]),
            ("build",), env={"NOTIFYD_BIN": debug}),
        Job("deb", ["make", "--no-print-directory", "deb", "NO_DEPS=1", "DEB_COMPRESSION=-Zgzip -z1"], ("build",),
            kind="cpu", cores=1, scratch=".build"),
        Job("package", pytest("-m", "not alone", *PACKAGE), ("build", "deb"),
            env={"NOTIFYD_BIN": debug, "NOTIFYD_DEB": deb}, scratch=".build"),
        # With the engine's test target alone (Package.swift, NOTIFYD_TEST_TARGETS): TSan runs no other.
        Job("tsan-build", [*SWIFTPM, "build", "--build-tests", "--sanitize=thread", "--scratch-path", ".build/tsan",
                               *LINE_TABLES], kind="cpu", env=TSAN_BUILD),
        # The daemon under TSan; its clients run the plain notifyctl (tests/conftest.py's CLIENT_BIN).
        Job("tsan-integration", sanitized("thread", ".build/tsan", *pytest("-m", "not alone", *SANITIZED)),
            ("tsan-build", "build"), env={"NOTIFYD_CLIENT_BIN": debug}),
        Job("asan-build", [*SWIFTPM, "build", "--sanitize=address", "--scratch-path", ".build/asan", *LINE_TABLES],
            kind="cpu", env=ASAN_BUILD),
        Job("asan-integration", sanitized("address", ".build/asan", *pytest("-m", "not alone", *SANITIZED)),
            ("asan-build",)),
        Job("unit", [*SWIFTPM, "test", "--skip-build"], ("build",), kind="cpu", cores=1, timed=True,
            scratch=".build"),
        # The queue engine under Thread Sanitizer (a tenth of the simulation's schedules: each runs
        # ten times slower).
        Job("tsan-unit", [*SWIFTPM, "test", "--skip-build", "--sanitize=thread", "--scratch-path", ".build/tsan",
                          *LINE_TABLES, "--filter", "NotifyCoreTests"], ("tsan-build",), kind="cpu", cores=1,
            timed=True, env={**TSAN_BUILD, "NOTIFYD_SIMULATION_SCHEDULES": "200"}),
        Job("fuzz-build", ["make", "--no-print-directory", "fuzz-build"], kind="cpu"),
        Job("fuzz", ["fuzz/run.sh", "30", ".build/fuzz"], ("fuzz-build",), kind="cpu"),
        Job("lint", ["make", "--no-print-directory", "lint"], kind="cpu", cores=1),
        # Last, one at a time, with nothing else running.
        Job("integration-alone", pytest("-m", "alone", "tests", parallel=False), ("build",), kind="alone",
            env={"NOTIFYD_BIN": debug}),
        Job("asan-alone", sanitized("address", ".build/asan", *pytest("-m", "alone", *SANITIZED, parallel=False)),
            ("asan-build",), kind="alone"),
        Job("tsan-alone", sanitized("thread", ".build/tsan", *pytest("-m", "alone", *SANITIZED, parallel=False)),
            ("tsan-build", "build"), kind="alone", env={"NOTIFYD_CLIENT_BIN": debug}),
        # Mixed load with seeded faults on the ASan build (tests/soak); SEED= replays one.
        Job("soak", sanitized("address", ".build/asan", PYTHON, "tests/soak", "--seconds", SOAK_SECONDS,
                              *(["--seed", os.environ["SEED"]] if os.environ.get("SEED") else [])),
            ("asan-build",), kind="alone"),
    ]


def counts(job):
    """What a job's log says it counted, in a few words."""
    text = job.log.read_text(errors="replace") if job.log.exists() else ""
    found = []
    for line in text.splitlines()[::-1]:
        # pytest's last line: "== 12 passed, 1 skipped in 3.45s ==" (or without the rules, with -q).
        if re.search(r"\d+ (passed|failed|error)", line) and re.search(r" in [\d.]+s", line):
            found.append(re.sub(r"^=+ | =+$", "", line.strip()))
            break
    swift = re.findall(r"Test run with (\d+) tests? in \d+ suites? (passed|failed)[^\n]*?(?:with (\d+) issues?)?",
                       text)
    if swift:
        tests, outcome, issues = swift[-1]
        found.append(f"{tests} tests {outcome}" + (f", {issues} issues" if issues else ""))
    fuzz = re.findall(r"fuzz: (\w+): (\S+) executions in \d+ s, \d+ new corpus inputs, (\d+) crashes", text)
    if fuzz:
        found.append(", ".join(f"{target} {runs}" for target, runs, _ in fuzz)
                     + f" executions, {sum(int(crashes) for *_, crashes in fuzz)} crashes")
    soak = re.search(r"^soak: seed (\d+).*\n  notices acknowledged (\d+) \((\d+)/s\).*lost (\d+), doubled (\d+)",
                     text, re.M)
    if soak:
        seed, acknowledged, rate, lost, doubled = soak.groups()
        found.append(f"seed {seed}: {acknowledged} acknowledged at {rate}/s, lost {lost}, doubled {doubled}")
    reports = re.search(r"sanitized-tests: (no \w+ sanitizer reports|\w+ sanitizer reports in)", text)
    if reports:
        found.append(reports.group(1).replace(" in", ""))
    return "; ".join(found)


def sweep_cgroups():
    """An earlier run's cgroups that its processes have left go (a job whose processes outlived it
    could not remove its own); a run still going keeps its own, which are not empty."""
    for stale in CPUACCT.glob("notifyd-make-test-*"):
        try:
            stale.rmdir()  # only an empty one goes
        except OSError:
            pass


def counted_cgroup(name):
    """A new cpuacct cgroup for a job, or None where one cannot be made."""
    if not (CPUACCT / "cgroup.procs").exists():
        return None
    path = CPUACCT / f"notifyd-make-test-{os.getpid()}-{name}"
    try:
        path.mkdir(exist_ok=True)
    except OSError:
        return None
    return path


def starting(job):
    """For the job's child, between fork and exec: into the job's cgroup (opens and writes only)."""
    procs = str(job.cgroup / "cgroup.procs") if job.cgroup else None

    def start():
        if procs:
            descriptor = os.open(procs, os.O_WRONLY)
            try:
                os.write(descriptor, b"0")
            finally:
                os.close(descriptor)
    return start


def minutes(seconds):
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


class Run:
    def __init__(self, selected):
        self.started = time.monotonic()
        self.jobs = {job.name: job for job in selected}
        self.alone_lock = None
        self.waiting_for_alone = False
        sweep_cgroups()

    def alone_turn(self):
        """Whether this run may start its alone jobs: it holds the machine's alone lock (until it ends),
        or took it now; while another run holds it, says so once and answers False."""
        if self.alone_lock is None:
            lock = os.open("/tmp/notifyd-make-test-alone.lock", os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(lock)
                if not self.waiting_for_alone:
                    self.say("alone jobs: waiting for another make test's alone jobs to end")
                    self.waiting_for_alone = True
                return False
            self.alone_lock = lock
        return True

    def say(self, text):
        print(f"[{minutes(time.monotonic() - self.started)}] {text}", flush=True)

    def ready(self, job):
        return (job.status == "waiting"
                and all(self.jobs[need].status == "passed" for need in job.needs if need in self.jobs)
                and not (job.scratch and any(other.status == "running" and other.scratch == job.scratch
                                             for other in self.jobs.values())))

    def start(self, job):
        LOGS.mkdir(parents=True, exist_ok=True)
        job.started = time.monotonic()
        job.status = "running"
        job.cgroup = counted_cgroup(job.name)
        with open(job.log, "wb") as log:
            # A session of its own: Ctrl-C stops the job's whole process group (`main`), and
            # `prioritise` renices it as a group where there is no cgroup to find its threads in.
            job.process = subprocess.Popen(job.command, cwd=REPO, env={**os.environ, **job.env},
                                           stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                           preexec_fn=starting(job), start_new_session=True)
        self.say(f"{job.name}: started")

    def finish(self, job):
        job.ended = time.monotonic()
        if job.cgroup:
            job.cpu = int((job.cgroup / "cpuacct.usage").read_text()) / 1e9
            try:
                job.cgroup.rmdir()
            except OSError:
                pass  # a process it started outlived it; the cgroup goes with the machine
        job.status = "passed" if job.process.returncode == 0 else "failed"
        said = counts(job)
        cpu = f", cpu {minutes(job.cpu)}" if job.cpu is not None else ""
        self.say(f"{job.name}: {job.status} in {minutes(job.ended - job.started)}{cpu}" + (f" ({said})" if said else ""))
        if job.status == "failed":
            lines = job.log.read_text(errors="replace").splitlines()
            print(f"---- the end of {job.log.relative_to(REPO)} (exit {job.process.returncode}):", flush=True)
            print("\n".join(lines[-150:]), flush=True)
            print("----", flush=True)
        # What needed it will not run.
        changed = True
        while changed:
            changed = False
            for other in self.jobs.values():
                if other.status == "waiting" and any(self.jobs[need].status in ("failed", "not run")
                                                     for need in other.needs if need in self.jobs):
                    other.status = "not run"
                    changed = True

    def room_for(self, job, running):
        """Whether CPU job `job` may start beside the CPU jobs `running`."""
        busy = [other.cores for other in running if other.kind == "cpu"]
        return not busy or (sum(busy) + job.cores <= CORES + 1 and min(busy + [job.cores]) == 1)

    def prioritise(self, running):
        """The CPU job earliest in the table at nice 0, any other at BEHIND unless its tests time
        things. Every thread of the job's cgroup, as each loop finds them (SwiftPM's build starts
        its compilers in process groups of their own, and they do not keep swift-build's nice);
        without a cgroup, the job's process group. Renicing up needs CAP_SYS_NICE: without it a job
        stays behind once it was."""
        cpu = [job for job in self.jobs.values() if job in running and job.kind == "cpu"]
        for rank, job in enumerate(cpu):
            wanted = 0 if rank == 0 or job.timed else BEHIND
            if job.cgroup:
                try:
                    threads = [int(tid) for tid in (job.cgroup / "tasks").read_text().split()]
                except OSError:
                    threads = []
                for tid in threads:
                    try:
                        if os.getpriority(os.PRIO_PROCESS, tid) != wanted:
                            os.setpriority(os.PRIO_PROCESS, tid, wanted)
                    except OSError:
                        pass  # gone meanwhile, or not ours to raise
            elif job.nice != wanted:
                try:
                    os.setpriority(os.PRIO_PGRP, job.process.pid, wanted)
                    job.nice = wanted
                except OSError:
                    pass

    def loop(self):
        while True:
            for job in [job for job in self.jobs.values() if job.status == "running"]:
                if job.process.poll() is not None:
                    self.finish(job)
            running = [job for job in self.jobs.values() if job.status == "running"]
            waiting = [job for job in self.jobs.values() if job.status == "waiting"]
            if not running and not waiting:
                return
            if not any(job.kind == "alone" for job in running):
                for job in waiting:
                    if not self.ready(job):
                        continue
                    if job.kind == "cpu":
                        startable = self.room_for(job, running)
                    elif job.kind == "suite":
                        startable = sum(other.kind == "suite" for other in running) < SUITES
                    else:
                        startable = False
                    if startable:
                        self.start(job)
                        running.append(job)
                # The alone ones once nothing else runs or can start: one at a time, by themselves.
                if not running:
                    alone = [job for job in waiting if job.kind == "alone" and self.ready(job)]
                    if alone and self.alone_turn():
                        self.start(alone[0])
                        running.append(alone[0])
                    elif not alone and not any(self.ready(job) for job in waiting):
                        for job in waiting:
                            job.status = "not run"
            self.prioritise(running)
            time.sleep(0.2)

    def report(self):
        print("\nmake test: each suite's wall time and CPU time (jobs overlap; the run's own is at the end)")
        width = max(len(name) for name in self.jobs)
        for job in self.jobs.values():
            took = minutes(job.ended - job.started) if job.ended else "-"
            cpu = minutes(job.cpu) if job.cpu is not None else "-"
            print(f"  {job.name:<{width}}  {job.status:<7}  {took:>6}  cpu {cpu:>6}  {counts(job) if job.ended else ''}")
        failed = [job.name for job in self.jobs.values() if job.status != "passed"]
        passed = len(self.jobs) - len(failed)
        wall = time.monotonic() - self.started
        counted = [job.cpu for job in self.jobs.values() if job.cpu is not None]
        cpu = (f", CPU {minutes(sum(counted))} of the {minutes(wall * os.cpu_count())} that {os.cpu_count()} cores"
               f" give in it ({sum(counted) / (wall * os.cpu_count()):.0%})" if counted else "")
        print(f"make test: {minutes(wall)} in all{cpu}" + (f"; not passed: {', '.join(failed)}" if failed else ""))
        # The plain closing line: jobs, not tests (each suite's own counts are above).
        print(f"jobs: {passed} passed, {len(failed)} failed")
        return not failed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("jobs", nargs="*", help="jobs to run, with what they need (default: all)")
    parser.add_argument("--list", action="store_true", help="list the jobs and what each needs")
    arguments = parser.parse_args()
    every = {job.name: job for job in jobs()}
    if arguments.list:
        for job in every.values():
            needs = f" (after {', '.join(job.needs)})" if job.needs else ""
            print(f"{job.name} ({job.kind}){needs}: {' '.join(job.command)}")
        return 0
    unknown = [name for name in arguments.jobs if name not in every]
    if unknown:
        parser.error(f"no job {', '.join(unknown)}; --list shows them")
    wanted = set()
    pending = list(arguments.jobs or every)
    while pending:
        name = pending.pop()
        if name not in wanted:
            wanted.add(name)
            pending.extend(every[name].needs)
    run = Run([job for name, job in every.items() if name in wanted])
    try:
        run.loop()
    except KeyboardInterrupt:
        for job in run.jobs.values():
            if job.status == "running":
                try:
                    os.killpg(job.process.pid, signal.SIGTERM)
                except OSError:
                    pass
        raise
    return 0 if run.report() else 1


if __name__ == "__main__":
    sys.exit(main())
