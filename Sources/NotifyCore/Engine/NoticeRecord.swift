import NotifyProtocol

/// What makes two notices duplicates: the same app, title and body.
struct DuplicateKey: Hashable {
  var app: String?
  var title: String
  var body: String?

  init(app: String?, title: String, body: String?) {
    self.app = app
    self.title = title
    self.body = body
  }

  init(_ notice: Notice) {
    self.init(app: notice.app, title: notice.title, body: notice.body)
  }
}

/// A notice the queue has accepted and not yet finished, and where it stands.
struct NoticeRecord {
  /// Where a record is on its way to the screen.
  enum Place: Equatable {
    /// Not yet due (in the due schedule) or waiting for its `after`.
    case pending
    /// Due and free, in its lane's ready list, without an operation.
    case ready
    /// Given a slot and an operation, which its lane's `OperationQueue` has not started yet.
    case granted
    /// Shown (its operation runs), holding a slot of its lane.
    case running
    /// Shown and held until ended, out of its slot so that it blocks nobody (`[Queue] MaxSticky=`).
    case sticky
  }

  var notice: Notice
  /// Monotonic instant at which the notice is due.
  var dueAt: Double
  /// The hold the notice gets once shown: `nil` holds until ended.
  var hold: Double?
  var place: Place = .pending
  /// Once shown: the timeline, started at `startedAt`.
  var timeline: Timeline?
  var startedAt: Double = 0
  /// The furthest boundary of its timeline reached (seconds from `startedAt`). A boundary is due
  /// at `startedAt + b`, and at exactly that instant `now - startedAt` can come out a rounding
  /// short of `b` (1.0 + 0.2 − 1.0 < 0.2): measured from here, the timeline never stands still at a
  /// boundary it has reached, nor goes back before it.
  var reached = 0.0
  /// Bumped by every change to the timeline, so a boundary computed for an older one is stale.
  var generation = 0
  /// How it finishes once decided by an `end`, `cancel`, `dismiss` or invoked action; or, with
  /// `closingIsExpiry`, only because its hold ran out (news takes that back).
  var closing: Outcome?
  var closingIsExpiry = false
  /// What lets it show while notices are held back: do-not-disturb, a fullscreen window.
  var gates = Gates()
  /// Whether it passes do-not-disturb that lets critical notices through.
  var passesDoNotDisturb: Bool { gates.passesDoNotDisturb }
  /// The urgency its client asked for (`normal` when it asked for none), which rules'
  /// `MatchUrgency=` matched when it was accepted; `nil` when not known (a notice kept from before a
  /// restart, a summary): then its urgency as shown.
  var requestedUrgency: Urgency?
  /// While shown: what it is indexed under for merging duplicates (`[Queue] StackDuplicates=`).
  var duplicateKey: DuplicateKey?
  /// Whether a person saw it: shown while something showed it (`Presenter`) and they were not away.
  var seen = false
  /// What stops its hold while shown: the person away (`[Idle] After=`), the pointer over its card
  /// (`[Display] HoverHolds=`).
  var pauses: Pauses = []
  /// While paused: what is left of its hold, which it holds once no pause is left; until then it
  /// holds.
  var holdLeftWhilePaused: Double?

  /// Why a shown notice's hold stands still.
  struct Pauses: OptionSet {
    let rawValue: UInt8
    static let away = Pauses(rawValue: 1)
    static let pointer = Pauses(rawValue: 2)
    static let typing = Pauses(rawValue: 4)
    /// Pushed back off the screen by a fullscreen window (`Fullscreen=pushback`).
    static let fullscreen = Pauses(rawValue: 8)
  }

  /// What lets a notice show while others are held back (`QueueSettings.Resolution`).
  struct Gates: Equatable {
    /// It passes do-not-disturb that lets critical notices through.
    var passesDoNotDisturb = false
    /// What it does while the window with the keyboard is fullscreen.
    var fullscreen = FullscreenPolicy.delay

    /// Whether it may be given a slot now.
    func admit(suspended: Bool, fullscreen active: Bool) -> Bool {
      (!suspended || passesDoNotDisturb) && (!active || fullscreen == .show)
    }

    /// Every kind of gates, each at its `slot`.
    static let all = [false, true].flatMap { passes in
      [FullscreenPolicy.show, .delay, .pushback].map { Gates(passesDoNotDisturb: passes, fullscreen: $0) }
    }

