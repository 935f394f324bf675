import NotifyProtocol

/// The options of `history`.
public struct HistoryOptions: Sendable, Equatable {
  public var limit: Int?
  public var app: String?
  public var outcome: Outcome?
  public var since: TimeReference?
  /// Only the notices folded into this summary.
  public var foldedInto: Int?

  public init(
    limit: Int? = nil, app: String? = nil, outcome: Outcome? = nil, since: TimeReference? = nil,
    foldedInto: Int? = nil
  ) {
    self.limit = limit
    self.app = app
    self.outcome = outcome
    self.since = since
    self.foldedInto = foldedInto
  }

  /// The parameters of `History`, with `since` resolved against `now`.
  public func parameters(now: Double) -> HistoryParameters {
    HistoryParameters(
      limit: limit, app: app, outcome: outcome, since: since?.seconds(now: now), foldedInto: foldedInto)
  }
}

/// A point in time given as a distance into the past or as seconds since the Unix epoch.
public enum TimeReference: Sendable, Equatable {
  /// So many seconds before now.
  case ago(Double)
  /// Seconds since the Unix epoch.
  case epoch(Double)

  /// The point in seconds since the epoch, with `now` as the reference for `ago`.
  public func seconds(now: Double) -> Double {
    switch self {
    case .ago(let seconds): return now - seconds
    case .epoch(let seconds): return seconds
    }
  }
}
