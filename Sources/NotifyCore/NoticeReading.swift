import NotifyProtocol

/// What the engine answers without changing a notice: the notices, what the rules made of them,
/// their events. The front ends and the popups read through this and change through
/// `NoticeService`, the one door; only the daemon's composition holds the `NoticeQueue` itself
/// (ArchitectureTests checks it).
public protocol NoticeReading: AnyObject, Sendable {
  var settings: QueueSettings { get }
  /// Seconds since the epoch on the engine's clock (its manual clock in tests).
  var wallTime: Double { get }
  func get(_ id: Int) throws(QueueError) -> Notice
  /// The engine's clock (the scheduler's `now`): what presentations are timed by.
  var now: Double { get }
  /// Every unfinished notice, oldest first; with `held`, only those do-not-disturb holds back; with
  /// `snoozed`, only snoozed ones.
  func list(held: Bool, snoozed: Bool) -> [Notice]
  func history(_ request: HistoryParameters) -> [Notice]
  func forEachFinished(limit: Int, _ visit: (Notice) -> Void)
  func status() -> StatusReply
  /// A `Wait`: `reply` once notice `id` has finished. A subscription, not a change of the notice.
  @discardableResult
  func wait(_ id: Int, reply: @escaping @Sendable (Notice) -> Void) throws(QueueError)
    -> NoticeQueue.Subscription
  var subscriberCounts: (waiters: Int, watchers: Int) { get }
  func watch(
    frames: Bool, fps: Int?, numbered sink: @escaping @Sendable (Event, UInt64) -> Void
  ) throws(QueueError) -> NoticeQueue.Subscription
  /// Every event in order after a snapshot, each change's followed by the presentations it changed
  /// (`NoticeQueue.present(frames:sink:presentations:)`): what the popups follow.
  func present(
    frames: Bool, sink: @escaping @Sendable (Event) -> Void,
    presentations: @escaping @Sendable ([Int: Presentation]) -> Void
  ) throws(QueueError) -> NoticeQueue.Subscription
  func flushEvents()
}

extension NoticeReading {
  public func list() -> [Notice] { list(held: false, snoozed: false) }
  public func list(held: Bool) -> [Notice] { list(held: held, snoozed: false) }

  public func forEachFinished(_ visit: (Notice) -> Void) { forEachFinished(limit: .max, visit) }

  /// Every event in order after a snapshot; with `frames`, a frame per fading notice `fps` times a
  /// second while anything fades (`NoticeQueue.watch(frames:fps:numbered:)`).
  public func watch(
    frames: Bool = false, fps: Int? = nil, sink: @escaping @Sendable (Event) -> Void
  ) throws(QueueError) -> NoticeQueue.Subscription {
    try watch(frames: frames, fps: fps, numbered: { event, _ in sink(event) })
  }
}

extension NoticeQueue: NoticeReading {}
