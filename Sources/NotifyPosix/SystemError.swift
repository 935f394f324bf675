#if canImport(Glibc)
  import Glibc
#endif

/// A failed system call: which call, and `errno`.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The call that failed, as a person would look it up (`connect /run/user/1000/notifyd.sock`).
  public var call: String
  public var errno: Int32

  public init(_ call: String, errno: Int32 = Glibc.errno) {
    self.call = call
    self.errno = errno
  }

  /// `strerror(3)` of the error alone, without the call.
  public var reason: String { String(cString: strerror(errno)) }

  public var description: String { "\(call): \(reason)" }
}
