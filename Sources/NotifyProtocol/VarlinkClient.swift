import FoundationEssentials
import NotifyPosix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Where a client could not reach the daemon, or what went wrong on the way.
public enum ClientError: Error, Sendable, Equatable, CustomStringConvertible {
  /// `connect(2)` on the socket path failed with `errno`.
  case cannotConnect(path: String, errno: Int32)
  /// The path is longer than a `sockaddr_un` can hold.
  case pathTooLong(path: String)
  /// The daemon closed the connection before replying.
  case connectionClosed(path: String)
  /// A read or write failed with `errno`.
  case io(path: String, errno: Int32)
  /// A reply could not be decoded.
  case malformedReply(path: String, reason: String)

  public var description: String {
    switch self {
    case .cannotConnect(let path, let code):
      return "cannot connect to notifyd at \(path): \(String(cString: strerror(code)))"
    case .pathTooLong(let path):
      return "socket path is too long: \(path)"
    case .connectionClosed(let path):
      return "notifyd at \(path) closed the connection"
    case .io(let path, let code):
      return "talking to notifyd at \(path): \(String(cString: strerror(code)))"
    case .malformedReply(let path, let reason):
      return "notifyd at \(path) sent a malformed reply: \(reason)"
    }
  }
}

/// A blocking Varlink client on an `AF_UNIX` stream socket, for `notifyctl` and tests.
///
/// - Important: not thread-safe; use one client per thread.
public final class VarlinkClient {
  /// The socket path this client is connected to.
  public let path: String
  private let fd: Int32
  /// Replies are as long as the daemon's queue makes them (`List` at full capacity runs to
  /// hundreds of megabytes); the daemon is the user's own, so the client takes what it sends.
  private var framer = VarlinkFramer(maximumMessageSize: Int.max)
  private var pending: [[UInt8]] = []

  /// Connects to the socket at `path` (`Posix.unixStreamSocket`, `Posix.connect`).
  public init(path: String) throws(ClientError) {
    self.path = path
    let fd: Int32
    do {
      fd = try Posix.unixStreamSocket(blocking: true)
    } catch {
      throw .cannotConnect(path: path, errno: error.errno)
    }
    do {
      try Posix.connect(fd, path: path)
    } catch {
      Posix.close(fd)
      throw error.errno == ENAMETOOLONG
        ? .pathTooLong(path: path) : .cannotConnect(path: path, errno: error.errno)
    }
    self.fd = fd
  }

  deinit { Posix.close(fd) }

  /// The file descriptor of the connection, for `poll(2)`.
  public var fileDescriptor: Int32 { fd }

  /// Sends raw bytes (`Posix.sendAll`: `send(2)` with `MSG_NOSIGNAL`).
  public func send(raw bytes: [UInt8]) throws(ClientError) {
    let result = bytes.withUnsafeBytes { buffer in
      Result { () throws(SystemError) in try Posix.sendAll(fd, buffer) }
    }
    if case .failure(let error) = result { throw .io(path: path, errno: error.errno) }
  }

  /// Sends a call without waiting for its reply.
  public func send(
    _ method: String, _ parameters: some Encodable, more: Bool = false, oneway: Bool = false
  ) throws(ClientError) {
    let bytes: [UInt8]
    do {
      bytes = try VarlinkCoding.call(method, parameters, more: more, oneway: oneway)
    } catch {
      throw .malformedReply(path: path, reason: "cannot encode the call: \(error)")
    }
    try send(raw: bytes)
  }

  /// Reads the next whole message (`Posix.receive`: `recv(2)`).
  public func receiveMessage() throws(ClientError) -> [UInt8] {
    var chunk = [UInt8](repeating: 0, count: 65536)
    while pending.isEmpty {
      let transfer = chunk.withUnsafeMutableBytes { buffer in
        Result { () throws(SystemError) in try Posix.receive(fd, into: buffer) }
      }
      let count: Int
      switch transfer {
      case .failure(let error): throw .io(path: path, errno: error.errno)
      case .success(.endOfFile): throw .connectionClosed(path: path)
      case .success(.wouldBlock): continue
      case .success(.bytes(let read)): count = read
      }
      let output = chunk.withUnsafeBytes { framer.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
      pending.append(contentsOf: output.messages)
    }
    return pending.removeFirst()
  }

  /// Reads the next reply and decodes its parameters, throwing an error reply as `VarlinkError`.
  public func receive<Reply: Decodable>(_ type: Reply.Type) throws -> (reply: Reply, continues: Bool) {
    let message = try receiveMessage()
    let header: ReplyHeader
    do {
      // Only the envelope's flags: a long reply's parameters are decoded once, below, into `type`.
      header = try JSONDecoder().decode(ReplyHeader.self, from: Data(message))
    } catch {
      throw ClientError.malformedReply(path: path, reason: "\(error)")
    }
    if let name = header.error {
      let envelope = try? VarlinkCoding.decodeReply(message)
      throw VarlinkError(name, envelope?.parameters?.objectValue ?? [:])
    }
    do {
      return (try VarlinkCoding.parameters(type, from: message), header.continues ?? false)
    } catch {
      throw ClientError.malformedReply(path: path, reason: "\(error)")
    }
  }

  /// Calls `method` and waits for its single reply.
  ///
  /// - Throws: `ClientError` when the daemon cannot be reached, `VarlinkError` for an error reply.
  public func call<Reply: Decodable>(
    _ method: String, _ parameters: some Encodable = NoParameters(), returning type: Reply.Type
  ) throws -> Reply {
    try send(method, parameters)
    return try receive(type).reply
  }

  /// Calls a method of `io.notifyd.Queue` and waits for its reply.
  public func call<Reply: Decodable>(
    _ method: Interface.Method, _ parameters: some Encodable = NoParameters(), returning type: Reply.Type
  ) throws -> Reply {
    try call(method.qualifiedName, parameters, returning: type)
  }
}

/// The flags of a reply, without its parameters.
private struct ReplyHeader: Decodable {
  var error: String?
  var continues: Bool?
}
