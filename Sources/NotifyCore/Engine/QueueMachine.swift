import NotifyProtocol
import NotifySupport

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
/// it holds (up to `[Queue] MaxSticky=` of them; one that found no room leaves when room comes
/// free), so it blocks nobody.
///
/// Each rule is a part with its own state and tests: `Admission` (validate, resolve, build),
/// `DueSchedule` (due times, `after`), `LaneSchedule` (ready lists, slots), `BoundarySchedule`
/// (phase boundaries, fading), `EventHub` (watchers, waiters, frames), `DoNotDisturbRule` (the hand
/// and the quiet hours), `FloodControl` and `Summaries` (folding), `DuplicateIndex`. The machine
/// orders them in time and joins them; its requests are in `QueueMachine+Accepting`,
/// `+Changing`, `+DoNotDisturb` and `+Reading`.
///
/// Before anything else, every input brings the state up to its instant (`advance(to:)`): a
/// boundary whose timer has not fired yet is not missed by a request that comes first.
public struct QueueMachine {
  public internal(set) var settings: QueueSettings
  var notices = NoticeTable()
  var history = NoticeHistory()
  var due = DueSchedule()
  var lanes = [LaneSchedule](repeating: LaneSchedule(), count: Lane.allCases.count)
  var boundaries = BoundarySchedule()
  var hub = EventHub()
  var dnd = DoNotDisturbRule()
  var flood = FloodControl()
  var summaries = Summaries()
  var duplicates = DuplicateIndex()
  /// Unfinished notices by key.
  var keys: [String: Int] = [:]
  /// Notices held until ended that keep their slot for want of sticky room (`[Queue] MaxSticky=`):
  /// they leave it as soon as there is room (`leaveSlotsForStickyRoom`).
  var heldInSlots: Set<Int> = []
  /// Snoozed notices (`snooze`), parked or fading out, and the wall-clock time each comes back.
  var snoozed: [Int: Double] = [:]
  public internal(set) var nextID = 1
  /// Whether the person is away, as a source says (`[Idle] After=`); `nil` with none.
  public internal(set) var idle: IdleState?
  /// What shows visible notices to a person now (`setPresenter`).
  public internal(set) var presenters: Set<Presenter> = []
  /// The notice whose card the pointer is over (`[Display] HoverHolds=`).
  public internal(set) var pointerOver: Int?
  /// The notice whose reply field has the keyboard.
  public internal(set) var typingIn: Int?
  /// Whether the window with the keyboard is fullscreen (`setFullscreen`).
  public internal(set) var fullscreen = false
  /// How many unfinished notices are in each phase, kept as they move.
  var phaseCounts: [Phase: Int] = [:]
  /// The deadline the owner's timer is armed for.
  var armed: Double?
  /// What the owner must carry out, in order.
  public internal(set) var effects: [QueueEffect] = []

  /// The most apps whose token buckets flood control keeps (`FloodControl`).
  public static let maximumTrackedApps = FloodControl.maximumTrackedApps

  public init(settings: QueueSettings = QueueSettings()) {
    self.settings = settings
  }

