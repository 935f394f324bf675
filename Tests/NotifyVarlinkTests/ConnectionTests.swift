import Dispatch
import Foundation
import NotifyCore
import NotifyPosix
import NotifyProtocol
import NotifySupport
import Synchronization
import Testing

@testable import NotifyVarlink

#if canImport(Glibc)
  import Glibc
#endif

/// One `Connection` driven over `socketpair(2)` on a loop of its own, with a table of test methods:
/// `test.Echo` answers at once, `test.Held` answers when the test releases it (as a commit would),
/// `test.Later` is eventual (as `Wait` is), `test.Big` answers with `size` bytes.
final class ConnectionPair: @unchecked Sendable {
  // @unchecked: `connection` is used on the loop only; the rest is locked or set once.
  let loop: EventLoop
  let client: Int32
  private(set) var connection: Connection!
  let held = Locked<[Responder]>([])
  let later = Locked<[Responder]>([])
  let echoes = Locked(0)
  let closed = Locked(false)

  struct Text: WireEncodable, WireDecodable {
    var text: String
    init(text: String) { self.text = text }
    init(reading reader: inout JSONReader) throws(JSONReadError) {
      var text = ""
      try reader.readObject { reader, name throws(JSONReadError) in
        if name == "text" { text = try reader.readString() } else { try reader.skipValue() }
      }
      self.text = text
    }
    func write(to writer: inout JSONWriter) {
      writer.beginObject()
      writer.key("text", text)
      writer.endObject()
    }
  }

  struct Size: WireDecodable {
    var size: Int
    init(reading reader: inout JSONReader) throws(JSONReadError) {
      var size = 0
      try reader.readObject { reader, name throws(JSONReadError) in
        if name == "size" { size = try reader.readInt() } else { try reader.skipValue() }
      }
      self.size = size
    }
  }

  init(limits: ConnectionLimits = ConnectionLimits()) throws {
    loop = try EventLoop(name: "test.connection")
    var table = MethodTable(vendor: "test", product: "test", version: "1", url: "https://example.org")
    table.add(interface: "test", description: "interface test\nmethod Echo(text: string) -> (text: string)\n")
    table.bind("test.Echo", Text.self) { [echoes] request, call in
      echoes.withLock { $0 += 1 }
      call.reply(request)
    }
    table.bind("test.Held", Text.self) { [held] _, call in held.withLock { $0.append(call) } }
    table.bind("test.Later", Text.self, completion: .eventual) { [later] _, call in
      later.withLock { $0.append(call) }
    }
    table.bind("test.Big", Size.self) { request, call in
      call.reply(Text(text: String(repeating: "b", count: request.size)))
    }
    let (server, client) = try Posix.socketPair()
    self.client = client
    let attention = Locked<[Connection]>([])
    let closed = closed
    let loop = loop
    let connection = Connection(
      fd: server, id: 1, loop: loop, table: table, log: Logger(level: .error, sink: DiscardingSink()),
      limits: limits, needsAttention: { connection in attention.withLock { $0.append(connection) } }
    ) { _ in closed.withLock { $0 = true } }
    self.connection = connection
    // The server's turn-end work, for this one connection.
    loop.atEndOfTurn {
      let waiting = attention.withLock { list -> [Connection] in
        defer { list = [] }
        return list
      }
      var worked = false
      for connection in waiting {
        connection.isAttentionQueued = false
        if connection.takeUpPendingCalls() { worked = true }
        if connection.flush() { worked = true }
      }
      return worked
    }
    // Before the loop runs, its registrations may be made from here.
    try connection.start()
    loop.start()
  }

  deinit {
    let connection = connection!
    loop.sync { connection.close(reason: nil) }
    loop.stop()
    closeClient()
  }

  private let clientClosed = Locked(false)

  /// Closes the client's end (once: the number may be reused by another test at once).
  func closeClient() {
    guard
      !clientClosed.withLock({ closed in
        defer { closed = true }; return closed
      })
    else { return }
    Posix.close(client)
  }

  /// Writes `calls`, each with its NUL, in one `send`.
  func send(_ calls: [String]) {
    let bytes: [UInt8] = calls.flatMap { Array($0.utf8) + [0] }
    bytes.withUnsafeBytes { _ = try? Posix.sendAll(client, $0) }
  }

  private var buffer: [UInt8] = []
  /// Why the last `receive` came back empty, for a failing test's message.
  private(set) var lastMiss = ""

