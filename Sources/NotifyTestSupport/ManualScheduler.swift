import NotifyCore
import NotifySupport

/// A scheduler whose time moves only when told, for fast deterministic tests of timing logic.
///
/// Actions run inside `advance(by:)` / `advance(to:)`, on the caller's thread, in deadline order.
public final class ManualScheduler: Scheduler {
  private struct Entry {
    let deadline: Double
    let sequence: Int
    let action: @Sendable () -> Void
  }

  private struct State {
    var now: Double = 0
    var sequence = 0
    var entries: [Int: Entry] = [:]
  }

  private let state = Locked(State())
  private let epoch: Double

  /// A clock at monotonic 0 whose wall time starts at `epoch`.
  public init(epoch: Double = 1_800_000_000) {
    self.epoch = epoch
  }

  public var now: Double { state.withLock { $0.now } }

  public var wallTime: Double { epoch + now }

  /// How many actions are scheduled and not yet run.
  public var pendingCount: Int { state.withLock { $0.entries.count } }

  public func schedule(at deadline: Double, _ action: @escaping @Sendable () -> Void) -> ScheduledAction {
    let sequence = state.withLock { state in
      state.sequence += 1
      state.entries[state.sequence] = Entry(deadline: deadline, sequence: state.sequence, action: action)
      return state.sequence
    }
    return ScheduledAction { [weak self] in
      _ = self?.state.withLock { $0.entries.removeValue(forKey: sequence) }
    }
  }

  /// Moves time forward by `seconds`, running every action that falls due on the way.
  public func advance(by seconds: Double) {
    advance(to: now + seconds)
  }

  /// Moves time forward to `instant`, running every action that falls due on the way, each with
  /// `now` set to its own deadline.
  public func advance(to instant: Double) {
    while true {
      let next: Entry? = state.withLock { state in
        guard
          let entry = state.entries.values.filter({ $0.deadline <= instant })
            .min(by: { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) })
        else {
          state.now = max(state.now, instant)
          return nil
        }
        state.entries.removeValue(forKey: entry.sequence)
        state.now = max(state.now, entry.deadline)
        return entry
      }
      guard let entry = next else { return }
      entry.action()
    }
  }
}
