import Foundation
import NotifyProtocol

/// An asynchronous `Operation` that shows one notice: it fades in, holds and fades out on timers
/// from an injected scheduler, and finishes with an outcome.
///
/// - Important: the operation reports what happens through `onTransition`, always outside its own
///   lock and never from inside `cancel`, `end`, `restartHold` or `dismiss`, so the receiver may
///   call back into the operation. It finishes only after the queue started it; a cancelled
///   operation is ready, and finishes as soon as the queue starts it.
public final class NotificationOperation: Operation, @unchecked Sendable {
  // @unchecked: every stored property is immutable or guarded by `state`.

  /// What the operation tells its owner.
  public enum Transition: Sendable, Equatable {
    /// The phase changed; `opacity` is the opacity at that instant.
    case phase(Phase, opacity: Double)
    /// The operation finished with `outcome`.
    case finished(Outcome)
  }

  /// The notice this operation shows.
  public let noticeID: Int
  /// The outcome when the hold runs out by itself: `timedOut` for a progress indicator.
  public let holdExpiryOutcome: Outcome

  private let scheduler: any Scheduler
  private let onTransition: @Sendable (NotificationOperation, Transition) -> Void

  private struct State {
    var timeline: Timeline
    var started: Bool = false
    var executing: Bool = false
    var finished: Bool = false
    var startedAt: Double = 0
    var reportedPhase: Phase = .queued
    var cancelRequested: Bool = false
    var outcome: Outcome?
    /// Whether `outcome` was set only because the hold ran out, so that news (a restarted hold)
    /// takes it back; an outcome set by `end`, `cancel` or `dismiss` stays.
    var outcomeIsExpiry = false
    var timer: ScheduledAction?
    /// Bumped by every rewrite, so that a timer armed for an older timeline does nothing.
    var generation = 0
  }

  private let state: Locked<State>

  /// An operation for notice `noticeID` that will run along `timing`.
  public init(
    noticeID: Int, timing: Timeline.Timing, holdExpiryOutcome: Outcome = .completed,
    scheduler: any Scheduler,
    onTransition: @escaping @Sendable (NotificationOperation, Transition) -> Void
  ) {
    self.noticeID = noticeID
    self.holdExpiryOutcome = holdExpiryOutcome
    self.scheduler = scheduler
    self.onTransition = onTransition
    self.state = Locked(State(timeline: Timeline(timing)))
    super.init()
  }

  public override var isAsynchronous: Bool { true }
  public override var isExecuting: Bool { state.withLock { $0.executing } }
  public override var isFinished: Bool { state.withLock { $0.finished } }

  /// Whether an `end`, `cancel` or `dismiss` has decided how it finishes: news no longer brings it
  /// back, so a notice with its key is a new notice.
  public var isClosing: Bool {
    state.withLock { $0.finished || ($0.outcome != nil && !$0.outcomeIsExpiry) || $0.cancelRequested }
  }

  /// The phase and opacity now, as the timeline says.
  public var appearance: (phase: Phase, opacity: Double) {
    let now = scheduler.now
    return state.withLock { state in
      guard state.started else { return (state.finished ? .finished : .queued, 0) }
      if state.finished { return (.finished, 0) }
      let elapsed = now - state.startedAt
      return (state.timeline.phase(at: elapsed), state.timeline.opacity(at: elapsed))
    }
  }

  // MARK: - Operation

  public override func start() {
    let now = scheduler.now
    let cancelled: Bool = state.withLock { state in
      state.started = true
      if state.cancelRequested { return true }
      state.executing = true
      state.startedAt = now
      return false
    }
    if cancelled {
      finish(outcome: .cancelled, report: false)
      return
    }
    didChangeValue(forKey: "isExecuting")
    arm(at: now, generation: 0)
  }

  /// Cancels with a fade-out from the current opacity.
  public override func cancel() {
    cancel(immediately: false)
  }

  /// Cancels: before start the operation finishes as soon as the queue starts it; when visible it
  /// fades out from its current opacity over `fadeOut × opacity`, or vanishes when `immediately`.
  public func cancel(immediately: Bool) {
    rewrite(outcome: .cancelled, overridesOutcome: true) { timeline, elapsed in
      timeline.fadeOut(at: elapsed, immediately: immediately)
    }
    super.cancel()
  }

  /// Ends normally: holds for `hold` seconds more (fading out at once when `nil`), then fades out
  /// with outcome `completed`. Before start, the hold it will have is changed instead.
  public func end(hold: Double?) {
    rewrite(outcome: .completed, overridesOutcome: false) { timeline, elapsed in
      if let hold {
        timeline.restartHold(at: elapsed, hold: hold)
      } else {
        timeline.fadeOut(at: elapsed)
      }
    }
  }

