"""`make soak [SECONDS=180] [SEED=n]` (`python3 tests/soak`, this package): mixed load for a long
while, with faults injected on a seeded schedule, then every rule checked from the recorded history (issue 37).

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
