import Foundation
import Glibc
import NotifyProtocol
import Synchronization

@testable import NotifyCLI

/// A stand-in for notifyd on a real Unix socket: records each call and answers it with the
/// replies a test scripts, so that `CommandRunner` can be tested without the daemon.
final class FakeDaemon: Sendable {
  /// One call the daemon received.
  struct Call: Sendable, Equatable {
    var method: String
    var parameters: JSONValue
    var more: Bool
  }

  /// One thing to send back.
  enum Response: Sendable {
    case reply(JSONValue, continues: Bool = false)
    case error(VarlinkError)
    /// Closes the connection, as the daemon does when it stops.
    case close
  }

  /// The socket path to give the client.
  let path: String
  private let directory: String
  private let listener: Int32
  private let received = Mutex<[Call]>([])
  /// Whether `stop` was called, and whether the listener is closed: the accepting thread closes it,
  /// under this lock, so that `stop` never touches a number another test may have been given.
  private let listening = Mutex<(stopping: Bool, closed: Bool)>((false, false))

  /// Starts listening; `respond` answers each call, in order. The connection is closed after a
  /// call answered with no responses, or at a `.close` response.
  init(respond: @escaping @Sendable (Call) -> [Response]) throws {
    var template = Array("/tmp/notifyctl-test-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw POSIXError(.init(rawValue: errno)!) }
    directory = String(cString: made)
    path = directory + "/notifyd.sock"
    listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      let bytes = Array(path.utf8)
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard bound == 0, listen(listener, 8) == 0 else { throw POSIXError(.init(rawValue: errno)!) }
    let socket = listener
    Thread.detachNewThread { [self] in
      while true {
        let connection = accept(socket, nil, nil)
        if connection < 0 {
          let failure = errno
          // A signal (another test's SIGINT) interrupts the accept: only `stop` ends it.
          if failure == EINTR && !listening.withLock({ $0.stopping }) { continue }
          // Closed here rather than in `stop`, so that no other test can be handed the same
          // descriptor number while this thread still accepts on it.
          listening.withLock { state in
            state.closed = true
            close(socket)
          }
          return
        }
        serve(connection, respond: respond)
        close(connection)
      }
    }
  }

  /// Stops listening and removes the socket.
  func stop() {
    listening.withLock { state in
      state.stopping = true
      if !state.closed { shutdown(listener, Int32(SHUT_RDWR)) }
    }
    unlink(path)
    rmdir(directory)
  }

  /// The calls received so far.
  var calls: [Call] { received.withLock { $0 } }

  private func serve(_ connection: Int32, respond: (Call) -> [Response]) {
    var framer = VarlinkFramer()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
      if count <= 0 { return }
      for message in framer.append(Array(buffer[0..<count])).messages {
        guard let header = try? VarlinkCoding.decodeCall(message),
          let parameters = try? VarlinkCoding.parameters(JSONValue.self, from: message)
        else { return }
        let call = Call(method: header.method, parameters: parameters, more: header.more ?? false)
        received.withLock { $0.append(call) }
        let responses = respond(call)
        if responses.isEmpty { return }
        for response in responses {
          let bytes: [UInt8]
          switch response {
          case .reply(let parameters, let continues):
            bytes = VarlinkReplyFrame.encode(parameters, continues: continues)
          case .error(let error):
            bytes = VarlinkReplyFrame.encode(error)
          case .close:
            return
          }
          _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
      }
    }
  }
}