  /// What a person last said about do-not-disturb; quiet hours do not undo it.
  public var hand: HandChoice? { dnd.hand }
  /// Do-not-disturb in force: by hand, or by the quiet hours.
  public var doNotDisturb: DoNotDisturb? { dnd.inForce }
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
    if settings.perApp == nil { flood.forgetAll() }
    if !settings.stackDuplicates { duplicates.removeAll() }
    carryOut(dnd.readSchedule(settings.doNotDisturb, at: instant), at: instant)
  }

  /// The width of a lane's `OperationQueue`: its slots, and for notices the sticky ones beside them.
  public func laneWidth(_ lane: Lane) -> Int {
    lane == .notices ? settings.maxVisible + settings.maxSticky : settings.progressMaxVisible
  }

  /// Brings back the queue a journal kept: history, the next id, the suspended state (with its
  /// timed resume), then the unfinished notices with their absolute due times, in the order they
  /// were accepted; one that was shown starts its fade-in again; a snoozed one comes back at its
  /// wall-clock time (at once, if that passed while the daemon was not running).
  public mutating func restore(_ saved: JournalState, at instant: Instant) {
    defer { settle(at: instant) }
    nextID = max(nextID, saved.nextID)
    for notice in saved.history { history.append(notice) }
    trimHistory()
    effects += dnd.restore(saved.hand, at: instant)
    carryOut(dnd.readSchedule(settings.doNotDisturb, at: instant), at: instant)
    var restored: [Int] = []
    for var notice in saved.unfinished {
      notice.phase = .waiting
      notice.opacity = 0
      let dueWall =
        notice.snoozedUntil ?? (notice.created + notice.delay + settings.answerDelay(of: notice))
      var record = NoticeRecord(
        notice: notice, dueAt: instant.now + max(0, dueWall - instant.wall),
        hold: Admission.hold(of: notice, settings))
      if let until = notice.snoozedUntil { snoozed[notice.id] = until }
      if notice.message != nil { record.closing = .completed }  // ended before it was shown
      record.gates = settings.gates(of: notice)
      notices.insert(record)
      count(from: nil, to: .waiting)
      if let key = notice.key { keys[key] = notice.id }
      nextID = max(nextID, notice.id + 1)
      restored.append(notice.id)
    }
    for id in restored { place(id, at: instant) }
  }

  // MARK: - A notice's way to the screen

  /// Sends a pending notice on: to the due schedule until due, to wait for its `after`, or into its
  /// lane's ready list.
  mutating func place(_ id: Int, at instant: Instant) {
    guard let record = notices[id], record.place == .pending else { return }
    if record.dueAt > instant.now {
      due.add(id, dueAt: record.dueAt)
      return
    }
    if record.notice.snoozedUntil != nil { wake(id, at: instant) }
    if let after = record.notice.after, notices.contains(after) {
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
      id, app: record.notice.app, urgency: record.notice.urgency, gates: record.gates)
  }

  /// What every input ends with: free slots given to ready notices, frames paced while something
  /// fades, stale schedule entries bounded, and the timer armed for the earliest deadline.
  mutating func settle(at instant: Instant) {
    leaveSlotsForStickyRoom(at: instant)
    fillSlots()
    hub.pace(fading: !boundaries.fading.isEmpty, now: instant.now)
    due.compact(live: phaseCounts[.waiting] ?? 0) { id, dueAt in
      notices[id].map { $0.place == .pending && $0.dueAt == dueAt } ?? false
    }
    for lane in Lane.allCases {
      lanes[lane.rawValue].compact(live: phaseCounts[.queued] ?? 0) { notices[$0]?.place == .ready }
    }
    boundaries.compact(live: notices.count) { notices[$0]?.generation }
    rearm()
  }

  /// Sticky room that came free (a sticky notice finished, `[Queue] MaxSticky=` grew) goes to the
  /// notices held until ended that kept their slot, oldest first: their slots go to those waiting.
  private mutating func leaveSlotsForStickyRoom(at instant: Instant) {
    while lanes[Lane.notices.rawValue].sticky < settings.maxSticky, let id = heldInSlots.min() {
      heldInSlots.remove(id)
      guard var record = notices[id], record.holdsForever(at: instant.now) else { continue }
      leaveSlot(&record)
      notices.modify(id) { $0 = record }
    }
  }

  /// Shown notice `record`, held until ended, keeps showing out of its slot.
  private mutating func leaveSlot(_ record: inout NoticeRecord) {
    record.place = .sticky
    lanes[Lane.notices.rawValue].taken -= 1
    lanes[Lane.notices.rawValue].sticky += 1
  }

  /// Gives every free slot to the next ready notice of its lane; while suspended, only to notices
  /// that do-not-disturb lets through, and under a fullscreen window only to those that show there.
  private mutating func fillSlots() {
    guard doNotDisturb?.allow != .nothing else { return }
    let suspended = suspended
    let fullscreen = fullscreen
    for lane in Lane.allCases {
      let slots = lane == .notices ? settings.maxVisible : settings.progressMaxVisible
      while lanes[lane.rawValue].taken < slots {
        guard
          let id = lanes[lane.rawValue].next(
            admitting: { $0.admit(suspended: suspended, fullscreen: fullscreen) },
            isLive: { notices[$0]?.place == .ready })
        else { break }
        lanes[lane.rawValue].taken += 1
        notices.modify(id) { $0.place = .granted }
        effects.append(.run(id: id, lane: lane, urgency: notices[id]!.notice.urgency))
      }
    }
  }

  /// The lane's `OperationQueue` started the operation of notice `id`: it fades in from now.
  public mutating func started(_ id: Int, at instant: Instant) {
    advance(to: instant)
    defer { settle(at: instant) }
    guard let record = notices[id], record.place == .granted else { return }
    let away = idle?.idle == true
    let seen = presenting
    let pushedBack = pushesBack(record.gates)
    notices.modify(id) { record in
      record.place = .running
      if away && record.idlePauses {
        record.pauses.insert(.away)
        record.holdLeftWhilePaused = record.hold
      }
      if pushedBack && record.hold != nil && !record.isClosing {
        record.pauses.insert(.fullscreen)
        record.holdLeftWhilePaused = record.hold
      }
      record.timeline = record.initialTimeline
      record.startedAt = instant.now
      record.reached = 0
      record.generation += 1
      record.notice.shown = instant.wall
      record.seen = seen && !pushedBack
    }
    indexDuplicate(id)
    step(id, at: instant)
  }

  /// Keeps shown notice `id` findable by its app, title and body, under its current text.
  mutating func indexDuplicate(_ id: Int) {
    guard settings.stackDuplicates, let record = notices[id], record.notice.kind == .notice else { return }
    let key = DuplicateKey(record.notice)
    guard record.duplicateKey != key else { return }
    duplicates.index(id, under: key, replacing: record.duplicateKey)
    notices.modify(id) { $0.duplicateKey = key }
  }

  /// The clock has reached the armed deadline: runs everything due by then.
  public mutating func tick(at instant: Instant) {
    armed = nil
    advance(to: instant)
    settle(at: instant)
  }

  /// Runs, in order of their instants, everything due by `instant`: due notices, do-not-disturb
  /// changing by itself (the hand's choice running out, the quiet hours beginning or ending), phase
  /// boundaries; then the frame tick.
  mutating func advance(to instant: Instant) {
    if dnd.needsReading(settings.doNotDisturb, at: instant) {
      carryOut(dnd.readSchedule(settings.doNotDisturb, at: instant), at: instant)
    }
    while true {
      let dueAt = due.earliest ?? .infinity
      let boundaryAt = boundaries.earliest ?? .infinity
      let dndChanges = dnd.nextChange ?? .infinity
      let earliest = min(dueAt, boundaryAt, dndChanges)
      guard earliest <= instant.now else { break }
      if earliest == dndChanges {
        carryOut(dnd.reachChange(settings.doNotDisturb, at: instant), at: instant)
      } else if earliest == dueAt {
        // An entry whose notice is due at another time now (its snooze moved) is skipped.
        if let (id, at) = due.popDue(by: instant.now), notices[id]?.dueAt == at { place(id, at: instant) }
      } else if let (id, elapsed) = boundaries.popDue(
        by: instant.now, generation: { notices[$0]?.generation })
      {
        notices.modify(id) { $0.reached = max($0.reached, elapsed) }
        step(id, at: instant)
      }
    }
    if let tick = hub.nextFrameTick, tick <= instant.now { sendFrames(at: instant) }
  }

  /// Reports the phase of shown notice `id` at this instant, and schedules its next boundary, or
  /// finishes it.
  mutating func step(_ id: Int, at instant: Instant) {
    guard var record = notices[id], let timeline = record.timeline else { return }
    let elapsed = record.elapsed(at: instant.now)
    let phase = timeline.phase(at: elapsed)
    if phase == .finished {
      if record.notice.snoozedUntil != nil && !record.isClosing {
        park(id, at: instant)
      } else {
        finish(id, outcome: record.closing ?? record.expiryOutcome, at: instant)
      }
      return
    }
    if phase == .fadingOut && record.closing == nil && record.notice.snoozedUntil == nil {
      record.closing = record.expiryOutcome
      record.closingIsExpiry = true
    }
    let next = timeline.nextBoundary(after: elapsed)
    if record.holdsForever(at: instant.now) {
      // Held until ended: it keeps showing, out of its slot, once there is sticky room (and none
      // that held before it is still waiting for room).
      if lanes[Lane.notices.rawValue].sticky < settings.maxSticky && heldInSlots.isEmpty {
        leaveSlot(&record)
      } else {
        heldInSlots.insert(id)
      }
    }
    notices.modify(id) { $0 = record }
    if phase != record.notice.phase {
      setPhase(phase, opacity: timeline.opacity(at: elapsed), of: id, at: instant)
    }
    if let next {
      boundaries.add(id, at: record.startedAt + next, elapsed: next, generation: record.generation)
    }
  }

  /// Moves notice `id` to `phase`, keeping the counts and the fading set, and publishes it.
  mutating func setPhase(_ phase: Phase, opacity: Double, of id: Int, at instant: Instant) {
    guard let old = notices[id]?.notice.phase else { return }
    notices.modify(id) { $0.notice.phase = phase }
    count(from: old, to: phase)
    boundaries.setFading(id, phase.isFading)
    effects.append(.publish(Event(kind: .phase, at: instant.wall, id: id, phase: phase, opacity: opacity)))
  }

  /// Journals and publishes notice `id` changed in place, after rescheduling it if shown.
  mutating func changed(
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
      notices.notePresentationChanged(id)  // the rules it matches, by its text
      indexDuplicate(id)  // its text may have changed
      step(id, at: instant)  // its timeline changed
    }
  }

  /// Moves notice `id` to history with `outcome`: its slot and operation go, what waited on it is
  /// freed and its waiters answered.
  mutating func finish(_ id: Int, outcome: Outcome, at instant: Instant) {
    guard var record = notices.remove(id) else { return }
    heldInSlots.remove(id)
    count(from: record.notice.phase, to: nil)
    record.notice.phase = .finished
    record.notice.opacity = 0
    record.notice.outcome = outcome
    record.notice.finished = instant.wall
    record.notice.snoozedUntil = nil
    snoozed.removeValue(forKey: id)
    snoozed.releaseSpareCapacity()
    // Transient notices are not kept, so not counted as unread either.
    if Self.isUnread(record, finishing: outcome), record.notice.hints?.isTransient != true {
      record.notice.unread = true
    }
    let notice = record.notice
    boundaries.setFading(id, false)
    duplicates.remove(id, under: record.duplicateKey)
    summaries.finished(id, app: notice.app)
    releaseSlot(of: record)
    if let key = notice.key, keys[key] == id { keys.removeValue(forKey: key) }
    keys.releaseSpareCapacity()
    if notice.hints?.isTransient == true {
      // Transient: seen by its watchers and waiters, then forgotten, not kept in history.
      effects.append(.journal(.forgotten(id: id)))
    } else {
      history.append(notice)
      trimHistory()
      effects.append(.journal(.finished(notice)))
    }
    effects.append(
      .publish(
        Event(
          kind: .finished, at: instant.wall, id: id, notice: notice,
          unread: notice.unread == true ? history.unreadCount : nil)))
    let waiters = hub.takeWaiters(of: id)
    if !waiters.isEmpty { effects.append(.answer(waiters: waiters, notice)) }
    // One snoozed meanwhile goes on its way when its snooze ends (`place`).
    for waiting in due.release(id) where notices[waiting]?.notice.snoozedUntil == nil {
      makeReady(waiting, at: instant)
    }
  }

  /// Notice `record` leaves the screen for good or for a while (finished, or parked for its snooze):
  /// the slot or sticky room it held comes free, and its operation finishes.
  mutating func releaseSlot(of record: NoticeRecord) {
    let id = record.notice.id
    switch record.place {
    case .pending, .ready: break
    case .granted, .running:
      lanes[record.lane.rawValue].taken -= 1
      effects.append(.finishOperation(id: id))
    case .sticky:
      lanes[record.lane.rawValue].sticky -= 1
      effects.append(.finishOperation(id: id))
    }
  }

  private mutating func trimHistory() {
    for id in history.trim(to: settings.historySize) { effects.append(.journal(.forgotten(id: id))) }
  }

  mutating func count(from old: Phase?, to new: Phase?) {
    if let old { phaseCounts[old, default: 0] -= 1 }
    if let new { phaseCounts[new, default: 0] += 1 }
  }

  /// Lists `arm` when the earliest deadline differs from the armed one.
  private mutating func rearm() {
    let earliest = min(
      due.earliest ?? .infinity, boundaries.earliest ?? .infinity, dnd.nextChange ?? .infinity,
      hub.nextFrameTick ?? .infinity)
    let deadline = earliest.isFinite ? earliest : nil
    guard deadline != armed else { return }
    armed = deadline
    effects.append(.arm(deadline: deadline))
  }

  /// Lists what do-not-disturb changing asks, and folds what it held when it ended with a summary.
  mutating func carryOut(_ change: DoNotDisturbRule.Change, at instant: Instant) {
    effects += change.effects
    if change.foldHeld { foldHeld(at: instant) }
  }
}
