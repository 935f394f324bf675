import Foundation
import NotifyProtocol
import NotifySupport

/// The queue engine as the daemon uses it: the rules of `QueueMachine` behind one lock, with the
/// effects they ask for carried out: operations on two lanes of `OperationQueue`s, the journal,
/// subscribers, and one timer on the injected `Scheduler`.
///
/// - Important: all state is owned by one lock (`Locked`), and effects are carried out under it,
///   in order. Events and `Wait` replies are delivered in order by the thread that caused them
///   (`EventOutbox`), never while the lock is held, so a subscriber may call back in.
public final class NoticeQueue: Sendable {
  struct State {
    var machine: QueueMachine
    /// The operations of notices with a slot, by notice id.
    var operations: [Int: NotificationOperation] = [:]
    var sinks: [Int: EventOutbox.Sink] = [:]
    /// Watchers told of the presentations of shown notices as they change (the popups).
    var presenters: [Int: @Sendable ([Int: Presentation]) -> Void] = [:]
    var replies: [Int: @Sendable (Notice) -> Void] = [:]
    var timer: ScheduledAction?
    /// The number the next event published gets (`EventOutbox.Sink`).
    var nextEventNumber: UInt64 = 1
    /// What the popups' display says of itself, for `status()`.
    var display: DisplayState?
    var relay: RelayState?
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
    let machine = QueueMachine(settings: settings)
    self.state = Locked(State(machine: machine))
    lanes = Lane.allCases.map { lane in
      let queue = OperationQueue()
      queue.name = lane == .notices ? "notifyd.notices" : "notifyd.progress"
      // Operations start on the daemon's own queue, not on a concurrent queue of Dispatch's
      // global pool (see `DispatchQueue.daemonRoot`): `start()` only reports and returns.
      queue.underlyingQueue = .daemonSerial(queue.name!)
      queue.maxConcurrentOperationCount = machine.laneWidth(lane)
      return queue
    }
  }

  /// The settings in force.
  public var settings: QueueSettings { state.withLock { $0.machine.settings } }

  /// Seconds since the Unix epoch on the queue's clock, as notices' `created` and `finished` are.
  public var wallTime: Double { scheduler.wallTime }

  /// Monotonic seconds on the queue's clock: what a presentation's timeline is timed by.
  public var now: Double { scheduler.now }

  private var instant: Instant { Instant(now: scheduler.now, wall: scheduler.wallTime) }

  /// Runs `body` on the machine under the lock, carries out the effects it listed (also when it
  /// throws), then delivers what was published, off the lock.
  ///
  /// The instant is read under the lock, so inputs reach the machine in the order of their instants.
  private func mutate<Result, E: Error>(
    _ body: (inout QueueMachine, Instant) throws(E) -> Result
  ) throws(E) -> Result {
    try mutateState { state, instant throws(E) in try body(&state.machine, instant) }
  }

  /// `mutate` for changes that also touch what the façade keeps beside the machine (sinks, replies).
  private func mutateState<Result, E: Error>(
    _ body: (inout State, Instant) throws(E) -> Result
  ) throws(E) -> Result {
    defer { outbox.deliver() }
    return try state.withLock { state throws(E) -> Result in
      defer { carryOut(&state) }
      return try body(&state, instant)
    }
  }

