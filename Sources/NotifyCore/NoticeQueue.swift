import Foundation
import NotifyProtocol

/// The queue engine: accepts notices, holds them until due and free, runs them on two lanes of
/// `OperationQueue`s, and reports everything that happens as `Event`s.
///
/// Notices that are not yet due, or still wait for their `after`, are kept out of the
/// `OperationQueue`s (a due-time heap and a list keyed by the awaited id): corelibs scans every
/// not-ready operation on each scheduling pass, so inside a lane every operation is ready.
///
/// - Important: all state is owned by one lock (`Locked`). Events and `Wait` replies are delivered
///   in order by the thread that caused them (`EventOutbox`), never while the lock is held, so a
///   subscriber may call back in.
public final class NoticeQueue: Sendable {
  /// A lane: notices and progress indicators each have their own `OperationQueue`.
  enum Lane: Int, CaseIterable {
    case notices, progress
  }

  /// A notice the queue has accepted and not yet finished.
  struct Record {
    var notice: Notice
    var operation: NotificationOperation?
    /// Monotonic instant at which the notice is due.
    var dueAt: Double
    /// The hold the notice gets once shown: `nil` holds until ended.
    var hold: Double?
    var lane: Lane { notice.kind == .progress ? .progress : .notices }
  }

  struct Watcher {
    var frames: Bool
    var interval: Double
    var nextFrameAt: Double
    var sink: EventOutbox.Sink
  }

  struct State {
    var settings: QueueSettings
    var records: [Int: Record] = [:]
    var nextID = 1
    var dueHeap = DueHeap()
    var dueTimer: (deadline: Double, action: ScheduledAction)?
    var blockedOn: [Int: [Int]] = [:]
    var keys: [String: Int] = [:]
    var history: [Int: Notice] = [:]
    var historyOrder: [Int] = []
    var historyStart = 0
    /// `Wait` callers by the notice they wait for, each under its own number so it can leave.
    var waiters: [Int: [Int: @Sendable (Notice) -> Void]] = [:]
    var nextWaiterID = 1
    var watchers: [Int: Watcher] = [:]
    var nextWatcherID = 1
    var fading: Set<Int> = []
    var frameTimer: ScheduledAction?
    var nextFrameTick: Double = 0
    var suspended = false
    var suspendedUntil: Double?
    var resumeTimer: ScheduledAction?
    /// How many unfinished notices are in each phase, kept as they move, so that `status()` does not
    /// walk every record (the daemon asks for it up to ten times a second).
    var phaseCounts: [Phase: Int] = [:]
    /// The number the next event published gets (`EventOutbox.Sink`).
    var nextEventNumber: UInt64 = 1

    /// Moves one notice from phase `old` to `new` in `phaseCounts`; `nil` is outside the queue.
    mutating func count(from old: Phase?, to new: Phase?) {
      if let old { phaseCounts[old, default: 0] -= 1 }
      if let new { phaseCounts[new, default: 0] += 1 }
    }
  }

  private let scheduler: any Scheduler
  private let journal: (any NoticeJournal)?
  private let lanes: [OperationQueue]
  private let state: Locked<State>
  private let outbox = EventOutbox()

  /// A queue running on `scheduler`'s clock with `settings` in force, writing what must survive a
  /// crash to `journal`.
  public init(
    settings: QueueSettings = QueueSettings(), scheduler: any Scheduler, journal: (any NoticeJournal)? = nil
  ) {
    self.scheduler = scheduler
    self.journal = journal
    self.state = Locked(State(settings: settings))
    lanes = Lane.allCases.map { lane in
      let queue = OperationQueue()
      queue.name = lane == .notices ? "notifyd.notices" : "notifyd.progress"
      // Operations start on the daemon's own queue, not on a concurrent queue of Dispatch's
      // global pool (see `DispatchQueue.daemonRoot`): `start()` only arms a timer and returns.
      queue.underlyingQueue = .daemonSerial(queue.name!)
      queue.maxConcurrentOperationCount = lane == .notices ? settings.maxVisible : settings.progressMaxVisible
      return queue
    }
  }

  /// The settings in force.
  public var settings: QueueSettings { state.withLock { $0.settings } }

  /// Changes the state under the lock, then delivers what the change published, off the lock.
  private func mutate<Result, E: Error>(_ body: (inout State) throws(E) -> Result) throws(E) -> Result {
    defer { outbox.deliver() }
    return try state.withLock(body)
  }

  /// Puts new settings in force for every notice accepted from now on; visible notices keep their
  /// timing.
  public func apply(_ settings: QueueSettings) {
    mutate { state in
      state.settings = settings
      lanes[Lane.notices.rawValue].maxConcurrentOperationCount = settings.maxVisible
      lanes[Lane.progress.rawValue].maxConcurrentOperationCount = settings.progressMaxVisible
      trimHistory(&state)
    }
  }

  // MARK: - Accepting notices

