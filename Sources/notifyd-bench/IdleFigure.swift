import NotifyProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Idle daemons: context switches per second with nothing to do (no watchdog asked for), on a
/// fresh daemon and on one 10 s after a burst of notices, beside dunst and its bus over the same
/// window; the RSS at rest after the burst; and the time from spawn to `READY=1`.
enum IdleFigure {
  static let burst = 1000

  static func run(_ bench: Bench) throws {
    bench.report.add(.section("Idle and start-up"))
    let window = bench.quick ? 3.0 : 10.0
    let config = DaemonUnderTest.config(
      extra: "MaxVisible=100\n[Timing]\nFadeIn=0.05\nHold=0.05\nFadeOut=0.05")
    try bench.withDaemon("idle", config: config) { daemon in
      // An idle dunst beside it, over the same windows.
      let peerPIDs = try bench.peer.map { [try $0.freshDunst()] + [$0.busDaemon].compactMap { $0 } } ?? []
      // Start-up settles: the memory trim a second after READY=1 is over.
      Clock.sleep(3)
      try measure(bench, daemon, peerPIDs, window: window, what: "fresh daemon")
      // Resident memory at rest beside dunst at rest, both fresh.
      reportMemory(bench, daemon, peerPIDs, what: "fresh", verdict: true)
      // A burst: 1,000 notices through 8 connections, every one shown and finished, clients gone.
      try ScalingFigure.fill(daemon.socketPath, count: burst)
      do {
        let control = try daemon.connect()  // closed at the end of this block
        let deadline = Clock.seconds() + 60
        while true {
          let status = try control.call(
            Interface.Method.status.qualifiedName, NoParameters(), returning: StatusReply.self)
          if status.waiting + status.queued + status.visible == 0 { break }
          guard Clock.seconds() < deadline else { throw BenchError("the burst did not finish within 60 s") }
          Clock.sleep(0.1)
        }
      }
      // 10 s after the burst: the memory trim a second after the last client left, and Dispatch's
      // idle worker threads exit (5 s after their last work), are over.
      Clock.sleep(10)
      try measure(bench, daemon, peerPIDs, window: window, what: "10 s after a burst of \(burst)")
      // And after the burst: the history now holds its 1,000 notices and SQLite's cache what the
      // commits touched, which a fresh dunst beside it does not; shown, not judged.
      reportMemory(bench, daemon, peerPIDs, what: "10 s after the burst, \(burst) in history", verdict: false)
    }

    let starts = bench.runs(20)
    let directory = try makeScratchDirectory("notifyd-bench-ready")
    var times: [Double] = []
    var fresh = 0.0
    for index in 0..<starts + 1 {
      let daemon = try DaemonUnderTest(
        binary: bench.notifyd, directory: directory, config: DaemonUnderTest.config())
      let milliseconds = Double(daemon.readyNanoseconds) / 1e6
      if index == 0 { fresh = milliseconds } else { times.append(milliseconds) }
      let status = daemon.stop()
      guard status == 0 else { throw BenchError("notifyd exited \(status); see \(daemon.logPath)") }
    }
    removeTree(directory)
    let sample = Sample(times)
    bench.report.add(
      Row(
        figure: "spawn → READY=1, median of \(starts) (store exists)",
        value:
          "\(Format.fixed(sample.median, 1)) ms (max \(Format.fixed(sample.maximum, 1)); new store \(Format.fixed(fresh, 1)))",
        budget: "≤ 100 ms", verdict: sample.median <= 100 ? .met : .missed))
  }

  static func reportMemory(
    _ bench: Bench, _ daemon: DaemonUnderTest, _ peerPIDs: [pid_t], what: String, verdict: Bool
  ) {
    let resident = ProcessStats.residentBytes(daemon.pid) ?? 0
    var memory = Row(
      figure: "RSS idle, \(what) (VmRSS)", value: "\(Format.fixed(Double(resident) / 1_048_576, 1)) MiB",
      budget: verdict ? "≤ dunst's idle RSS" : "")
    if let dunst = peerPIDs.first, let theirs = ProcessStats.residentBytes(dunst) {
      memory.peer = "dunst (fresh) \(Format.fixed(Double(theirs) / 1_048_576, 1)) MiB"
      memory.ratio = Format.fixed(Double(resident) / Double(theirs), 2) + "×"
      if verdict { memory.verdict = resident <= theirs ? .met : .missed }
    }
    bench.report.add(memory)
  }

  /// Context switches of every thread of the daemon (and of the peers) over `window` seconds.
  static func measure(
    _ bench: Bench, _ daemon: DaemonUnderTest, _ peerPIDs: [pid_t], window: Double, what: String
  ) throws {
    let before = ProcessStats.contextSwitchesByThread(daemon.pid)
    let peerBefore = peerPIDs.map { ProcessStats.contextSwitchesByThread($0) }
    Clock.sleep(window)
    let after = ProcessStats.contextSwitchesByThread(daemon.pid)
    let peerAfter = peerPIDs.map { ProcessStats.contextSwitchesByThread($0) }
    let ours = ProcessStats.switches(from: before, to: after)
    var row = Row(
      figure: "context switches/s idle, \(what), \(Int(window)) s, no watchdog (\(after.count) threads)",
      value: Format.fixed(Double(ours.switches) / window, 1), budget: "0 (no wakeups but watchdog pings)",
      verdict: ours.switches == 0 ? .met : .missed)
    if !peerAfter.isEmpty {
      let peer = zip(peerBefore, peerAfter).map { ProcessStats.switches(from: $0, to: $1).switches }.reduce(
        0, +)
      row.peer = "dunst+bus \(Format.fixed(Double(peer) / window, 1))/s"
    }
    if ours.exited > 0 {
      bench.report.note(
        "\(ours.exited) daemon threads exited in the idle window \(what) (counted as a wakeup each)")
    }
    bench.report.add(row)
  }
}
