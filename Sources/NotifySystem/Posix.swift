import CLinux
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A failed system call: which call, and `errno`.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
  public var call: String
  public var errno: Int32

  public init(_ call: String, errno: Int32 = Glibc.errno) {
    self.call = call
    self.errno = errno
  }

  public var description: String { "\(call): \(String(cString: strerror(errno)))" }
}

/// Thin wrappers of the system calls the daemon makes: the one seam for their errors. Each names
/// the C function it wraps.
enum Posix {
  /// `socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)`.
  static func unixStreamSocket() throws(SystemError) -> Int32 {
    let fd = socket(
      AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw SystemError("socket") }
    return fd
  }

  /// Fills a `sockaddr_un` for `path`, or fails when it does not fit.
  static func address(_ path: String) throws(SystemError) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      throw SystemError("sockaddr_un", errno: ENAMETOOLONG)
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    return address
  }

  /// `bind(2)` to a filesystem path.
  static func bind(_ fd: Int32, path: String) throws(SystemError) {
    var address = try self.address(path)
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard result == 0 else { throw SystemError("bind \(path)") }
  }

  /// `connect(2)` to a filesystem path; answers `errno` (0 on success).
  static func connect(_ fd: Int32, path: String) -> Int32 {
    guard var address = try? self.address(path) else { return ENAMETOOLONG }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    return result == 0 ? 0 : errno
  }

  /// `getsockname(2)`: the filesystem path a Unix socket is bound to, if any.
  static func socketPath(_ fd: Int32) -> String? {
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
  static func listen(_ fd: Int32, backlog: Int32 = SOMAXCONN) throws(SystemError) {
    guard Glibc.listen(fd, backlog) == 0 else { throw SystemError("listen") }
  }

  /// `accept4(2)` with `SOCK_NONBLOCK | SOCK_CLOEXEC`, so that no hook spawned meanwhile inherits
  /// the client's socket; `nil` when nothing is waiting.
  ///
  /// - Throws: `EMFILE`, `ENFILE`, `ENOBUFS`, `ENOMEM` and the like: the client stays in the backlog.
  static func accept(_ fd: Int32) throws(SystemError) -> Int32? {
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

  /// `fcntl(F_SETFL, O_NONBLOCK)` and `fcntl(F_SETFD, FD_CLOEXEC)`, for a descriptor the daemon
  /// did not open itself (one systemd passed).
  static func makeNonBlockingAndCloseOnExec(_ fd: Int32) throws(SystemError) {
    let flags = fcntl(fd, F_GETFL)
    guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { throw SystemError("fcntl F_SETFL") }
    guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else { throw SystemError("fcntl F_SETFD") }
  }

  /// Whether the peer has closed its end altogether, not only its sending half: an `AF_UNIX`
  /// stream reports `POLLHUP` only then (`shutdown(SHUT_WR)` gives `POLLRDHUP` alone). Wraps `poll(2)`.
  static func peerHasClosed(_ fd: Int32) -> Bool {
    var descriptor = pollfd(fd: fd, events: 0, revents: 0)
    return poll(&descriptor, 1, 0) == 1 && descriptor.revents & Int16(POLLHUP) != 0
  }

  /// The descriptors among `fds` whose peer has closed its end altogether (`POLLHUP`), in one
  /// `poll(2)` that does not wait.
  static func hungUp(_ fds: [Int32]) -> [Int32] {
    var descriptors = fds.map { pollfd(fd: $0, events: 0, revents: 0) }
    guard poll(&descriptors, nfds_t(descriptors.count), 0) > 0 else { return [] }
    return descriptors.filter { $0.revents & Int16(POLLHUP) != 0 }.map(\.fd)
  }

  /// `getrlimit(RLIMIT_NOFILE)`, then `setrlimit` raising the soft limit to the hard one; answers
  /// the soft limit now in force.
  @discardableResult
  static func raiseOpenFileLimit() -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
    if limit.rlim_cur < limit.rlim_max {
      var raised = limit
      raised.rlim_cur = limit.rlim_max
      if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
    }
    return limit.rlim_cur > rlim_t(Int32.max) ? Int(Int32.max) : Int(limit.rlim_cur)
  }

  /// `struct ucred` from <sys/socket.h>, which Swift's Glibc module leaves out (it needs _GNU_SOURCE).
  private struct PeerCredentials {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0
  }

  /// `getsockopt(SO_PEERCRED)`: the peer's uid.
  static func peerUID(_ fd: Int32) throws(SystemError) -> uid_t {
    var credentials = PeerCredentials()
    var length = socklen_t(MemoryLayout<PeerCredentials>.size)
    guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else {
      throw SystemError("getsockopt SO_PEERCRED")
    }
    return credentials.uid
  }

  /// The outcome of a non-blocking `read(2)` or `write(2)`.
  enum Transfer: Equatable {
    case bytes(Int)
    case wouldBlock
    case endOfFile
  }

  /// `read(2)` into `buffer`.
  static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Transfer {
    while true {
      let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
      if count > 0 { return .bytes(count) }
      if count == 0 { return .endOfFile }
      switch errno {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK: return .wouldBlock
      default: throw SystemError("read")
      }
    }
  }

  /// `send(2)` with `MSG_NOSIGNAL`, so a vanished peer is an error and not a SIGPIPE.
  static func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SystemError) -> Transfer {
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

  /// `close(2)`.
  static func close(_ fd: Int32) {
    _ = Glibc.close(fd)
  }

  /// `unlink(2)`; a missing file is not an error.
  static func unlink(_ path: String) throws(SystemError) {
    guard Glibc.unlink(path) == 0 || errno == ENOENT else { throw SystemError("unlink \(path)") }
  }

  /// `chmod(2)`.
  static func chmod(_ path: String, _ mode: mode_t) throws(SystemError) {
    guard Glibc.chmod(path, mode) == 0 else { throw SystemError("chmod \(path)") }
  }

  /// `open(2)` with `O_CREAT | O_CLOEXEC` and mode 0600, then `fchmod(2)` to 0600: the file at
  /// `path` exists and only its owner may read it, whatever the umask and its old mode.
  static func createPrivateFile(_ path: String) throws(SystemError) {
    let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw SystemError("open \(path)") }
    defer { _ = Glibc.close(fd) }
    guard fchmod(fd, 0o600) == 0 else { throw SystemError("fchmod \(path)") }
  }

  /// `lstat(2)`: the file type bits of `path`, or `nil` when it does not exist.
  static func fileType(_ path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode & S_IFMT
  }

  /// `umask(2)`.
  @discardableResult
  static func umask(_ mask: mode_t) -> mode_t { Glibc.umask(mask) }

  /// `signal(SIGPIPE, SIG_IGN)`, so that writing to a vanished peer cannot kill the daemon.
  static func ignoreSIGPIPE() { _ = signal(SIGPIPE, SIG_IGN) }
}