  /// Accepts a notice, or with a `key` that an unfinished notice has (or the id `replacing`, as
  /// D-Bus `replaces_id` names it), replaces that one: in place when it is visible (answering its
  /// id), else the old one finishes as `replaced`. A notice that is already closing is left to
  /// finish; the new one takes its key.
  public func show(_ request: ShowParameters, replacing replacedID: Int? = nil) throws(QueueError) -> Int {
    try Self.validate(title: request.title, body: request.body)
    let explicit = TimingOverrides(
      delay: request.delay, fadeIn: request.fadeIn, hold: request.hold, fadeOut: request.fadeOut,
      easeIn: request.easeIn, easeOut: request.easeOut)
    try Self.validate(explicit)
    try Self.validate(app: request.app, tag: request.tag, key: request.key)
    try Self.validate(icon: request.icon)
    if let after = request.after, after <= 0 {
      throw .invalidArgument(field: "after", reason: "must be a positive notice id")
    }
    if let actions = request.actions { try Self.validate(actions) }
    let now = scheduler.now
    let wallTime = scheduler.wallTime
    return try mutate { state throws(QueueError) -> Int in
      var events: [Event] = []
      defer { publish(events, &state) }
      if let existingID = Self.replaced(replacedID, key: request.key, state),
        var existing = state.records[existingID], !(existing.operation?.isClosing ?? false)
      {
        // A notice with the key that is already closing (ended or cancelled) goes its way; the new
        // notice takes the key.
        if let operation = existing.operation, operation.appearance.phase.isVisible {
          existing.notice.title = request.title
          existing.notice.body = request.body
          if let actions = request.actions { existing.notice.actions = actions }
          if let icon = request.icon { existing.notice.icon = icon }
          state.records[existingID] = existing
          journal?.recordUnfinished(existing.notice)
          operation.restartHold(existing.hold)
          events.append(Event(kind: .updated, at: wallTime, id: existingID, notice: current(existing)))
          return existingID
        }
        // Its operation may already sit in a lane: without a cancel it would still run there,
        // unseen, and hold a slot for its whole timeline.
        existing.operation?.cancel(immediately: true)
        finish(existingID, outcome: .replaced, &state, &events)
      }
      let resolution = state.settings.resolve(
        app: request.app, tag: request.tag, title: request.title, urgency: request.urgency, explicit: explicit
      )
      guard resolution.suppressed || state.records.count < state.settings.capacity else {
        throw .queueFull(capacity: state.settings.capacity)
      }
      let notice = Notice(
        id: state.nextID, kind: .notice, title: request.title, body: request.body, app: request.app,
        urgency: resolution.urgency, style: request.style ?? .clear, icon: request.icon, tag: request.tag,
        key: request.key, delay: resolution.delay, fadeIn: resolution.fadeIn, hold: resolution.hold,
        fadeOut: resolution.fadeOut,
        easeIn: resolution.easeIn, easeOut: resolution.easeOut, after: request.after,
        actions: request.actions,
        phase: .waiting, created: wallTime)
      state.nextID += 1
      let hold = resolution.hold > 0 ? resolution.hold : nil
      admit(notice, hold: hold, suppressed: resolution.suppressed, now: now, &state, &events)
      return notice.id
    }
  }

  /// Accepts a progress indicator, or with a `key` that an unfinished one has, answers its id with
  /// `existing: true`, applies the new title, body and value, and restarts its timeout.
  /// `replacing` names an indicator by id, as D-Bus `replaces_id` does.
  public func progress(_ request: ProgressParameters, replacing replacedID: Int? = nil) throws(QueueError)
    -> (
      id: Int, existing: Bool
    )
  {
    try Self.validate(title: request.title, body: request.body)
    let explicit = TimingOverrides(delay: request.delay, fadeIn: request.fadeIn, fadeOut: request.fadeOut)
    try Self.validate(explicit)
    try Self.validate(app: request.app, tag: request.tag, key: request.key)
    try Self.validate(icon: request.icon)
    if let timeout = request.timeout { try Self.validate(duration: timeout, field: "timeout") }
    let now = scheduler.now
    let wallTime = scheduler.wallTime
    return try mutate { state throws(QueueError) -> (id: Int, existing: Bool) in
      var events: [Event] = []
      defer { publish(events, &state) }
      if let existingID = Self.replaced(replacedID, key: request.key, state),
        var existing = state.records[existingID], !(existing.operation?.isClosing ?? false)
      {
        if existing.notice.kind == .progress {
          existing.notice.title = request.title
          if let body = request.body { existing.notice.body = body }
          if let value = request.value { existing.notice.value = value }
          if let icon = request.icon { existing.notice.icon = icon }
          if let timeout = request.timeout {
            existing.notice.timeout = timeout
            existing.hold = timeout > 0 ? timeout : nil
          }
          state.records[existingID] = existing
          journal?.recordUnfinished(existing.notice)
          if existing.notice.message == nil { existing.operation?.restartHold(existing.hold) }
          events.append(Event(kind: .updated, at: wallTime, id: existingID, notice: current(existing)))
          return (existingID, true)
        }
        existing.operation?.cancel(immediately: true)
        finish(existingID, outcome: .replaced, &state, &events)
      }
      let resolution = state.settings.resolve(
        app: request.app, tag: request.tag, title: request.title, urgency: request.urgency, explicit: explicit
      )
      guard resolution.suppressed || state.records.count < state.settings.capacity else {
        throw .queueFull(capacity: state.settings.capacity)
      }
      let timeout = request.timeout ?? state.settings.progressTimeout
      let notice = Notice(
        id: state.nextID, kind: .progress, title: request.title, body: request.body, app: request.app,
        urgency: resolution.urgency, style: request.style ?? .clear, icon: request.icon, tag: request.tag,
        key: request.key, value: request.value, delay: resolution.delay, fadeIn: resolution.fadeIn, hold: 0,
        fadeOut: resolution.fadeOut, easeIn: resolution.easeIn, easeOut: resolution.easeOut, timeout: timeout,
        phase: .waiting, created: wallTime)
      state.nextID += 1
      admit(
        notice, hold: timeout > 0 ? timeout : nil, suppressed: resolution.suppressed, now: now, &state,
        &events)
      return (notice.id, false)
    }
  }

