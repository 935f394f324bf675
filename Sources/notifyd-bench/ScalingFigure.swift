import Dispatch
import Foundation
import NotifyProtocol
import Synchronization

/// The cost of one `Show` and the daemon's memory at 10, 1k, 10k and 100k unfinished notices,
/// with the queue suspended so that none finishes; then the memory 10 s after they are all
/// cancelled and their clients have left, beside what it was before the first.
enum ScalingFigure {
  static let levels = [10, 1_000, 10_000, 100_000]
  /// Rounds of sequential `Show`s timed at each level, and `Show`s per round: a level's cost is the
  /// median of its rounds' medians, so that one slow stretch of a noisy machine does not decide it.
  static let rounds = 5
  static let roundSize = 200

  static func run(_ bench: Bench) throws {
    bench.report.add(.section("Show cost and memory vs unfinished notices (queue suspended)"))
    let levels = bench.quick ? [10, 1_000, 10_000] : levels
    try bench.withDaemon("scaling") { daemon in
      // The daemon trims a second after it frees (`MemoryReclaimer`): the start-up's is done.
      Clock.sleep(1.5)
      let before = ProcessStats.residentBytes(daemon.pid) ?? 0
      var control = try daemon.connect()
      _ = try control.call(
        Interface.Method.suspend.qualifiedName, SuspendParameters(), returning: SuspendReply.self)
      var count = 0
      var costs: [(level: Int, median: Double, cpu: Double)] = []
      var memory: [(level: Int, bytes: Int)] = []
      for level in levels {
        let cpuBefore = ProcessStats.cpuSeconds(daemon.pid) ?? 0
        let added = level - count
        try fill(daemon.socketPath, count: added)
        // CPU time comes in 10 ms ticks: per Show only over a fill of a thousand or more.
        let cpuPerShow =
          added >= 1000
          ? ((ProcessStats.cpuSeconds(daemon.pid) ?? 0) - cpuBefore) / Double(added) * 1e6 : .nan
        count = level
        Clock.sleep(0.3)
        let rss = ProcessStats.residentBytes(daemon.pid) ?? 0
        memory.append((level, rss))
        var latencies: [Double] = []
        var roundMedians: [Double] = []
        let call = try ShowLoad.call(index: 0)
        let cpuBeforeRounds = ProcessStats.cpuSecondsPrecise(daemon.pid)
        for _ in 0..<rounds {
          var round: [Double] = []
          for _ in 0..<roundSize {
            let started = Clock.nanoseconds()
            try control.send(call)
            let reply = try control.receive()
            round.append(Double(Clock.nanoseconds() - started) / 1000)
            if RawVarlinkConnection.isError(reply) {
              throw BenchError(String(decoding: reply, as: UTF8.self))
            }
          }
          roundMedians.append(Sample(round).median)
          latencies += round
          Clock.sleep(0.05)
        }
        // The daemon's own CPU over the timed Shows (the pauses between rounds are idle).
        let cpu =
          (ProcessStats.cpuSecondsPrecise(daemon.pid) - cpuBeforeRounds) / Double(rounds * roundSize) * 1e6
        count += rounds * roundSize
        let sample = Sample(latencies)
        let cost = Sample(roundMedians).median
        costs.append((level, cost, cpu))
        bench.report.add(
          Row(
            figure: "at \(Format.grouped(Double(level))) unfinished",
            value:
              "Show \(Format.fixed(cost, 0)) µs (median of \(rounds) rounds' medians), p99 \(Format.fixed(sample.p99, 0)) µs, daemon CPU \(Format.fixed(cpu, 1)) µs/Show; "
              + "RSS \(Format.fixed(Double(rss) / 1_048_576, 1)) MiB; daemon CPU \(Format.fixed(cpuPerShow, 1)) µs/Show filling"
          ))
      }
      let status = try control.call(
        Interface.Method.status.qualifiedName, NoParameters(), returning: StatusReply.self)
      guard status.waiting + status.queued >= levels.last! else {
        throw BenchError("expected \(levels.last!) unfinished notices, the daemon reports \(status)")
      }
      // The verdict is on the daemon's CPU per Show, which holds on a noisy machine; the round trip
      // (the client's and the kernel's share included) is shown beside it.
      let medians = costs.map(\.median)
      let latencySpread = medians.max()! / medians.min()!
      let cpus = costs.map(\.cpu)
      let spread = cpus.max()! / cpus.min()!
      bench.report.add(
        Row(
          figure: "Show cost, slowest/fastest level (daemon CPU per Show)",
          value: "\(Format.ratio(spread)) (\(cpus.map { Format.fixed($0, 1) }.joined(separator: " / ")) µs); "
            + "round trip \(Format.ratio(latencySpread))",
          budget: "≤ 1.3×", verdict: spread <= 1.3 ? .met : .missed))
      let first = memory.first!
      let last = memory.last!
      let perNotice = Double(last.bytes - first.bytes) / Double(last.level - first.level)
      bench.report.add(
        Row(
          figure: "memory per unfinished notice",
          value:
            "\(Format.fixed(perNotice / 1024, 2)) KiB (RSS \(Format.grouped(Double(first.level))) → \(Format.grouped(Double(last.level))))",
          budget: "≤ 1.5 KiB", verdict: perNotice <= 1536 ? .met : .missed))
      let peak = ProcessStats.residentBytes(daemon.pid) ?? 0
      _ = try control.call(
        Interface.Method.cancel.qualifiedName, CancelParameters(all: true, now: true),
        returning: CancelReply.self)
      control = try daemon.connect()  // the filling client leaves
      let drained = Clock.seconds()
      var after = peak
      while Clock.seconds() - drained < 10 {
        Clock.sleep(0.25)
        after = ProcessStats.residentBytes(daemon.pid) ?? 0
      }
      func mebibytes(_ bytes: Int) -> String { Format.fixed(Double(bytes) / 1_048_576, 1) + " MiB" }
      bench.report.add(
        Row(
          figure: "memory 10 s after \(Format.grouped(Double(levels.last!))) unfinished are cancelled",
          value:
            "RSS \(mebibytes(after)): \(mebibytes(after - before)) over \(mebibytes(before)) before the first "
            + "(peak \(mebibytes(peak)))",
          budget: "≤ 4 MiB over before", verdict: after - before <= 4 << 20 ? .met : .missed))
    }
  }

  /// Adds `count` notices through 8 connections, each sending batches of up to 64 calls.
  static func fill(_ path: String, count: Int) throws {
    guard count > 0 else { return }
    let connections = min(8, count)
    let failure = Mutex<String?>(nil)
    let done = DispatchGroup()
    for index in 0..<connections {
      let quota = count / connections + (index < count % connections ? 1 : 0)
      done.enter()
      Thread {
        defer { done.leave() }
        do {
          let connection = try RawVarlinkConnection(path: path)
          let call = try ShowLoad.call(index: index)
          var remaining = quota
          while remaining > 0 {
            let batch = min(64, remaining)
            try connection.send(Array([[UInt8]](repeating: call, count: batch).joined()))
            for _ in 0..<batch {
              let reply = try connection.receive()
              if RawVarlinkConnection.isError(reply) {
                throw BenchError(String(decoding: reply, as: UTF8.self))
              }
            }
            remaining -= batch
          }
        } catch {
          failure.withLock { $0 = "\(error)" }
        }
      }.start()
    }
    done.wait()
    if let message = failure.withLock({ $0 }) { throw BenchError("filling the queue: \(message)") }
  }
}
