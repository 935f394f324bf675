import CLinux

#if canImport(Glibc)
  import Glibc
#endif

/// Thin wrappers of the system calls notifyd makes, daemon and client alike: the one seam for
/// their errors. Each names the C function it wraps; a call interrupted by a signal (`EINTR`) is
/// made again.
public enum Posix {
  /// The outcome of a non-blocking `read(2)`, `recv(2)` or `send(2)`.
  public enum Transfer: Equatable, Sendable {
    case bytes(Int)
    case wouldBlock
    case endOfFile
  }

  // MARK: - Descriptors

  /// `read(2)` into `buffer`.
  public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError)
    -> Transfer
  {
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

  /// `write(2)` of `buffer`; answers how much the descriptor took.
  public static func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SystemError) -> Transfer {
    while true {
      let count = Glibc.write(fd, buffer.baseAddress, buffer.count)
      if count >= 0 { return .bytes(count) }
      switch errno {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK: return .wouldBlock
      default: throw SystemError("write")
      }
    }
  }

  /// `write(2)` until all of `bytes` is written, to a blocking descriptor (a terminal, a pipe, a file).
  public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) {
    var offset = 0
    while offset < bytes.count {
      switch try write(fd, UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
      case .bytes(let count): offset += count
      case .wouldBlock, .endOfFile: throw SystemError("write", errno: EAGAIN)
      }
    }
  }

  /// `close(2)`.
  public static func close(_ fd: Int32) {
    _ = Glibc.close(fd)
  }

  /// `fcntl(F_SETFL, O_NONBLOCK)` and `fcntl(F_SETFD, FD_CLOEXEC)`, for a descriptor notifyd did
  /// not open itself (one systemd passed, a pipe's ends).
  public static func makeNonBlockingAndCloseOnExec(_ fd: Int32) throws(SystemError) {
    let flags = fcntl(fd, F_GETFL)
    guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { throw SystemError("fcntl F_SETFL") }
    guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else { throw SystemError("fcntl F_SETFD") }
  }

  /// `pipe2(2)` with `O_CLOEXEC | O_NONBLOCK` (without `nonBlocking`, `O_CLOEXEC` only: for a pipe
  /// whose end a child gets): the read end, then the write end.
  public static func pipe(nonBlocking: Bool = true) throws(SystemError) -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    guard CLinux.pipe2(&ends, O_CLOEXEC | (nonBlocking ? O_NONBLOCK : 0)) == 0 else {
      throw SystemError("pipe2")
    }
    return (ends[0], ends[1])
  }

  /// `poll(2)` on `descriptors` for up to `timeout` milliseconds (-1: no limit); answers how many
  /// are ready (0 when the time ran out or a signal came).
  public static func poll(_ descriptors: inout [pollfd], timeout: Int32) throws(SystemError) -> Int {
    let count = Glibc.poll(&descriptors, nfds_t(descriptors.count), timeout)
    if count >= 0 { return Int(count) }
    if errno == EINTR { return 0 }
    throw SystemError("poll")
  }

  /// Whether the peer of a socket has closed its end altogether, not only its sending half: an
  /// `AF_UNIX` stream reports `POLLHUP` only then (`shutdown(SHUT_WR)` gives `POLLRDHUP` alone).
  /// Wraps `poll(2)` without waiting.
  public static func peerHasClosed(_ fd: Int32) -> Bool {
    var descriptor = pollfd(fd: fd, events: 0, revents: 0)
    return Glibc.poll(&descriptor, 1, 0) == 1 && descriptor.revents & Int16(POLLHUP) != 0
  }

  /// The descriptors among `fds` whose peer has closed its end altogether (`POLLHUP`), in one
  /// `poll(2)` that does not wait.
  public static func hungUp(_ fds: [Int32]) -> [Int32] {
    var descriptors = fds.map { pollfd(fd: $0, events: 0, revents: 0) }
    guard Glibc.poll(&descriptors, nfds_t(descriptors.count), 0) > 0 else { return [] }
    return descriptors.filter { $0.revents & Int16(POLLHUP) != 0 }.map(\.fd)
  }

  // MARK: - Process

  /// `getrlimit(RLIMIT_NOFILE)`, then `setrlimit` raising the soft limit to the hard one; answers
  /// the soft limit now in force.
  @discardableResult
  public static func raiseOpenFileLimit() -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
    if limit.rlim_cur < limit.rlim_max {
      var raised = limit
      raised.rlim_cur = limit.rlim_max
      if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
    }
    return limit.rlim_cur > rlim_t(Int32.max) ? Int(Int32.max) : Int(limit.rlim_cur)
  }

  /// `umask(2)`.
  @discardableResult
  public static func umask(_ mask: mode_t) -> mode_t { Glibc.umask(mask) }

  /// `signal(SIGPIPE, SIG_IGN)`, so that writing to a vanished peer cannot kill the process.
  public static func ignoreSIGPIPE() { _ = signal(SIGPIPE, SIG_IGN) }

  /// `clock_gettime(CLOCK_MONOTONIC)` in seconds.
  public static func monotonicNow() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
  }

  // MARK: - Files

  /// `unlink(2)`; a missing file is not an error.
  public static func unlink(_ path: String) throws(SystemError) {
    guard Glibc.unlink(path) == 0 || errno == ENOENT else { throw SystemError("unlink \(path)") }
  }

  /// `chmod(2)`.
  public static func chmod(_ path: String, _ mode: mode_t) throws(SystemError) {
    guard Glibc.chmod(path, mode) == 0 else { throw SystemError("chmod \(path)") }
  }

  /// `open(2)` with `O_CREAT | O_CLOEXEC` and mode 0600, then `fchmod(2)` to 0600: the file at
  /// `path` exists and only its owner may read it, whatever the umask and its old mode.
  public static func createPrivateFile(_ path: String) throws(SystemError) {
    let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw SystemError("open \(path)") }
    defer { _ = Glibc.close(fd) }
    guard fchmod(fd, 0o600) == 0 else { throw SystemError("fchmod \(path)") }
  }

  /// `open(2)` of `path` with `flags | O_CLOEXEC` (and `mode` when it creates the file).
  public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws(SystemError) -> Int32 {
    while true {
      let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
      if fd >= 0 { return fd }
      if errno == EINTR { continue }
      throw SystemError("open \(path)")
    }
  }

  /// `mkdir(2)` of `path` and of each parent missing (`mkdir -p`), each with `mode`.
  public static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws(SystemError) {
    var prefix = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/") {
      prefix += "/" + component
      if Glibc.mkdir(prefix, mode) != 0, errno != EEXIST { throw SystemError("mkdir \(prefix)") }
    }
  }

  /// `flock(2)` with `LOCK_EX`: waits until no other process holds the file's lock; closing `fd`
  /// lets it go.
  public static func lockExclusively(_ fd: Int32) throws(SystemError) {
    while flock(fd, LOCK_EX) != 0 {
      if errno != EINTR { throw SystemError("flock") }
    }
  }

  /// The whole file replaced by `bytes` (`ftruncate(2)`, `pwrite(2)`), then `fsync(2)`.
  public static func replaceContents(_ fd: Int32, with bytes: [UInt8]) throws(SystemError) {
    guard ftruncate(fd, 0) == 0 else { throw SystemError("ftruncate") }
    let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    guard written == bytes.count else { throw SystemError("pwrite") }
    guard fsync(fd) == 0 else { throw SystemError("fsync") }
  }

  /// `fstat(2)`.
  public static func status(_ fd: Int32) throws(SystemError) -> stat {
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw SystemError("fstat") }
    return info
  }

  /// `rename(2)`.
  public static func rename(_ from: String, to: String) throws(SystemError) {
    guard Glibc.rename(from, to) == 0 else { throw SystemError("rename \(from)") }
  }

  /// `lstat(2)`: the file type bits of `path`, or `nil` when it does not exist.
  public static func fileType(_ path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode & S_IFMT
  }

  /// The bytes of the file at `path`, read to its end (`open(2)`, `read(2)`) but at most `limit`
  /// of them, so that a path that names a device cannot be read for ever; `nil` when it cannot be
  /// opened.
  public static func readFile(_ path: String, limit: Int = 1 << 20) -> [UInt8]? {
    guard let fd = try? open(path, O_RDONLY) else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while bytes.count < limit,
      case .bytes(let count)? = chunk.withUnsafeMutableBytes({ try? read(fd, into: $0) })
    {
      bytes += chunk[0..<min(count, limit - bytes.count)]
    }
    return bytes
  }

  /// The bytes of the regular file at `path` when it holds at most `limit` of them; `nil` for
  /// anything else (missing, a directory, a FIFO, a device, too large). Opened without blocking,
  /// so that a FIFO cannot stall the caller.
  public static func readRegularFile(_ path: String, limit: Int) -> [UInt8]? {
    guard let fd = try? open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY) else { return nil }
    defer { close(fd) }
    guard let info = try? status(fd), info.st_mode & S_IFMT == S_IFREG, info.st_size <= limit else {
      return nil
    }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var filled = 0
    while filled < bytes.count {
      let transfer = bytes.withUnsafeMutableBytes { buffer in
        try? read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
      }
      guard case .bytes(let count) = transfer, count > 0 else { break }
      filled += count
    }
    return filled == bytes.count ? bytes : nil
  }

  /// `gethostname(2)`: the host's name as the kernel has it (with its domain, if it was given one);
  /// nil if it cannot be read.
  public static func hostName() -> String? {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// `access(2)` with `F_OK`: whether something exists at `path`.
  public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

  /// `readlink(2)`: where the symbolic link `path` points.
  public static func readLink(_ path: String) throws(SystemError) -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink(path, &buffer, buffer.count - 1)
    guard length >= 0 else { throw SystemError("readlink") }
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Whether `path` is a file this process may execute (`access(2)` with `X_OK`).
  public static func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }

  /// The names in directory `path` (`opendir(3)`, `readdir(3)`), without `.` and `..`; empty
  /// when it cannot be read.
  public static func entries(ofDirectory path: String) -> [String] {
    guard let stream = opendir(path) else { return [] }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) {
        String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }
}

