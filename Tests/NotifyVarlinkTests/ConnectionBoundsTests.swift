import Dispatch
import Foundation
import NotifyCore
import NotifyProtocol
import Testing

@testable import NotifyVarlink

#if canImport(Glibc)
  import Glibc
#endif

/// What one client can make the server hold, over a real socket: every call's state goes with its
/// connection, held calls are bounded in bytes, long replies reach a client that reads, and a
/// client that reads nothing is let go.
@Suite("Connection bounds, over a real socket")
struct ConnectionBoundsTests {
  /// Polls `condition` for up to `timeout` seconds of real time.
  func eventually(timeout: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if condition() { return true }
      usleep(2000)
    }
    return condition()
  }

  /// A notice that stays until ended, so that a `Wait` on it waits.
  func heldNotice(_ harness: ServerHarness) throws -> Int {
    try harness.queue.show(ShowParameters(title: "held", urgency: .critical, fadeIn: 0))
  }

  // MARK: - State that goes with the connection

  @Test func wait_isReleased_whenItsClientCloses() throws {
    let harness = try ServerHarness()
    let id = try heldNotice(harness)
    let client = try harness.connect()
    client.send(#"{"method":"io.notifyd.Queue.Wait","parameters":{"id":\#(id)}}"#)
    #expect(eventually { harness.queue.subscriberCounts.waiters == 1 })
    client.close()
    #expect(eventually { harness.queue.subscriberCounts.waiters == 0 })
  }

  @Test func onewayWait_holdsUpNothing_andIsReleasedWhenItsClientCloses() throws {
    let harness = try ServerHarness()
    let id = try heldNotice(harness)
    let client = try harness.connect()
    client.send(#"{"method":"io.notifyd.Queue.Wait","parameters":{"id":\#(id)},"oneway":true}"#)
    client.send(#"{"method":"io.notifyd.Queue.Status"}"#)
    let status = client.receiveObject()
    #expect(status?["parameters"]?["version"] != nil)
    #expect(harness.queue.subscriberCounts.waiters == 1)
    client.close()
    #expect(eventually { harness.queue.subscriberCounts.waiters == 0 })
  }

  @Test func onewayWatch_isRefused_andSubscribesNothing() throws {
    let harness = try ServerHarness()
    let client = try harness.connect()
    for _ in 0..<100 {
      client.send(
        #"{"method":"io.notifyd.Queue.Watch","parameters":{"frames":true},"more":true,"oneway":true}"#)
    }
    for _ in 0..<100 {
      let reply = try #require(client.receiveObject())
      #expect(reply["error"]?.stringValue == Interface.ErrorName.invalidArgument)
      #expect(reply["parameters"]?["field"]?.stringValue == "oneway")
    }
    #expect(harness.queue.subscriberCounts.watchers == 0)
  }

  @Test func watch_isReleased_whenItsClientCloses() throws {
    let harness = try ServerHarness()
    let client = try harness.connect()
    client.send(#"{"method":"io.notifyd.Queue.Watch","parameters":{"frames":true},"more":true}"#)
    #expect(client.receiveObject()?["parameters"]?["event"]?["kind"]?.stringValue == "snapshot")
    #expect(harness.queue.subscriberCounts.watchers == 1)
    client.close()
    #expect(eventually { harness.queue.subscriberCounts.watchers == 0 && harness.clientCount == 0 })
  }

  // MARK: - Long replies and slow readers

  /// Fills the queue (suspended) with `count` notices whose bodies are 16 KiB of control
  /// characters, each six bytes once escaped in JSON.
  func fill(_ harness: ServerHarness, count: Int) throws {
    try harness.queue.suspend()
    let body = String(repeating: "\u{1}", count: 16 * 1024)
    for index in 0..<count {
      _ = try harness.queue.show(ShowParameters(title: "n\(index)", body: body))
    }
  }

  @Test func list_longerThanTheSlowReaderLimit_reachesAClientThatReads() throws {
    var limits = ConnectionLimits()
    limits.maximumUnsentBytes = 1 << 20
    let harness = try ServerHarness(limits: limits)
    try fill(harness, count: 40)  // about 4 MiB of reply: four times the limit
    let client = try harness.connect()
    client.send(#"{"method":"io.notifyd.Queue.List"}"#)
    let message = try #require(client.receive())
    #expect(message.count > 4 * limits.maximumUnsentBytes - 256 * 1024)
    let reply = try JSONDecoder().decode(JSONValue.self, from: Data(message))
    let notices = try #require(reply["parameters"]?["notices"]?.arrayValue)
    #expect(notices.map { $0["title"]?.stringValue } == (0..<40).map { "n\($0)" })
    #expect(notices.allSatisfy { $0["body"]?.stringValue?.unicodeScalars.count == 16 * 1024 })

    client.send(#"{"method":"io.notifyd.Queue.Watch","more":true}"#)
    let snapshot = try #require(client.receiveObject())
    #expect(snapshot["continues"] == .bool(true))
    #expect(snapshot["parameters"]?["event"]?["kind"]?.stringValue == "snapshot")
    #expect(snapshot["parameters"]?["event"]?["notices"]?.arrayValue?.count == 40)
    #expect(snapshot["parameters"]?["event"]?["suspended"] == .bool(true))
  }

  @Test func aCallPipelinedBehindALongReply_isAnswered_onceTheLongReplyIsOut() throws {
    let harness = try ServerHarness()
    // A List short enough to leave in one write of the turn's end: the call behind it waited for
    // that write, not for the socket to drain.
    try harness.queue.suspend()
    for index in 0..<4 { _ = try harness.queue.show(ShowParameters(title: "n\(index)")) }
    let client = try harness.connect()
    client.send(
      bytes: Array(#"{"method":"io.notifyd.Queue.List"}"#.utf8) + [0]
        + Array(#"{"method":"io.notifyd.Queue.Status"}"#.utf8) + [0])
    let list = try #require(client.receiveObject())
    #expect(list["parameters"]?["notices"]?.arrayValue?.count == 4)
    let status = try #require(client.receiveObject(), "the call behind the List was never answered")
    #expect(status["parameters"]?["version"] != nil)
  }

  @Test func aClientThatReadsNothing_isDroppedAfterTheStallTimeout_andItsReplyReleased() throws {
    var limits = ConnectionLimits()
    limits.writeStallTimeout = 0.5
    let harness = try ServerHarness(limits: limits)
    try fill(harness, count: 100)  // about 10 MiB: more than the socket's buffers take
    let client = try harness.connect()
    client.send(#"{"method":"io.notifyd.Queue.List"}"#)
    #expect(eventually { harness.clientCount == 1 })
    #expect(eventually(timeout: 10) { harness.clientCount == 0 })
    withExtendedLifetime(client) {}
  }

  @Test func callsHeldBehindAWait_areBoundedInBytes() throws {
    let harness = try ServerHarness()
    let id = try heldNotice(harness)
    let client = try harness.connect()
    client.send(#"{"method":"io.notifyd.Queue.Wait","parameters":{"id":\#(id)}}"#)
    #expect(eventually { harness.queue.subscriberCounts.waiters == 1 })
    // Calls of almost 1 MiB each, sent until the server stops taking them.
    let padding = String(repeating: "x", count: (1 << 20) - 100)
    let call = Array(#"{"method":"io.notifyd.Queue.Status","parameters":{"pad":"\#(padding)"}}"#.utf8) + [0]
    var accepted = 0
    var stalledSince: Date?
    while accepted < 64 << 20 {
      let sent = call.withUnsafeBytes { raw in
        Glibc.send(
          client.fd, raw.baseAddress! + accepted % call.count, call.count - accepted % call.count,
          Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
      }
      if sent > 0 {
        accepted += sent
        stalledSince = nil
        continue
      }
      // Taken as stopped once nothing more goes in for half a second.
      let now = Date()
      if let since = stalledSince, now.timeIntervalSince(since) > 0.5 { break }
      if stalledSince == nil { stalledSince = now }
      usleep(10_000)
    }
    // 2 MiB of held calls, one partial call, and the kernel's socket buffers.
    #expect(accepted < 8 << 20, "the server took \(accepted >> 20) MiB behind one Wait")
    // It stopped reading, yet it sees the client go, and lets go of the Wait and the held calls.
    client.close()
    #expect(eventually { harness.queue.subscriberCounts.waiters == 0 && harness.clientCount == 0 })
  }

  // MARK: - The client limit

  @Test func atTheClientLimit_aClientThatLeft_freesItsPlaceAtOnce() throws {
    let harness = try ServerHarness(maximumClients: 2)
    let id = try heldNotice(harness)
    let staying = try harness.connect()
    staying.send(#"{"method":"io.notifyd.Queue.Status"}"#)
    #expect(staying.receiveObject()?["error"] == nil)
    // A client whose connection stopped reading (a Wait, then 3 MiB of calls): its end of file
    // is not read until the calls drain.
    let leaving = try harness.connect()
    leaving.send(#"{"method":"io.notifyd.Queue.Wait","parameters":{"id":\#(id)}}"#)
    let padding = String(repeating: "x", count: (1 << 20) - 100)
    let call = #"{"method":"io.notifyd.Queue.Status","parameters":{"pad":"\#(padding)"}}"#
    for _ in 0..<3 { leaving.send(call) }
    #expect(eventually { harness.queue.subscriberCounts.waiters == 1 })
    leaving.close()
    let newcomer = try harness.connect()
    newcomer.send(#"{"method":"io.notifyd.Queue.Status"}"#)
    let reply = try #require(newcomer.receiveObject())
    #expect(reply["error"] == nil, "refused: \(reply)")
    #expect(harness.queue.subscriberCounts.waiters == 0)
  }
}