  private func carryOut(_ state: inout State) {
    // Events published one after another go to the watchers in one post.
    var batch: [Event] = []
    for effect in state.machine.takeEffects() {
      if case .publish(let event) = effect {
        batch.append(event)
        continue
      }
      post(batch, to: Array(state.sinks.values), &state)
      batch.removeAll()
      switch effect {
      case .publish: break
      case .run(let id, let lane, let urgency):
        let operation = NotificationOperation(
          noticeID: id, onStart: { [weak self] in self?.operationStarted($0) },
          onCancel: { [weak self] in self?.operationCancelled($0) })
        operation.queuePriority =
          switch urgency {
          case .low: .low
          case .normal: .normal
          case .critical: .high
          }
        state.operations[id] = operation
        lanes[lane.rawValue].addOperation(operation)
      case .finishOperation(let id):
        state.operations.removeValue(forKey: id)?.finish()
        state.operations.releaseSpareCapacity()
      case .journal(let record):
        switch record {
        case .unfinished(let notice): journal?.recordUnfinished(notice)
        case .finished(let notice): journal?.recordFinished(notice)
        case .forgotten(let id): journal?.recordForgotten(id)
        case .hand(let choice): journal?.recordHand(choice)
        case .nextID(let next): journal?.recordNextID(next)
        }
      case .frames(let frames, let watchers):
        post(frames, to: watchers.compactMap { state.sinks[$0] }, &state)
      case .snapshot(let snapshot, let watcher):
        if let sink = state.sinks[watcher] { outbox.post(.call { sink(snapshot, 0) }) }
      case .answer(let waiters, let notice):
        let replies = waiters.compactMap { state.replies.removeValue(forKey: $0) }
        state.replies.releaseSpareCapacity()
        if !replies.isEmpty { outbox.post(.call { for reply in replies { reply(notice) } }) }
      case .suspendLanes(let suspended):
        for lane in lanes { lane.isSuspended = suspended }
      case .laneWidths(let notices, let progress):
        lanes[Lane.notices.rawValue].maxConcurrentOperationCount = notices
        lanes[Lane.progress.rawValue].maxConcurrentOperationCount = progress
      case .arm(let deadline):
        state.timer?.cancel()
        state.timer = deadline.map { scheduler.schedule(at: $0) { [weak self] in self?.tick() } }
      }
    }
    post(batch, to: Array(state.sinks.values), &state)
    tellPresenters(&state)
  }

  /// Tells the presenters the presentations that changed, after the events of the same change.
  private func tellPresenters(_ state: inout State) {
    guard !state.presenters.isEmpty else { return }
    let ids = state.machine.takePresentationChanges()
    var changes: [Int: Presentation] = [:]
    for id in ids {
      if let presentation = state.machine.presentation(of: id) { changes[id] = presentation }
    }
    guard !changes.isEmpty else { return }
    let sinks = Array(state.presenters.values)
    let told = changes
    outbox.post(.call { for sink in sinks { sink(told) } })
  }

  /// Hands `events` to `sinks` in one post, numbered from the next event number.
  private func post(_ events: [Event], to sinks: [EventOutbox.Sink], _ state: inout State) {
    guard !events.isEmpty, !sinks.isEmpty else { return }
    outbox.post(.events(events, first: state.nextEventNumber, sinks: sinks))
    state.nextEventNumber += UInt64(events.count)
  }

  private func tick() {
    mutate { machine, instant in machine.tick(at: instant) }
  }

  private func operationStarted(_ operation: NotificationOperation) {
    mutate { machine, instant in machine.started(operation.noticeID, at: instant) }
  }

  private func operationCancelled(_ operation: NotificationOperation) {
    mutate { machine, instant in
      _ = try? machine.cancel(CancelParameters(id: operation.noticeID), at: instant)
    }
  }

  /// Puts new settings in force for every notice accepted from now on; visible notices keep their
  /// timing.
  public func apply(_ settings: QueueSettings) {
    mutate { machine, instant in machine.apply(settings, at: instant) }
  }

  /// Brings back the queue a journal kept (`QueueMachine.restore`).
  public func restore(_ saved: JournalState) {
    mutate { machine, instant in machine.restore(saved, at: instant) }
  }

  // MARK: - Requests

  /// Accepts a notice, or replaces the unfinished one with its key or id (`QueueMachine.show`).
  public func show(_ request: ShowParameters, replacing replacedID: Int? = nil) throws(QueueError) -> Int {
    try mutate { machine, instant throws(QueueError) in
      try machine.show(request, replacing: replacedID, at: instant)
    }
  }

  /// Accepts a notice relayed from `origin` (DESIGN §10); `missed`: it came too late to show, and
  /// goes straight to history.
  public func showRelayed(_ request: ShowParameters, origin: NoticeOrigin, missed: Bool) throws(QueueError)
    -> Int
  {
    try mutate { machine, instant throws(QueueError) in
      try machine.show(request, origin: origin, missed: missed, at: instant)
    }
  }

