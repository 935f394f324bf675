import NotifyProtocol

/// The exit statuses of `notifyctl`, as DESIGN §4 fixes them.
public enum ExitStatus: Int32, Sendable, Equatable {
  /// Done; for `wait`, the notice completed.
  case success = 0
  /// The daemon could not be reached, or replied with an error.
  case failure = 1
  /// The command line was wrong.
  case usage = 2
  /// The waited-for notice was cancelled.
  case cancelled = 3
  /// The waited-for notice timed out.
  case timedOut = 4
  /// The waited-for notice was replaced by another with the same key.
  case replaced = 5
  /// The waited-for notice was closed by the user.
  case dismissed = 6
  /// The waited-for notice was folded into a summary (flood control, or the summary of what
  /// do-not-disturb held back).
  case folded = 7
  /// The waited-for notice came through the relay too late to show (`[Relay] MaxAge=`).
  case missed = 8
  /// `menu`: the person chose nothing in the picker (closed it, or typed what names no action).
  case nothingChosen = 9

  /// The status `wait` and `show --wait` exit with when the notice finished with `outcome`.
  public init(outcome: Outcome?) {
    switch outcome {
    case .completed, nil: self = .success
    case .cancelled: self = .cancelled
    case .timedOut: self = .timedOut
    case .replaced: self = .replaced
    case .dismissed: self = .dismissed
    case .folded: self = .folded
    case .missed: self = .missed
    }
  }
}
