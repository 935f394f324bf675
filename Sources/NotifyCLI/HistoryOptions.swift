import NotifyProtocol

/// The options of `history`: `History`'s parameters, but for `since`, which may be a distance into
/// the past until the command runs (`parameters(now:)`).
@dynamicMemberLookup
public struct HistoryOptions: Sendable, Equatable {
  /// What goes to `History` as it is (`since` is set from the option below).
  private var filter: HistoryParameters
  public var since: TimeReference?

  public init(
    limit: Int? = nil, app: String? = nil, outcome: Outcome? = nil, since: TimeReference? = nil,
    foldedInto: Int? = nil, unread: Bool? = nil
  ) {
    filter = HistoryParameters(
      limit: limit, app: app, outcome: outcome, foldedInto: foldedInto, unread: unread)
    self.since = since
  }

  /// `limit`, `app`, `outcome`, `foldedInto`: as `History` takes them.
  public subscript<T>(dynamicMember path: WritableKeyPath<HistoryParameters, T>) -> T {
    get { filter[keyPath: path] }
    set { filter[keyPath: path] = newValue }
  }

  /// The parameters of `History`, with `since` resolved against `now`.
  public func parameters(now: Double) -> HistoryParameters {
    var parameters = filter
    parameters.since = since?.seconds(now: now)
    return parameters
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
