/// How much the daemon says.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
  case error = 3, warning = 4, notice = 5, info = 6, debug = 7

  public init?(name: String) {
    switch name.lowercased() {
    case "error", "err": self = .error
    case "warning", "warn": self = .warning
    case "notice": self = .notice
    case "info": self = .info
    case "debug": self = .debug
    default: return nil
    }
  }

  public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where log lines go: plain lines on stderr, or the journal with structured fields.
public protocol LogSink: Sendable {
  func write(_ level: LogLevel, _ message: String, fields: [String: String])
}

/// Log lines nobody reads: for tests, and for code that runs before logging is set up.
public struct DiscardingSink: LogSink {
  public init() {}
  public func write(_ level: LogLevel, _ message: String, fields: [String: String]) {}
}

/// The daemon's logger: the executables log, libraries throw. Where lines go is the sink's
/// business (the daemon's stderr or journal sinks; tests discard them).
public struct Logger: Sendable {
  public var level: LogLevel
  public var sink: any LogSink

  public init(level: LogLevel = .info, sink: any LogSink) {
    self.level = level
    self.sink = sink
  }

  public func log(_ level: LogLevel, _ message: @autoclosure () -> String, fields: [String: String] = [:]) {
    guard level <= self.level else { return }
    sink.write(level, message(), fields: fields)
  }

  public func error(_ message: @autoclosure () -> String, fields: [String: String] = [:]) {
    log(.error, message(), fields: fields)
  }

  public func warning(_ message: @autoclosure () -> String, fields: [String: String] = [:]) {
    log(.warning, message(), fields: fields)
  }

  public func notice(_ message: @autoclosure () -> String, fields: [String: String] = [:]) {
    log(.notice, message(), fields: fields)
  }

  public func info(_ message: @autoclosure () -> String, fields: [String: String] = [:]) {
    log(.info, message(), fields: fields)
  }

  public func debug(_ message: @autoclosure () -> String, fields: [String: String] = [:]) {
    log(.debug, message(), fields: fields)
  }
}