  /// The unfinished notice a new one replaces: the one named by id, else the one with its key.
  private static func replaced(_ id: Int?, key: String?, _ state: State) -> Int? {
    if let id, state.records[id] != nil { return id }
    return key.flatMap { state.keys[$0] }
  }

  /// Records a new notice and sends it on its way: suppressed to history, delayed to the heap,
  /// waiting for its `after`, or straight into its lane.
  private func admit(
    _ notice: Notice, hold: Double?, suppressed: Bool, now: Double, _ state: inout State,
    _ events: inout [Event]
  ) {
    let record = Record(notice: notice, operation: nil, dueAt: now + notice.delay, hold: hold)
    state.records[notice.id] = record
    state.count(from: nil, to: notice.phase)
    journal?.recordNextID(state.nextID)
    journal?.recordUnfinished(notice)
    events.append(Event(kind: .added, at: scheduler.wallTime, id: notice.id, notice: notice))
    if suppressed {
      finish(notice.id, outcome: .cancelled, &state, &events)
      return
    }
    if let key = notice.key { state.keys[key] = notice.id }
    place(record, now: now, &state, &events)
  }

  /// Sends an accepted notice on: to the heap until due, to wait for its `after`, or into its lane.
  private func place(_ record: Record, now: Double, _ state: inout State, _ events: inout [Event]) {
    let notice = record.notice
    if record.dueAt > now {
      state.dueHeap.push(dueAt: record.dueAt, id: notice.id)
      armDueTimer(&state)
    } else if let after = notice.after, state.records[after] != nil {
      state.blockedOn[after, default: []].append(notice.id)
    } else {
      enqueue(notice.id, &state, &events)
    }
  }

  /// Brings back the queue a journal kept: unfinished notices with their absolute due times, in
  /// the order they were accepted (a notice that was visible starts its fade-in again), history,
  /// the next id, and the suspended state with a pending timed resume.
  public func restore(_ saved: JournalState) {
    let now = scheduler.now
    let wallTime = scheduler.wallTime
    mutate { state in
      var events: [Event] = []
      defer { publish(events, &state) }
      state.nextID = max(state.nextID, saved.nextID)
      for notice in saved.history {
        state.history[notice.id] = notice
        state.historyOrder.append(notice.id)
      }
      trimHistory(&state)
      var restored: [Record] = []
      for var notice in saved.unfinished {
        notice.phase = .waiting
        notice.opacity = 0
        let hold: Double?
        if notice.kind == .progress {
          let timeout = notice.timeout ?? state.settings.progressTimeout
          hold = notice.message != nil ? state.settings.endHold : (timeout > 0 ? timeout : nil)
        } else {
          hold = notice.hold > 0 ? notice.hold : nil
        }
        let dueAt = now + max(0, notice.created + notice.delay - wallTime)
        let record = Record(notice: notice, operation: nil, dueAt: dueAt, hold: hold)
        state.records[notice.id] = record
        state.count(from: nil, to: notice.phase)
        if let key = notice.key { state.keys[key] = notice.id }
        state.nextID = max(state.nextID, notice.id + 1)
        restored.append(record)
      }
      if saved.suspended, saved.suspendedUntil.map({ $0 > wallTime }) ?? true {
        state.suspended = true
        state.suspendedUntil = saved.suspendedUntil
        for lane in lanes { lane.isSuspended = true }
        if let until = saved.suspendedUntil {
          state.resumeTimer = scheduler.schedule(at: now + (until - wallTime)) { [weak self] in self?.resume()
          }
        }
      } else if saved.suspended {
        journal?.recordSuspended(false, until: nil)
      }
      // Only now, with the lanes suspended if they were, may the notices go into them.
      for record in restored { place(record, now: now, &state, &events) }
    }
  }

