import Foundation
import NotifyProtocol

/// The daemon's memory under steady use: a million short notices through one connection, each
/// shown and finished within milliseconds, with history at its default 1,000. After warm-up the
/// resident set it keeps (read every 100,000 once the queue has drained) must stay flat: what
/// grows with the number of notices ever shown is a leak.
enum SteadyMemoryFigure {
  static let warmUp = 100_000
  static let total = 1_000_000
  /// Calls sent in one write before their replies are read.
  static let batch = 64

  static func run(_ bench: Bench) throws {
    bench.report.add(.section("Memory under steady use (short notices through one connection)"))
    let total = bench.quick ? 300_000 : total
    let config = DaemonUnderTest.config(
      extra: "MaxVisible=50\n[Timing]\nFadeIn=0\nHold=0.01\nFadeOut=0")
    try bench.withDaemon("steady", config: config) { daemon in
      let connection = try daemon.connect()
      let call = try VarlinkCoding.call(
        Interface.Method.show.qualifiedName, ShowParameters(title: "steady", body: "short"))
      let calls = Array([[UInt8]](repeating: call, count: batch).joined())
      var shown = 0
      var samples: [(shown: Int, rss: Int)] = []
      let cpuBefore = ProcessStats.cpuSeconds(daemon.pid) ?? 0
      let started = Clock.nanoseconds()
      while shown < total {
        try connection.send(calls)
        for _ in 0..<batch {
          let reply = try connection.receive()
          if RawVarlinkConnection.isError(reply) { throw BenchError(String(decoding: reply, as: UTF8.self)) }
        }
        shown += batch
        if shown % 100_000 < batch, shown >= warmUp {
          samples.append((shown, try settledResidentBytes(daemon)))
        }
      }
      let seconds = Double(Clock.nanoseconds() - started) / 1e9 - Double(samples.count) * settleSeconds
      let cpu = ((ProcessStats.cpuSeconds(daemon.pid) ?? 0) - cpuBefore) / Double(shown) * 1e6
      let first = samples.first!
      let last = samples.last!
      let growth = Double(last.rss - first.rss) / 1_048_576
      let path = samples.map { Format.fixed(Double($0.rss) / 1_048_576, 1) }.joined(separator: " ")
      bench.report.add(
        Row(
          figure:
            "RSS growth, \(Format.grouped(Double(first.shown))) → \(Format.grouped(Double(last.shown))) notices",
          value:
            "\(Format.fixed(growth, 2)) MiB (RSS every 100k, MiB: \(path)); \(Format.grouped(Double(shown) / seconds))/s, daemon CPU \(Format.fixed(cpu, 1)) µs/notice",
          budget: "≤ 1 MB", peer: "n/a: dunst takes ~100 Notify/s",
          verdict: growth <= 1 ? .met : .missed))
    }
  }

  /// How long after the queue drained the resident set is read: the daemon gives freed memory back
  /// a second after it was freed (`MemoryReclaimer`).
  static let settleSeconds = 1.5

  /// The resident set once every notice shown so far has finished and freed memory went back:
  /// what the daemon keeps, not what is in flight at one instant.
  static func settledResidentBytes(_ daemon: DaemonUnderTest) throws -> Int {
    let control = try daemon.connect()
    while true {
      let status = try control.call(
        Interface.Method.status.qualifiedName, NoParameters(), returning: StatusReply.self)
      if status.waiting + status.queued + status.visible == 0 { break }
      Clock.sleep(0.05)
    }
    Clock.sleep(settleSeconds)
    return ProcessStats.residentBytes(daemon.pid) ?? 0
  }
}