  /// Restarts the hold (an update in place): `hold` seconds from now, or until ended when `nil`.
  public func restartHold(_ hold: Double?) {
    rewrite(outcome: nil, overridesOutcome: false) { timeline, elapsed in
      timeline.restartHold(at: elapsed, hold: hold)
    }
  }

  /// Finishes with `outcome` at once, as when a person closed the notice on the desktop.
  public func dismiss(outcome: Outcome) {
    rewrite(outcome: outcome, overridesOutcome: true) { timeline, elapsed in
      timeline.fadeOut(at: elapsed, immediately: true)
    }
  }

  // MARK: - Driving the timeline

  /// Changes the timeline from now on and re-arms the timer; before start, changes the timeline
  /// it will start with (or, for a cancel, only marks it).
  private func rewrite(
    outcome: Outcome?, overridesOutcome: Bool, _ change: (inout Timeline, Double) -> Void
  ) {
    let now = scheduler.now
    let generation: Int? = state.withLock { state in
      if state.finished { return nil }
      if let decided = state.outcome, !state.outcomeIsExpiry {
        // Ended or cancelled: news no longer brings the notice back, and an end does not undo a
        // cancel; only another cancel or dismiss (or a second end) still changes the timeline.
        if outcome == nil || (!overridesOutcome && outcome != decided) { return nil }
      }
      if let outcome, overridesOutcome || state.outcome == nil || state.outcomeIsExpiry {
        state.outcome = outcome
        state.outcomeIsExpiry = false
      } else if outcome == nil && state.outcomeIsExpiry {
        state.outcome = nil
        state.outcomeIsExpiry = false
      }
      if !state.started {
        if outcome == .cancelled || outcome == .dismissed {
          state.cancelRequested = true
        } else {
          change(&state.timeline, 0)
        }
        return nil
      }
      change(&state.timeline, now - state.startedAt)
      state.timer?.cancel()
      state.timer = nil
      state.generation += 1
      return state.generation
    }
    // Report through the scheduler, never from inside the caller's call.
    if let generation { arm(at: now, generation: generation) }
  }

  /// Arms the timer that runs `advance` at `deadline`, unless a rewrite has come in between.
  ///
  /// Every `advance` runs from the scheduler, so reports keep their order.
  private func arm(at deadline: Double, generation: Int) {
    let timer = scheduler.schedule(at: deadline) { [self] in advance(generation: generation) }
    let current = state.withLock { state -> Bool in
      guard !state.finished, state.generation == generation else { return false }
      state.timer = timer
      return true
    }
    if !current { timer.cancel() }
  }

  /// Reports the phase at this instant, then arms the timer for the next boundary or finishes.
  private func advance(generation: Int) {
    let now = scheduler.now
    enum Step {
      case report(Phase?, Double, next: Double?)
      case finish(Outcome)
      case stale
    }
    let step: Step = state.withLock { state in
      guard state.executing, !state.finished, state.generation == generation else { return .stale }
      state.timer = nil
      let elapsed = now - state.startedAt
      let phase = state.timeline.phase(at: elapsed)
      if phase == .finished {
        return .finish(state.outcome ?? holdExpiryOutcome)
      }
      if phase == .fadingOut && state.outcome == nil {
        state.outcome = holdExpiryOutcome
        state.outcomeIsExpiry = true
      }
      let opacity = state.timeline.opacity(at: elapsed)
      let next = state.timeline.nextBoundary(after: elapsed).map { state.startedAt + $0 }
      let changed = phase != state.reportedPhase
      state.reportedPhase = phase
      return .report(changed ? phase : nil, opacity, next: next)
    }
    switch step {
    case .stale:
      return
    case .finish(let outcome):
      finish(outcome: outcome, report: true)
    case .report(let phase, let opacity, let next):
      if let phase { onTransition(self, .phase(phase, opacity: opacity)) }
      if let next { arm(at: next, generation: generation) }
    }
  }

  private func finish(outcome: Outcome, report: Bool) {
    let wasExecuting: Bool? = state.withLock { state in
      if state.finished { return nil }
      state.finished = true
      state.timer?.cancel()
      state.timer = nil
      let was = state.executing
      state.executing = false
      state.reportedPhase = .finished
      return was
    }
    guard let wasExecuting else { return }
    if report { onTransition(self, .finished(outcome)) }
    willChangeValue(forKey: "isFinished")
    if wasExecuting {
      willChangeValue(forKey: "isExecuting")
      didChangeValue(forKey: "isExecuting")
    }
    didChangeValue(forKey: "isFinished")
  }
}
