import Glibc
import NotifyPosix

/// Where `notifyctl` writes: standard output for results, standard error for complaints.
public protocol Console: AnyObject {
  /// Writes `line` and a newline to standard output, at once, so that a reader on a pipe sees it.
  func print(_ line: String)
  /// Writes `line` and a newline to standard error.
  func printError(_ line: String)
  /// Whether standard output is a terminal, where `watch` draws its live view instead of lines.
  var isTerminal: Bool { get }
}

extension Console {
  public var isTerminal: Bool { false }
}

/// The process's own standard output and error, written with `write(2)` so that nothing waits in a buffer.
public final class StandardConsole: Console {
  public init() {}

  public func print(_ line: String) { Self.write(line + "\n", to: STDOUT_FILENO) }

  public func printError(_ line: String) { Self.write(line + "\n", to: STDERR_FILENO) }

  public var isTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

  /// Writes all of `text` to `fd` (`Posix.writeAll`), after signals and short writes too. A
  /// failed write is dropped: there is nowhere left to report it.
  private static func write(_ text: String, to fd: Int32) {
    Array(text.utf8).withUnsafeBytes { _ = try? Posix.writeAll(fd, $0) }
  }
}
