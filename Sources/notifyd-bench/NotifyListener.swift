#if canImport(Glibc)
  import Glibc
#endif

/// The service manager's end of `sd_notify`: a datagram socket a child reports `READY=1` to.
final class NotifyListener {
  let path: String
  private let fd: Int32

  /// Binds a datagram socket at `path`; wraps `socket(2)` and `bind(2)`.
  init(path: String) throws {
    self.path = path
    unlink(path)
    fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else {
      throw BenchError("socket(AF_UNIX, SOCK_DGRAM): \(String(cString: strerror(errno)))")
    }
    var address = sockaddr_un.make(path)
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard result == 0 else {
      close(fd)
      throw BenchError("bind \(path): \(String(cString: strerror(errno)))")
    }
  }

  deinit {
    close(fd)
    unlink(path)
  }

  /// Waits up to `timeout` seconds for a datagram containing the line `line`; answers the
  /// monotonic nanoseconds at which it arrived. Wraps `poll(2)` and `recv(2)`.
  func waitFor(line: String, timeout: Double) -> UInt64? {
    let deadline = Clock.seconds() + timeout
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let remaining = deadline - Clock.seconds()
      if remaining <= 0 { return nil }
      var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let ready = poll(&descriptor, 1, Int32(remaining * 1000) + 1)
      if ready < 0 && errno == EINTR { continue }
      if ready <= 0 { continue }
      let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      let arrived = Clock.nanoseconds()
      guard count > 0 else { continue }
      let text = String(decoding: buffer[0..<count], as: UTF8.self)
      if text.split(separator: "\n").contains(where: { $0 == line }) { return arrived }
    }
  }
}

extension sockaddr_un {
  /// An `AF_UNIX` address for `path` (which must fit).
  static func make(_ path: String) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      let count = min(bytes.count, raw.count - 1)
      raw.copyBytes(from: bytes[0..<count])
      raw[count] = 0
    }
    return address
  }
}

/// A failure of the bench itself, with a message for the person running it.
struct BenchError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
