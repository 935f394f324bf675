import NotifyProtocol

/// The queue engine's rules as a value: every request and every input (an operation started, the
/// clock reached a deadline) changes the state and lists the effects its owner must carry out, in
/// order (`effects`, taken with `takeEffects()`). No locks, threads, timers or `OperationQueue`s:
/// `NoticeQueue` holds one under its lock and carries out what it asks; the rules are tested on
/// the value alone.
///
/// A notice goes `pending` (not yet due, or waiting for its `after`) → `ready` (due and free, in its
/// lane's list) → `granted` (it has a slot and an operation in its lane's `OperationQueue`) →
/// running (the queue started the operation: it fades in, holds, fades out) → finished. Notices
/// that cannot start yet have no operation at all. A notice held until ended leaves its slot once
/// it holds (up to `[Queue] MaxSticky=` of them), so it blocks nobody.
///
/// Before anything else, every input brings the state up to its instant (`advance(to:)`): a
/// boundary whose timer has not fired yet is not missed by a request that comes first.
public struct QueueMachine {
  public private(set) var settings: QueueSettings
  var notices = NoticeTable()
  var history = NoticeHistory()
  var due = DueSchedule()
  var lanes = [LaneSchedule](repeating: LaneSchedule(), count: Lane.allCases.count)
  var hub = EventHub()
  var keys: [String: Int] = [:]
  public private(set) var nextID = 1
  /// What a person last said about do-not-disturb; quiet hours do not undo it.
  public private(set) var hand: HandChoice?
  /// Monotonic instant the hand's choice runs out: the end of a timed suspend, or of the quiet
  /// hours a resume was made in.
  var handExpiresAt: Double?
  /// Wall-clock end of the quiet hours in force now.
  var quietUntil: Double?
  /// Monotonic instant the quiet hours next begin or end; `nil` with no schedule.
  var scheduleChangesAt: Double?
  /// Wall-clock minus monotonic time when the schedule was last read: a step of the wall clock
  /// makes it read again.
  var scheduleOffset = Double.nan
  /// Do-not-disturb in force: by hand, or by the quiet hours.
  public private(set) var doNotDisturb: DoNotDisturb?
  /// Whether the person is away, as a source says (`[Idle] After=`); `nil` with none.
  public private(set) var idle: IdleState?
  /// Whether the lanes' `OperationQueue`s are suspended: while nothing may pass.
  var lanesSuspended = false
  /// Flood control: each app's token bucket (`[Limits] PerApp=`), at most `maximumTrackedApps`.
  var buckets: [String: TokenBucket] = [:]
  /// Each app's unfinished summary of folded notices (`""` for notices without an app), and how
  /// many it stands for.
  var floodSummaries: [String: Summary] = [:]
  /// The unfinished summary of what do-not-disturb held back.
  var awaySummary: Summary?
  /// Shown notices by what makes duplicates of them (`[Queue] StackDuplicates=`).
  var duplicates: [DuplicateKey: Int] = [:]
  /// Phase boundaries of shown notices, earliest first.
  var boundaries = MinHeap<Boundary>()
  /// Shown notices now fading in or out.
  var fading: Set<Int> = []
  /// How many unfinished notices are in each phase, kept as they move.
  var phaseCounts: [Phase: Int] = [:]
  /// The deadline the owner's timer is armed for.
  var armed: Double?
  /// What the owner must carry out, in order.
  public private(set) var effects: [QueueEffect] = []

  /// A summary notice the engine wrote, and how many folded notices it stands for.
  struct Summary {
    var id: Int
    var count: Int
  }

  struct Boundary: Comparable {
    var at: Double
    var id: Int
    var generation: Int
    static func < (a: Boundary, b: Boundary) -> Bool { (a.at, a.id) < (b.at, b.id) }
  }

  /// The most apps whose token buckets flood control keeps; past it, buckets that have filled up
  /// again are dropped (they are as good as new), and if none has, new apps share one bucket.
  public static let maximumTrackedApps = 4096

  public init(settings: QueueSettings = QueueSettings()) {
    self.settings = settings
  }

  /// Whether notices not yet visible are held back (but what do-not-disturb lets through).
  public var suspended: Bool { doNotDisturb != nil }
  /// Wall-clock end of the suspension in force, if it has one.
  public var suspendedUntil: Double? { doNotDisturb?.until }

  /// The effects listed since the last call, in order; the list starts over.
  public mutating func takeEffects() -> [QueueEffect] {
    defer { effects = [] }
    return effects
  }

  // MARK: - Settings and restart

  /// Puts new settings in force for every notice accepted from now on; shown notices keep their
  /// timing; more slots let waiting notices show.
  public mutating func apply(_ settings: QueueSettings, at instant: Instant) {
    advance(to: instant)
    defer { settle(at: instant) }
    self.settings = settings
    effects.append(.laneWidths(notices: laneWidth(.notices), progress: laneWidth(.progress)))
    trimHistory()
    if settings.perApp == nil { buckets = [:] }
    if !settings.stackDuplicates { duplicates = [:] }
    readSchedule(at: instant)
  }

  /// The width of a lane's `OperationQueue`: its slots, and for notices the sticky ones beside them.
  public func laneWidth(_ lane: Lane) -> Int {
    lane == .notices ? settings.maxVisible + settings.maxSticky : settings.progressMaxVisible
  }

