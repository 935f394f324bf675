import NotifyProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Timing accuracy as the daemon reports it over `Watch`: how far each phase boundary lands from
/// where the notice's `shown` time and its timing put it, and how evenly frames are paced.
enum TimingFigure {
  static let fadeIn = 0.4
  static let hold = 0.3
  static let fadeOut = 0.4
  static let fps = 60

  static func run(_ bench: Bench) throws {
    bench.report.add(
      .section(
        "Timing accuracy (Watch events' `at` vs `shown` + timing; fadeIn 0.4 s, hold 0.3 s, fadeOut 0.4 s)"))
    let config = DaemonUnderTest.config(extra: "MaxVisible=200\nFrameRate=\(fps)")
    for (notices, repeats) in [(1, bench.runs(20)), (100, bench.quick ? 1 : 3)] {
      var boundaries: [Double] = []
      var frames: [Double] = []
      try bench.withDaemon("timing-\(notices)", config: config) { daemon in
        for _ in 0..<repeats {
          let result = try measure(daemon, notices: notices)
          boundaries += result.boundaries
          frames += result.frames
        }
      }
      let boundary = Sample(boundaries)
      let frame = Sample(frames)
      // The machine's load over the last minute, and its own floor: how evenly a bare thread that
      // sleeps to absolute deadlines at the same pace wakes here, measured as frames are.
      let floor = Sample(sleeperPacing(ticks: bench.quick ? 60 : 300))
      let load =
        "load \(ProcessStats.readFile("/proc/loadavg")?.split(separator: " ").first ?? "?"); "
        + "a bare sleeper's p99 \(Format.fixed(floor.p99, 3)) ms"
      bench.report.add(
        Row(
          figure: "phase boundaries, \(notices) fading at once (n=\(boundary.count))",
          value:
            "p50 \(Format.fixed(boundary.median, 3)) ms, p99 \(Format.fixed(boundary.p99, 3)) ms, max \(Format.fixed(boundary.maximum, 3)) ms",
          budget: notices == 100 ? "p99 ≤ 2 ms" : "", peer: load,
          verdict: notices == 100 ? (boundary.p99 <= 2 ? .met : .missed) : .none))
      bench.report.add(
        Row(
          figure: "frame pacing at \(fps) fps, \(notices) fading (n=\(frame.count))",
          value:
            "p50 \(Format.fixed(frame.median, 3)) ms, p99 \(Format.fixed(frame.p99, 3)) ms, max \(Format.fixed(frame.maximum, 3)) ms",
          budget: "p99 ≤ 1 ms", peer: load, verdict: frame.p99 <= 1 ? .met : .missed))
    }
  }

  /// One run: a watcher with frames, `notices` shown together, every event until all finished.
  /// Answers absolute errors in milliseconds.
  static func measure(_ daemon: DaemonUnderTest, notices: Int) throws -> (
    boundaries: [Double], frames: [Double]
  ) {
    let watch = try daemon.connect()
    try watch.send(
      VarlinkCoding.call(
        Interface.Method.watch.qualifiedName, WatchParameters(frames: true, fps: fps), more: true))
    _ = try watch.receive()  // the snapshot
    let shows = try daemon.connect()
    let call = try VarlinkCoding.call(
      Interface.Method.show.qualifiedName,
      ShowParameters(
        title: "timing", fadeIn: fadeIn, hold: hold, fadeOut: fadeOut, easeIn: .linear, easeOut: .linear))
    try shows.send(Array([[UInt8]](repeating: call, count: notices).joined()))
    var ids: Set<Int> = []
    for _ in 0..<notices {
      let reply = try VarlinkCoding.parameters(ShowReply.self, from: shows.receive())
      ids.insert(reply.id)
    }
    var phases: [Int: [Phase: Double]] = [:]
    var finished: [Int: (at: Double, notice: Notice)] = [:]
    var frameTimes: [Double] = []
    let deadline = Clock.seconds() + 30
    while finished.count < ids.count {
      guard Clock.seconds() < deadline else { throw BenchError("notices did not finish within 30 s") }
      let event = try VarlinkCoding.parameters(EventReply.self, from: watch.receive()).event
      guard let id = event.id, ids.contains(id) else { continue }
      switch event.kind {
      case .phase: if let phase = event.phase { phases[id, default: [:]][phase] = event.at }
      case .frame: if frameTimes.last != event.at { frameTimes.append(event.at) }
      case .finished: if let notice = event.notice { finished[id] = (event.at, notice) }
      default: break
      }
    }
    var boundaries: [Double] = []
    var fading: [(start: Double, end: Double)] = []
    for (id, end) in finished {
      guard let shown = end.notice.shown, let phase = phases[id], let holding = phase[.holding],
        let fadingOut = phase[.fadingOut], let fadingIn = phase[.fadingIn]
      else { throw BenchError("notice \(id) finished without the phases it should have gone through") }
      let notice = end.notice
      boundaries.append(abs(holding - (shown + notice.fadeIn)) * 1000)
      boundaries.append(abs(fadingOut - (shown + notice.fadeIn + notice.hold)) * 1000)
      boundaries.append(abs(end.at - (shown + notice.fadeIn + notice.hold + notice.fadeOut)) * 1000)
      fading.append((fadingIn, holding))
      fading.append((fadingOut, end.at))
    }
    // Only intervals inside one stretch where something fades: between stretches the timer sleeps.
    let stretches = merged(fading)
    var pacing: [Double] = []
    let times = frameTimes.sorted()
    for (earlier, later) in zip(times, times.dropFirst()) {
      if stretches.contains(where: { $0.start <= earlier && later <= $0.end }) {
        pacing.append(abs((later - earlier) - 1 / Double(fps)) * 1000)
      }
    }
    return (boundaries, pacing)
  }

  /// A thread of the bench's own that sleeps to absolute `CLOCK_MONOTONIC` deadlines at `fps` for
  /// `ticks` ticks: the interval errors in milliseconds, as `measure` computes them for frames.
  static func sleeperPacing(ticks: Int) -> [Double] {
    var mutex = pthread_mutex_t()
    pthread_mutex_init(&mutex, nil)
    var attributes = pthread_condattr_t()
    pthread_condattr_init(&attributes)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
    var condition = pthread_cond_t()
    pthread_cond_init(&condition, &attributes)
    let interval = 1 / Double(fps)
    var deadline = Clock.seconds() + interval
    var wakes: [Double] = []
    pthread_mutex_lock(&mutex)
    for _ in 0..<ticks {
      var until = timespec(tv_sec: Int(deadline), tv_nsec: Int((deadline - deadline.rounded(.down)) * 1e9))
      while pthread_cond_timedwait(&condition, &mutex, &until) == 0 {}
      wakes.append(Clock.seconds())
      deadline += interval
    }
    pthread_mutex_unlock(&mutex)
    return zip(wakes, wakes.dropFirst()).map { abs(($1 - $0) - interval) * 1000 }
  }

  private static func merged(_ intervals: [(start: Double, end: Double)]) -> [(start: Double, end: Double)] {
    var result: [(start: Double, end: Double)] = []
    for interval in intervals.sorted(by: { $0.start < $1.start }) {
      if let last = result.last, interval.start <= last.end {
        result[result.count - 1].end = max(last.end, interval.end)
      } else {
        result.append(interval)
      }
    }
    return result
  }
}