  /// Moves a due, unblocked notice into its lane.
  private func enqueue(_ id: Int, _ state: inout State, _ events: inout [Event]) {
    guard var record = state.records[id] else { return }
    let notice = record.notice
    let timing = Timeline.Timing(
      fadeIn: notice.fadeIn, hold: record.hold, fadeOut: notice.fadeOut, easeIn: notice.easeIn,
      easeOut: notice.easeOut)
    let operation = NotificationOperation(
      noticeID: id, timing: timing, holdExpiryOutcome: notice.kind == .progress ? .timedOut : .completed,
      scheduler: scheduler
    ) { [weak self] operation, transition in
      self?.operation(operation, didReport: transition)
    }
    operation.queuePriority =
      switch notice.urgency {
      case .low: .low
      case .normal: .normal
      case .critical: .high
      }
    if notice.message != nil {
      // Ended before it was shown: it shows its closing message, holds it and completes.
      operation.end(hold: record.hold)
    }
    record.operation = operation
    state.count(from: record.notice.phase, to: .queued)
    record.notice.phase = .queued
    state.records[id] = record
    events.append(Event(kind: .phase, at: scheduler.wallTime, id: id, phase: .queued, opacity: 0))
    lanes[record.lane.rawValue].addOperation(operation)
  }

  // MARK: - Changing notices

  /// Changes an unfinished notice's title, body or value in place; a visible one restarts its hold.
  public func update(_ request: UpdateParameters) throws(QueueError) -> Notice {
    if let title = request.title { try Self.validate(title: title, body: request.body) }
    if let body = request.body { try Self.validate(title: "", body: body) }
    return try mutate { state throws(QueueError) -> Notice in
      var events: [Event] = []
      defer { publish(events, &state) }
      var record = try unfinished(request.id, state)
      if let title = request.title { record.notice.title = title }
      if let body = request.body { record.notice.body = body }
      if let value = request.value { record.notice.value = value }
      state.records[request.id] = record
      journal?.recordUnfinished(record.notice)
      if record.notice.message == nil { record.operation?.restartHold(record.hold) }
      let notice = current(record)
      events.append(Event(kind: .updated, at: scheduler.wallTime, id: request.id, notice: notice))
      return notice
    }
  }

  /// Ends a notice early and normally: a progress indicator shows `message`, holds it for `hold`
  /// (default `[Progress] EndHold=`) and fades out; a plain notice starts its fade-out now (or
  /// after `hold`). A notice not yet shown finishes at once, except a progress indicator with a
  /// message, which shows it when its turn comes. Ending a finished notice answers it unchanged.
  public func end(_ request: EndParameters) throws(QueueError) -> Notice {
    if let message = request.message { try Self.validate(title: "", body: message, field: "message") }
    if let hold = request.hold { try Self.validate(duration: hold, field: "hold") }
    return try mutate { state throws(QueueError) -> Notice in
      var events: [Event] = []
      defer { publish(events, &state) }
      if let finished = state.history[request.id] { return finished }
      var record = try unfinished(request.id, state)
      let isProgress = record.notice.kind == .progress
      let hold = request.hold ?? (isProgress ? state.settings.endHold : nil)
      if let message = request.message { record.notice.message = message }
      record.hold = hold
      state.records[request.id] = record
      journal?.recordUnfinished(record.notice)
      let shown = record.operation.map { $0.appearance.phase != .queued } ?? false
      if !shown && !(isProgress && request.message != nil) {
        record.operation?.cancel(immediately: true)  // else it would hold a slot, unseen
        finish(request.id, outcome: .completed, &state, &events)
        return state.history[request.id] ?? record.notice
      }
      record.operation?.end(hold: hold)
      let notice = current(record)
      events.append(Event(kind: .updated, at: scheduler.wallTime, id: request.id, notice: notice))
      return notice
    }
  }

  /// Cancels by id, by tag, or all: waiting and queued notices finish at once, visible ones fade
  /// out from their current opacity (or vanish, with `now`). Answers the ids cancelled.
  public func cancel(_ request: CancelParameters) throws(QueueError) -> [Int] {
    let chosen = [request.id != nil, request.tag != nil, request.all == true].filter { $0 }.count
    guard chosen == 1 else {
      throw .invalidArgument(field: "id", reason: "give exactly one of id, tag and all")
    }
    return try mutate { state throws(QueueError) -> [Int] in
      var events: [Event] = []
      defer { publish(events, &state) }
      let ids: [Int]
      if let id = request.id {
        if state.history[id] != nil { return [] }
        _ = try unfinished(id, state)
        ids = [id]
      } else if let tag = request.tag {
        ids = state.records.values.filter { $0.notice.tag == tag }.map(\.notice.id).sorted()
      } else {
        ids = state.records.keys.sorted()
      }
      for id in ids {
        guard let record = state.records[id] else { continue }
        if let operation = record.operation, operation.appearance.phase.isVisible {
          operation.cancel(immediately: request.now ?? false)
        } else {
          record.operation?.cancel()
          finish(id, outcome: .cancelled, &state, &events)
        }
      }
      return ids
    }
  }

