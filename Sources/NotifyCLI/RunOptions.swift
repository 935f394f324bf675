/// The options of `run`.
public struct RunOptions: Sendable, Equatable {
  /// The indicator's title; the command line when `nil`.
  public var title: String?
  /// The indicator's timeout, which each update restarts; the daemon's default when `nil`.
  public var timeout: Double?
  /// The command and its arguments; never empty.
  public var command: [String]

  public init(title: String? = nil, timeout: Double? = nil, command: [String]) {
    self.title = title
    self.timeout = timeout
    self.command = command
  }
}
