import NotifySupport

/// A log sink that keeps what it was told, for tests that check what the daemon says and how loud.
public final class RecordingSink: LogSink {
  public struct Line: Sendable, Equatable, CustomStringConvertible {
    public let level: LogLevel
    public let message: String

    public init(_ level: LogLevel, _ message: String) {
      self.level = level
      self.message = message
    }

    public var description: String { "\(level): \(message)" }
  }

  private let said = Locked<[Line]>([])

  public init() {}

  /// Everything written so far, in order.
  public var lines: [Line] { said.withLock { $0 } }

  /// A logger at `level` that writes here.
  public func logger(at level: LogLevel = .debug) -> Logger { Logger(level: level, sink: self) }

  public func write(_ level: LogLevel, _ message: String, fields: [String: String]) {
    said.withLock { $0.append(Line(level, message)) }
  }
}