  /// Chooses action `action` of a visible notice; the notice then fades out with outcome `completed`.
  public func invoke(_ request: InvokeParameters) throws(QueueError) -> Notice {
    try mutate { state throws(QueueError) -> Notice in
      var events: [Event] = []
      defer { publish(events, &state) }
      var record = try unfinished(request.id, state)
      guard let actions = record.notice.actions, actions.contains(where: { $0.key == request.action }) else {
        throw .invalidArgument(
          field: "action", reason: "notice \(request.id) has no action '\(request.action)'")
      }
      guard let operation = record.operation, operation.appearance.phase.isVisible else {
        throw .invalidArgument(field: "id", reason: "notice \(request.id) is not visible")
      }
      record.notice.invoked = request.action
      state.records[request.id] = record
      journal?.recordUnfinished(record.notice)
      operation.end(hold: nil)
      let notice = current(record)
      events.append(Event(kind: .invoked, at: scheduler.wallTime, id: request.id, notice: notice))
      return notice
    }
  }

  /// Finishes a visible notice at once with `outcome`, as when a person closed it on the desktop.
  public func dismiss(_ id: Int, outcome: Outcome = .dismissed) throws(QueueError) {
    try mutate { state throws(QueueError) in
      var events: [Event] = []
      defer { publish(events, &state) }
      let record = try unfinished(id, state)
      if let operation = record.operation, operation.appearance.phase.isVisible {
        operation.dismiss(outcome: outcome)
      } else {
        record.operation?.cancel()
        finish(id, outcome: outcome, &state, &events)
      }
    }
  }

  // MARK: - Suspend and resume

  /// Holds every notice not yet visible until `resume` (or until `duration` seconds have passed).
  /// Answers `true`.
  @discardableResult
  public func suspend(for duration: Double? = nil) throws(QueueError) -> Bool {
    if let duration { try Self.validate(duration: duration, field: "duration") }
    let now = scheduler.now
    let wallTime = scheduler.wallTime
    mutate { state in
      var events: [Event] = []
      defer { publish(events, &state) }
      state.resumeTimer?.cancel()
      state.resumeTimer = nil
      state.suspendedUntil = duration.map { wallTime + $0 }
      if let duration {
        state.resumeTimer = scheduler.schedule(at: now + duration) { [weak self] in self?.resume() }
      }
      if !state.suspended {
        state.suspended = true
        for lane in lanes { lane.isSuspended = true }
      }
      journal?.recordSuspended(true, until: state.suspendedUntil)
      events.append(Event(kind: .suspended, at: wallTime, suspended: true))
    }
    return true
  }

  /// Lets held notices show again, in order. Answers `false` (not suspended).
  @discardableResult
  public func resume() -> Bool {
    mutate { state in
      var events: [Event] = []
      defer { publish(events, &state) }
      state.resumeTimer?.cancel()
      state.resumeTimer = nil
      state.suspendedUntil = nil
      guard state.suspended else { return }
      state.suspended = false
      for lane in lanes { lane.isSuspended = false }
      journal?.recordSuspended(false, until: nil)
      events.append(Event(kind: .resumed, at: scheduler.wallTime, suspended: false))
    }
    return false
  }

  // MARK: - Reading

  /// A notice by id, unfinished or still in history.
  public func get(_ id: Int) throws(QueueError) -> Notice {
    try state.withLock { state throws(QueueError) -> Notice in
      if let record = state.records[id] { return current(record) }
      if let notice = state.history[id] { return notice }
      throw .noSuchNotice(id: id)
    }
  }

  /// Every unfinished notice, oldest first.
  public func list() -> [Notice] {
    state.withLock { state in
      state.records.keys.sorted().map { current(state.records[$0]!) }
    }
  }

  /// Finished notices, newest first, filtered by app, outcome and finish time.
  public func history(_ request: HistoryParameters = HistoryParameters()) -> [Notice] {
    state.withLock { state in
      var notices: [Notice] = []
      let limit = request.limit ?? Int.max
      for id in state.historyOrder[state.historyStart...].reversed() where notices.count < limit {
        guard let notice = state.history[id] else { continue }
        if let app = request.app, notice.app != app { continue }
        if let outcome = request.outcome, notice.outcome != outcome { continue }
        if let since = request.since, (notice.finished ?? 0) < since { continue }
        notices.append(notice)
      }
      return notices
    }
  }

  /// Counts of notices in each state, and the suspended state.
  public func status() -> StatusReply {
    state.withLock { state in
      let counts = state.phaseCounts
      let visible = [Phase.fadingIn, .holding, .fadingOut].reduce(0) { $0 + (counts[$1] ?? 0) }
      return StatusReply(
        version: Interface.version, suspended: state.suspended, suspendedUntil: state.suspendedUntil,
        waiting: counts[.waiting] ?? 0, queued: counts[.queued] ?? 0, visible: visible,
        finished: state.history.count)
    }
  }