  /// Brings back the queue a journal kept: history, the next id, the suspended state (with its
  /// timed resume), then the unfinished notices with their absolute due times, in the order they
  /// were accepted; one that was shown starts its fade-in again.
  public mutating func restore(_ saved: JournalState, at instant: Instant) {
    defer { settle(at: instant) }
    nextID = max(nextID, saved.nextID)
    for notice in saved.history { history.append(notice) }
    trimHistory()
    if let choice = saved.hand {
      if choice.until.map({ $0 > instant.wall }) ?? true {
        hand = choice
        handExpiresAt = choice.until.map { instant.now + ($0 - instant.wall) }
      } else {
        effects.append(.journal(.hand(nil)))
      }
    }
    readSchedule(at: instant)
    var restored: [Int] = []
    for var notice in saved.unfinished {
      notice.phase = .waiting
      notice.opacity = 0
      var record = NoticeRecord(
        notice: notice,
        dueAt: instant.now
          + max(0, notice.created + notice.delay + settings.answerDelay(of: notice) - instant.wall),
        hold: Admission.hold(of: notice, settings))
      if notice.message != nil { record.closing = .completed }  // ended before it was shown
      record.passesDoNotDisturb = settings.passesDoNotDisturb(notice)
      notices.insert(record)
      count(from: nil, to: .waiting)
      if let key = notice.key { keys[key] = notice.id }
      nextID = max(nextID, notice.id + 1)
      restored.append(notice.id)
    }
    for id in restored { place(id, at: instant) }
  }

  // MARK: - Accepting notices

  /// Accepts a notice, or with a `key` an unfinished notice has (or the id `replacing`, as D-Bus
  /// `replaces_id` names it), replaces that one: in place when it is shown (answering its id),
  /// else the old one finishes as `replaced`. A notice already closing is left to finish; the new
  /// one takes its key.
  ///
  /// A relayed notice carries its `origin`; one that arrived too late (`missed`) goes straight to
  /// history with outcome `missed`, replacing nothing.
  public mutating func show(
    _ request: ShowParameters, replacing replacedID: Int? = nil, origin: NoticeOrigin? = nil,
    missed: Bool = false, at instant: Instant
  ) throws(QueueError) -> Int {
    let explicit = try Admission.validate(request)
    advance(to: instant)
    defer { settle(at: instant) }
    if missed {
      let resolution = settings.resolve(
        app: request.app, tag: request.tag, title: request.title, urgency: request.urgency,
        hints: request.hints, explicit: explicit)
      var notice = Admission.notice(request, id: nextID, resolution: resolution, created: instant.wall)
      notice.origin = origin
      accept(notice, finishing: .missed, at: instant)
      return notice.id
    }
    if let existing = claim(replacing: replacedID, key: request.key) {
      if existing.isShown {
        let id = existing.notice.id
        notices.modify(id) { record in
          if let origin { record.notice.origin = origin }
          record.notice.title = request.title
          record.notice.body = request.body
          if let actions = request.actions { record.notice.actions = actions }
          if let icon = request.icon { record.notice.icon = icon }
          if let hints = Hints.nonEmpty(request.hints) { record.notice.hints = hints }
          _ = record.restartHold(at: instant.now)
        }
        changed(id, at: instant)
        return id
      }
      finish(existing.notice.id, outcome: .replaced, at: instant)
    } else if replacedID == nil, request.key == nil, let id = duplicate(of: request) {
      notices.modify(id) { record in
        if let origin { record.notice.origin = origin }
        record.notice.count = (record.notice.count ?? 1) + 1
        _ = record.restartHold(at: instant.now)
      }
      changed(id, at: instant)
      return id
    }
    let resolution = settings.resolve(
      app: request.app, tag: request.tag, title: request.title, urgency: request.urgency,
      hints: request.hints, explicit: explicit)
    if !resolution.suppressed, !admitsFlood(from: request.app, at: instant.now) {
      // The summary first: a new one takes the next id.
      let summary = floodSummary(folding: request.title, from: request.app, at: instant)
      var notice = Admission.notice(request, id: nextID, resolution: resolution, created: instant.wall)
      notice.foldedInto = summary
      notice.origin = origin
      accept(notice, finishing: .folded, at: instant)
      return notice.id
    }
    try checkCapacity(resolution)
    var notice = Admission.notice(request, id: nextID, resolution: resolution, created: instant.wall)
    notice.origin = origin
    accept(
      notice, passes: resolution.passesDoNotDisturb, finishing: resolution.suppressed ? .cancelled : nil,
      at: instant)
    return notice.id
  }

  /// The visible notice a new one without a key would merge into: equal app, title and body, not
  /// closing.
  private func duplicate(of request: ShowParameters) -> Int? {
    guard settings.stackDuplicates, !duplicates.isEmpty else { return nil }
    let key = DuplicateKey(app: request.app, title: request.title, body: request.body)
    guard let id = duplicates[key], let record = notices[id], record.isShown, !record.isClosing else {
      return nil
    }
    return id
  }

  /// Accepts a progress indicator, or with a `key` an unfinished one has, answers its id with
  /// `existing: true`, applies the new title, body and value, and restarts its timeout.
  public mutating func progress(
    _ request: ProgressParameters, replacing replacedID: Int? = nil, at instant: Instant
  ) throws(QueueError) -> (id: Int, existing: Bool) {
    let explicit = try Admission.validate(request)
    advance(to: instant)
    defer { settle(at: instant) }
    if let existing = claim(replacing: replacedID, key: request.key) {
      let id = existing.notice.id
      if existing.notice.kind == .progress {
        notices.modify(id) { record in
          record.notice.title = request.title
          if let body = request.body { record.notice.body = body }
          if let value = request.value { record.notice.value = value }
          if let icon = request.icon { record.notice.icon = icon }
          if let hints = Hints.nonEmpty(request.hints) { record.notice.hints = hints }
          if let timeout = request.timeout {
            record.notice.timeout = timeout
            record.hold = timeout > 0 ? timeout : nil
          }
          if record.notice.message == nil { _ = record.restartHold(at: instant.now) }
        }
        changed(id, at: instant)
        return (id, true)
      }
      finish(id, outcome: .replaced, at: instant)
    }
    let resolution = settings.resolve(
      app: request.app, tag: request.tag, title: request.title, urgency: request.urgency,
      hints: request.hints, explicit: explicit)
    try checkCapacity(resolution)
    let notice = Admission.notice(
      request, id: nextID, resolution: resolution, timeout: request.timeout ?? settings.progressTimeout,
      created: instant.wall)
    accept(
      notice, passes: resolution.passesDoNotDisturb, finishing: resolution.suppressed ? .cancelled : nil,
      at: instant)
    return (notice.id, false)
  }