  /// Accepts a progress indicator, or updates (`wholly`: replaces) the one with its key
  /// (`QueueMachine.progress`).
  public func progress(
    _ request: ProgressParameters, replacing replacedID: Int? = nil, wholly: Bool = false
  ) throws(QueueError) -> (id: Int, existing: Bool) {
    try mutate { machine, instant throws(QueueError) in
      try machine.progress(request, replacing: replacedID, wholly: wholly, at: instant)
    }
  }

  /// Changes an unfinished notice's title, body or value in place; a visible one restarts its hold.
  public func update(_ request: UpdateParameters) throws(QueueError) -> Notice {
    try mutate { machine, instant throws(QueueError) in try machine.update(request, at: instant) }
  }

  /// Ends a notice early and normally (`QueueMachine.end`).
  public func end(_ request: EndParameters) throws(QueueError) -> Notice {
    try mutate { machine, instant throws(QueueError) in try machine.end(request, at: instant) }
  }

  /// Cancels by id, by tag, or all (`QueueMachine.cancel`). Answers the ids cancelled.
  public func cancel(_ request: CancelParameters) throws(QueueError) -> [Int] {
    try mutate { machine, instant throws(QueueError) in try machine.cancel(request, at: instant) }
  }

  /// Chooses action `action` of a visible notice; the notice then fades out with outcome `completed`
  /// (a resident one stays).
  public func invoke(_ request: InvokeParameters) throws(QueueError) -> Notice {
    try mutate { machine, instant throws(QueueError) in try machine.invoke(request, at: instant) }
  }

  /// Snoozes an unfinished notice (`QueueMachine.snooze`).
  public func snooze(_ request: SnoozeParameters) throws(QueueError) -> Notice {
    try mutate { machine, instant throws(QueueError) in try machine.snooze(request, at: instant) }
  }

  /// Brings a snoozed notice back now (`QueueMachine.unsnooze`).
  public func unsnooze(_ request: IDParameters) throws(QueueError) -> Notice {
    try mutate { machine, instant throws(QueueError) in try machine.unsnooze(request, at: instant) }
  }

  /// Answers a visible notice that offers a reply field (`QueueMachine.reply`).
  public func reply(_ request: ReplyParameters) throws(QueueError) -> Notice {
    try mutate { machine, instant throws(QueueError) in try machine.reply(request, at: instant) }
  }

  /// The answer of the desk a notice was relayed to (`QueueMachine.answer`): whether it closed.
  public func answer(_ id: Int, outcome: Outcome, invoked: String?, replied: String? = nil) -> Bool {
    mutate { machine, instant in
      machine.answer(id, outcome: outcome, invoked: invoked, replied: replied, at: instant)
    }
  }

  /// Marks finished notices read (`QueueMachine.read`). Answers those that were unread.
  public func read(_ request: ReadParameters) throws(QueueError) -> [Int] {
    try mutate { machine, instant throws(QueueError) in try machine.read(request, at: instant) }
  }

  /// Shows finished notices again as new notices (`QueueMachine.restore`). Answers the new ids.
  public func restore(_ request: RestoreParameters) throws(QueueError) -> [Int] {
    try mutate { machine, instant throws(QueueError) in try machine.restore(request, at: instant) }
  }

  /// Removes finished notices from history and the store (`QueueMachine.forget`). Answers the ids.
  public func forget(_ request: ForgetParameters) throws(QueueError) -> [Int] {
    try mutate { machine, instant throws(QueueError) in try machine.forget(request, at: instant) }
  }

  /// `presenter` shows visible notices to a person, or no longer (`QueueMachine.setPresenter`).
  public func setPresenter(_ presenter: Presenter, _ on: Bool) {
    mutate { machine, instant in machine.setPresenter(presenter, on, at: instant) }
  }

  /// A person closes a notice, or every visible one (`QueueMachine.dismiss`). Answers the ids.
  public func dismiss(_ request: DismissParameters) throws(QueueError) -> [Int] {
    try mutate { machine, instant throws(QueueError) in try machine.dismiss(request, at: instant) }
  }

