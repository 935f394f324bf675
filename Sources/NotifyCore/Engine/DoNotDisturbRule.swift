import NotifyProtocol

/// Whether do-not-disturb holds now, and why (DESIGN §11): a person's suspend holds until they
/// resume or its time is up, whatever the quiet hours say; a resume inside quiet hours lasts until
/// they end; with no choice of a person's in force, the quiet hours hold.
///
/// The rule knows when it next changes by itself (`nextChange`: the hand's choice runs out, the
/// quiet hours begin or end); the machine reaches that instant in order with everything else it
/// schedules, and carries out the `Change` each step answers.
struct DoNotDisturbRule {
  /// What a person last said; the quiet hours do not undo it.
  private(set) var hand: HandChoice?
  /// Monotonic instant the hand's choice runs out: the end of a timed suspend, or of the quiet hours
  /// a resume was made in.
  private var handExpiresAt: Double?
  /// Wall-clock end of the quiet hours in force now.
  private(set) var quietUntil: Double?
  /// Monotonic instant the quiet hours next begin or end; `nil` with no schedule.
  private var scheduleChangesAt: Double?
  /// Wall-clock minus monotonic time when the schedule was last read: a step of the wall clock makes
  /// it read again.
  private var scheduleOffset = Double.nan
  /// Do-not-disturb in force: by hand, or by the quiet hours.
  private(set) var inForce: DoNotDisturb?
  /// Whether the lanes' `OperationQueue`s are suspended: while nothing may pass.
  private(set) var lanesSuspended = false

  /// What a step asks of the machine: effects to list in order (the journal, the lanes, the
  /// `suspended` or `resumed` event), and whether what do-not-disturb held is to be folded into a
  /// summary now (it ended, with `[DoNotDisturb] Summary=yes`).
  struct Change: Equatable {
    var effects: [QueueEffect] = []
    var foldHeld = false
  }

  /// The earliest instant the rule changes by itself, if it does.
  var nextChange: Double? {
    switch (handExpiresAt, scheduleChangesAt) {
    case (let hand?, let schedule?): min(hand, schedule)
    case (let hand?, nil): hand
    case (nil, let schedule?): schedule
    case (nil, nil): nil
    }
  }

  /// Whether the quiet hours must be read before anything else happens at `instant`: they were
  /// never read, or the wall clock was set by more than a second since.
  func needsReading(_ settings: DoNotDisturbSettings, at instant: Instant) -> Bool {
    !settings.quietHours.isEmpty
      && (scheduleChangesAt == nil || abs(instant.wall - instant.now - scheduleOffset) > 1)
  }

  /// A choice a journal kept: in force again, unless its time has passed (the journal then forgets
  /// it). Read the schedule after.
  mutating func restore(_ saved: HandChoice?, at instant: Instant) -> [QueueEffect] {
    guard let saved else { return [] }
    guard saved.until.map({ $0 > instant.wall }) ?? true else { return [.journal(.hand(nil))] }
    hand = saved
    handExpiresAt = saved.until.map { instant.now + ($0 - instant.wall) }
    return []
  }

  /// A person suspends: everything not yet shown is held but what `allow` lets through, until they
  /// resume or until `until` (wall clock).
  mutating func suspend(
    allow: DoNotDisturbAllow, until: Double?, _ settings: DoNotDisturbSettings, at instant: Instant
  )
    -> Change
  {
    choose(.suspended(allow: allow, until: until), settings, at: instant)
  }

  /// A person resumes: inside quiet hours until they end, outside until the next suspend or quiet
  /// hours.
  mutating func resume(_ settings: DoNotDisturbSettings, at instant: Instant) -> Change {
    choose(quietUntil.map { .resumed(until: $0) }, settings, at: instant)
  }

  /// Reaches `nextChange`, which the clock has passed: the hand's choice runs out (and the quiet
  /// hours are read first, since a resume lasted until their end), or the quiet hours begin or end.
  mutating func reachChange(_ settings: DoNotDisturbSettings, at instant: Instant) -> Change {
    guard let handExpiresAt, handExpiresAt == nextChange else { return readSchedule(settings, at: instant) }
    hand = nil
    self.handExpiresAt = nil
    var change = readSchedule(settings, at: instant)
    change.effects.insert(.journal(.hand(nil)), at: 0)
    return change
  }

  /// Reads the quiet hours at `instant`: whether they hold now and until when, or when they next
  /// begin.
  mutating func readSchedule(_ settings: DoNotDisturbSettings, at instant: Instant) -> Change {
    let quiet = settings.quietHours
    guard !quiet.isEmpty else {
      quietUntil = nil
      scheduleChangesAt = nil
      return refresh(settings, at: instant)
    }
    // A hair past now: a boundary reached by the monotonic clock counts as passed.
    let wall = instant.wall + 0.001
    quietUntil = quiet.end(ofQuietAt: wall)
    let change = quietUntil ?? quiet.nextStart(after: wall)
    scheduleChangesAt = change.map { max(instant.now + ($0 - instant.wall), instant.now + 0.001) }
    scheduleOffset = instant.wall - instant.now
    return refresh(settings, at: instant)
  }

  private mutating func choose(_ choice: HandChoice?, _ settings: DoNotDisturbSettings, at instant: Instant)
    -> Change
  {
    hand = choice
    handExpiresAt = choice?.until.map { instant.now + ($0 - instant.wall) }
    var change = refresh(settings, at: instant, announce: true)
    change.effects.insert(.journal(.hand(choice)), at: 0)
    return change
  }

  /// Puts in force what the hand and the quiet hours say: a hand's suspend, else nothing after a
  /// hand's resume, else the quiet hours. A change is published (`suspended` carries why, what
  /// passes and until when); with `announce`, also when nothing changed, so that a `suspend` is
  /// always seen.
  private mutating func refresh(_ settings: DoNotDisturbSettings, at instant: Instant, announce: Bool = false)
    -> Change
  {
    let now: DoNotDisturb? =
      switch hand {
      case .suspended(let allow, let until)?:
        DoNotDisturb(reason: until == nil ? .hand : .duration, allow: allow, until: until)
      case .resumed?: nil
      case nil: quietUntil.map { DoNotDisturb(reason: .schedule, allow: settings.allow, until: $0) }
      }
    guard now != inForce || announce else { return Change() }
    var change = Change()
    let wasSuspended = inForce != nil
    inForce = now
    if lanesSuspended != (now?.allow == .nothing) {
      lanesSuspended.toggle()
      change.effects.append(.suspendLanes(lanesSuspended))
    }
    if let now {
      change.effects.append(
        .publish(Event(kind: .suspended, at: instant.wall, suspended: true, doNotDisturb: now)))
    } else if wasSuspended || announce {
      change.effects.append(.publish(Event(kind: .resumed, at: instant.wall, suspended: false)))
    }
    change.foldHeld = wasSuspended && now == nil && settings.summary
    return change
  }
}
