import Glibc
import NotifyPosix
import NotifyProtocol

/// The events of a `Watch` call, read without blocking, so that the terminal view can wait for
/// the socket, signals and keys at once with `poll(2)`.
///
/// - Important: once the call is sent, every read on the connection goes through this stream;
///   the client's own `receive` would not see what the stream has buffered.
final class EventStream {
  /// The connection, kept open for as long as the stream lives.
  private let client: VarlinkClient
  private var framer = VarlinkFramer(maximumMessageSize: 64 << 20)

  /// Calls `Watch` with `more` on `client`.
  init(client: VarlinkClient, parameters: WatchParameters) throws(ClientError) {
    self.client = client
    try client.send(Interface.Method.watch.qualifiedName, parameters, more: true)
  }

  /// The socket, for `poll(2)`.
  var fileDescriptor: Int32 { client.fileDescriptor }

  /// The events that arrived whole since the last call (`Posix.receive` without waiting).
  ///
  /// - Throws: `ClientError.connectionClosed` when the daemon closed the stream, other
  ///   `ClientError`s for a failed read or a malformed reply, `VarlinkError` for an error reply.
  func readAvailable() throws -> [Event] {
    var events: [Event] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let transfer = chunk.withUnsafeMutableBytes { buffer in
        Result { () throws(SystemError) in try Posix.receive(fileDescriptor, into: buffer, wait: false) }
      }
      let count: Int
      switch transfer {
      case .failure(let error): throw ClientError.io(path: client.path, errno: error.errno)
      case .success(.wouldBlock): return events
      case .success(.endOfFile):
        guard events.isEmpty else { return events }  // report the close on the next call
        throw ClientError.connectionClosed(path: client.path)
      case .success(.bytes(let read)): count = read
      }
      let output = chunk.withUnsafeBytes { framer.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
      if output.overflowed {
        throw ClientError.malformedReply(path: client.path, reason: "a reply longer than 64 MiB")
      }
      for message in output.messages { events.append(try decode(message)) }
    }
  }

  private func decode(_ message: [UInt8]) throws -> Event {
    let reply: VarlinkReply
    do {
      reply = try VarlinkCoding.decodeReply(message)
    } catch {
      throw ClientError.malformedReply(path: client.path, reason: "\(error)")
    }
    if let name = reply.error {
      throw VarlinkError(name, reply.parameters?.objectValue ?? [:])
    }
    do {
      return try (reply.parameters?["event"] ?? .null).decode(Event.self)
    } catch {
      throw ClientError.malformedReply(path: client.path, reason: "\(error)")
    }
  }
}