  /// Holds every notice not yet visible but what `allow` lets through (default `[DoNotDisturb]
  /// Allow=`) until `resume`, or until `duration` seconds have passed. Answers `true`.
  @discardableResult
  public func suspend(for duration: Double? = nil, allow: DoNotDisturbAllow? = nil) throws(QueueError) -> Bool
  {
    try mutate { machine, instant throws(QueueError) in
      try machine.suspend(for: duration, allow: allow, at: instant)
    }
    return true
  }

  /// Lets held notices show again, in order; inside quiet hours, until they end. Answers whether
  /// the queue is still suspended.
  @discardableResult
  public func resume() -> Bool {
    mutate { machine, instant in
      machine.resume(at: instant)
      return machine.suspended
    }
  }

  /// What the display says of the window with the keyboard: fullscreen or not
  /// (`QueueMachine.setFullscreen`).
  public func setFullscreen(_ on: Bool) {
    mutate { machine, instant in machine.setFullscreen(on, at: instant) }
  }

  /// What an idle source says of the person (`QueueMachine.setIdle`): away or back, and which
  /// source; `nil` once none tells.
  public func setIdle(_ state: IdleState?) {
    mutate { machine, instant in machine.setIdle(state, at: instant) }
  }

  /// The pointer is over the card of notice `id`, or over none (`QueueMachine.pointer(over:)`).
  public func pointer(over id: Int?) {
    mutate { machine, instant in machine.pointer(over: id, at: instant) }
  }

  /// A person types into the reply field of notice `id`, or into none (`QueueMachine.typing(in:)`).
  public func typing(in id: Int?) {
    mutate { machine, instant in machine.typing(in: id, at: instant) }
  }

  // MARK: - Reading

  /// A notice by id, unfinished or still in history.
  public func get(_ id: Int) throws(QueueError) -> Notice {
    let now = scheduler.now
    guard let notice = state.withLock({ $0.machine.notice(id, at: now) }) else { throw .noSuchNotice(id: id) }
    return notice
  }

  /// Every unfinished notice, oldest first; with `held`, only those do-not-disturb holds back; with
  /// `snoozed`, only snoozed ones.
  public func list(held: Bool, snoozed: Bool) -> [Notice] {
    let now = scheduler.now
    return state.withLock { state in
      switch (held, snoozed) {
      case (false, false): state.machine.unfinishedNotices(at: now)
      case (true, false): state.machine.heldNotices()
      case (false, true): state.machine.snoozedNotices(at: now)
      case (true, true): []  // a snoozed notice is not held: do-not-disturb holds it once it is back
      }
    }
  }

  /// Finished notices, newest first, filtered by app, outcome and finish time.
  public func history(_ request: HistoryParameters = HistoryParameters()) -> [Notice] {
    state.withLock { $0.machine.finishedNotices(request) }
  }

  /// Hands `visit` the finished notices, newest first, the `limit` newest at most, under the
  /// engine's lock: a view of history keeps what it needs of each without an array of whole notices
  /// made on the way.
  public func forEachFinished(limit: Int, _ visit: (Notice) -> Void) {
    state.withLock { state in
      state.machine.history.forEachNewestFirst(limit: limit, visit)
    }
  }

  /// Counts of notices in each state, do-not-disturb in force, idleness and the display.
  public func status() -> StatusReply {
    mutateState { state, instant in
      var status = state.machine.status(at: instant)
      status.display = state.display
      status.relay = state.relay
      return status
    }
  }

  /// What `status()` says of the popups' display: its backend and what it draws on, or why none.
  public func setDisplay(_ display: DisplayState?) {
    state.withLock { $0.display = display }
  }

  /// What `status()` says of the relay (`[Relay]`): its connection and outbox, or nothing.
  public func setRelay(_ relay: RelayState?) {
    state.withLock { $0.relay = relay }
  }

  // MARK: - Waiting and watching

  /// A registration for events; `cancel()` ends it.
  public final class Subscription: Sendable {
    private let onCancel: @Sendable () -> Void
    init(onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }
    /// Stops delivery; events already on their way may still arrive.
    public func cancel() { onCancel() }
  }

