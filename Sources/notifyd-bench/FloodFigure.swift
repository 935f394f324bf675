import Dispatch
import Foundation
import NotifyProtocol
import Synchronization

/// Issue 19's figures: one app floods 10,000 notices over the socket (pipelined ×32) while another
/// app shows one every 10 ms on its own connection. Ours folds the flood past `[Limits]
/// PerApp=20/1m`; the figures are the other app's `Show` latency during the flood, the daemon's CPU
/// per flooded notice, and whether history holds every one. The peer is dunst, flooded with
/// `Notify` calls for as long as ours took, with the other app's `Notify` timed the same way.
enum FloodFigure {
  static let notices = 10_000
  static let depth = 32
  /// How often the other app shows a notice during the flood.
  static let interval = 0.010

  static func run(_ bench: Bench) throws {
    bench.report.add(.section("A flood of 10,000 notices from one app, [Limits] PerApp=20/1m"))
    let config = DaemonUnderTest.config(
      extra: "HistorySize=20000\n[Limits]\nPerApp=20/1m\n")
    let (ours, folded) = try bench.withDaemon("flood", config: config) { daemon in
      let path = daemon.socketPath
      let flooder = try RawVarlinkConnection(path: path)
      let calls = try (0..<notices).map { index in
        try VarlinkCoding.call(
          Interface.Method.show.qualifiedName,
          ShowParameters(title: "backup step \(index)", body: "copied", app: "backup"))
      }
      // The replies are kept as they came and read once the flood is over: their ids are what
      // history must hold.
      var replies: [[UInt8]] = []
      replies.reserveCapacity(notices)
      let result = try measure(pids: [daemon.pid], otherApp: { try VarlinkShowClient(path: path, index: 1) })
      {
        var sent = 0
        while sent < notices {
          let count = min(depth, notices - sent)
          try flooder.send(Array(calls[sent..<sent + count].joined()))
          for _ in 0..<count {
            let reply = try flooder.receive()
            if RawVarlinkConnection.isError(reply) { throw BenchError("a flooded Show failed") }
            replies.append(reply)
          }
          sent += count
        }
        return sent
      }
      let flooded = Set(try replies.map { try VarlinkCoding.parameters(ShowReply.self, from: $0).id })
      let history = try flooder.call(
        Interface.Method.history.qualifiedName, HistoryParameters(app: "backup"), returning: NoticesReply.self
      )
      let unfinished = try flooder.call(
        Interface.Method.list.qualifiedName, ListParameters(), returning: NoticesReply.self)
      // The app's summary ("9980 more from backup") is in them too, but it is not one of the flood's.
      let found = Set(history.notices.map(\.id)).union(unfinished.notices.map(\.id))
      let kept = flooded.intersection(found).count
      let folded = history.notices.filter { flooded.contains($0.id) && $0.outcome == .folded }.count
      return (result, (folded: folded, kept: kept, distinct: flooded.count))
    }
    var peer: Result?
    if let dunst = bench.peer {
      let pids = [try dunst.freshDunst()] + [dunst.busDaemon].compactMap { $0 }
      let address = dunst.busAddress
      let flooder = try DBusNotifier(address: address)
      let until = Clock.seconds() + max(ours.seconds, 1)
      peer = try measure(pids: pids, otherApp: { try DBusNotifyClient(address: address, index: 1) }) {
        var sent = 0
        while sent < notices && Clock.seconds() < until {
          _ = try flooder.notifyPipelined(count: depth, summary: "backup step \(sent)", body: "copied")
          sent += depth
        }
        return sent
      }
    }
    var latency = Row(
      figure: "Other app's Show during the flood",
      value:
        "p50 \(Format.fixed(ours.latency.median / 1000, 2)) ms, p99 \(Format.fixed(ours.latency.p99 / 1000, 2)) ms "
        + "(\(ours.latency.count) calls)",
      budget: "p99 ≤ 50 ms (within a 1 s fade-in)")
    latency.verdict = ours.latency.p99 <= 50_000 ? .met : .missed
    if let peer {
      latency.peer =
        "dunst Notify p99 \(Format.fixed(peer.latency.p99 / 1000, 2)) ms (\(peer.latency.count) calls)"
      latency.ratio = Format.ratio(peer.latency.p99 / ours.latency.p99)
    }
    bench.report.add(latency)
    let perNotice = ours.cpuSeconds / Double(notices) * 1e6
    var cpu = Row(
      figure: "Daemon CPU per flooded notice (folded, journaled, in history)",
      value: "\(Format.fixed(perNotice, 1)) µs; \(notices) in \(Format.fixed(ours.seconds, 2)) s",
      budget: "≤ 50 µs (a Show's budget)")
    cpu.verdict = perNotice <= 50 ? .met : .missed
    if let peer {
      let theirs = peer.cpuSeconds / Double(max(peer.flooded, 1)) * 1e6
      cpu.peer =
        "dunst \(Format.fixed(theirs, 1)) µs per Notify (\(peer.flooded) in \(Format.fixed(peer.seconds, 2)) s)"
      cpu.ratio = Format.ratio(theirs / perNotice)
    }
    bench.report.add(cpu)
    var complete = Row(
      figure: "Flooded notices kept (history and unfinished)",
      value: "\(folded.kept) of \(notices) (\(folded.distinct) distinct ids), \(folded.folded) folded",
      budget: "all \(notices)")
    complete.verdict = folded.kept == notices && folded.distinct == notices ? .met : .missed
    bench.report.add(complete)
  }

  struct Result {
    var seconds: Double
    var cpuSeconds: Double
    var latency: Sample
    var flooded: Int
  }

  /// Runs `flood` (answering how many it sent) on this thread while another app calls once per `interval` on its own thread;
  /// answers the flood's duration, the CPU `pids` spent and the other app's latencies (µs).
  private static func measure(
    pids: [pid_t], otherApp: @escaping @Sendable () throws -> LoadClient, flood: () throws -> Int
  ) throws -> Result {
    let done = Atomic<Bool>(false)
    let latencies = Mutex<[Double]>([])
    let failure = Mutex<String?>(nil)
    let finished = DispatchSemaphore(value: 0)
    let client = try otherApp()
    nonisolated(unsafe) let other = client
    let thread = Thread {
      defer { finished.signal() }
      while !done.load(ordering: .acquiring) {
        let sent = Clock.nanoseconds()
        do {
          try other.callOnce()
        } catch {
          failure.withLock { $0 = "\(error)" }
          return
        }
        let elapsed = Double(Clock.nanoseconds() - sent) / 1000
        latencies.withLock { $0.append(elapsed) }
        Clock.sleep(interval)
      }
    }
    let cpuBefore = pids.map(ProcessStats.cpuSecondsPrecise).reduce(0, +)
    let started = Clock.seconds()
    thread.start()
    var floodError: (any Error)?
    var flooded = 0
    do { flooded = try flood() } catch { floodError = error }
    let seconds = Clock.seconds() - started
    done.store(true, ordering: .releasing)
    finished.wait()
    let cpu = pids.map(ProcessStats.cpuSecondsPrecise).reduce(0, +) - cpuBefore
    if let floodError { throw floodError }
    if let failure = failure.withLock({ $0 }) { throw BenchError("the other app failed: \(failure)") }
    return Result(
      seconds: seconds, cpuSeconds: cpu, latency: Sample(latencies.withLock { $0 }), flooded: flooded)
  }
}