  /// Calls `reply` once notice `id` has finished (at once if it already has). Cancelling the
  /// subscription (the caller went away) forgets the wait.
  @discardableResult
  public func wait(_ id: Int, reply: @escaping @Sendable (Notice) -> Void) throws(QueueError) -> Subscription
  {
    let waiter = try mutate { state throws(QueueError) -> Int? in
      if let notice = state.history[id] {
        outbox.post(.call { reply(notice) })
        return nil
      }
      guard state.records[id] != nil else { throw .noSuchNotice(id: id) }
      let waiter = state.nextWaiterID
      state.nextWaiterID += 1
      state.waiters[id, default: [:]][waiter] = reply
      return waiter
    }
    guard let waiter else { return Subscription {} }
    return Subscription { [weak self] in
      self?.state.withLock { state in
        state.waiters[id]?.removeValue(forKey: waiter)
        if state.waiters[id]?.isEmpty == true { state.waiters.removeValue(forKey: id) }
      }
    }
  }

  /// How many `Wait` callers and watchers the queue holds: what clients can make it keep.
  public var subscriberCounts: (waiters: Int, watchers: Int) {
    state.withLock { state in (state.waiters.values.reduce(0) { $0 + $1.count }, state.watchers.count) }
  }

  // MARK: - Watching

  /// A registration for events; `cancel()` ends it.
  public final class Subscription: Sendable {
    private let onCancel: @Sendable () -> Void
    init(onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }
    /// Stops delivery; events already on their way may still arrive.
    public func cancel() { onCancel() }
  }

  /// Delivers a snapshot of every unfinished notice, then every event in order; with `frames`, also
  /// a frame per fading notice `fps` times a second while anything fades.
  public func watch(
    frames: Bool = false, fps: Int? = nil, sink: @escaping @Sendable (Event) -> Void
  ) throws(QueueError) -> Subscription {
    try watch(frames: frames, fps: fps, numbered: { event, _ in sink(event) })
  }

  /// `watch(frames:fps:sink:)` whose sink also gets each event's number: every sink that is handed
  /// one event gets the same number, so subscribers that encode events (the Varlink watchers) encode
  /// each once however many of them there are. The snapshot's number is 0.
  public func watch(
    frames: Bool = false, fps: Int? = nil, numbered sink: @escaping @Sendable (Event, UInt64) -> Void
  ) throws(QueueError) -> Subscription {
    if let fps, !(1...240).contains(fps) {
      throw .invalidArgument(field: "fps", reason: "must be between 1 and 240")
    }
    let now = scheduler.now
    let id = mutate { state in
      let id = state.nextWatcherID
      state.nextWatcherID += 1
      let interval = 1 / Double(fps ?? state.settings.frameRate)
      state.watchers[id] = Watcher(frames: frames, interval: interval, nextFrameAt: now, sink: sink)
      let snapshot = Event(
        kind: .snapshot, at: scheduler.wallTime,
        notices: state.records.keys.sorted().map { current(state.records[$0]!) },
        suspended: state.suspended)
      outbox.post(.call { sink(snapshot, 0) })
      armFrameTimer(&state)
      return id
    }
    return Subscription { [weak self] in
      _ = self?.state.withLock { state in state.watchers.removeValue(forKey: id) }
    }
  }

  /// The phase and opacity of each unfinished notice of `ids` at this instant, from its operation's
  /// timeline: what a popup draws in the frame it paints now. Finished or unknown ids are absent.
  public func appearances(of ids: [Int]) -> [Int: (phase: Phase, opacity: Double)] {
    state.withLock { state in
      var result: [Int: (phase: Phase, opacity: Double)] = [:]
      for id in ids {
        guard let record = state.records[id] else { continue }
        let notice = current(record)
        result[id] = (notice.phase, notice.opacity)
      }
      return result
    }
  }

  /// Returns once every event and `Wait` reply published so far has been handed to its subscriber.
  public func flushEvents() {
    outbox.waitUntilDelivered()
  }

  /// Whether a frame timer is armed; with nothing fading or nobody asking for frames, none is.
  public var isFrameTimerArmed: Bool { state.withLock { $0.frameTimer != nil } }

  // MARK: - Internals

  /// The most bytes of UTF-8 in an app name, tag, key, action key or action label.
  public static let maximumNameLength = 256
  /// The most actions a notice carries.
  public static let maximumActions = 8

  private static func validate(title: String, body: String?, field: String = "body") throws(QueueError) {
    if title.utf8.count > 1024 {
      throw .invalidArgument(field: "title", reason: "longer than 1 KiB")
    }
    if let body, body.utf8.count > 16 * 1024 {
      throw .invalidArgument(field: field, reason: "longer than 16 KiB")
    }
  }

  private static func validate(name: String?, field: String) throws(QueueError) {
    if let name, name.utf8.count > maximumNameLength {
      throw .invalidArgument(field: field, reason: "longer than \(maximumNameLength) bytes")
    }
  }