  /// The unfinished notice a new one claims by id or key, unless it is already closing.
  private func claim(replacing id: Int?, key: String?) -> NoticeRecord? {
    let claimed = id.flatMap { notices.contains($0) ? $0 : nil } ?? key.flatMap { keys[$0] }
    guard let claimed, let record = notices[claimed], !record.isClosing else { return nil }
    return record
  }

  private func checkCapacity(_ resolution: QueueSettings.Resolution) throws(QueueError) {
    guard resolution.suppressed || notices.count < settings.capacity else {
      throw .queueFull(capacity: settings.capacity)
    }
  }

  /// Records a new notice and sends it on towards its lane; or with `finishing` (suppressed by a
  /// rule, folded), straight to history.
  mutating func accept(
    _ notice: Notice, passes: Bool = false, finishing outcome: Outcome? = nil, at instant: Instant
  ) {
    nextID += 1
    var record = NoticeRecord(
      notice: notice, dueAt: instant.now + notice.delay + settings.answerDelay(of: notice),
      hold: Admission.hold(of: notice, settings))
    record.passesDoNotDisturb = passes
    notices.insert(record)
    count(from: nil, to: notice.phase)
    effects.append(.journal(.nextID(nextID)))
    if outcome == nil { effects.append(.journal(.unfinished(notice))) }  // else its finish is written
    effects.append(.publish(Event(kind: .added, at: instant.wall, id: notice.id, notice: notice)))
    if let outcome {
      finish(notice.id, outcome: outcome, at: instant)
      return
    }
    if let key = notice.key { keys[key] = notice.id }
    place(notice.id, at: instant)
  }

  /// Sends a pending notice on: to the due schedule until due, to wait for its `after`, or into its
  /// lane's ready list.
  private mutating func place(_ id: Int, at instant: Instant) {
    guard let record = notices[id], record.place == .pending else { return }
    if record.dueAt > instant.now {
      due.add(id, dueAt: record.dueAt)
    } else if let after = record.notice.after, notices.contains(after) {
      due.wait(id, for: after)
    } else {
      makeReady(id, at: instant)
    }
  }

  /// Puts a due, unblocked notice in its lane's ready list (phase `queued`).
  private mutating func makeReady(_ id: Int, at instant: Instant) {
    guard let record = notices[id], record.place == .pending else { return }
    notices.modify(id) { $0.place = .ready }
    setPhase(.queued, opacity: 0, of: id, at: instant)
    lanes[record.lane.rawValue].add(
      id, urgency: record.notice.urgency, passesDoNotDisturb: record.passesDoNotDisturb)
  }

  /// What every input ends with: free slots given to ready notices, frames paced while something
  /// fades, stale schedule entries bounded, and the timer armed for the earliest deadline.
  private mutating func settle(at instant: Instant) {
    fillSlots()
    hub.pace(fading: !fading.isEmpty, now: instant.now)
    due.compact(live: phaseCounts[.waiting] ?? 0) { notices[$0]?.place == .pending }
    for lane in Lane.allCases {
      lanes[lane.rawValue].compact(live: phaseCounts[.queued] ?? 0) { notices[$0]?.place == .ready }
    }
    while let first = boundaries.first, notices[first.id]?.generation != first.generation { boundaries.pop() }
    boundaries.compact(live: notices.count) { notices[$0.id]?.generation == $0.generation }
    rearm()
  }

  /// Gives every free slot to the next ready notice of its lane; while suspended, only to notices
  /// that do-not-disturb lets through.
  private mutating func fillSlots() {
    guard doNotDisturb?.allow != .nothing else { return }
    for lane in Lane.allCases {
      let slots = lane == .notices ? settings.maxVisible : settings.progressMaxVisible
      while lanes[lane.rawValue].taken < slots {
        guard
          let id = lanes[lane.rawValue].next(
            passingOnly: suspended, isLive: { notices[$0]?.place == .ready })
        else { break }
        lanes[lane.rawValue].taken += 1
        notices.modify(id) { $0.place = .granted }
        effects.append(.run(id: id, lane: lane, urgency: notices[id]!.notice.urgency))
      }
    }
  }

  // MARK: - Inputs from the owner

  /// The lane's `OperationQueue` started the operation of notice `id`: it fades in from now.
  public mutating func started(_ id: Int, at instant: Instant) {
    advance(to: instant)
    defer { settle(at: instant) }
    guard let record = notices[id], record.place == .granted else { return }
    let away = idle?.idle == true
    notices.modify(id) { record in
      record.place = .running
      if away && record.idlePauses { record.holdLeftWhileAway = record.hold }
      record.timeline = record.initialTimeline
      record.startedAt = instant.now
      record.generation += 1
      record.notice.shown = instant.wall
    }
    indexDuplicate(id)
    step(id, at: instant)
  }

