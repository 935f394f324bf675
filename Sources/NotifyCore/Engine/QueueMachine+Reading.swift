import NotifyProtocol

// Watchers, waiters and frames, and what the machine answers of its state.
extension QueueMachine {
  /// A new watcher, handed a snapshot of every unfinished notice first; with `frames`, also a frame
  /// per fading notice every `interval` seconds while anything fades.
  public mutating func watch(frames: Bool, interval: Double, at instant: Instant) -> Int {
    advance(to: instant)
    defer { settle(at: instant) }
    let id = hub.addWatcher(frames: frames, interval: interval, now: instant.now)
    let snapshot = Event(
      kind: .snapshot, at: instant.wall, notices: unfinishedNotices(at: instant.now), suspended: suspended,
      doNotDisturb: doNotDisturb, unread: history.unreadCount)
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

  mutating func sendFrames(at instant: Instant) {
    guard !boundaries.fading.isEmpty else { return }
    let watchers = hub.tick(at: instant.now)
    guard !watchers.isEmpty else { return }
    let frames = boundaries.fading.sorted().compactMap { id -> Event? in
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

  /// The rules unfinished notice `id` matches now, in the file's order: by its app, tag, title and
  /// hints as they are (an update may bring it under another rule), and by the urgency its client
  /// asked for, as when it was accepted; none for a notice not unfinished.
  public func matchingRules(of id: Int) -> [Rule] {
    guard let record = notices[id] else { return [] }
    let notice = record.notice
    return settings.matchingRules(
      app: notice.app, tag: notice.tag, title: notice.title,
      urgency: record.requestedUrgency ?? notice.urgency,
      hints: notice.hints)
  }

  /// What the popups need of shown notice `id` (`Presentation`); `nil` for one not shown (its rules
  /// are matched only once it shows: a flood of waiting notices costs no matching).
  public func presentation(of id: Int) -> Presentation? {
    guard let record = notices[id], let timeline = record.timeline else { return nil }
    return Presentation(
      rules: matchingRules(of: id), fullscreen: record.gates.fullscreen, timeline: timeline,
      startedAt: record.startedAt)
  }

  /// Whether changes of presentation are noted (`takePresentationChanges()`): while someone is told
  /// of them. Turned on, every shown notice counts as changed.
  public mutating func notePresentations(_ on: Bool) { notices.notePresentations(on) }

  /// The unfinished notices whose presentation changed since the last call (with
  /// `notePresentations`): shown, or its timeline rewritten, or its text changed while shown.
  public mutating func takePresentationChanges() -> Set<Int> { notices.takePresentationChanges() }

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
      if let unread = request.unread, (notice.unread == true) != unread { continue }
      result.append(notice)
    }
    return result
  }

  /// Counts of notices in each state (snoozed ones are among the waiting), and do-not-disturb in
  /// force.
  public var status: StatusReply {
    let visible = [Phase.fadingIn, .holding, .fadingOut].reduce(0) { $0 + (phaseCounts[$1] ?? 0) }
    var resumedUntil: Double?
    if case .resumed(let until)? = hand { resumedUntil = until }
    let snoozes = snoozeSummary
    return StatusReply(
      version: Interface.version, suspended: suspended, suspendedUntil: suspendedUntil,
      doNotDisturb: doNotDisturb, resumedUntil: resumedUntil, idle: idle, fullscreen: fullscreenStatus,
      waiting: phaseCounts[.waiting] ?? 0, queued: phaseCounts[.queued] ?? 0, visible: visible,
      finished: history.count, unread: history.unreadCount, snoozed: snoozes.count, snoozeEnds: snoozes.next)
  }

  /// While the window with the keyboard is fullscreen: how many ready notices it holds back (that
  /// do-not-disturb would let through; some may wait for a slot too), and how many shown ones it
  /// pushed off the screen.
  var fullscreenStatus: FullscreenState? {
    guard fullscreen else { return nil }
    let nothingPasses = doNotDisturb?.allow == .nothing
    var delayed = 0
    var pushedBack = 0
    for record in notices.records where record.gates.fullscreen != .show {
      if record.place == .ready && !nothingPasses
        && record.gates.admit(suspended: suspended, fullscreen: false)
      {
        delayed += 1
      }
      if record.isShown && record.gates.fullscreen == .pushback { pushedBack += 1 }
    }
    return FullscreenState(delayed: delayed, pushedBack: pushedBack)
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

  /// Whether unfinished notice `id` shows out of its lane's slots, in the sticky room.
  public func isOutOfSlot(_ id: Int) -> Bool { notices[id]?.place == .sticky }

  /// Entries in the due schedule, the lanes' ready lists and the boundaries, stale ones included.
  public var pendingScheduleSize: Int { due.count + lanes.reduce(0) { $0 + $1.count } + boundaries.count }

  /// Apps whose token buckets flood control keeps now (`maximumTrackedApps`, and one they share).
  public var trackedApps: Int { flood.trackedApps }

  /// Notices given an operation that their lane has not started yet.
  public var grantedCount: Int { notices.records.reduce(0) { $0 + ($1.place == .granted ? 1 : 0) } }
}