  /// Whether the loop answers within a second: a test that waited in vain can say whether the
  /// loop was stuck or had nothing to send.
  var loopAnswers: Bool {
    let done = DispatchSemaphore(value: 0)
    loop.execute { done.signal() }
    return done.wait(timeout: .now() + 1) == .success
  }

  /// The next message from the server within `timeout` seconds, or `nil` (also at end of file).
  func receive(timeout: Double = 5) -> String? {
    let deadline = Posix.monotonicNow() + timeout
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      if let end = buffer.firstIndex(of: 0) {
        let message = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeFirst(end + 1)
        return message
      }
      let left = deadline - Posix.monotonicNow()
      guard left > 0 else {
        lastMiss = "nothing within \(timeout) s; the loop \(loopAnswers ? "answers" : "is stuck")"
        return nil
      }
      var descriptors = [pollfd(fd: client, events: Int16(POLLIN), revents: 0)]
      guard (try? Posix.poll(&descriptors, timeout: Int32(left * 1000) + 1)) ?? 0 > 0 else { continue }
      let transfer = try? chunk.withUnsafeMutableBytes { try Posix.receive(client, into: $0, wait: false) }
      switch transfer {
      case .bytes(let count): buffer += chunk[0..<count]
      case .wouldBlock: continue
      case .endOfFile:
        lastMiss = "the server closed the connection"
        return nil
      default:
        lastMiss = "the client's recv failed (errno \(errno))"
        return nil
      }
    }
  }

  /// Whether the server closed its end within `timeout` seconds (what it sent before is dropped).
  func serverClosed(timeout: Double = 5) -> Bool {
    let deadline = Posix.monotonicNow() + timeout
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while Posix.monotonicNow() < deadline {
      var descriptors = [pollfd(fd: client, events: Int16(POLLIN), revents: 0)]
      guard (try? Posix.poll(&descriptors, timeout: 50)) ?? 0 > 0 else { continue }
      let transfer = try? chunk.withUnsafeMutableBytes { try Posix.receive(client, into: $0, wait: false) }
      if transfer == .endOfFile || transfer == nil { return true }
    }
    return false
  }

  /// Runs on the loop and waits: after this, everything the loop had to do for what was sent before
  /// and read in the same turn is done.
  func settle() { loop.sync {} }

  /// Polls `condition` for up to `timeout` seconds.
  func eventually(timeout: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Posix.monotonicNow() + timeout
    while Posix.monotonicNow() < deadline {
      if condition() { return true }
      usleep(1000)
    }
    return condition()
  }
}