  /// Keeps shown notice `id` findable by its app, title and body, under its current text.
  private mutating func indexDuplicate(_ id: Int) {
    guard settings.stackDuplicates, let record = notices[id], record.notice.kind == .notice else { return }
    let key = DuplicateKey(record.notice)
    guard record.duplicateKey != key else { return }
    if let old = record.duplicateKey, duplicates[old] == id { duplicates.removeValue(forKey: old) }
    duplicates[key] = id
    notices.modify(id) { $0.duplicateKey = key }
  }

  /// The clock has reached the armed deadline: runs everything due by then.
  public mutating func tick(at instant: Instant) {
    armed = nil
    advance(to: instant)
    settle(at: instant)
  }

  /// Runs, in order of their instants, everything due by `instant`: due notices, the end of a
  /// hand's choice, the quiet hours beginning or ending, phase boundaries; then the frame tick.
  mutating func advance(to instant: Instant) {
    if !settings.doNotDisturb.quietHours.isEmpty,
      scheduleChangesAt == nil || abs(instant.wall - instant.now - scheduleOffset) > 1
    {
      readSchedule(at: instant)  // not read yet, or the wall clock was set
    }
    while true {
      let dueAt = due.earliest ?? .infinity
      let boundaryAt = boundaries.first?.at ?? .infinity
      let handEnds = handExpiresAt ?? .infinity
      let scheduleChanges = scheduleChangesAt ?? .infinity
      let earliest = min(dueAt, boundaryAt, handEnds, scheduleChanges)
      guard earliest <= instant.now else { break }
      if earliest == handEnds {
        hand = nil
        handExpiresAt = nil
        effects.append(.journal(.hand(nil)))
        readSchedule(at: instant)  // a resume lasted until the quiet hours' end: read them first
      } else if earliest == scheduleChanges {
        readSchedule(at: instant)
      } else if earliest == dueAt {
        if let id = due.popDue(by: instant.now) { place(id, at: instant) }
      } else {
        let boundary = boundaries.pop()!
        if notices[boundary.id]?.generation == boundary.generation { step(boundary.id, at: instant) }
      }
    }
    if let tick = hub.nextFrameTick, tick <= instant.now { sendFrames(at: instant) }
  }

  /// Reports the phase of shown notice `id` at this instant, and schedules its next boundary, or
  /// finishes it.
  private mutating func step(_ id: Int, at instant: Instant) {
    guard var record = notices[id], let timeline = record.timeline else { return }
    let elapsed = instant.now - record.startedAt
    let phase = timeline.phase(at: elapsed)
    if phase == .finished {
      finish(id, outcome: record.closing ?? record.expiryOutcome, at: instant)
      return
    }
    if phase == .fadingOut && record.closing == nil {
      record.closing = record.expiryOutcome
      record.closingIsExpiry = true
    }
    let next = timeline.nextBoundary(after: elapsed)
    if phase == .holding, next == nil, record.place == .running, record.notice.kind == .notice,
      !record.pausedByIdle, lanes[Lane.notices.rawValue].sticky < settings.maxSticky
    {
      // Held until ended: it keeps showing, out of its slot.
      record.place = .sticky
      lanes[Lane.notices.rawValue].taken -= 1
      lanes[Lane.notices.rawValue].sticky += 1
    }
    notices.modify(id) { $0 = record }
    if phase != record.notice.phase {
      setPhase(phase, opacity: timeline.opacity(at: elapsed), of: id, at: instant)
    }
    if let next {
      boundaries.push(Boundary(at: record.startedAt + next, id: id, generation: record.generation))
    }
  }

  /// Moves notice `id` to `phase`, keeping the counts and the fading set, and publishes it.
  private mutating func setPhase(_ phase: Phase, opacity: Double, of id: Int, at instant: Instant) {
    guard let old = notices[id]?.notice.phase else { return }
    notices.modify(id) { $0.notice.phase = phase }
    count(from: old, to: phase)
    if phase.isFading {
      fading.insert(id)
    } else {
      fading.remove(id)
    }
    effects.append(.publish(Event(kind: .phase, at: instant.wall, id: id, phase: phase, opacity: opacity)))
  }

  /// Journals and publishes notice `id` changed in place, after rescheduling it if shown.
  private mutating func changed(
    _ id: Int, at instant: Instant, kind: EventKind = .updated, activationToken: String? = nil
  ) {
    guard let record = notices[id] else { return }
    effects.append(.journal(.unfinished(record.notice)))
    effects.append(
      .publish(
        Event(
          kind: kind, at: instant.wall, id: id, notice: record.current(at: instant.now),
          activationToken: activationToken)))
    if record.isShown {
      indexDuplicate(id)  // its text may have changed
      step(id, at: instant)  // its timeline changed
    }
  }

  /// Moves notice `id` to history with `outcome`: its slot and operation go, what waited on it is
  /// freed and its waiters answered.
  private mutating func finish(_ id: Int, outcome: Outcome, at instant: Instant) {
    guard var record = notices.remove(id) else { return }
    count(from: record.notice.phase, to: nil)
    record.notice.phase = .finished
    record.notice.opacity = 0
    record.notice.outcome = outcome
    record.notice.finished = instant.wall
    let notice = record.notice
    fading.remove(id)
    if let key = record.duplicateKey, duplicates[key] == id { duplicates.removeValue(forKey: key) }
    if floodSummaries[notice.app ?? ""]?.id == id { floodSummaries.removeValue(forKey: notice.app ?? "") }
    if awaySummary?.id == id { awaySummary = nil }
    switch record.place {
    case .pending, .ready: break
    case .granted, .running:
      lanes[record.lane.rawValue].taken -= 1
      effects.append(.finishOperation(id: id))
    case .sticky:
      lanes[record.lane.rawValue].sticky -= 1
      effects.append(.finishOperation(id: id))
    }
    if let key = notice.key, keys[key] == id { keys.removeValue(forKey: key) }
    if notice.hints?.isTransient == true {
      // Transient: seen by its watchers and waiters, then forgotten, not kept in history.
      effects.append(.journal(.forgotten(id: id)))
    } else {
      history.append(notice)
      trimHistory()
      effects.append(.journal(.finished(notice)))
    }
    effects.append(.publish(Event(kind: .finished, at: instant.wall, id: id, notice: notice)))
    let waiters = hub.takeWaiters(of: id)
    if !waiters.isEmpty { effects.append(.answer(waiters: waiters, notice)) }
    for waiting in due.release(id) { makeReady(waiting, at: instant) }
  }

