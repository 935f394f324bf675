import Dispatch
import Foundation
import NotifyCore
import NotifyProtocol
import NotifySupport
import NotifyTestSupport
import Synchronization
import Testing

// Helpers shared by the queue engine's suites: polling with a real-time bound, an event recorder,
// and a harness that drives a `NoticeQueue` on a `ManualScheduler`.

/// Polls `condition` about every millisecond until it holds or `timeout` seconds of real time pass.
///
/// Lanes start their operations on their own threads and events arrive on a serial queue, so a
/// test waits for them; the bound keeps a broken engine from hanging the suite.
@discardableResult
func eventually(timeout: Double = 5, _ condition: () throws -> Bool) rethrows -> Bool {
  let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
  while true {
    if try condition() { return true }
    if DispatchTime.now().uptimeNanoseconds > deadline { return false }
    usleep(1000)
  }
}

/// Waits until each lane has started every operation the engine handed it, then until every
/// event published meanwhile has arrived. The engine hands a lane an operation only when the
/// notice has a slot, so once this returns nothing more starts until the clock or a request says
/// so: a test may then assert that something did *not* happen.
func letLanesRun(_ queue: NoticeQueue) {
  let started = eventually { queue.startingCount == 0 }
  precondition(started, "a lane did not start its operations within 5 s")
  queue.flushEvents()
}

/// A value behind an `NSLock`, for recorders that several threads write to.
///
/// Not `Synchronization.Mutex`: on Linux Thread Sanitizer cannot see a contended `Mutex` change
/// hands and would report the accesses it guards as races (see `Locked` in NotifyCore).
final class Protected<Value>: @unchecked Sendable {
  // @unchecked: `value` is only touched while `lock` is held.
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}

/// Collects events from `NoticeQueue.watch` thread-safely, in the order they were delivered.
final class EventRecorder: Sendable {
  private let events = Protected<[Event]>([])

  func record(_ event: Event) {
    events.withLock { $0.append(event) }
  }

  /// Every event so far.
  var all: [Event] { events.withLock { $0 } }

  /// Every event about notice `id`, frames left out.
  func events(for id: Int) -> [Event] {
    all.filter { $0.id == id && $0.kind != .frame }
  }

  /// The frames delivered so far.
  var frames: [Event] { all.filter { $0.kind == .frame } }

  /// The life of notice `id` as short strings: `added`, `queued`, `fadingIn`, …, `finished:outcome`.
  func lifecycle(of id: Int) -> [String] {
    events(for: id).map { event in
      switch event.kind {
      case .phase: return event.phase?.rawValue ?? "phase?"
      case .finished: return "finished:\(event.notice?.outcome?.rawValue ?? "?")"
      default: return event.kind.rawValue
      }
    }
  }

  /// The phases reported for notice `id`, in order.
  func phases(of id: Int) -> [Phase] {
    events(for: id).compactMap { $0.kind == .phase ? $0.phase : nil }
  }

  /// The outcome in the `finished` event of notice `id`, if one has arrived.
  func outcome(of id: Int) -> Outcome? {
    events(for: id).first { $0.kind == .finished }?.notice?.outcome
  }

  /// Waits until an event matching `predicate` has arrived.
  @discardableResult
  func waitFor(timeout: Double = 5, _ predicate: (Event) -> Bool) -> Bool {
    eventually(timeout: timeout) { all.contains(where: predicate) }
  }

  /// Waits until notice `id` has reported `phase`.
  @discardableResult
  func waitFor(_ id: Int, phase: Phase, timeout: Double = 5) -> Bool {
    waitFor(timeout: timeout) { $0.kind == .phase && $0.id == id && $0.phase == phase }
  }

  /// Waits until notice `id` has finished.
  @discardableResult
  func waitForFinish(of id: Int, timeout: Double = 5) -> Bool {
    waitFor(timeout: timeout) { $0.kind == .finished && $0.id == id }
  }
}

/// A `NoticeQueue` on a manual clock with a recorder watching it.
final class QueueHarness: Sendable {
  let clock = ManualScheduler()
  let queue: NoticeQueue
  let recorder = EventRecorder()
  private let subscription: NoticeQueue.Subscription

  init(settings: QueueSettings = QueueHarness.settings(), frames: Bool = false, fps: Int? = nil) {
    queue = NoticeQueue(settings: settings, scheduler: clock)
    let recorder = self.recorder
    subscription = try! queue.watch(frames: frames, fps: fps) { recorder.record($0) }
  }

  deinit { subscription.cancel() }

  /// Settings with the given lanes and every other value built in.
  static func settings(maxVisible: Int = 1, progressMaxVisible: Int = 4) -> QueueSettings {
    var settings = QueueSettings()
    settings.maxVisible = maxVisible
    settings.progressMaxVisible = progressMaxVisible
    return settings
  }

  private let shown = Atomic<Int>(0)

  /// Shows a notice with the given timing; linear curves unless told otherwise. Without a title,
  /// each gets its own ("notice 1", "notice 2"…), so that equal notices are not merged.
  func show(
    _ title: String? = nil, delay: Double? = nil, fadeIn: Double = 1, hold: Double = 2,
    fadeOut: Double = 1, easeIn: Easing = .linear, easeOut: Easing = .linear, urgency: Urgency? = nil,
    key: String? = nil, tag: String? = nil, app: String? = nil, after: Int? = nil, actions: [Action]? = nil,
    hints: Hints? = nil
  ) throws -> Int {
    let title = title ?? "notice \(shown.add(1, ordering: .relaxed).newValue)"
    return try queue.show(
      ShowParameters(
        title: title, app: app, urgency: urgency, hints: hints, tag: tag, key: key, delay: delay,
        fadeIn: fadeIn,
        hold: hold, fadeOut: fadeOut, easeIn: easeIn, easeOut: easeOut, after: after, actions: actions))
  }

  /// The phase of notice `id` now (finished ones from history).
  func phase(_ id: Int) -> Phase? {
    try? queue.get(id).phase
  }

  /// The opacity of notice `id` now.
  func opacity(_ id: Int) -> Double? {
    try? queue.get(id).opacity
  }

  /// Runs whatever is due at the current instant, over and over, until `condition` holds.
  ///
  /// Time does not move: an operation that a lane starts meanwhile starts at exactly this instant.
  @discardableResult
  func settle(timeout: Double = 5, until condition: () -> Bool) -> Bool {
    eventually(timeout: timeout) {
      clock.advance(by: 0)
      return condition()
    }
  }

  /// Waits until the lane has started notice `id` and its first visible phase has been reported.
  @discardableResult
  func waitUntilShown(_ id: Int) -> Bool {
    settle {
      recorder.events(for: id).contains { $0.kind == .phase && $0.phase?.isVisible == true }
    }
  }

  /// Waits until notice `id` has finished and its event has arrived.
  @discardableResult
  func waitUntilFinished(_ id: Int) -> Bool {
    settle { recorder.outcome(of: id) != nil }
  }

  /// Moves the clock to `instant` and then lets lanes start what became free at it.
  func advance(to instant: Double) {
    clock.advance(to: instant)
  }
}

extension QueueError {
  /// The field an `invalidArgument` names, or `nil` for other errors.
  var field: String? {
    if case .invalidArgument(let field, _) = self { return field }
    return nil
  }
}
