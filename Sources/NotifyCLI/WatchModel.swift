import NotifyProtocol

/// What the terminal view of `watch` knows: the queue as the events describe it, when each visible
/// notice entered its phase (to count down its time left), and whether the daemon is reachable.
struct WatchModel: Sendable, Equatable {
  /// Where a visible notice's current phase began, and the opacity it began at.
  struct PhaseStart: Sendable, Equatable {
    var at: Double
    var opacity: Double
  }

  /// The unfinished notices and the suspended state.
  private(set) var tracker = NoticeTracker()
  /// The start of the current phase of each visible notice, by id.
  private(set) var phaseStarts: [Int: PhaseStart] = [:]
  /// Where the watch stream stands.
  enum Connection: Sendable, Equatable {
    /// Connected, waiting for the snapshot.
    case connecting
    /// The snapshot has arrived; events follow.
    case connected
    /// The daemon went away, or cannot be reached.
    case disconnected
  }

  /// Where the watch stream stands: the queue is known only while `connected`.
  var connection = Connection.connecting

  /// Whether the snapshot has arrived and the daemon has not gone since.
  var connected: Bool { connection == .connected }

  init() {}

  /// Applies one `Watch` event.
  mutating func apply(_ event: Event) {
    tracker.apply(event)
    switch event.kind {
    case .snapshot:
      connection = .connected
      phaseStarts = [:]
      for notice in tracker.visible {
        phaseStarts[notice.id] = Self.estimatedStart(of: notice, at: event.at)
      }
    case .phase:
      guard let id = event.id ?? event.notice?.id, let notice = tracker[id], notice.phase.isVisible else {
        if let id = event.id { phaseStarts[id] = nil }
        return
      }
      phaseStarts[id] = PhaseStart(at: event.at, opacity: event.opacity ?? notice.opacity)
    case .updated:
      // An update restarts a visible notice's hold; during a fade the phase events that follow say more.
      if let notice = event.notice, notice.phase == .holding {
        phaseStarts[notice.id] = PhaseStart(at: event.at, opacity: 1)
      }
    case .frame:
      if let id = event.id, phaseStarts[id] == nil, let notice = tracker[id], notice.phase.isVisible {
        phaseStarts[id] = PhaseStart(at: event.at, opacity: notice.opacity)
      }
    case .finished:
      if let id = event.id ?? event.notice?.id { phaseStarts[id] = nil }
    case .added, .invoked, .replied, .suspended, .resumed, .read, .forgotten, .snoozed:
      break
    }
  }

  /// Forgets the queue after the daemon went away: nothing is known to be on screen until the next snapshot.
  mutating func disconnect() {
    tracker = NoticeTracker()
    phaseStarts = [:]
    connection = .disconnected
  }

  /// The notices on screen, most important first.
  var visible: [Notice] { tracker.visible }

  /// Whether the queue is suspended.
  var suspended: Bool { tracker.suspended }

  /// Finished notices nobody saw.
  var unread: Int { tracker.unread }

  /// How many notices wait for their delay or for another notice, and how many wait for a slot.
  var backlog: (waiting: Int, queued: Int) {
    var waiting = 0
    var queued = 0
    for notice in tracker.notices.values {
      if notice.phase == .waiting { waiting += 1 }
      if notice.phase == .queued { queued += 1 }
    }
    return (waiting, queued)
  }

  // MARK: - Time left

  /// Seconds until `notice` is gone from the screen, or `nil` when that is not known: it holds
  /// until ended (a progress indicator, or hold 0), or it is not visible.
  func timeLeft(of notice: Notice, now: Double) -> Double? {
    guard notice.phase.isVisible, let start = phaseStarts[notice.id] else { return nil }
    let elapsed = max(now - start.at, 0)
    let holdsUntilEnded = notice.kind == .progress || notice.hold == 0
    switch notice.phase {
    case .fadingIn:
      if holdsUntilEnded { return nil }
      return max(notice.fadeIn * (1 - start.opacity) - elapsed, 0) + notice.hold + notice.fadeOut
    case .holding:
      if holdsUntilEnded { return nil }
      return max(notice.hold - elapsed, 0) + notice.fadeOut
    case .fadingOut:
      // A fade-out from partial opacity (a cancel during fade-in) is shortened in proportion.
      return max(notice.fadeOut * start.opacity - elapsed, 0)
    default:
      return nil
    }
  }

  /// When the next countdown on screen changes its whole number of seconds, in seconds from
  /// `now`, or `nil` when nothing counts down.
  func nextCountdownChange(now: Double) -> Double? {
    var soonest: Double?
    for notice in visible {
      guard let left = timeLeft(of: notice, now: now), left > 0 else { continue }
      // The label shows left rounded up: it changes when left reaches the next lower integer.
      let untilChange = left - (left.rounded(.up) - 1)
      soonest = min(soonest ?? untilChange, untilChange)
    }
    return soonest
  }

  /// Where a notice in a snapshot began its phase, from its `shown` time and timing: exact for
  /// a notice that has not been updated or cut short since it was shown.
  private static func estimatedStart(of notice: Notice, at now: Double) -> PhaseStart {
    let shown = notice.shown ?? now
    switch notice.phase {
    case .fadingIn: return PhaseStart(at: shown, opacity: 0)
    case .holding: return PhaseStart(at: min(shown + notice.fadeIn, now), opacity: 1)
    default: return PhaseStart(at: now, opacity: notice.opacity)
    }
  }
}