  private mutating func trimHistory() {
    for id in history.trim(to: settings.historySize) { effects.append(.journal(.forgotten(id: id))) }
  }

  private mutating func count(from old: Phase?, to new: Phase?) {
    if let old { phaseCounts[old, default: 0] -= 1 }
    if let new { phaseCounts[new, default: 0] += 1 }
  }

  /// Lists `arm` when the earliest deadline differs from the armed one.
  private mutating func rearm() {
    let earliest = min(
      due.earliest ?? .infinity, boundaries.first?.at ?? .infinity, handExpiresAt ?? .infinity,
      scheduleChangesAt ?? .infinity, hub.nextFrameTick ?? .infinity)
    let deadline = earliest.isFinite ? earliest : nil
    guard deadline != armed else { return }
    armed = deadline
    effects.append(.arm(deadline: deadline))
  }

  // MARK: - Changing notices

  private func unfinished(_ id: Int) throws(QueueError) -> NoticeRecord {
    if let record = notices[id] { return record }
    if history[id] != nil {
      throw .invalidArgument(field: "id", reason: "notice \(id) has already finished")
    }
    throw .noSuchNotice(id: id)
  }

  /// Changes an unfinished notice's title, body or value in place; a shown one restarts its hold.
  public mutating func update(_ request: UpdateParameters, at instant: Instant) throws(QueueError) -> Notice {
    try Admission.validate(title: request.title, body: request.body)
    advance(to: instant)
    defer { settle(at: instant) }
    _ = try unfinished(request.id)
    notices.modify(request.id) { record in
      if let title = request.title { record.notice.title = title }
      if let body = request.body { record.notice.body = body }
      if let value = request.value { record.notice.value = value }
      if record.notice.message == nil { _ = record.restartHold(at: instant.now) }
    }
    let notice = notices[request.id]!.current(at: instant.now)
    changed(request.id, at: instant)
    return notice
  }

  /// Ends a notice early and normally: a progress indicator shows `message`, holds it for `hold`
  /// (default `[Progress] EndHold=`) and fades out; a plain notice starts its fade-out now (or
  /// after `hold`). One not yet shown finishes at once, except a progress indicator with a message,
  /// which shows it when its turn comes. Ending a finished notice answers it unchanged.
  public mutating func end(_ request: EndParameters, at instant: Instant) throws(QueueError) -> Notice {
    if let message = request.message { try Admission.validate(title: nil, body: message, field: "message") }
    if let hold = request.hold { try Admission.validate(duration: hold, field: "hold") }
    advance(to: instant)
    defer { settle(at: instant) }
    if let finished = history[request.id] { return finished }
    let record = try unfinished(request.id)
    let isProgress = record.notice.kind == .progress
    let hold = request.hold ?? (isProgress ? settings.endHold : nil)
    notices.modify(request.id) { record in
      if let message = request.message { record.notice.message = message }
      record.hold = hold
    }
    if !record.isShown && !(isProgress && request.message != nil) {
      finish(request.id, outcome: .completed, at: instant)
      return history[request.id]!
    }
    notices.modify(request.id) { record in
      if record.isShown {
        _ = record.end(hold: hold, at: instant.now)
      } else if record.closing == nil || record.closingIsExpiry {
        record.closing = .completed  // it shows the message when its turn comes
        record.closingIsExpiry = false
      }
    }
    changed(request.id, at: instant)
    return notices[request.id]?.current(at: instant.now) ?? history[request.id]!
  }

  /// Cancels by id, by tag, or all: notices not shown finish at once, shown ones fade out from
  /// their opacity now (or vanish, with `now`). Answers the ids cancelled.
  public mutating func cancel(_ request: CancelParameters, at instant: Instant) throws(QueueError) -> [Int] {
    let chosen = [request.id != nil, request.tag != nil, request.all == true].filter { $0 }.count
    guard chosen == 1 else {
      throw .invalidArgument(field: "id", reason: "give exactly one of id, tag and all")
    }
    advance(to: instant)
    defer { settle(at: instant) }
    let ids: [Int]
    if let id = request.id {
      if history[id] != nil { return [] }
      _ = try unfinished(id)
      ids = [id]
    } else if let tag = request.tag {
      ids = notices.records.filter { $0.notice.tag == tag }.map(\.notice.id).sorted()
    } else {
      ids = notices.sortedIDs
    }
    for id in ids { close(id, .cancelled, immediately: request.now ?? false, at: instant) }
    return ids
  }

  /// Closes notice `id` with `outcome`: a shown one fades out (or vanishes), any other finishes.
  private mutating func close(_ id: Int, _ outcome: Outcome, immediately: Bool, at instant: Instant) {
    guard let record = notices[id] else { return }
    if record.isShown {
      if notices.modify(id, { $0.close(outcome, immediately: immediately, at: instant.now) }) == true {
        step(id, at: instant)
      }
    } else {
      finish(id, outcome: outcome, at: instant)
    }
  }