extension Posix {
  /// Lets go of the resident pages of the process's code: `madvise(MADV_DONTNEED)` on every
  /// executable file mapping of `/proc/self/maps` (`r-xp`, never written, so nothing of the
  /// process's own is lost). The pages stay in the page cache; the next call maps what it runs
  /// again with minor faults. `/proc/self/maps`, not `smaps`: reading `smaps` walks the page tables
  /// of every mapping, which under a sanitizer's terabytes of shadow takes a good part of a second.
  /// Answers how many mappings were let go.
  @discardableResult
  public static func releaseCodePages() -> Int {
    guard let text = readFile("/proc/self/maps", limit: 16 << 20) else { return 0 }
    var released = 0
    // start-end perms offset device inode path
    for line in String(decoding: text, as: UTF8.self).split(separator: "\n") {
      let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
      guard fields.count == 6, fields[1] == "r-xp", fields[5].drop(while: { $0 == " " }).hasPrefix("/") else {
        continue
      }
      let range = fields[0].split(separator: "-")
      guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
        end > start
      else { continue }
      if madvise(UnsafeMutableRawPointer(bitPattern: start), Int(end - start), MADV_DONTNEED) == 0 {
        released += 1
      }
    }
    return released
  }
}

/// What identifies a file's contents without reading it: device, inode, size and modification
/// time (`stat(2)`). Equal stamps: the same contents, as far as anything short of reading can tell.
public struct FileStamp: Equatable, Sendable {
  public var device: UInt64
  public var inode: UInt64
  public var size: Int64
  public var seconds: Int
  public var nanoseconds: Int

  /// The stamp of what `path` names (links followed); `nil` when nothing is there.
  public init?(path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
    size = Int64(info.st_size)
    seconds = info.st_mtim.tv_sec
    nanoseconds = info.st_mtim.tv_nsec
  }
}