  private static func validate(app: String?, tag: String?, key: String?) throws(QueueError) {
    try validate(name: app, field: "app")
    try validate(name: tag, field: "tag")
    try validate(name: key, field: "key")
  }

  /// The most bytes in an icon's path (`PATH_MAX`).
  public static let maximumIconPathLength = 4096

  private static func validate(icon: String?) throws(QueueError) {
    guard let icon else { return }
    guard icon.hasPrefix("/") else {
      throw .invalidArgument(field: "icon", reason: "must be an absolute path to an image file")
    }
    guard icon.utf8.count <= maximumIconPathLength, !icon.utf8.contains(0) else {
      throw .invalidArgument(
        field: "icon", reason: "longer than \(maximumIconPathLength) bytes or holding a NUL byte")
    }
  }

  private static func validate(_ actions: [Action]) throws(QueueError) {
    if actions.count > maximumActions {
      throw .invalidArgument(field: "actions", reason: "more than \(maximumActions) actions")
    }
    for (index, action) in actions.enumerated() {
      if action.key.isEmpty {
        throw .invalidArgument(field: "actions.\(index).key", reason: "an action needs a non-empty key")
      }
      try validate(name: action.key, field: "actions.\(index).key")
      try validate(name: action.label, field: "actions.\(index).label")
    }
  }

  private static func validate(duration: Double, field: String) throws(QueueError) {
    guard duration.isFinite, duration >= 0, duration <= 86_400 else {
      throw .invalidArgument(field: field, reason: "must be a finite number of seconds from 0 to 86400")
    }
  }

  private static func validate(_ timing: TimingOverrides) throws(QueueError) {
    let fields: [(String, Double?)] = [
      ("delay", timing.delay), ("fadeIn", timing.fadeIn), ("hold", timing.hold), ("fadeOut", timing.fadeOut),
    ]
    for case (let field, let value?) in fields {
      try validate(duration: value, field: field)
    }
  }

  private func unfinished(_ id: Int, _ state: State) throws(QueueError) -> Record {
    if let record = state.records[id] { return record }
    if state.history[id] != nil {
      throw .invalidArgument(field: "id", reason: "notice \(id) has already finished")
    }
    throw .noSuchNotice(id: id)
  }

  /// The record's notice with its live phase and opacity.
  private func current(_ record: Record) -> Notice {
    var notice = record.notice
    if let operation = record.operation {
      let appearance = operation.appearance
      if appearance.phase != .finished {
        notice.phase = appearance.phase
        notice.opacity = appearance.opacity
      }
    }
    return notice
  }

  /// Reports from an operation: phase changes and its finish.
  private func operation(
    _ operation: NotificationOperation, didReport transition: NotificationOperation.Transition
  ) {
    let id = operation.noticeID
    mutate { state in
      var events: [Event] = []
      defer { publish(events, &state) }
      guard var record = state.records[id], record.operation === operation else { return }
      switch transition {
      case .phase(let phase, let opacity):
        state.count(from: record.notice.phase, to: phase)
        record.notice.phase = phase
        record.notice.opacity = opacity
        if record.notice.shown == nil && phase.isVisible { record.notice.shown = scheduler.wallTime }
        state.records[id] = record
        if phase == .fadingIn || phase == .fadingOut {
          state.fading.insert(id)
        } else {
          state.fading.remove(id)
        }
        events.append(Event(kind: .phase, at: scheduler.wallTime, id: id, phase: phase, opacity: opacity))
        armFrameTimer(&state)
      case .finished(let outcome):
        finish(id, outcome: outcome, &state, &events)
      }
    }
  }

  /// Moves a notice to history with `outcome`, frees what waited on it and answers its waiters.
  private func finish(_ id: Int, outcome: Outcome, _ state: inout State, _ events: inout [Event]) {
    guard var record = state.records.removeValue(forKey: id) else { return }
    state.count(from: record.notice.phase, to: nil)
    record.notice.phase = .finished
    record.notice.opacity = 0
    record.notice.outcome = outcome
    record.notice.finished = scheduler.wallTime
    let notice = record.notice
    state.fading.remove(id)
    if let key = notice.key, state.keys[key] == id { state.keys.removeValue(forKey: key) }
    state.history[id] = notice
    state.historyOrder.append(id)
    trimHistory(&state)
    journal?.recordFinished(notice)
    events.append(Event(kind: .finished, at: notice.finished!, id: id, notice: notice))
    if let waiters = state.waiters.removeValue(forKey: id) {
      outbox.post(.call { for reply in waiters.values { reply(notice) } })
    }
    if let blocked = state.blockedOn.removeValue(forKey: id) {
      for waitingID in blocked where state.records[waitingID] != nil {
        enqueue(waitingID, &state, &events)
      }
    }
  }

