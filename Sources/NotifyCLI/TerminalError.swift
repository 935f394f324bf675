import Glibc

/// Why the live view of `watch` could not use the terminal.
public enum TerminalError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A system call the view depends on failed with `errno`.
  case systemCall(String, errno: Int32)

  public var description: String {
    switch self {
    case .systemCall(let name, let code):
      return "cannot drive the terminal: \(name): \(String(cString: strerror(code)))"
    }
  }
}
