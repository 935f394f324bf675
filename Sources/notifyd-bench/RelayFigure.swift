import Dispatch
import Foundation
import NotifyNATS
import NotifyProtocol
import Synchronization

/// Issue 20's figures: the relay through a nats-server with JetStream on this machine, between two
/// daemons, "server" (`Publish=yes`, no popups) and "desk" (`Subscribe=yes`). The peer is JetStream
/// itself through the same C client: one publisher and one durable pull consumer, acknowledging
/// each message, with no daemon, store or engine around them: the floor the relay stands on.
enum RelayFigure {
  static let backlog = 10_000
  static let depth = 32

  static func run(_ bench: Bench) throws {
    bench.report.add(.section("Relay through NATS JetStream (nats-server -js on loopback, file store)"))
    try bench.peer?.stopDunst()
    let nats = try NATSServerUnderTest()
    defer { nats.stop() }
    try latencyAndThroughput(bench, nats)
    try catchUp(bench, nats)
  }

  // MARK: - Latency and throughput

  private static func latencyAndThroughput(_ bench: Bench, _ nats: NATSServerUnderTest) throws {
    let subject = "notifyd.bench.live"
    let desk = try RelayHost(bench, nats, name: "desk", subject: subject, publish: false)
    defer { desk.stop() }
    let server = try RelayHost(bench, nats, name: "server", subject: subject, publish: true)
    defer { server.stop() }
    try desk.waitConnected()
    try server.waitConnected()
    let watch = try desk.daemon.connect()
    try watch.send(VarlinkCoding.call(Interface.Method.watch.qualifiedName, WatchParameters(), more: true))
    _ = try watch.receive()  // the snapshot
    let client = try server.daemon.connect()

    // Publish → visible: one at a time, from the server's Show to the desk's event that shows it.
    let samples = bench.runs(300)
    var latencies: [Double] = []
    for index in 0..<samples + 5 {
      let title = "latency \(index)"
      let started = Clock.nanoseconds()
      _ = try client.call(
        Interface.Method.show.qualifiedName,
        ShowParameters(title: title, app: "bench", delay: 0, fadeIn: 0, hold: 0.05, fadeOut: 0),
        returning: ShowReply.self)
      try waitVisible(title, on: watch)
      // The first few warm the path (the desk's consumer, the page cache); they are not counted.
      if index >= 5 { latencies.append(Double(Clock.nanoseconds() - started) / 1e6) }
    }
    let raw = try RawJetStream(nats, subject: "notifyd.bench.raw.latency")
    let rawLatencies = try raw.roundTrips(samples)
    let ours = Sample(latencies)
    let theirs = Sample(rawLatencies)
    var latency = Row(
      figure: "Publish → visible on the desk, one at a time",
      value:
        "p50 \(Format.fixed(ours.median, 2)) ms, p99 \(Format.fixed(ours.p99, 2)) ms (n=\(ours.count))",
      budget: "p50 ≤ 10 ms, p99 ≤ 50 ms",
      peer:
        "JetStream publish → fetched p50 \(Format.fixed(theirs.median, 2)) ms, p99 \(Format.fixed(theirs.p99, 2)) ms",
      ratio: Format.ratio(ours.median / theirs.median))
    latency.verdict = ours.median <= 10 && ours.p99 <= 50 ? .met : .missed
    bench.report.add(latency)

    // Throughput: 10,000 Show pipelined on the server until the desk has added them all.
    let count = bench.quick ? backlog / 4 : backlog
    let pids = [server.daemon.pid, desk.daemon.pid, nats.pid]
    let cpuBefore = pids.map(ProcessStats.cpuSecondsPrecise).reduce(0, +)
    let started = Clock.seconds()
    let arrived = countAdded(count, on: watch)
    try showPipelined(count, prefix: "throughput", on: client)
    let seconds = try arrived.wait() - started
    let cpu = (pids.map(ProcessStats.cpuSecondsPrecise).reduce(0, +) - cpuBefore) / Double(count) * 1e6
    let rawResult = try RawJetStream(nats, subject: "notifyd.bench.raw.throughput").throughput(count)
    let rate = Double(count) / seconds
    var throughput = Row(
      figure:
        "Relayed notices per second, end to end (\(Format.grouped(Double(count))) Show → added on the desk)",
      value:
        "\(Format.grouped(rate))/s; \(Format.fixed(cpu, 1)) µs CPU per notice (server, desk and nats-server)",
      budget: "≥ 5,000/s",
      peer:
        "JetStream alone \(Format.grouped(Double(count) / rawResult.seconds))/s, \(Format.fixed(rawResult.cpuMicroseconds, 1)) µs CPU per message",
      ratio: Format.ratio(rate / (Double(count) / rawResult.seconds)))
    throughput.verdict = rate >= 5_000 ? .met : .missed
    bench.report.add(throughput)
  }

