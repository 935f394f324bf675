import Foundation
import NotifyProtocol
import NotifySupport

/// The unit of work on a lane's `OperationQueue`: one notice on screen. The queue starts it when
/// the notice has its slot; from then the notice fades in, holds and fades out along the timeline
/// the engine keeps for it (`QueueMachine`), and the operation finishes when the notice has left
/// the screen.
///
/// - Important: it reports through `onStart` and `onCancel`, always outside its own lock, so the
///   receiver may call back in. It finishes only after the queue started it: `finish()` before
///   that makes it finish as soon as the queue starts it, without reporting a start.
public final class NotificationOperation: Operation, @unchecked Sendable {
  // @unchecked: every stored property is immutable or guarded by `state`.

  /// The notice this operation shows.
  public let noticeID: Int

  private let onStart: @Sendable (NotificationOperation) -> Void
  private let onCancel: @Sendable (NotificationOperation) -> Void

  private struct State {
    var started = false
    /// Whether `start()` has posted `isExecuting` and reported the start: only then may
    /// `finish()` post `isFinished` itself.
    var announced = false
    var executing = false
    var finished = false
    var finishRequested = false
  }

  private let state = Locked(State())

  /// An operation for notice `noticeID`: `onStart` when its queue starts it, `onCancel` when
  /// someone cancels it (the owner then closes the notice, which finishes the operation).
  public init(
    noticeID: Int, onStart: @escaping @Sendable (NotificationOperation) -> Void,
    onCancel: @escaping @Sendable (NotificationOperation) -> Void = { _ in }
  ) {
    self.noticeID = noticeID
    self.onStart = onStart
    self.onCancel = onCancel
    super.init()
  }

  public override var isAsynchronous: Bool { true }
  public override var isExecuting: Bool { state.withLock { $0.executing } }
  public override var isFinished: Bool { state.withLock { $0.finished } }

  public override func start() {
    let finishAtOnce: Bool = state.withLock { state in
      state.started = true
      if state.finishRequested { return true }
      state.executing = true
      return false
    }
    if finishAtOnce {
      markFinished()
      return
    }
    didChangeValue(forKey: "isExecuting")
    onStart(self)
    let finishNow: Bool = state.withLock { state in
      state.announced = true
      return state.finishRequested
    }
    if finishNow { markFinished() }
  }

  /// Cancels: the owner closes the notice (it fades out), and that finishes the operation.
  public override func cancel() {
    super.cancel()
    onCancel(self)
  }

  /// The notice has left the screen (or never reached it): the operation finishes now, or, not yet
  /// started, as soon as its queue starts it.
  public func finish() {
    let now: Bool = state.withLock { state in
      if state.finished || state.finishRequested { return false }
      state.finishRequested = true
      return state.announced
    }
    if now { markFinished() }
  }

  private func markFinished() {
    let wasExecuting: Bool? = state.withLock { state in
      if state.finished { return nil }
      state.finished = true
      let was = state.executing
      state.executing = false
      return was
    }
    guard let wasExecuting else { return }
    willChangeValue(forKey: "isFinished")
    if wasExecuting {
      willChangeValue(forKey: "isExecuting")
      didChangeValue(forKey: "isExecuting")
    }
    didChangeValue(forKey: "isFinished")
  }
}
