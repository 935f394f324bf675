/// A parsed command line: where the daemon is, and what to ask of it.
public struct Invocation: Sendable, Equatable {
  /// The socket path given with `--socket`, if any; see `SocketPath.resolve`.
  public var socketPath: String?
  /// The NATS servers given with `--relay`: `show` publishes through them, without a daemon.
  public var relay: [String]?
  /// What to do.
  public var command: Command

  public init(socketPath: String? = nil, relay: [String]? = nil, command: Command) {
    self.socketPath = socketPath
    self.relay = relay
    self.command = command
  }
}
