import FoundationEssentials

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

  /// Connects to the socket at `path` (wraps `socket(2)` and `connect(2)`).
  public init(path: String) throws(ClientError) {
    self.path = path
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw .cannotConnect(path: path, errno: errno) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard bytes.count < capacity else {
      close(fd)
      throw .pathTooLong(path: path)
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard result == 0 else {
      let code = errno
      close(fd)
      throw .cannotConnect(path: path, errno: code)
    }
    self.fd = fd
  }

  deinit { close(fd) }

  /// The file descriptor of the connection, for `poll(2)`.
  public var fileDescriptor: Int32 { fd }

  /// Sends raw bytes (wraps `send(2)` with `MSG_NOSIGNAL`).
  public func send(raw bytes: [UInt8]) throws(ClientError) {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes.withUnsafeBytes { buffer in
        Glibc.send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
      }
      if sent < 0 {
        if errno == EINTR { continue }
        throw .io(path: path, errno: errno)
      }
      offset += sent
    }
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

  /// Reads the next whole message (wraps `recv(2)`).
  public func receiveMessage() throws(ClientError) -> [UInt8] {
    var chunk = [UInt8](repeating: 0, count: 65536)
    while pending.isEmpty {
      let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count < 0 {
        if errno == EINTR { continue }
        throw .io(path: path, errno: errno)
      }
      if count == 0 { throw .connectionClosed(path: path) }
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
