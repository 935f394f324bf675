import NotifyProtocol

// `Snooze` and `Unsnooze` (DESIGN §19): a notice put off until later, not finished meanwhile.
//
// A snoozed notice that shows fades out from the opacity it has, leaves its slot (its operation
// finishes), and is parked: phase `waiting`, in the due schedule until its wall-clock time. Then it
// comes back as the same notice, through the ready list like any due notice (do-not-disturb and a
// fullscreen window hold it as they hold others), with a fresh timeline. Its waiters, the notices
// waiting `after` it, its D-Bus client and the desk it came from hear nothing until it finishes.
extension QueueMachine {
  /// The longest a notice is snoozed for: a week.
  public static let maximumSnooze = SnoozeTime.longest
  /// The most notices snoozed at once, in all.
  public static let maximumSnoozed = 1_000
  /// The most notices of one app snoozed at once.
  public static let maximumSnoozedPerApp = 100

  /// Snoozes unfinished notice `id` for `duration` seconds or until `until` (wall clock, seconds
  /// since the epoch), at most `maximumSnooze` from now: a shown one fades out from its opacity now,
  /// one not shown yet leaves its place in line. A snoozed one is snoozed again to the new time (one
  /// still fading out for its snooze fades on). Answers the notice as it is now.
  public mutating func snooze(_ request: SnoozeParameters, at instant: Instant) throws(QueueError) -> Notice {
    let until = try Self.snoozeEnd(request, wall: instant.wall)
    advance(to: instant)
    defer { settle(at: instant) }
    let record = try unfinished(request.id)
    guard !record.isClosing else {
      throw .invalidArgument(field: "id", reason: "notice \(request.id) is closing")
    }
    if record.notice.snoozedUntil == nil { try checkSnoozeRoom(for: record.notice) }
    snoozed[request.id] = until
    // Due by the monotonic clock from now on, as any timing: a wall-clock step meanwhile (or while
    // it still fades out) moves nothing; a restart reads the wall clock again.
    let dueAt = instant.now + (until - instant.wall)
    notices.modify(request.id) { record in
      record.dueAt = dueAt
      if record.isShown && record.notice.snoozedUntil == nil {
        record.snoozeAway(until: until, at: instant.now)
      } else {
        record.notice.snoozedUntil = until
      }
    }
    changed(request.id, at: instant, kind: .snoozed)
    if !record.isShown { park(request.id, at: instant) }
    return notices[request.id]!.current(at: instant.now)
  }

  /// Brings snoozed notice `id` back now: a parked one is due at once, one still fading out for
  /// its snooze fades back in and holds its whole hold. Answers the notice as it is now.
  public mutating func unsnooze(_ request: IDParameters, at instant: Instant) throws(QueueError) -> Notice {
    advance(to: instant)
    defer { settle(at: instant) }
    let record = try unfinished(request.id)
    guard record.notice.snoozedUntil != nil else {
      throw .invalidArgument(field: "id", reason: "notice \(request.id) is not snoozed")
    }
    if record.isShown {
      clearSnooze(request.id)
      notices.modify(request.id) { _ = $0.restartHold(at: instant.now) }
      changed(request.id, at: instant, kind: .snoozed)
    } else {
      notices.modify(request.id) { $0.dueAt = instant.now }
      place(request.id, at: instant)
    }
    return notices[request.id]!.current(at: instant.now)
  }

  /// How many notices are snoozed, and the earliest wall-clock time one comes back.
  public var snoozeSummary: (count: Int, next: Double?) { (snoozed.count, snoozed.values.min()) }

  /// The snoozed notices, oldest first, as they are at `now`.
  public func snoozedNotices(at now: Double) -> [Notice] {
    snoozed.keys.sorted().compactMap { notices[$0]?.current(at: now) }
  }

  /// The wall-clock time a snooze request ends at: exactly one of `duration` and `until`, in the
  /// future, at most `maximumSnooze` away.
  static func snoozeEnd(_ request: SnoozeParameters, wall: Double) throws(QueueError) -> Double {
    let limit = "at most \(Int(maximumSnooze / 86_400)) days"
    switch (request.duration, request.until) {
    case (let duration?, nil):
      guard duration.isFinite, duration > 0 else {
        throw .invalidArgument(field: "duration", reason: "must be a number of seconds above 0")
      }
      guard duration <= maximumSnooze else {
        throw .invalidArgument(field: "duration", reason: "must be \(limit)")
      }
      return wall + duration
    case (nil, let until?):
      guard until.isFinite, until > wall else {
        throw .invalidArgument(
          field: "until", reason: "must be a time in the future (seconds since the epoch)")
      }
      guard until - wall <= maximumSnooze else {
        throw .invalidArgument(field: "until", reason: "must be \(limit) from now")
      }
      return until
    default:
      throw .invalidArgument(field: "duration", reason: "give exactly one of duration and until")
    }
  }

  /// Throws when `notice` may not be snoozed for want of room: `maximumSnoozed` in all, or
  /// `maximumSnoozedPerApp` of its app, are snoozed already.
  private func checkSnoozeRoom(for notice: Notice) throws(QueueError) {
    guard snoozed.count < Self.maximumSnoozed else {
      throw .invalidArgument(
        field: "id", reason: "\(Self.maximumSnoozed) notices are snoozed already, the most there may be")
    }
    let ofApp = snoozed.keys.reduce(0) { $0 + (notices[$1]?.notice.app == notice.app ? 1 : 0) }
    guard ofApp < Self.maximumSnoozedPerApp else {
      throw .invalidArgument(
        field: "id",
        reason:
          "\(Self.maximumSnoozedPerApp) notices of \(notice.app.map { "app '\($0)'" } ?? "no app") are snoozed already, the most one app may have"
      )
    }
  }

  /// Snoozed notice `id`, off the screen now (faded out, or never shown): it leaves its slot and
  /// its operation finishes, and it waits in the due schedule until the due time `snooze` gave it.
  mutating func park(_ id: Int, at instant: Instant) {
    guard var record = notices[id], record.notice.snoozedUntil != nil else { return }
    heldInSlots.remove(id)
    releaseSlot(of: record)
    boundaries.setFading(id, false)
    duplicates.remove(id, under: record.duplicateKey)
    record.duplicateKey = nil
    record.place = .pending
    record.timeline = nil
    record.generation += 1
    record.reached = 0
    record.pauses = []
    record.holdLeftWhilePaused = nil
    record.closing = nil
    record.closingIsExpiry = false
    notices.modify(id) { $0 = record }
    if record.notice.phase != .waiting { setPhase(.waiting, opacity: 0, of: id, at: instant) }
    place(id, at: instant)
  }

  /// Snoozed notice `id` is ended (`end`): its snooze ends first, and one parked is due now (it
  /// finishes at once, or shows its closing message when its turn comes).
  mutating func endSnooze(_ id: Int, at instant: Instant) {
    clearSnooze(id)
    notices.modify(id) { record in
      if !record.isShown { record.dueAt = instant.now }
    }
  }

  /// Snoozed notice `id` has come due: it is no longer snoozed, and goes on its way to the screen.
  mutating func wake(_ id: Int, at instant: Instant) {
    clearSnooze(id)
    changed(id, at: instant, kind: .snoozed)
  }

  /// Notice `id` is snoozed no more: its time is gone from it and from the snoozed ones.
  private mutating func clearSnooze(_ id: Int) {
    snoozed.removeValue(forKey: id)
    snoozed.releaseSpareCapacity()
    notices.modify(id) { $0.notice.snoozedUntil = nil }
  }
}