  /// The desk notice `id` was relayed to answered (DESIGN §10): it closes here with `outcome` (a
  /// shown one fades out), with the action chosen there. Answers whether it did: one already
  /// closing or finished keeps its own outcome, the first answer wins.
  public mutating func answer(_ id: Int, outcome: Outcome, invoked: String?, at instant: Instant) -> Bool {
    advance(to: instant)
    defer { settle(at: instant) }
    guard let record = notices[id], !record.isClosing else { return false }
    if let invoked { notices.modify(id) { $0.notice.invoked = invoked } }
    close(id, outcome, immediately: false, at: instant)
    return true
  }

  /// Chooses action `action` of a shown notice; it then fades out with outcome `completed` (a
  /// resident one stays).
  public mutating func invoke(_ request: InvokeParameters, at instant: Instant) throws(QueueError) -> Notice {
    advance(to: instant)
    defer { settle(at: instant) }
    let record = try unfinished(request.id)
    guard let actions = record.notice.actions, actions.contains(where: { $0.key == request.action }) else {
      throw .invalidArgument(
        field: "action", reason: "notice \(request.id) has no action '\(request.action)'")
    }
    guard record.isShown else {
      throw .invalidArgument(field: "id", reason: "notice \(request.id) is not visible")
    }
    notices.modify(request.id) { record in
      record.notice.invoked = request.action
      // A resident notice stays: the action is reported, and it lives on as it was.
      if record.notice.hints?.isResident != true { _ = record.end(hold: nil, at: instant.now) }
    }
    changed(request.id, at: instant, kind: .invoked, activationToken: request.activationToken)
    return notices[request.id]?.current(at: instant.now) ?? history[request.id]!
  }

  /// A person closes notice `id`, or every visible notice (`all`): each finishes at once, outcome
  /// `dismissed`. One already finished is left as it is. Answers the ids dismissed.
  public mutating func dismiss(_ request: DismissParameters, at instant: Instant) throws(QueueError) -> [Int]
  {
    guard (request.id != nil) != (request.all == true) else {
      throw .invalidArgument(field: "id", reason: "give exactly one of id and all")
    }
    advance(to: instant)
    defer { settle(at: instant) }
    let ids: [Int]
    if let id = request.id {
      if history[id] != nil { return [] }
      _ = try unfinished(id)
      ids = [id]
    } else {
      ids = notices.sortedIDs.filter { notices[$0]?.isShown == true }
    }
    for id in ids { close(id, .dismissed, immediately: true, at: instant) }
    return ids
  }

  // MARK: - Suspend and resume

  /// Holds every notice not yet shown but what `allow` lets through (default `[DoNotDisturb]
  /// Allow=`) until `resume`, or until `duration` seconds have passed. Quiet hours that end
  /// meanwhile do not end it.
  public mutating func suspend(
    for duration: Double?, allow: DoNotDisturbAllow? = nil, at instant: Instant
  ) throws(QueueError) {
    if let duration { try Admission.validate(duration: duration, field: "duration") }
    advance(to: instant)
    defer { settle(at: instant) }
    setHand(
      .suspended(allow: allow ?? settings.doNotDisturb.allow, until: duration.map { instant.wall + $0 }),
      at: instant)
  }

  /// Lets held notices show again, in order. Inside quiet hours this lasts until they end; outside,
  /// until the next suspend or quiet hours.
  public mutating func resume(at instant: Instant) {
    advance(to: instant)
    defer { settle(at: instant) }
    setHand(quietUntil.map { .resumed(until: $0) }, at: instant)
  }

  private mutating func setHand(_ choice: HandChoice?, at instant: Instant) {
    hand = choice
    handExpiresAt = choice?.until.map { instant.now + ($0 - instant.wall) }
    effects.append(.journal(.hand(choice)))
    refreshDoNotDisturb(at: instant, announce: true)
  }

  // MARK: - Idle

  /// What an idle source says (`[Idle] After=`): the person is away (`idle`) or back, told by
  /// `source` (or no source can tell, and why); `nil` without `[Idle] After=`. While away, shown
  /// notices stop counting down their hold and hold until the person is back; then each holds what
  /// was left of it.
  public mutating func setIdle(_ state: IdleState?, at instant: Instant) {
    advance(to: instant)
    defer { settle(at: instant) }
    let wasAway = idle?.idle == true
    idle = state
    let away = state?.idle == true
    guard away != wasAway else { return }
    let changing = notices.records.filter { $0.isShown && (away ? $0.idlePauses : $0.pausedByIdle) }
    for id in changing.map(\.notice.id) {
      notices.modify(id) { record in
        if away {
          record.pauseHold(at: instant.now)
        } else {
          record.resumeHold(at: instant.now)
        }
      }
      step(id, at: instant)
    }
  }

  /// Reads the quiet hours at this instant: whether they hold now and until when, or when they next
  /// begin.
  private mutating func readSchedule(at instant: Instant) {
    let quiet = settings.doNotDisturb.quietHours
    guard !quiet.isEmpty else {
      quietUntil = nil
      scheduleChangesAt = nil
      refreshDoNotDisturb(at: instant)
      return
    }
    // A hair past now: a boundary reached by the monotonic clock counts as passed.
    let wall = instant.wall + 0.001
    quietUntil = quiet.end(ofQuietAt: wall)
    let change = quietUntil ?? quiet.nextStart(after: wall)
    scheduleChangesAt = change.map { max(instant.now + ($0 - instant.wall), instant.now + 0.001) }
    scheduleOffset = instant.wall - instant.now
    refreshDoNotDisturb(at: instant)
  }

