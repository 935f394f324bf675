import CLinux

#if canImport(Glibc)
  import Glibc
#endif

extension Posix {
  /// The readiness bits `epoll` reports and is asked for.
  public enum Readiness {
    /// `EPOLLIN`: there is something to read (or the end of the input).
    public static let input = EPOLLIN.rawValue
    /// `EPOLLOUT`: the descriptor takes more.
    public static let output = EPOLLOUT.rawValue
    /// `EPOLLRDHUP`: the peer shut down its sending side.
    public static let peerShutDown = EPOLLRDHUP.rawValue
    /// `EPOLLHUP`: both sides are closed; reported whatever was asked for.
    public static let hangUp = EPOLLHUP.rawValue
    /// `EPOLLERR`: an error is pending; reported whatever was asked for.
    public static let error = EPOLLERR.rawValue
  }

  /// What `epollControl` does with a registration.
  public enum EpollOperation {
    case add, modify, delete

    fileprivate var code: Int32 {
      switch self {
      case .add: return EPOLL_CTL_ADD
      case .modify: return EPOLL_CTL_MOD
      case .delete: return EPOLL_CTL_DEL
      }
    }
  }
  /// `epoll_create1(EPOLL_CLOEXEC)`.
  public static func epollCreate() throws(SystemError) -> Int32 {
    let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
    guard fd >= 0 else { throw SystemError("epoll_create1") }
    return fd
  }

  /// `epoll_ctl(2)`: `operation` of `fd` for `events`, reported
  /// under `token` (never the descriptor, so that a reused number cannot reach a removed watcher).
  public static func epollControl(
    _ epoll: Int32, _ operation: EpollOperation, _ fd: Int32, events: UInt32, token: UInt64
  ) throws(SystemError) {
    guard notifyd_epoll_control(epoll, operation.code, fd, events, token) == 0 else {
      throw SystemError("epoll_ctl")
    }
  }

  /// Room for what one `epoll_wait(2)` reports: up to 64 tokens and their events.
  public struct ReadyEvents {
    public static let capacity = 64
    public fileprivate(set) var tokens = [UInt64](repeating: 0, count: capacity)
    public fileprivate(set) var events = [UInt32](repeating: 0, count: capacity)
    public fileprivate(set) var count = 0

    public init() {}
  }

  /// `epoll_wait(2)` for up to `ReadyEvents.capacity` events and `timeout` milliseconds (-1: no
  /// limit), into `ready`; a signal counts as nothing ready.
  public static func epollWait(_ epoll: Int32, into ready: inout ReadyEvents, timeout: Int32)
    throws(SystemError)
  {
    let count = notifyd_epoll_wait(epoll, &ready.tokens, &ready.events, timeout)
    ready.count = max(0, Int(count))
    if count < 0 && errno != EINTR { throw SystemError("epoll_wait") }
  }

  /// `eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)`.
  public static func eventCounter() throws(SystemError) -> Int32 {
    let fd = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
    guard fd >= 0 else { throw SystemError("eventfd") }
    return fd
  }

  /// Adds one to an `eventfd` counter (`write(2)` of 8 bytes), waking whoever polls it.
  public static func signalEventCounter(_ fd: Int32) {
    var one: UInt64 = 1
    _ = withUnsafeBytes(of: &one) { Glibc.write(fd, $0.baseAddress, 8) }
  }

  /// Resets an `eventfd` counter (`read(2)` of 8 bytes).
  public static func drainEventCounter(_ fd: Int32) {
    var value: UInt64 = 0
    _ = withUnsafeMutableBytes(of: &value) { Glibc.read(fd, $0.baseAddress, 8) }
  }
}