  /// Reads the desk's events until the notice titled `title` is visible (its fade-in begun).
  private static func waitVisible(_ title: String, on watch: RawVarlinkConnection) throws {
    var id: Int?
    let deadline = Clock.seconds() + 30
    while Clock.seconds() < deadline {
      let event = try VarlinkCoding.parameters(EventReply.self, from: try watch.receive()).event
      if event.kind == .added, event.notice?.title == title { id = event.notice?.id }
      guard let id, event.id == id || event.notice?.id == id else { continue }
      let phase = event.phase ?? event.notice?.phase
      if phase == .fadingIn || phase == .holding { return }
    }
    throw BenchError("'\(title)' did not show on the desk within 30 s")
  }

  /// A thread that reads the desk's events until `count` notices were added; `wait` answers when
  /// the last came (`Clock.seconds`).
  private static func countAdded(_ count: Int, on watch: RawVarlinkConnection) -> Arrival {
    let arrival = Arrival()
    nonisolated(unsafe) let watch = watch
    let thread = Thread {
      let needle = Array("\"kind\":\"added\"".utf8)
      var seen = 0
      do {
        while seen < count {
          let message = try watch.receive()
          if contains(message, needle) { seen += 1 }
        }
        arrival.finish(.success(Clock.seconds()))
      } catch {
        arrival.finish(.failure(BenchError("the desk's events stopped after \(seen) of \(count): \(error)")))
      }
    }
    thread.start()
    return arrival
  }

  /// Sends `count` Show calls on `client`, `depth` at a time, and reads their replies.
  static func showPipelined(_ count: Int, prefix: String, on client: RawVarlinkConnection) throws {
    let calls = try (0..<count).map { index in
      try VarlinkCoding.call(
        Interface.Method.show.qualifiedName,
        ShowParameters(title: "\(prefix) \(index)", app: "bench", delay: 0, fadeIn: 0, hold: 600, fadeOut: 0))
    }
    var sent = 0
    while sent < count {
      let batch = min(depth, count - sent)
      try client.send(Array(calls[sent..<sent + batch].joined()))
      for _ in 0..<batch where RawVarlinkConnection.isError(try client.receive()) {
        throw BenchError("a Show on the server failed")
      }
      sent += batch
    }
  }

  // MARK: - Catch-up

  private static func catchUp(_ bench: Bench, _ nats: NATSServerUnderTest) throws {
    let subject = "notifyd.bench.backlog"
    let count = bench.quick ? backlog / 4 : backlog
    // The desk once, so that its durable consumer exists; then it is away while the server publishes.
    let desk = try RelayHost(bench, nats, name: "desk", subject: subject, publish: false)
    try desk.waitConnected()
    let server = try RelayHost(bench, nats, name: "server", subject: subject, publish: true)
    defer { server.stop() }
    try server.waitConnected()
    let client = try server.daemon.connect()
    try showPipelined(1, prefix: "before", on: client)
    try desk.waitArrived(1)
    let idle = ProcessStats.residentBytes(desk.daemon.pid) ?? 0
    desk.daemon.stop()
    try showPipelined(count, prefix: "backlog", on: client)
    try server.waitPublished()

    let started = Clock.seconds()
    let back = try RelayHost(
      bench, nats, name: "desk", subject: subject, publish: false, directory: desk.directory)
    defer { back.stop() }
    var peak = 0
    try back.waitArrived(count + 1) { peak = max(peak, ProcessStats.residentBytes(back.daemon.pid) ?? 0) }
    let seconds = Clock.seconds() - started
    peak = max(peak, ProcessStats.peakResidentBytes(back.daemon.pid) ?? 0)
    let raw = try RawJetStream(nats, subject: "notifyd.bench.raw.backlog").catchUp(count)
    var catchUp = Row(
      figure:
        "Catch-up of a \(Format.grouped(Double(count)))-notice backlog (desk started → all in its store)",
      value: "\(Format.fixed(seconds, 2)) s (\(Format.grouped(Double(count) / seconds))/s)",
      budget: "≤ 2 s (5,000/s)",
      peer: "JetStream consumer alone \(Format.fixed(raw, 2)) s", ratio: Format.ratio(seconds / raw))
    catchUp.verdict = seconds <= Double(count) / 5_000 ? .met : .missed
    bench.report.add(catchUp)
    // The budget: the desk before, and 1.5 KiB per unfinished notice (DESIGN §8's memory goal); the
    // relay itself holds at most a fetch of 256 messages unacknowledged.
    let budget = idle + count * 1536
    var memory = Row(
      figure: "The desk's RSS catching up (peak, VmHWM)",
      value: "\(mebibytes(peak)) MiB; \(mebibytes(idle)) MiB before the backlog",
      budget: "≤ before + 1.5 KiB × \(Format.grouped(Double(count))) = \(mebibytes(budget)) MiB")
    memory.verdict = peak <= budget ? .met : .missed
    bench.report.add(memory)
  }