  private func trimHistory(_ state: inout State) {
    let limit = max(state.settings.historySize, 0)
    while state.historyOrder.count - state.historyStart > limit {
      let id = state.historyOrder[state.historyStart]
      if state.history.removeValue(forKey: id) != nil { journal?.recordForgotten(id) }
      state.historyStart += 1
    }
    if state.historyStart > 1024 && state.historyStart * 2 > state.historyOrder.count {
      state.historyOrder.removeFirst(state.historyStart)
      state.historyStart = 0
    }
  }

  /// Arms the timer for the earliest due notice, if it is earlier than the one armed.
  private func armDueTimer(_ state: inout State) {
    guard let earliest = state.dueHeap.peek?.dueAt else {
      state.dueTimer?.action.cancel()
      state.dueTimer = nil
      return
    }
    if let armed = state.dueTimer, armed.deadline <= earliest { return }
    state.dueTimer?.action.cancel()
    let action = scheduler.schedule(at: earliest) { [weak self] in self?.releaseDueNotices() }
    state.dueTimer = (earliest, action)
  }

  /// Moves every notice whose due time has come on: into its lane, or to wait for its `after`.
  private func releaseDueNotices() {
    let now = scheduler.now
    mutate { state in
      var events: [Event] = []
      defer { publish(events, &state) }
      state.dueTimer = nil
      while let entry = state.dueHeap.peek, entry.dueAt <= now {
        state.dueHeap.pop()
        guard let record = state.records[entry.id], record.operation == nil else { continue }
        if let after = record.notice.after, state.records[after] != nil {
          state.blockedOn[after, default: []].append(entry.id)
        } else {
          enqueue(entry.id, &state, &events)
        }
      }
      armDueTimer(&state)
    }
  }

  /// Arms the frame timer when someone asked for frames and something fades; otherwise lets it lapse.
  private func armFrameTimer(_ state: inout State) {
    guard state.frameTimer == nil, !state.fading.isEmpty,
      let interval = state.watchers.values.filter(\.frames).map(\.interval).min()
    else { return }
    let now = scheduler.now
    state.nextFrameTick = now + interval
    for id in state.watchers.keys where state.watchers[id]!.frames {
      state.watchers[id]!.nextFrameAt = max(state.watchers[id]!.nextFrameAt, now)
    }
    state.frameTimer = scheduler.schedule(at: state.nextFrameTick) { [weak self] in self?.sendFrames() }
  }

  private func sendFrames() {
    let now = scheduler.now
    mutate { state in
      state.frameTimer = nil
      let frameWatchers = state.watchers.filter { $0.value.frames }
      guard !state.fading.isEmpty, let interval = frameWatchers.values.map(\.interval).min() else { return }
      let wallTime = scheduler.wallTime
      var frames: [Event] = []
      for id in state.fading.sorted() {
        guard let operation = state.records[id]?.operation else { continue }
        let appearance = operation.appearance
        frames.append(
          Event(kind: .frame, at: wallTime, id: id, phase: appearance.phase, opacity: appearance.opacity))
      }
      let batch = frames
      let first = state.nextEventNumber
      state.nextEventNumber += UInt64(batch.count)
      // Small tolerance, so a watcher at the timer's own pace is not skipped for a late microsecond.
      for (watcherID, watcher) in frameWatchers where watcher.nextFrameAt <= now + interval / 4 {
        var next = watcher.nextFrameAt + watcher.interval
        if next < now { next = now + watcher.interval }
        state.watchers[watcherID]!.nextFrameAt = next
        if !batch.isEmpty { outbox.post(.events(batch, first: first, sinks: [watcher.sink])) }
      }
      // Keep the pace from the previous tick, not from now, so frames do not drift.
      var tick = state.nextFrameTick + interval
      if tick <= now { tick = now + interval }
      state.nextFrameTick = tick
      state.frameTimer = scheduler.schedule(at: tick) { [weak self] in self?.sendFrames() }
    }
  }

  /// Hands events to every watcher, in order; they are delivered once the lock is released.
  private func publish(_ events: [Event], _ state: inout State) {
    guard !events.isEmpty, !state.watchers.isEmpty else { return }
    let sinks = state.watchers.values.map(\.sink)
    outbox.post(.events(events, first: state.nextEventNumber, sinks: sinks))
    state.nextEventNumber += UInt64(events.count)
  }
}

/// Due times of notices not yet due, earliest first; first come first served among equal times.
struct DueHeap {
  struct Entry: Comparable {
    var dueAt: Double
    var sequence: Int
    var id: Int

    static func < (a: Entry, b: Entry) -> Bool { (a.dueAt, a.sequence) < (b.dueAt, b.sequence) }
  }

  private var heap = MinHeap<Entry>()
  private var sequence = 0

  var count: Int { heap.count }
  var peek: Entry? { heap.first }

  mutating func push(dueAt: Double, id: Int) {
    sequence += 1
    heap.push(Entry(dueAt: dueAt, sequence: sequence, id: id))
  }

  @discardableResult
  mutating func pop() -> Entry? { heap.pop() }
}
