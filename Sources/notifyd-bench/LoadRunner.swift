import Dispatch
import Foundation
import NotifyProtocol
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One client of a load run: blocking calls on its own connection.
protocol LoadClient: AnyObject {
  /// One call and its reply.
  func callOnce() throws
  /// `count` calls sent before any reply is read; answers when each reply arrived.
  func callBatch(_ count: Int) throws -> [UInt64]
}

/// What a load run measured inside its window.
struct LoadResult {
  var clients: Int
  var pipeline: Int
  var calls: Int
  var seconds: Double
  /// Round-trip latency of each call in the window, in microseconds.
  var latency: Sample
  /// CPU seconds the measured processes spent in the window.
  var cpuSeconds: Double
  var failure: String?

  var throughput: Double { Double(calls) / seconds }
  /// CPU microseconds per call.
  var cpuPerCall: Double { cpuSeconds / Double(max(calls, 1)) * 1e6 }
}

/// Runs `clients` threads, each with its own connection, calling as fast as replies come for a
/// fixed window after a warm-up; `pipeline` > 1 sends that many calls before reading their replies.
enum LoadRunner {
  static func run(
    clients: Int, pipeline: Int, warmUp: Double = 0.3, window: Double,
    measuring pids: [pid_t], makeClient: @escaping @Sendable (Int) throws -> LoadClient
  ) -> LoadResult {
    let shared = Shared()
    let ready = DispatchGroup()
    let done = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<clients {
      ready.enter()
      done.enter()
      let thread = Thread {
        defer { done.leave() }
        let client: LoadClient
        do {
          client = try makeClient(index)
        } catch {
          shared.fail("client \(index): \(error)")
          ready.leave()
          return
        }
        ready.leave()
        start.wait()
        let (from, until) = shared.window.withLock { $0 }
        var latencies: [Double] = []
        latencies.reserveCapacity(4096)
        do {
          while Clock.nanoseconds() < until && !shared.failed {
            let sent = Clock.nanoseconds()
            if pipeline <= 1 {
              try client.callOnce()
              let arrived = Clock.nanoseconds()
              if arrived >= from && arrived <= until { latencies.append(Double(arrived - sent) / 1000) }
            } else {
              for arrived in try client.callBatch(pipeline) where arrived >= from && arrived <= until {
                latencies.append(Double(arrived - sent) / 1000)
              }
            }
          }
        } catch {
          shared.fail("client \(index): \(error)")
        }
        shared.latencies.withLock { $0.append(contentsOf: latencies) }
      }
      thread.stackSize = 1 << 20
      thread.start()
    }
    ready.wait()
    let begin = Clock.nanoseconds()
    let from = begin + UInt64(warmUp * 1e9)
    let until = from + UInt64(window * 1e9)
    shared.window.withLock { $0 = (from, until) }
    for _ in 0..<clients { start.signal() }
    Clock.sleep(Double(from - min(from, Clock.nanoseconds())) / 1e9)
    let cpuBefore = pids.map { ProcessStats.cpuSeconds($0) ?? 0 }.reduce(0, +)
    Clock.sleep(Double(until - min(until, Clock.nanoseconds())) / 1e9)
    let cpuAfter = pids.map { ProcessStats.cpuSeconds($0) ?? 0 }.reduce(0, +)
    done.wait()
    let latencies = shared.latencies.withLock { $0 }
    return LoadResult(
      clients: clients, pipeline: pipeline, calls: latencies.count, seconds: window,
      latency: Sample(latencies),
      cpuSeconds: cpuAfter - cpuBefore, failure: shared.failure.withLock { $0 })
  }

  private final class Shared: Sendable {
    let window = Mutex<(UInt64, UInt64)>((0, 0))
    let latencies = Mutex<[Double]>([])
    let failure = Mutex<String?>(nil)
    private let failedFlag = Atomic<Bool>(false)

    var failed: Bool { failedFlag.load(ordering: .relaxed) }

    func fail(_ message: String) {
      failure.withLock { if $0 == nil { $0 = message } }
      failedFlag.store(true, ordering: .relaxed)
    }
  }
}

/// A load client calling `io.notifyd.Queue.Show` with pre-encoded calls.
final class VarlinkShowClient: LoadClient {
  private let connection: RawVarlinkConnection
  private let call: [UInt8]
  private var batch: [UInt8] = []
  private var batchCount = 0

  init(path: String, index: Int) throws {
    connection = try RawVarlinkConnection(path: path)
    call = try ShowLoad.call(index: index)
  }

  func callOnce() throws {
    try connection.send(call)
    let reply = try connection.receive()
    if RawVarlinkConnection.isError(reply) { throw BenchError(String(decoding: reply, as: UTF8.self)) }
  }

  func callBatch(_ count: Int) throws -> [UInt64] {
    if batchCount != count {
      batch = Array([[UInt8]](repeating: call, count: count).joined())
      batchCount = count
    }
    try connection.send(batch)
    var arrivals: [UInt64] = []
    arrivals.reserveCapacity(count)
    for _ in 0..<count {
      let reply = try connection.receive()
      arrivals.append(Clock.nanoseconds())
      if RawVarlinkConnection.isError(reply) { throw BenchError(String(decoding: reply, as: UTF8.self)) }
    }
    return arrivals
  }
}

/// A load client calling `org.freedesktop.Notifications.Notify` on the peer.
final class DBusNotifyClient: LoadClient {
  private let notifier: DBusNotifier
  private let summary: String
  /// A desktop program's call: a body with markup, and libnotify's usual hints.
  private let desktop: Bool
  private var body: String { desktop ? "<b>Ada</b>: lunch at 12 &amp; then?" : "load" }

  init(address: String, index: Int, desktop: Bool = false) throws {
    notifier = try DBusNotifier(address: address)
    summary = "bench \(index)"
    self.desktop = desktop
  }

  func callOnce() throws { try notifier.notify(summary: summary, body: body, hints: desktop) }

  func callBatch(_ count: Int) throws -> [UInt64] {
    try notifier.notifyPipelined(count: count, summary: summary, body: body, hints: desktop)
  }
}

/// The `Show` call the load clients send.
enum ShowLoad {
  static func call(index: Int) throws -> [UInt8] {
    try VarlinkCoding.call(
      Interface.Method.show.qualifiedName, ShowParameters(title: "bench \(index)", body: "load"))
  }
}
