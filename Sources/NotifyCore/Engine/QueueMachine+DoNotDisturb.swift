import NotifyProtocol

// Do-not-disturb by hand, the person being away, and the summary notices that fold what
// do-not-disturb held back and what flood control kept from showing (DESIGN §11).
extension QueueMachine {
  /// Holds every notice not yet shown but what `allow` lets through (default `[DoNotDisturb]
  /// Allow=`) until `resume`, or until `duration` seconds have passed. Quiet hours that end
  /// meanwhile do not end it.
  public mutating func suspend(
    for duration: Double?, allow: DoNotDisturbAllow? = nil, at instant: Instant
  ) throws(QueueError) {
    if let duration { try Admission.validate(duration: duration, field: "duration") }
    advance(to: instant)
    defer { settle(at: instant) }
    let change = dnd.suspend(
      allow: allow ?? settings.doNotDisturb.allow, until: duration.map { instant.wall + $0 },
      settings.doNotDisturb, at: instant)
    carryOut(change, at: instant)
  }

  /// Lets held notices show again, in order. Inside quiet hours this lasts until they end; outside,
  /// until the next suspend or quiet hours.
  public mutating func resume(at instant: Instant) {
    advance(to: instant)
    defer { settle(at: instant) }
    carryOut(dnd.resume(settings.doNotDisturb, at: instant), at: instant)
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
    markShownSeen()
    let changing = notices.records.filter { $0.isShown && (away ? $0.idlePauses : $0.pausedByIdle) }
    for id in changing.map(\.notice.id) {
      notices.modify(id) { record in
        if away {
          record.pauseHold(.away, at: instant.now)
        } else {
          record.resumeHold(.away, at: instant.now)
        }
      }
      step(id, at: instant)
    }
  }

  // MARK: - Fullscreen

  /// What the display says of the window with the keyboard: fullscreen (`on`) or not. While it is,
  /// only notices whose `Fullscreen=` is `show` are given a slot; the others wait, their timelines
  /// not started; shown `pushback` notices leave the screen (the display hides them) and their
  /// holds stand still. Once it is not, the waiting ones show in order, and the pushed-back ones
  /// come back with their whole hold.
  public mutating func setFullscreen(_ on: Bool, at instant: Instant) {
    advance(to: instant)
    defer { settle(at: instant) }
    guard on != fullscreen else { return }
    fullscreen = on
    let changing = notices.records.filter {
      $0.isShown && ($0.gates.fullscreen == .pushback || $0.isPushedBack)
    }
    for id in changing.map(\.notice.id) { followFullscreen(id, at: instant) }
    markShownSeen()
  }

  /// Whether a notice with `gates` is off the screen now: a fullscreen window pushes it back.
  func pushesBack(_ gates: NoticeRecord.Gates) -> Bool {
    fullscreen && gates.fullscreen == .pushback
  }

  /// Makes shown notice `id`'s hold stand still while a fullscreen window pushes it off the screen
  /// (its gates say `pushback`), and go on, its whole hold again, once nothing does — the window
  /// left fullscreen, or a replacement changed its gates.
  mutating func followFullscreen(_ id: Int, at instant: Instant) {
    guard let record = notices[id], record.isShown else { return }
    let pushed = pushesBack(record.gates)
    if pushed && !record.isPushedBack && record.fullscreenPauses {
      notices.modify(id) { $0.pauseHold(.fullscreen, at: instant.now) }
    } else if !pushed && record.isPushedBack {
      notices.modify(id) { $0.resumeHold(.fullscreen, atLeast: $0.hold ?? 0, at: instant.now) }
    } else {
      return
    }
    step(id, at: instant)
  }

  /// What unfinished notice `id` does under a fullscreen window; `nil` if it is not unfinished.
  public func fullscreenPolicy(of id: Int) -> FullscreenPolicy? {
    notices[id]?.gates.fullscreen
  }

  // MARK: - Summaries

  /// Folds the plain notices do-not-disturb held back (critical ones still show by themselves)
  /// into one summary, when there are two or more: "12 notices while you were away".
  mutating func foldHeld(at instant: Instant) {
    let held = notices.records.filter {
      $0.place == .ready && $0.notice.kind == .notice && $0.notice.urgency != .critical
    }.map(\.notice).sorted { $0.id < $1.id }
    guard held.count >= 2 else { return }
    let previous = summaries.away { notices[$0]?.isClosing == false }
    let text = Summaries.away(held, before: previous?.count ?? 0)
    guard let summary = summarize(previous?.id, text, app: "notifyd", at: instant) else { return }
    summaries.setAway(Summaries.Summary(id: summary, count: held.count + (previous?.count ?? 0)))
    for notice in held {
      notices.modify(notice.id) { $0.notice.foldedInto = summary }
      finish(notice.id, outcome: .folded, at: instant)
    }
  }

  /// The summary notice a notice titled `title` from `app`, past the app's limit, is folded into:
  /// "37 more from backup", with the newest folded title as its body, changed in place while
  /// unfinished.
  mutating func floodSummary(folding title: String, from app: String?, at instant: Instant) -> Int? {
    let previous = summaries.flood(from: app) { notices[$0]?.isClosing == false }
    let count = (previous?.count ?? 0) + 1
    let id = summarize(
      previous?.id, Summaries.flood(count: count, from: app, newest: title), app: app, at: instant)
    summaries.setFlood(id.map { Summaries.Summary(id: $0, count: count) }, from: app)
    return id
  }

  /// Writes a summary notice: the unfinished one `id` changed in place (its hold restarts), or a new
  /// one. Answers its id, or `nil` when none could be made (the queue is full, or a rule suppresses
  /// it): the folded notices then name no summary.
  private mutating func summarize(_ id: Int?, _ text: Summaries.Text, app: String?, at instant: Instant)
    -> Int?
  {
    if let id {
      notices.modify(id) { record in
        record.notice.title = text.title
        record.notice.body = text.body
        _ = record.restartHold(at: instant.now)
      }
      changed(id, at: instant)
      return id
    }
    let request = ShowParameters(title: text.title, body: text.body, app: app)
    let resolution = settings.resolve(
      app: app, tag: nil, title: text.title, urgency: nil, explicit: TimingOverrides())
    guard !resolution.suppressed, notices.count < settings.capacity else { return nil }
    let notice = Admission.notice(request, id: nextID, resolution: resolution, created: instant.wall)
    accept(notice, gates: resolution.gates, at: instant)
    return notice.id
  }
}
