/// Everything one client can make the daemon hold, each with its bound. With at most
/// `VarlinkServer.maximumClients` connections, these bound what all clients together can hold.
public struct ConnectionLimits: Sendable {
  /// The largest call accepted, without its NUL; a longer one closes the connection.
  public var maximumMessageSize = 1 << 20
  /// Calls read and held behind the one being answered (a `Wait`, a commit) before the connection
  /// stops reading until they drain.
  public var maximumPendingCalls = 1024
  /// The bytes of those held calls before the connection stops reading.
  public var maximumPendingBytes = 2 << 20
  /// Calls taken up and not yet answered (pipelined `Show`s waiting for their commit, say) before
  /// the next waits; their replies wait in order, so this bounds what they hold too.
  public var maximumOpenCalls = 128
  /// Oneway calls still being carried out (their replies are dropped) before the next call waits
  /// behind them.
  public var maximumOpenOnewayCalls = 64
  /// Encoded reply bytes a client has not read before it is dropped as a slow reader. A long reply
  /// (`List`, `History`, a `Watch` snapshot) is encoded as the client reads, so it counts only
  /// what was encoded ahead of the client, never its whole length.
  public var maximumUnsentBytes = 16 << 20
  /// How long replies may wait for a client that reads none of them before it is dropped.
  public var writeStallTimeout: Double = 60

  public init() {}
}
