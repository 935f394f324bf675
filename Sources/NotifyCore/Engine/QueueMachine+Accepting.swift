import NotifyProtocol

// Requests that add a notice: `Show` and `Progress`, with their keys, replacements, duplicates,
// flood control and capacity.
extension QueueMachine {
  /// Accepts a notice, or with a `key` an unfinished notice has (or the id `replacing`, as D-Bus
  /// `replaces_id` names it), replaces that one whole (DESIGN §2): in place when it is a shown
  /// notice (answering its id; `NoticeRecord.replace`), else the old one finishes as `replaced`
  /// and the new one is accepted. A notice already closing is left to finish; the new one takes
  /// its key.
  ///
  /// A relayed notice carries its `origin`; one that arrived too late (`missed`) goes straight to
  /// history with outcome `missed`, replacing nothing. A snoozed notice replaced while parked stays
  /// snoozed: the new one comes back when it would have.
  public mutating func show(
    _ request: ShowParameters, replacing replacedID: Int? = nil, origin: NoticeOrigin? = nil,
    missed: Bool = false, at instant: Instant
  ) throws(QueueError) -> Int {
    let explicit = try Admission.validate(request)
    advance(to: instant)
    defer { settle(at: instant) }
    let resolution = settings.resolve(
      app: request.app, tag: request.tag, title: request.title, urgency: request.urgency,
      hints: request.hints, explicit: explicit)
    if missed {
      var notice = Admission.notice(request, id: nextID, resolution: resolution, created: instant.wall)
      notice.origin = origin
      accept(notice, finishing: .missed, at: instant)
      return notice.id
    }
    var snoozedUntil: Double?
    if let existing = claim(replacing: replacedID, key: request.key) {
      if existing.isShown, existing.notice.kind == .notice, !resolution.suppressed {
        let notice = Admission.notice(
          request, id: existing.notice.id, resolution: resolution, created: instant.wall)
        replaceShown(
          existing, with: notice, origin: origin, gates: resolution.gates,
          requested: request.urgency ?? .normal, at: instant)
        return notice.id
      }
      snoozedUntil = existing.notice.snoozedUntil
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
    if !resolution.suppressed, !flood.admits(request.app, under: settings.perApp, at: instant.now) {
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
    notice.snoozedUntil = resolution.suppressed ? nil : snoozedUntil
    accept(
      notice, gates: resolution.gates, finishing: resolution.suppressed ? .cancelled : nil,
      requested: request.urgency ?? .normal, at: instant)
    return notice.id
  }

  /// The visible notice a new one without a key would merge into: equal app, title and body, not
  /// closing, not leaving for a snooze.
  private func duplicate(of request: ShowParameters) -> Int? {
    guard settings.stackDuplicates, !duplicates.isEmpty else { return nil }
    let key = DuplicateKey(app: request.app, title: request.title, body: request.body)
    guard let id = duplicates[key], let record = notices[id], record.isShown, !record.isClosing,
      record.notice.snoozedUntil == nil
    else {
      return nil
    }
    return id
  }

  /// Accepts a progress indicator, or with a `key` an unfinished one has, answers its id with
  /// `existing: true`, applies the new title, body and value, and restarts its timeout. With
  /// `wholly` (a D-Bus `Notify`), a shown indicator is replaced whole instead, as `show` replaces
  /// a notice: what the call leaves out is gone.
  public mutating func progress(
    _ request: ProgressParameters, replacing replacedID: Int? = nil, wholly: Bool = false, at instant: Instant
  ) throws(QueueError) -> (id: Int, existing: Bool) {
    let explicit = try Admission.validate(request)
    advance(to: instant)
    defer { settle(at: instant) }
    let resolution = settings.resolve(
      app: request.app, tag: request.tag, title: request.title, urgency: request.urgency,
      hints: request.hints, explicit: explicit)
    let timeout = request.timeout ?? settings.progressTimeout
    var snoozedUntil: Double?
    if let existing = claim(replacing: replacedID, key: request.key) {
      let id = existing.notice.id
      if wholly, existing.isShown, existing.notice.kind == .progress, !resolution.suppressed {
        let notice = Admission.notice(
          request, id: id, resolution: resolution, timeout: timeout, created: instant.wall)
        replaceShown(
          existing, with: notice, origin: nil, gates: resolution.gates,
          requested: request.urgency ?? .normal, at: instant)
        return (id, true)
      }
      if !wholly, existing.notice.kind == .progress {
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
      snoozedUntil = existing.notice.snoozedUntil
      finish(id, outcome: .replaced, at: instant)
    }
    try checkCapacity(resolution)
    var notice = Admission.notice(
      request, id: nextID, resolution: resolution, timeout: timeout, created: instant.wall)
    notice.snoozedUntil = resolution.suppressed ? nil : snoozedUntil
    accept(
      notice, gates: resolution.gates, finishing: resolution.suppressed ? .cancelled : nil,
      requested: request.urgency ?? .normal, at: instant)
    return (notice.id, false)
  }

  /// Replaces shown notice `existing` by `notice` in place (`NoticeRecord.replace`), keeping the
  /// desk it came from unless `origin` names another; its key becomes the new one's.
  private mutating func replaceShown(
    _ existing: NoticeRecord, with notice: Notice, origin: NoticeOrigin?, gates: NoticeRecord.Gates,
    requested: Urgency,
    at instant: Instant
  ) {
    let id = existing.notice.id
    var notice = notice
    notice.origin = origin
    if let old = existing.notice.key, old != notice.key, keys[old] == id { keys.removeValue(forKey: old) }
    if let key = notice.key { keys[key] = id }
    let hold = Admission.hold(of: notice, settings)
    // The new content is seen from now, if anything shows it and no fullscreen window pushes it back.
    let seen = presenting && !pushesBack(gates)
    notices.modify(id) { record in
      record.replace(with: notice, hold: hold, at: instant.now)
      record.gates = gates
      record.requestedUrgency = requested
      record.seen = seen
    }
    followFullscreen(id, at: instant)
    changed(id, at: instant)
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
  /// rule, folded), straight to history. `requested` is the urgency its client asked for.
  mutating func accept(
    _ notice: Notice, gates: NoticeRecord.Gates = NoticeRecord.Gates(), finishing outcome: Outcome? = nil,
    requested: Urgency? = nil,
    at instant: Instant
  ) {
    nextID += 1
    // A snoozed notice's replacement comes back when it would have.
    let dueAt =
      notice.snoozedUntil.map { instant.now + max(0, $0 - instant.wall) }
      ?? instant.now + notice.delay + settings.answerDelay(of: notice)
    var record = NoticeRecord(notice: notice, dueAt: dueAt, hold: Admission.hold(of: notice, settings))
    if let until = notice.snoozedUntil { snoozed[notice.id] = until }
    record.gates = gates
    record.requestedUrgency = requested
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
}