  /// Calls `reply` once notice `id` has finished (at once if it already has). Cancelling the
  /// subscription (the caller went away) forgets the wait.
  @discardableResult
  public func wait(_ id: Int, reply: @escaping @Sendable (Notice) -> Void) throws(QueueError) -> Subscription
  {
    // The reply is kept before the effects are carried out: one that has finished is answered by them.
    let waiter = try mutateState { state, _ throws(QueueError) -> Int? in
      let waiter = try state.machine.wait(for: id)
      state.replies[waiter] = reply
      return state.machine.isUnfinished(id) ? waiter : nil
    }
    guard let waiter else { return Subscription {} }
    return Subscription { [weak self] in
      self?.mutateState { state, _ in
        state.replies.removeValue(forKey: waiter)
        state.replies.releaseSpareCapacity()
        state.machine.forget(waiter: waiter, of: id)
      }
    }
  }

  /// How many `Wait` callers and watchers the queue holds: what clients can make it keep.
  public var subscriberCounts: (waiters: Int, watchers: Int) {
    state.withLock { $0.machine.subscriberCounts }
  }

  /// Delivers a snapshot of every unfinished notice, then every event in order; with `frames`, also
  /// a frame per fading notice `fps` times a second while anything fades (`NoticeReading`'s
  /// `watch(frames:fps:sink:)` leaves the numbers out). The sink gets each event's number: every
  /// sink that is handed one event gets the same number, so subscribers that encode events (the
  /// Varlink watchers) encode each once however many of them there are. The snapshot's number is 0.
  public func watch(
    frames: Bool = false, fps: Int? = nil, numbered sink: @escaping @Sendable (Event, UInt64) -> Void
  ) throws(QueueError) -> Subscription {
    try watch(frames: frames, fps: fps, numbered: sink, presenting: nil)
  }

  /// `watch`, and the presentation of every shown notice after the snapshot, then of each whose
  /// presentation a change changed after that change's events (the popups; `Presentation`).
  public func present(
    frames: Bool, sink: @escaping @Sendable (Event) -> Void,
    presentations: @escaping @Sendable ([Int: Presentation]) -> Void
  ) throws(QueueError) -> Subscription {
    try watch(frames: frames, fps: nil, numbered: { event, _ in sink(event) }, presenting: presentations)
  }

  private func watch(
    frames: Bool, fps: Int?, numbered sink: @escaping @Sendable (Event, UInt64) -> Void,
    presenting: (@Sendable ([Int: Presentation]) -> Void)?
  ) throws(QueueError) -> Subscription {
    if let fps, !(1...240).contains(fps) {
      throw .invalidArgument(field: "fps", reason: "must be between 1 and 240")
    }
    let id = mutateState { state, instant in
      let interval = 1 / Double(fps ?? state.machine.settings.frameRate)
      let id = state.machine.watch(frames: frames, interval: interval, at: instant)
      state.sinks[id] = sink  // before the effects: the snapshot goes to it
      if let presenting {
        state.presenters[id] = presenting
        state.machine.notePresentations(true)
      }
      return id
    }
    return Subscription { [weak self] in
      self?.mutateState { state, instant in
        state.sinks.removeValue(forKey: id)
        state.sinks.releaseSpareCapacity()
        if state.presenters.removeValue(forKey: id) != nil, state.presenters.isEmpty {
          state.machine.notePresentations(false)
        }
        state.machine.unwatch(id, at: instant)
      }
    }
  }

  /// Returns once every event and `Wait` reply published so far has been handed to its subscriber.
  public func flushEvents() {
    outbox.waitUntilDelivered()
  }

  /// Whether frames are being paced; with nothing fading or nobody asking for frames, they are not.
  public var isFrameTimerArmed: Bool { state.withLock { $0.machine.isPacingFrames } }

  /// Notices handed to a lane whose `OperationQueue` has not started them yet.
  public var startingCount: Int { state.withLock { $0.machine.grantedCount } }

  /// The most bytes of UTF-8 in an app name, tag, key, action key or action label.
  public static let maximumNameLength = Admission.maximumNameLength
  /// The most actions a notice carries.
  public static let maximumActions = Admission.maximumActions
  /// The most bytes in an icon's path (`PATH_MAX`).
  public static let maximumIconPathLength = Admission.maximumIconPathLength
}