  private static func mebibytes(_ bytes: Int) -> String { Format.fixed(Double(bytes) / 1_048_576, 1) }
}

/// When a thread's work finished, or why it failed.
private final class Arrival: @unchecked Sendable {
  // @unchecked: `result` is written once under `done`'s semaphore discipline.
  private var result: Result<Double, BenchError>?
  private let done = DispatchSemaphore(value: 0)

  func finish(_ result: Result<Double, BenchError>) {
    self.result = result
    done.signal()
  }

  func wait() throws -> Double {
    guard done.wait(timeout: .now() + 300) == .success, let result else {
      throw BenchError("the desk did not get every notice within 300 s")
    }
    return try result.get()
  }
}

private func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
  guard bytes.count >= needle.count else { return false }
  return (0...(bytes.count - needle.count)).contains { start in
    bytes[start] == needle[0] && bytes[start..<start + needle.count].elementsEqual(needle)
  }
}

// MARK: - The parts

/// A nats-server with JetStream on 127.0.0.1, a free port and a store of its own.
final class NATSServerUnderTest {
  let directory: String
  let port: Int
  let process: Spawned
  var pid: pid_t { process.pid }
  var url: String { "nats://127.0.0.1:\(port)" }

  init() throws {
    let candidates: [String] = ["/usr/sbin/nats-server", "/usr/bin/nats-server"]
    guard let binary = candidates.first(where: { access($0, X_OK) == 0 }) else {
      throw BenchError(
        "nats-server is not installed (Debian package nats-server; scripts/deps.sh installs it)")
    }
    directory = try makeScratchDirectory("notifyd-bench-nats")
    port = try freePort()
    process = try Spawned.start(
      [binary, "-js", "-a", "127.0.0.1", "-p", "\(port)", "-sd", directory + "/store"],
      environment: Environment.current, outputPath: directory + "/nats.log")
    // Ready when JetStream answers: a stream can be made.
    let deadline = Clock.seconds() + 20
    var last = "no answer"
    while Clock.seconds() < deadline {
      do {
        let connection = try NATSConnection(
          NATSSettings(
            urls: [url], name: "bench probe", user: nil, passwordFile: nil, tokenFile: nil, credentials: nil,
            tlsCA: nil, environment: { _ in nil }), onEvent: nil)
        defer { connection.close() }
        try connection.ensureStream(for: RelaySubjects(base: "notifyd.bench.probe"), servers: 1)
        return
      } catch {
        last = "\(error)"
        Clock.sleep(0.05)
      }
    }
    process.signal(SIGKILL)
    process.wait()
    throw BenchError("nats-server did not serve JetStream within 20 s: \(last); see \(directory)/nats.log")
  }

  func stop() {
    process.stop()
    removeTree(directory)
  }
}

/// A TCP port nobody listens on now, on 127.0.0.1.
private func freePort() throws -> Int {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
      bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
    }
  }
  guard bound else { throw BenchError("bind: \(String(cString: strerror(errno)))") }
  return Int(UInt16(bigEndian: address.sin_port))
}

/// A notifyd with a `[Relay]` section, as "desk" (`Subscribe=yes`) or "server" (`Publish=yes`).
final class RelayHost {
  let daemon: DaemonUnderTest
  let directory: String
  let name: String

  init(
    _ bench: Bench, _ nats: NATSServerUnderTest, name: String, subject: String, publish: Bool,
    directory: String? = nil
  ) throws {
    self.name = name
    self.directory = try directory ?? makeScratchDirectory("notifyd-bench-\(name)")
    let config =
      DaemonUnderTest.config(extra: "MaxVisible=50\n")
        + """
        [Display]
        Mode=off

        [Relay]
        URL=\(nats.url)
        Subject=\(subject)
        Host=\(name)
        Publish=\(publish ? "yes" : "no")
        Subscribe=\(publish ? "no" : "yes")

        """
    daemon = try DaemonUnderTest(binary: bench.notifyd, directory: self.directory, config: config)
  }

  func stop() {
    daemon.stop()
    removeTree(directory)
  }

  private func status() throws -> StatusReply {
    try daemon.connect().call(
      Interface.Method.status.qualifiedName, NoParameters(), returning: StatusReply.self)
  }

  func waitConnected() throws {
    try wait("its relay to connect") { $0.relay?.state == .connected }
  }

  /// Every notice it accepted is in the stream.
  func waitPublished() throws {
    try wait("its outbox to empty", timeout: 300) { $0.relay?.state == .connected && $0.relay?.outbox == 0 }
  }