  /// Puts in force what the hand and the quiet hours say: a hand's suspend, else nothing after a
  /// hand's resume, else the quiet hours. A change is published (`suspended` carries why, what
  /// passes and until when); with `announce`, also when nothing changed, so that a `suspend` is
  /// always seen. Leaving do-not-disturb with `[DoNotDisturb] Summary=yes` folds what it held.
  private mutating func refreshDoNotDisturb(at instant: Instant, announce: Bool = false) {
    let now: DoNotDisturb? =
      switch hand {
      case .suspended(let allow, let until)?:
        DoNotDisturb(reason: until == nil ? .hand : .duration, allow: allow, until: until)
      case .resumed?: nil
      case nil:
        quietUntil.map { DoNotDisturb(reason: .schedule, allow: settings.doNotDisturb.allow, until: $0) }
      }
    guard now != doNotDisturb || announce else { return }
    let wasSuspended = suspended
    doNotDisturb = now
    if lanesSuspended != (now?.allow == .nothing) {
      lanesSuspended.toggle()
      effects.append(.suspendLanes(lanesSuspended))
    }
    if let now {
      effects.append(.publish(Event(kind: .suspended, at: instant.wall, suspended: true, doNotDisturb: now)))
    } else if wasSuspended || announce {
      effects.append(.publish(Event(kind: .resumed, at: instant.wall, suspended: false)))
    }
    if wasSuspended, now == nil, settings.doNotDisturb.summary { foldHeld(at: instant) }
  }

  /// Folds the plain notices do-not-disturb held back (critical ones still show by themselves)
  /// into one summary, when there are two or more: "12 notices while you were away".
  private mutating func foldHeld(at instant: Instant) {
    let held = notices.records.filter {
      $0.place == .ready && $0.notice.kind == .notice && $0.notice.urgency != .critical
    }.map(\.notice).sorted { $0.id < $1.id }
    guard held.count >= 2 else { return }
    let previous = awaySummary.flatMap { notices[$0.id]?.isClosing == false ? $0 : nil }
    let total = held.count + (previous?.count ?? 0)
    let title = "\(total) notices while you were away"
    var lines = held.prefix(5).map { notice in notice.app.map { "\($0): \(notice.title)" } ?? notice.title }
    if held.count > 5 { lines.append("…and \(held.count - 5) more") }
    let body = lines.joined(separator: "\n")
    guard let summary = summarize(previous?.id, title: title, body: body, app: "notifyd", at: instant) else {
      return
    }
    awaySummary = Summary(id: summary, count: total)
    for notice in held {
      notices.modify(notice.id) { $0.notice.foldedInto = summary }
      finish(notice.id, outcome: .folded, at: instant)
    }
  }

  /// Writes a summary notice: the unfinished one `id` changed in place (its hold restarts), or a new
  /// one. Answers its id, or `nil` when none could be made (the queue is full, or a rule suppresses
  /// it): the folded notices then name no summary.
  private mutating func summarize(
    _ id: Int?, title: String, body: String, app: String?, at instant: Instant
  ) -> Int? {
    if let id {
      notices.modify(id) { record in
        record.notice.title = title
        record.notice.body = body
        _ = record.restartHold(at: instant.now)
      }
      changed(id, at: instant)
      return id
    }
    let request = ShowParameters(title: title, body: body, app: app)
    let resolution = settings.resolve(
      app: app, tag: nil, title: title, urgency: nil, explicit: TimingOverrides())
    guard !resolution.suppressed, notices.count < settings.capacity else { return nil }
    let notice = Admission.notice(request, id: nextID, resolution: resolution, created: instant.wall)
    accept(notice, passes: resolution.passesDoNotDisturb, at: instant)
    return notice.id
  }

  // MARK: - Flood control

  /// Whether `app` may send one more notice now (`[Limits] PerApp=`): takes a token from its bucket.
  private mutating func admitsFlood(from app: String?, at now: Double) -> Bool {
    guard let limit = settings.perApp else { return true }
    var name = app ?? ""
    if buckets[name] == nil, buckets.count >= Self.maximumTrackedApps {
      buckets = buckets.filter { !$0.value.isFull(limit, at: now) }
      if buckets.count >= Self.maximumTrackedApps { name = "\u{0}overflow" }
    }
    return buckets[name, default: TokenBucket(limit, at: now)].take(limit, at: now)
  }

  /// The summary notice a notice titled `title` from `app`, past the app's limit, is folded into:
  /// "37 more from backup", with the newest folded title as its body, changed in place while
  /// unfinished.
  private mutating func floodSummary(folding title: String, from app: String?, at instant: Instant) -> Int? {
    let previous = floodSummaries[app ?? ""].flatMap { notices[$0.id]?.isClosing == false ? $0 : nil }
    let count = (previous?.count ?? 0) + 1
    let summaryTitle = "\(count) more from \(app ?? "an app without a name")"
    let id = summarize(previous?.id, title: summaryTitle, body: title, app: app, at: instant)
    floodSummaries[app ?? ""] = id.map { Summary(id: $0, count: count) }
    return id
  }

  // MARK: - Watchers and waiters

  /// A new watcher, handed a snapshot of every unfinished notice first; with `frames`, also a frame
  /// per fading notice every `interval` seconds while anything fades.
  public mutating func watch(frames: Bool, interval: Double, at instant: Instant) -> Int {
    advance(to: instant)
    defer { settle(at: instant) }
    let id = hub.addWatcher(frames: frames, interval: interval, now: instant.now)
    let snapshot = Event(
      kind: .snapshot, at: instant.wall, notices: unfinishedNotices(at: instant.now), suspended: suspended,
      doNotDisturb: doNotDisturb)
    effects.append(.snapshot(snapshot, watcher: id))
    return id
  }