    /// Where it stands in `all`: a lane keeps a ready list per kind (`LaneSchedule`).
    var slot: Int {
      let policy =
        switch fullscreen {
        case .show: 0
        case .delay: 1
        case .pushback: 2
        }
      return (passesDoNotDisturb ? 3 : 0) + policy
    }
  }

  var lane: Lane { notice.kind == .progress ? .progress : .notices }

  /// The outcome when the hold runs out by itself: `timedOut` for a progress indicator.
  var expiryOutcome: Outcome { notice.kind == .progress ? .timedOut : .completed }

  /// Whether an `end`, `cancel` or `dismiss` has decided how it finishes: news no longer brings it
  /// back, so a notice with its key is a new notice.
  var isClosing: Bool { closing != nil && !closingIsExpiry }

  /// Whether it is on screen.
  var isShown: Bool { timeline != nil }

  /// The timeline a notice starts with, from its timing and its hold.
  var initialTimeline: Timeline {
    Timeline(
      Timeline.Timing(
        fadeIn: notice.fadeIn, hold: heldFor, fadeOut: notice.fadeOut, easeIn: notice.easeIn,
        easeOut: notice.easeOut))
  }

  /// Whether it shows in a slot, holding until ended, free to leave the slot for sticky room (a
  /// notice, not a progress indicator; nothing pauses its hold).
  func holdsForever(at now: Double) -> Bool {
    guard place == .running, notice.kind == .notice, pauses.isEmpty, let timeline else { return false }
    let elapsed = elapsed(at: now)
    return timeline.phase(at: elapsed) == .holding && timeline.nextBoundary(after: elapsed) == nil
  }

  /// Seconds into its timeline at `now`, never before the boundary last reached.
  func elapsed(at now: Double) -> Double { max(now - startedAt, reached) }

  /// Phase and opacity at `now`; before it is shown, or past its end, what was last reported.
  func appearance(at now: Double) -> (phase: Phase, opacity: Double) {
    timeline?.appearance(at: elapsed(at: now)) ?? (notice.phase, 0)
  }

  /// The notice with its phase and opacity at `now`.
  func current(at now: Double) -> Notice {
    var notice = notice
    (notice.phase, notice.opacity) = appearance(at: now)
    return notice
  }

  /// A change of course for a shown notice: rewrites its timeline from `now` on and records the
  /// outcome it then has. `outcome` is what the change decides (`nil` for news, which restarts the
  /// hold); `overrides` lets a cancel or dismissal replace an outcome already decided. Answers
  /// whether the timeline changed.
  ///
  /// Once ended or cancelled, news no longer brings the notice back and an end does not undo a
  /// cancel; only another cancel or dismissal (or a second end) still changes the timeline.
  mutating func rewrite(
    outcome: Outcome?, overrides: Bool, at now: Double, _ change: (inout Timeline, Double) -> Void
  ) -> Bool {
    guard timeline != nil else { return false }
    // Fading out for a snooze: only a closing (a cancel, a dismissal, an end) changes its course.
    if notice.snoozedUntil != nil && outcome == nil { return false }
    if let decided = closing, !closingIsExpiry {
      if outcome == nil || (!overrides && outcome != decided) { return false }
    }
    if let outcome, overrides || closing == nil || closingIsExpiry {
      closing = outcome
      closingIsExpiry = false
    } else if outcome == nil && closingIsExpiry {
      closing = nil
      closingIsExpiry = false
    }
    change(&timeline!, elapsed(at: now))
    generation += 1
    return true
  }

  /// Whether its hold stands still because the person is away.
  var pausedByIdle: Bool { pauses.contains(.away) }

  /// The hold it counts down now: none while something stops it.
  var heldFor: Double? { pauses.isEmpty ? hold : nil }

  /// Whether the person being away stops its hold: a plain notice with a hold, shown or about to
  /// be, that nothing has decided to end.
  var idlePauses: Bool {
    notice.kind == .notice && hold != nil && !isClosing
      && (timeline == nil || [.fadingIn, .holding].contains(notice.phase))
  }

  /// Whether a fullscreen window pushing its card off the screen stops its hold: a shown notice
  /// or progress indicator with a hold (a timeout) that nothing has decided to end.
  var fullscreenPauses: Bool { isShown && hold != nil && !isClosing }

  /// Whether its hold stands still because a fullscreen window pushed it off the screen.
  var isPushedBack: Bool { pauses.contains(.fullscreen) }