  /// It holds `count` notices, unfinished or finished; `sample` runs at each look.
  func waitArrived(_ count: Int, sample: () -> Void = {}) throws {
    try wait("\(count) notices", timeout: 300) {
      sample()
      return $0.waiting + $0.queued + $0.visible + $0.finished >= count
    }
  }

  private func wait(_ what: String, timeout: Double = 30, _ condition: (StatusReply) -> Bool) throws {
    let deadline = Clock.seconds() + timeout
    var last: StatusReply?
    while Clock.seconds() < deadline {
      last = try status()
      if condition(last!) { return }
      Clock.sleep(0.002)
    }
    throw BenchError(
      "\(name) did not get \(what) within \(Int(timeout)) s (relay: \(String(describing: last?.relay))); see \(daemon.logPath)"
    )
  }
}

/// JetStream through libnats with nothing around it: the peer of the relay's figures.
struct RawJetStream {
  let connection: NATSConnection
  let subjects: RelaySubjects
  let nats: NATSServerUnderTest
  /// What the relay publishes: a notice of the same size.
  let payload = RelayNotice(
    origin: NoticeOrigin(host: "server", store: "0123456789abcdef", id: 1, sent: 0),
    notice: ShowParameters(title: "throughput 1234", app: "bench", delay: 0, fadeIn: 0, hold: 600, fadeOut: 0)
  ).encoded()

  init(_ nats: NATSServerUnderTest, subject: String) throws {
    self.nats = nats
    connection = try NATSConnection(
      NATSSettings(
        urls: [nats.url], name: "bench raw", user: nil, passwordFile: nil, tokenFile: nil, credentials: nil,
        tlsCA: nil, environment: { _ in nil }), onEvent: nil)
    subjects = RelaySubjects(base: subject)
    try connection.ensureStream(for: subjects, servers: 1)
  }

  private func consumer() throws -> NATSSubscription {
    try connection.pullSubscribe(
      stream: subjects.stream, subject: subjects.allNotices, durable: "raw", ackWait: 10, maxAckPending: 1024)
  }

  private func publish(_ index: Int) throws {
    try connection.publish(payload, on: subjects.notices(from: "server"), id: "raw/\(index)", wait: 5)
  }

  /// Milliseconds from each publish to its fetch and acknowledgement, one at a time.
  func roundTrips(_ count: Int) throws -> [Double] {
    let subscription = try consumer()
    var times: [Double] = []
    for index in 0..<count + 5 {
      let started = Clock.nanoseconds()
      try publish(index)
      var messages: [NATSMessage] = []
      while messages.isEmpty { messages = try subscription.fetch(batch: 1, timeout: 5) }
      messages.forEach { $0.ack() }
      if index >= 5 { times.append(Double(Clock.nanoseconds() - started) / 1e6) }
    }
    return times
  }

  /// `count` published on this thread, as the relay publishes (`NoticeRelay.publishWindow` in
  /// flight), while another fetches and acknowledges them: the seconds until the last was taken,
  /// and the CPU per message (this process and nats-server).
  func throughput(_ count: Int) throws -> (seconds: Double, cpuMicroseconds: Double) {
    let subscription = try consumer()
    let window = 256
    let inFlight = DispatchSemaphore(value: window)
    let publisher = try NATSAsyncPublisher(connection, window: window, wait: 5) { _, _ in inFlight.signal() }
    let pids = [getpid(), nats.pid]
    let cpuBefore = pids.map(ProcessStats.cpuSecondsPrecise).reduce(0, +)
    let started = Clock.seconds()
    let arrival = Arrival()
    let consuming = subscription
    let thread = Thread {
      var taken = 0
      do {
        while taken < count {
          let messages = try consuming.fetch(batch: 256, timeout: 5)
          messages.forEach { $0.ack() }
          taken += messages.count
        }
        arrival.finish(.success(Clock.seconds()))
      } catch {
        arrival.finish(.failure(BenchError("the raw consumer failed after \(taken): \(error)")))
      }
    }
    thread.start()
    for index in 0..<count {
      inFlight.wait()
      try publisher.publish(payload, on: subjects.notices(from: "server"), id: "raw/t/\(index)")
    }
    let seconds = try arrival.wait() - started
    let cpu = pids.map(ProcessStats.cpuSecondsPrecise).reduce(0, +) - cpuBefore
    return (seconds, cpu / Double(count) * 1e6)
  }

  /// Seconds for a consumer made after `count` were published to fetch and acknowledge them all.
  func catchUp(_ count: Int) throws -> Double {
    for index in 0..<count { try publish(index) }
    let started = Clock.seconds()
    let subscription = try consumer()
    var taken = 0
    while taken < count {
      let messages = try subscription.fetch(batch: 256, timeout: 5)
      messages.forEach { $0.ack() }
      taken += messages.count
    }
    return Clock.seconds() - started
  }
}
