import NotifyProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// A blocking Varlink connection that sends pre-encoded calls and reads replies without decoding
/// them, so that the load generator spends as little CPU as possible beside the daemon under test.
///
/// - Important: one connection per thread.
final class RawVarlinkConnection {
  let fd: Int32
  private var framer = VarlinkFramer(maximumMessageSize: 64 << 20)
  private var chunk = [UInt8](repeating: 0, count: 1 << 16)
  private var ready: [[UInt8]] = []
  private var readyStart = 0

  /// Connects to `path`; wraps `socket(2)` and `connect(2)`.
  init(path: String) throws {
    fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_un.make(path)
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard result == 0 else {
      let code = errno
      close(fd)
      throw BenchError("connect \(path): \(String(cString: strerror(code)))")
    }
    // A daemon that stops answering fails the figure instead of hanging the bench.
    var timeout = timeval(tv_sec: 60, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  deinit { close(fd) }

  /// Sends all of `bytes`; wraps `send(2)`.
  func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes.withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
      }
      if sent < 0 {
        if errno == EINTR { continue }
        throw BenchError("send: \(String(cString: strerror(errno)))")
      }
      offset += sent
    }
  }

  /// The next whole message; wraps `recv(2)`.
  func receive() throws -> [UInt8] {
    while readyStart == ready.count {
      ready.removeAll(keepingCapacity: true)
      readyStart = 0
      let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN { throw BenchError("no reply from notifyd within 60 s") }
        throw BenchError("recv: \(String(cString: strerror(errno)))")
      }
      if count == 0 { throw BenchError("notifyd closed the connection") }
      let output = chunk.withUnsafeBytes { framer.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
      ready.append(contentsOf: output.messages)
    }
    readyStart += 1
    return ready[readyStart - 1]
  }

  /// Calls `method` and decodes the single reply's parameters (for setup, not for load).
  func call<Reply: Decodable>(_ method: String, _ parameters: some Encodable, returning type: Reply.Type)
    throws -> Reply
  {
    try send(VarlinkCoding.call(method, parameters))
    let message = try receive()
    let reply = try VarlinkCoding.decodeReply(message)
    if let error = reply.error {
      throw BenchError("\(method) failed: \(error) \(reply.parameters.map { "\($0)" } ?? "")")
    }
    return try VarlinkCoding.parameters(type, from: message)
  }

  /// Whether a reply is an error reply, found without decoding it.
  static func isError(_ message: [UInt8]) -> Bool {
    let needle = Array("\"error\"".utf8)
    guard message.count >= needle.count else { return false }
    return message.withUnsafeBufferPointer { bytes in
      var index = 0
      while index + needle.count <= bytes.count {
        if bytes[index] == 0x22 && bytes[index + 1] == 0x65 && bytes[index + 6] == 0x22
          && bytes[index + 2] == 0x72 && bytes[index + 3] == 0x72 && bytes[index + 4] == 0x6f
          && bytes[index + 5] == 0x72
        {
          return true
        }
        index += 1
      }
      return false
    }
  }
}
