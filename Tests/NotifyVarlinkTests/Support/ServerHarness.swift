import Dispatch
import Foundation
import NotifyCore
import NotifyPosix
import NotifyProtocol
import NotifyService
import NotifySupport

@testable import NotifyVarlink

#if canImport(Glibc)
  import Glibc
#endif

/// A Varlink server on a real socket in a private directory, on an event loop of its own, serving
/// a `NoticeQueue` on real timers, with what it holds readable from the test.
final class ServerHarness: @unchecked Sendable {
  // @unchecked: `server` is used on the loop's thread only, through `loop.sync`.
  let directory: String
  let path: String
  let queue: NoticeQueue
  let loop: EventLoop
  private let socket: ListeningSocket
  private let server: VarlinkServer

  init(
    limits: ConnectionLimits = ConnectionLimits(), settings: QueueSettings = QueueSettings(),
    maximumClients: Int = 1024
  ) throws {
    var template = Array("/tmp/notifyd-server-test-XXXXXX".utf8CString)
    directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    path = directory + "/notifyd.sock"
    queue = NoticeQueue(settings: settings, scheduler: TimingThread())
    socket = try ListeningSocket.create(at: path)
    loop = try EventLoop(name: "test.server")
    let table = QueueMethods.table(service: NoticeService(queue: queue, journal: nil)) { .success(()) }
    server = VarlinkServer(
      socket: socket, table: table, loop: loop, log: Logger(level: .error, sink: DiscardingSink()),
      maximumClients: maximumClients, limits: limits)
    try server.start()
    let server = server
    loop.atEndOfTurn { server.takeUpPendingCalls() }
    loop.atEndOfTurn { server.flushConnections() }
    loop.start()
  }

  deinit {
    let server = server
    loop.sync { server.stop() }
    loop.stop()
    Posix.close(socket.fd)
    socket.removeOwnedPath()
    rmdir(directory)
  }

  /// The number of clients the server holds now.
  var clientCount: Int {
    let server = server
    return loop.sync { server.clientCount }
  }

  /// A new client connection.
  func connect() throws -> RawClient { try RawClient(path: path) }
}

/// A blocking client that speaks raw Varlink, so a test can send what `VarlinkClient` never would.
final class RawClient {
  let fd: Int32
  private var buffer: [UInt8] = []

  init(path: String) throws {
    fd = try Posix.unixStreamSocket(blocking: true)
    try Posix.connect(fd, path: path)
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  deinit { close() }

  private var closed = false
  func close() {
    guard !closed else { return }
    closed = true
    Glibc.close(fd)
  }

  /// Sends `json` and its NUL.
  func send(_ json: String) {
    send(bytes: Array(json.utf8) + [0])
  }

  func send(bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes.withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
      }
      guard sent > 0 else { return }
      offset += sent
    }
  }

  /// The next whole message, or `nil` when the server closed the connection or 10 s passed.
  func receive() -> [UInt8]? {
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      if let end = buffer.firstIndex(of: 0) {
        let message = Array(buffer[..<end])
        buffer.removeFirst(end + 1)
        return message
      }
      let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { return nil }
      buffer.append(contentsOf: chunk[..<count])
    }
  }

  /// The next message decoded as a JSON object.
  func receiveObject() -> [String: JSONValue]? {
    guard let message = receive() else { return nil }
    return (try? JSONDecoder().decode(JSONValue.self, from: Data(message)))?.objectValue
  }

  /// Whether the server has closed the connection: reads (and drops) what is left until the end.
  func serverClosed(within seconds: Double) -> Bool {
    var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let deadline = Date().addingTimeInterval(seconds)
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while Date() < deadline {
      guard poll(&descriptor, 1, 50) >= 0 else { return false }
      if descriptor.revents & Int16(POLLIN | POLLHUP) != 0 {
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count == 0 { return true }
      }
    }
    return false
  }
}
