"""The soak's verdict: the host's history recorded as the run goes, and every rule checked from what
was recorded (`Checker`)."""

import bisect
import collections
import statistics
import threading
import time

from conftest import Connection, Daemon
from soak.host import History, Host, SoakFailure, call
from soak.load import Load
from soak.settings import GONE_WITHIN, HISTORY, HOST, QUEUE, RECORD_EVERY, RECORD_LIMIT


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