  /// Whether a person's input on its card (the pointer over it, typing into its reply field) stops
  /// its hold: a shown plain notice with a hold that nothing has decided to end — one fading out
  /// because its hold ran out comes back.
  var inputPauses: Bool {
    isShown && notice.kind == .notice && hold != nil && !isClosing
  }

  /// Its hold stands still for `reason` (the person went away, the pointer came over it): what is
  /// left of it is kept (all of it for a notice not shown yet, or fading in); one fading out
  /// because its hold ran out fades back in. A second reason changes nothing more.
  mutating func pauseHold(_ reason: Pauses, at now: Double) {
    guard !pauses.contains(reason) else { return }
    let first = pauses.isEmpty
    pauses.insert(reason)
    guard first else { return }
    holdLeftWhilePaused = timeline?.holdLeft(at: elapsed(at: now)) ?? hold
    _ = rewrite(outcome: nil, overrides: false, at: now) { $0.restartHold(at: $1, hold: nil) }
  }

  /// `reason` is gone (the person is back, the pointer left): once no reason is left, it holds
  /// what was left of its hold, at least `atLeast` seconds, then fades out.
  mutating func resumeHold(_ reason: Pauses, atLeast: Double = 0, at now: Double) {
    guard pauses.contains(reason) else { return }
    pauses.remove(reason)
    let left = holdLeftWhilePaused.map { max($0, atLeast) }
    guard pauses.isEmpty else {
      holdLeftWhilePaused = left
      return
    }
    holdLeftWhilePaused = nil
    _ = rewrite(outcome: nil, overrides: false, at: now) { $0.restartHold(at: $1, hold: left) }
  }

  /// Restarts the hold (news): `hold` seconds from now, or until ended when `nil`. While its hold
  /// stands still it holds on, with its whole hold kept for when it goes on. With `timing`, the
  /// fades from now on take its lengths and curves.
  mutating func restartHold(at now: Double, timing: Timeline.Timing? = nil) -> Bool {
    if !pauses.isEmpty { holdLeftWhilePaused = hold }
    let hold = heldFor
    return rewrite(outcome: nil, overrides: false, at: now) {
      $0.restartHold(at: $1, hold: hold, timing: timing)
    }
  }

  /// A replacement of a shown notice (DESIGN §2): it becomes `new` entirely — text, icon,
  /// actions, hints, urgency, style, timing; what `new` leaves out is gone — but for its id, where
  /// it stands (phase, opacity, when it was shown, a snooze it is fading out for) and the desk it
  /// came from; it holds again from now by the new timing, for `hold` (`nil` until ended).
  mutating func replace(with new: Notice, hold: Double?, at now: Double) {
    var new = new
    new.id = notice.id
    new.phase = notice.phase
    new.opacity = notice.opacity
    new.shown = notice.shown
    new.origin = new.origin ?? notice.origin
    new.snoozedUntil = notice.snoozedUntil  // still leaving for its snooze, if it was
    notice = new
    self.hold = hold
    _ = restartHold(
      at: now,
      timing: Timeline.Timing(
        fadeIn: new.fadeIn, hold: hold, fadeOut: new.fadeOut, easeIn: new.easeIn, easeOut: new.easeOut))
  }

  /// Ends normally: holds `hold` seconds more (fading out at once when `nil`), then fades out.
  mutating func end(hold: Double?, at now: Double) -> Bool {
    rewrite(outcome: .completed, overrides: false, at: now) { timeline, elapsed in
      if let hold {
        timeline.restartHold(at: elapsed, hold: hold)
      } else {
        timeline.fadeOut(at: elapsed)
      }
    }
  }

  /// Snoozed while shown: fades out from the opacity shown now, whatever held it (the pointer, the
  /// person away), until `until` (wall clock); nothing but a closing changes that course (`rewrite`).
  mutating func snoozeAway(until: Double, at now: Double) {
    pauses = []
    holdLeftWhilePaused = nil
    closing = nil
    closingIsExpiry = false
    notice.snoozedUntil = until
    let elapsed = elapsed(at: now)
    timeline?.fadeOut(at: elapsed)
    generation += 1
  }

  /// Closes with `outcome`: fades out from the opacity shown now, or vanishes when `immediately`.
  mutating func close(_ outcome: Outcome, immediately: Bool, at now: Double) -> Bool {
    rewrite(outcome: outcome, overrides: true, at: now) { $0.fadeOut(at: $1, immediately: immediately) }
  }
}