@Suite("Connection, over socketpair(2)")
struct ConnectionTests {
  static func echo(_ text: String) -> String {
    #"{"method":"test.Echo","parameters":{"text":"\#(text)"}}"#
  }
  static func reply(_ text: String) -> String { #"{"parameters":{"text":"\#(text)"}}"# }

  // MARK: - Framing

  @Test func aCallSplitAcrossWrites_isAnsweredOnce_whenItsNulArrives() throws {
    let pair = try ConnectionPair()
    let call = Array(Self.echo("split").utf8)
    call[0..<10].withUnsafeBytes { _ = try? Posix.sendAll(pair.client, $0) }
    pair.settle()
    #expect(pair.echoes.withLock { $0 } == 0)
    (Array(call[10...]) + [0]).withUnsafeBytes { _ = try? Posix.sendAll(pair.client, $0) }
    #expect(pair.receive() == Self.reply("split"))
  }

  @Test func callsInOneWrite_areAnsweredInOrder() throws {
    let pair = try ConnectionPair()
    pair.send((0..<3).map { Self.echo("n\($0)") })
    #expect((0..<3).map { _ in pair.receive() } == (0..<3).map { Self.reply("n\($0)") })
  }

  // MARK: - Pipelining

  @Test func pipelinedCalls_allStartAtOnce_andTheirRepliesKeepTheCallsOrder() throws {
    let pair = try ConnectionPair()
    // Held calls (as Shows waiting for their commit), an echo among them.
    pair.send((0..<16).map { #"{"method":"test.Held","parameters":{"text":"h\#($0)"}}"# } + [Self.echo("e")])
    #expect(pair.eventually { pair.held.withLock { $0.count } == 16 })
    #expect(pair.eventually { pair.echoes.withLock { $0 } == 1 }, "calls behind prompt ones start at once")
    // Released last to first: the replies still come first to last, the echo's after them.
    let held = pair.held.withLock { $0 }
    for (index, call) in held.enumerated().reversed() { call.reply(ConnectionPair.Text(text: "r\(index)")) }
    let replies = (0..<16).map { _ in pair.receive() }
    #expect(replies == (0..<16).map { Self.reply("r\($0)") }, "\(pair.lastMiss)")
    #expect(pair.receive() == Self.reply("e"))
  }

  @Test func anEventualCall_holdsBackTheCallsBehindIt_untilItsFinalReply() throws {
    let pair = try ConnectionPair()
    pair.send([#"{"method":"test.Later","parameters":{}}"#, Self.echo("behind")])
    #expect(pair.eventually { pair.later.withLock { $0.count } == 1 })
    // Both calls came in one read, so the loop has seen the echo too: it must still wait.
    pair.settle()
    #expect(pair.echoes.withLock { $0 } == 0)
    let later = try #require(pair.later.withLock { $0.first })
    later.reply(ConnectionPair.Text(text: "more"), continues: true)
    #expect(pair.receive() == #"{"parameters":{"text":"more"},"continues":true}"#)
    pair.settle()
    #expect(pair.echoes.withLock { $0 } == 0)
    later.reply(ConnectionPair.Text(text: "done"))
    #expect(pair.receive() == Self.reply("done"))
    #expect(pair.receive() == Self.reply("behind"))
  }

  // MARK: - Bounds

  @Test func callsWaitingBehindAnEventualOne_pauseReading_andResumeAsTheyDrain() throws {
    var limits = ConnectionLimits()
    limits.maximumPendingCalls = 4
    let pair = try ConnectionPair(limits: limits)
    pair.send([#"{"method":"test.Later","parameters":{}}"#] + (0..<10).map { Self.echo("e\($0)") })
    #expect(pair.eventually { pair.later.withLock { $0.count } == 1 })
    let connection = pair.connection!
    #expect(pair.eventually { pair.loop.sync { connection.readPaused } })
    try #require(pair.later.withLock { $0.first }).reply(ConnectionPair.Text(text: "done"))
    #expect(pair.receive() == Self.reply("done"))
    #expect((0..<10).map { _ in pair.receive() } == (0..<10).map { Self.reply("e\($0)") })
    #expect(pair.loop.sync { !connection.readPaused })
  }

  @Test func aMessageOverTheLimit_getsAnError_andClosesTheConnection() throws {
    var limits = ConnectionLimits()
    limits.maximumMessageSize = 1024
    let pair = try ConnectionPair(limits: limits)
    pair.send([Self.echo(String(repeating: "x", count: 2048))])
    let reply = try #require(pair.receive())
    #expect(reply.contains("io.notifyd.Queue.InvalidArgument") && reply.contains("longer than 1024 bytes"))
    #expect(pair.serverClosed())
    // The descriptor closes before the connection reports it: the client may see the end first.
    #expect(pair.eventually { pair.closed.withLock { $0 } })
  }

  @Test func aClientThatReadsTooSlowly_isDropped() throws {
    var limits = ConnectionLimits()
    limits.maximumUnsentBytes = 1 << 20
    let pair = try ConnectionPair(limits: limits)
    // 4 MiB of replies that the client never reads: past what the socket buffers, past the limit.
    pair.send((0..<4).map { _ in #"{"method":"test.Big","parameters":{"size":1048576}}"# })
    #expect(pair.eventually { pair.closed.withLock { $0 } })
  }

  // MARK: - The end of a connection

  @Test func aClientThatShutsDownItsSendingSide_getsItsReplies_thenTheEnd() throws {
    let pair = try ConnectionPair()
    pair.send([Self.echo("last")])
    Posix.shutdownWrite(pair.client)
    #expect(pair.receive() == Self.reply("last"))
    #expect(pair.serverClosed())
    #expect(pair.eventually { pair.closed.withLock { $0 } })
  }

  @Test func aClientThatHangsUp_releasesWhatItsCallsHold() throws {
    let pair = try ConnectionPair()
    let released = Locked(false)
    pair.send([#"{"method":"test.Later","parameters":{}}"#])
    #expect(pair.eventually { pair.later.withLock { $0.count } == 1 })
    try #require(pair.later.withLock { $0.first }).onClose { released.withLock { $0 = true } }
    pair.closeClient()
    #expect(pair.eventually { released.withLock { $0 } && pair.closed.withLock { $0 } })
  }
}
