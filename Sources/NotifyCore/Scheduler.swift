import Foundation
import NotifySupport

/// A source of time and timers, injected into everything that waits, so that tests can run on a
/// manual clock.
public protocol Scheduler: AnyObject, Sendable {
  /// Monotonic seconds; only differences mean anything.
  var now: Double { get }
  /// Seconds since the Unix epoch, for timestamps a person reads.
  var wallTime: Double { get }
  /// Runs `action` once `now` has reached `deadline`, never synchronously inside this call.
  func schedule(at deadline: Double, _ action: @escaping @Sendable () -> Void) -> ScheduledAction
}

/// A scheduled action that can be called off.
public final class ScheduledAction: Sendable {
  private let onCancel: @Sendable () -> Void

  public init(onCancel: @escaping @Sendable () -> Void) {
    self.onCancel = onCancel
  }

  /// Calls the action off if it has not run yet.
  public func cancel() { onCancel() }
}
