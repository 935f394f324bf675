import Dispatch

/// The next attempt to reach a server that went away (the session bus, the system bus, the display),
/// or to look again for something that is about to come: a timer on its owner's queue whose delay
/// doubles with every attempt, from its first delay (`firstDelay` unless told) up to its longest
/// (`longestDelay`), and starts over once the owner is connected again (`reset()`).
///
/// - Important: used only on `queue`, the owner's serial queue, which also runs the attempt.
public final class RetryTimer {
  /// The delay before the first attempt after a failure.
  public static let firstDelay = 0.25
  /// The longest delay between two attempts.
  public static let longestDelay = 30.0

  private let queue: DispatchQueue
  private let first: Double
  private let longest: Double
  private var delay: Double
  private var timer: (any DispatchSourceTimer)?

  public init(
    queue: DispatchQueue, firstDelay: Double = RetryTimer.firstDelay,
    longestDelay: Double = RetryTimer.longestDelay
  ) {
    self.queue = queue
    first = firstDelay
    longest = longestDelay
    delay = firstDelay
  }

  /// Whether an attempt is scheduled and has not run yet.
  public var isScheduled: Bool { timer != nil }

  /// Runs `attempt` on the queue after the current delay, unless one is scheduled already; the
  /// delay after it is twice as long, up to `longestDelay`.
  public func schedule(_ attempt: @escaping () -> Void) {
    guard timer == nil else { return }
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(deadline: .now() + delay)
    timer.setEventHandler { [weak self] in
      self?.timer = nil
      attempt()
    }
    self.timer = timer
    timer.activate()
    delay = min(delay * 2, longest)
  }

  /// Drops the scheduled attempt, if there is one; the delay stays where it was.
  public func cancel() {
    timer?.cancel()
    timer = nil
  }

  /// Connected: the next failure is tried again after the first delay.
  public func reset() {
    delay = first
  }
}