  public mutating func unwatch(_ watcher: Int, at instant: Instant) {
    hub.removeWatcher(watcher)
    settle(at: instant)
  }

  /// A caller waiting for notice `id` to finish: answered at once (`answer`) if it has.
  public mutating func wait(for id: Int) throws(QueueError) -> Int {
    if let notice = history[id] {
      let waiter = hub.reserveWaiter()
      effects.append(.answer(waiters: [waiter], notice))
      return waiter
    }
    guard notices.contains(id) else { throw .noSuchNotice(id: id) }
    return hub.addWaiter(for: id)
  }

  public mutating func forget(waiter: Int, of id: Int) {
    hub.removeWaiter(waiter, of: id)
  }

  private mutating func sendFrames(at instant: Instant) {
    guard !fading.isEmpty else { return }
    let watchers = hub.tick(at: instant.now)
    guard !watchers.isEmpty else { return }
    let frames = fading.sorted().compactMap { id -> Event? in
      guard let record = notices[id] else { return nil }
      let (phase, opacity) = record.appearance(at: instant.now)
      return Event(kind: .frame, at: instant.wall, id: id, phase: phase, opacity: opacity)
    }
    effects.append(.frames(frames, watchers: watchers))
  }

  // MARK: - Reading

  /// A notice by id, unfinished (as it is at `now`) or still in history.
  public func notice(_ id: Int, at now: Double) -> Notice? {
    notices[id]?.current(at: now) ?? history[id]
  }

  public func isUnfinished(_ id: Int) -> Bool { notices.contains(id) }

  /// Every unfinished notice as it is at `now`, oldest first.
  public func unfinishedNotices(at now: Double) -> [Notice] {
    notices.sortedIDs.map { notices[$0]!.current(at: now) }
  }

  /// Finished notices, newest first, filtered by app, outcome and finish time.
  public func finishedNotices(_ request: HistoryParameters) -> [Notice] {
    var result: [Notice] = []
    let limit = request.limit ?? Int.max
    for notice in history.newestFirst {
      guard result.count < limit else { break }
      if let app = request.app, notice.app != app { continue }
      if let outcome = request.outcome, notice.outcome != outcome { continue }
      if let since = request.since, (notice.finished ?? 0) < since { continue }
      if let foldedInto = request.foldedInto, notice.foldedInto != foldedInto { continue }
      result.append(notice)
    }
    return result
  }

  /// Counts of notices in each state, and do-not-disturb in force.
  public var status: StatusReply {
    let visible = [Phase.fadingIn, .holding, .fadingOut].reduce(0) { $0 + (phaseCounts[$1] ?? 0) }
    var resumedUntil: Double?
    if case .resumed(let until)? = hand { resumedUntil = until }
    return StatusReply(
      version: Interface.version, suspended: suspended, suspendedUntil: suspendedUntil,
      doNotDisturb: doNotDisturb, resumedUntil: resumedUntil, idle: idle, waiting: phaseCounts[.waiting] ?? 0,
      queued: phaseCounts[.queued] ?? 0, visible: visible, finished: history.count)
  }

  /// `status` once the state has caught up with `instant`.
  public mutating func status(at instant: Instant) -> StatusReply {
    advance(to: instant)
    settle(at: instant)
    return status
  }

  /// The notices do-not-disturb holds back now, oldest first: due and free, waiting only for it.
  public func heldNotices() -> [Notice] {
    guard let doNotDisturb else { return [] }
    return notices.records.filter { record in
      record.place == .ready && (doNotDisturb.allow == .nothing || !record.passesDoNotDisturb)
    }.map(\.notice).sorted { $0.id < $1.id }
  }

  /// How many `Wait` callers and watchers the machine holds.
  public var subscriberCounts: (waiters: Int, watchers: Int) { (hub.waitingCount, hub.watcherCount) }

  /// Whether frames are being paced; with nothing fading or nobody asking for frames, not.
  public var isPacingFrames: Bool { hub.nextFrameTick != nil }

  /// Notices of each lane holding a slot (granted or shown), and those shown out of their slot.
  public func occupancy(of lane: Lane) -> (slots: Int, sticky: Int) {
    (lanes[lane.rawValue].taken, lanes[lane.rawValue].sticky)
  }

  /// Entries in the due schedule, the lanes' ready lists and the boundaries, stale ones included.
  public var pendingScheduleSize: Int { due.count + lanes.reduce(0) { $0 + $1.count } + boundaries.count }

  /// Apps whose token buckets flood control keeps now (`maximumTrackedApps`, and one they share).
  public var trackedApps: Int { buckets.count }

  /// Notices given an operation that their lane has not started yet.
  public var grantedCount: Int { notices.records.reduce(0) { $0 + ($1.place == .granted ? 1 : 0) } }
}

/// One app's allowance under `[Limits] PerApp=`: up to `count` tokens, refilled at `count` per
/// `period`; each notice takes one.
struct TokenBucket {
  var tokens: Double
  var at: Double

  init(_ limit: FloodLimit, at now: Double) {
    tokens = Double(limit.count)
    at = now
  }

  private func tokens(_ limit: FloodLimit, at now: Double) -> Double {
    min(Double(limit.count), tokens + max(0, now - at) * Double(limit.count) / limit.period)
  }

  func isFull(_ limit: FloodLimit, at now: Double) -> Bool { tokens(limit, at: now) >= Double(limit.count) }

  /// Takes a token if there is one.
  mutating func take(_ limit: FloodLimit, at now: Double) -> Bool {
    tokens = tokens(limit, at: now)
    at = now
    guard tokens >= 1 else { return false }
    tokens -= 1
    return true
  }
}
