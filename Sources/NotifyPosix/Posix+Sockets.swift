import CLinux

#if canImport(Glibc)
  import Glibc
#endif

extension Posix {
  /// `socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)`, with `SOCK_NONBLOCK` unless `blocking`.
  public static func unixStreamSocket(blocking: Bool = false) throws(SystemError) -> Int32 {
    var type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    if !blocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
    let fd = socket(AF_UNIX, type, 0)
    guard fd >= 0 else { throw SystemError("socket") }
    return fd
  }

  /// `socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC)`: two connected ends.
  public static func socketPair() throws(SystemError) -> (Int32, Int32) {
    var ends: [Int32] = [-1, -1]
    let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { throw SystemError("socketpair") }
    return (ends[0], ends[1])
  }

  /// Fills a `sockaddr_un` for `path`, or fails when it does not fit.
  public static func address(_ path: String) throws(SystemError) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      throw SystemError("sockaddr_un \(path)", errno: ENAMETOOLONG)
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    return address
  }

  /// `bind(2)` to a filesystem path.
  public static func bind(_ fd: Int32, path: String) throws(SystemError) {
    var address = try self.address(path)
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard result == 0 else { throw SystemError("bind \(path)") }
  }

  /// `connect(2)` to a filesystem path. On a non-blocking socket a listener whose backlog is full
  /// answers `EAGAIN`, which is thrown like any other failure.
  public static func connect(_ fd: Int32, path: String) throws(SystemError) {
    var address = try self.address(path)
    while true {
      let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
      if result == 0 { return }
      if errno == EINTR { continue }
      throw SystemError("connect \(path)")
    }
  }

  /// `getsockname(2)`: the filesystem path a Unix socket is bound to, if any.
  public static func socketPath(_ fd: Int32) -> String? {
    var address = sockaddr_un()
    var length = socklen_t(MemoryLayout<sockaddr_un>.size)
    let result = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard result == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
    let path = withUnsafeBytes(of: address.sun_path) { raw in
      String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
    return path.isEmpty ? nil : path
  }

  /// `listen(2)`.
  public static func listen(_ fd: Int32, backlog: Int32 = SOMAXCONN) throws(SystemError) {
    guard Glibc.listen(fd, backlog) == 0 else { throw SystemError("listen") }
  }

  /// `accept4(2)` with `SOCK_NONBLOCK | SOCK_CLOEXEC`, so that no child spawned meanwhile inherits
  /// the client's socket; `nil` when nothing is waiting.
  ///
  /// - Throws: `EMFILE`, `ENFILE`, `ENOBUFS`, `ENOMEM` and the like: the client stays in the backlog.
  public static func accept(_ fd: Int32) throws(SystemError) -> Int32? {
    while true {
      let client = CLinux.accept4(
        fd, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
      if client >= 0 { return client }
      switch errno {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK, ECONNABORTED: return nil
      default: throw SystemError("accept4")
      }
    }
  }

  /// `struct ucred` from <sys/socket.h>, which Swift's Glibc module leaves out (it needs _GNU_SOURCE).
  private struct PeerCredentials {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0
  }

  /// `getsockopt(SO_PEERCRED)`: the peer's uid.
  public static func peerUID(_ fd: Int32) throws(SystemError) -> uid_t {
    var credentials = PeerCredentials()
    var length = socklen_t(MemoryLayout<PeerCredentials>.size)
    guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else {
      throw SystemError("getsockopt SO_PEERCRED")
    }
    return credentials.uid
  }

  /// `recv(2)` into `buffer`; with `wait: false` it does not block (`MSG_DONTWAIT`).
  public static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, wait: Bool = true)
    throws(SystemError) -> Transfer
  {
    while true {
      let count = recv(fd, buffer.baseAddress, buffer.count, wait ? 0 : Int32(MSG_DONTWAIT))
      if count > 0 { return .bytes(count) }
      if count == 0 { return .endOfFile }
      switch errno {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK: return .wouldBlock
      default: throw SystemError("recv")
      }
    }
  }

  /// `send(2)` with `MSG_NOSIGNAL`, so a vanished peer is an error and not a SIGPIPE.
  public static func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SystemError) -> Transfer {
    while true {
      let count = Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
      if count >= 0 { return .bytes(count) }
      switch errno {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK: return .wouldBlock
      default: throw SystemError("send")
      }
    }
  }

  /// `send(2)` until all of `bytes` is sent, on a blocking socket.
  public static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) {
    var offset = 0
    while offset < bytes.count {
      switch try send(fd, UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
      case .bytes(let count): offset += count
      case .wouldBlock, .endOfFile: throw SystemError("send", errno: EAGAIN)
      }
    }
  }

  /// `shutdown(2)` of the sending side.
  public static func shutdownWrite(_ fd: Int32) {
    _ = Glibc.shutdown(fd, Int32(SHUT_WR))
  }
}
