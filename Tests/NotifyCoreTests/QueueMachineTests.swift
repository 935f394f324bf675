import NotifyCore
import NotifyProtocol
import Testing

/// Drives a `QueueMachine` as its owner would, without threads, timers or `OperationQueue`s: it
/// keeps the one armed deadline, fires it when the clock passes it, and starts each `run` at once
/// (as an idle lane does) unless told to hold starts back.
struct MachineDriver {
  static let epoch = 1_800_000_000.0
  var machine: QueueMachine
  var now = 0.0
  var armed: Double?
  /// Every effect carried out, in order.
  var log: [QueueEffect] = []
  /// Operations handed to a lane and not started yet (with `autoStart` off).
  var pendingStarts: [Int] = []
  var running: Set<Int> = []
  var autoStart = true
  /// Notices shown without a title, each titled apart so that they are not merged as duplicates.
  var untitled = 0

  init(_ settings: QueueSettings = MachineDriver.settings()) {
    machine = QueueMachine(settings: settings)
  }

  static func settings(maxVisible: Int = 1, maxSticky: Int = 3, progress: Int = 4) -> QueueSettings {
    var settings = QueueSettings()
    settings.maxVisible = maxVisible
    settings.maxSticky = maxSticky
    settings.progressMaxVisible = progress
    return settings
  }

  var instant: Instant { Instant(now: now, wall: Self.epoch + now) }

  mutating func carryOut() {
    for effect in machine.takeEffects() {
      log.append(effect)
      switch effect {
      case .arm(let deadline): armed = deadline
      case .run(let id, _, _): pendingStarts.append(id)
      case .finishOperation(let id): running.remove(id)
      default: break
      }
    }
    if autoStart { startPending() }
  }

  /// The lanes start every operation handed to them.
  mutating func startPending() {
    while !pendingStarts.isEmpty {
      let id = pendingStarts.removeFirst()
      running.insert(id)
      machine.started(id, at: instant)
      carryOut()
    }
  }

  /// Moves the clock to `instant`, firing the armed deadline each time it is passed.
  mutating func advance(to instant: Double) {
    while let deadline = armed, deadline <= instant {
      now = max(now, deadline)
      armed = nil
      machine.tick(at: self.instant)
      carryOut()
    }
    now = max(now, instant)
  }

  @discardableResult
  mutating func show(
    _ title: String? = nil, delay: Double? = nil, fadeIn: Double = 1, hold: Double = 2, fadeOut: Double = 1,
    urgency: Urgency? = nil, key: String? = nil, after: Int? = nil, replacing: Int? = nil, app: String? = nil
  ) throws -> Int {
    defer { carryOut() }
    untitled += title == nil ? 1 : 0
    let title = title ?? "n\(untitled)"
    return try machine.show(
      ShowParameters(
        title: title, app: app, urgency: urgency, key: key, delay: delay, fadeIn: fadeIn, hold: hold,
        fadeOut: fadeOut,
        easeIn: .linear, easeOut: .linear, after: after), replacing: replacing, at: instant)
  }

  mutating func perform<T>(_ body: (inout QueueMachine, Instant) throws -> T) rethrows -> T {
    defer { carryOut() }
    return try body(&machine, instant)
  }

  func phase(_ id: Int) -> Phase? { machine.notice(id, at: now)?.phase }
  func opacity(_ id: Int) -> Double? { machine.notice(id, at: now)?.opacity }
  func outcome(_ id: Int) -> Outcome? { machine.notice(id, at: now)?.outcome }

  /// The events published about notice `id`, as short strings.
  func lifecycle(of id: Int) -> [String] {
    log.compactMap { effect -> String? in
      guard case .publish(let event) = effect, event.id == id else { return nil }
      switch event.kind {
      case .phase: return event.phase!.rawValue
      case .finished: return "finished:\(event.notice!.outcome!.rawValue)"
      default: return event.kind.rawValue
      }
    }
  }

  /// The instants (from the epoch) of the phase and finish events of notice `id`.
  func eventTimes(of id: Int) -> [Double] {
    log.compactMap { effect -> Double? in
      guard case .publish(let event) = effect, event.id == id, event.kind == .phase || event.kind == .finished
      else { return nil }
      return event.at - Self.epoch
    }
  }

  var runs: [Int] {
    log.compactMap { if case .run(let id, _, _) = $0 { id } else { nil } }
  }
}

@Suite("QueueMachine: the rules without threads")
struct QueueMachineTests {
  // MARK: - Timing, as a table

  struct TimingCase: Sendable, CustomStringConvertible {
    var fadeIn: Double, hold: Double, fadeOut: Double
    /// Instant → phase and opacity expected then.
    var samples: [(Double, Phase, Double)]
    var description: String { "fadeIn \(fadeIn) hold \(hold) fadeOut \(fadeOut)" }
  }

  static let timingCases: [TimingCase] = [
    TimingCase(
      fadeIn: 1, hold: 2, fadeOut: 1,
      samples: [
        (0, .fadingIn, 0), (0.5, .fadingIn, 0.5), (0.999, .fadingIn, 0.999), (1, .holding, 1),
        (2.999, .holding, 1), (3, .fadingOut, 1), (3.25, .fadingOut, 0.75), (4, .finished, 0),
      ]),
    TimingCase(
      fadeIn: 0, hold: 1, fadeOut: 0, samples: [(0, .holding, 1), (0.999, .holding, 1), (1, .finished, 0)]),
    TimingCase(
      fadeIn: 2, hold: 0.5, fadeOut: 2,
      samples: [(1, .fadingIn, 0.5), (2.5, .fadingOut, 1), (3.5, .fadingOut, 0.5), (4.5, .finished, 0)]),
  ]

  @Test("a notice's phase and opacity at chosen instants", arguments: timingCases)
  func timing(_ row: TimingCase) throws {
    var d = MachineDriver()
    let id = try d.show(fadeIn: row.fadeIn, hold: row.hold, fadeOut: row.fadeOut)
    for (instant, phase, opacity) in row.samples {
      d.advance(to: instant)
      #expect(d.phase(id) == phase, "at \(instant)")
      #expect(abs((d.opacity(id) ?? -1) - opacity) < 1e-9, "at \(instant)")
    }
  }

  @Test func eachBoundary_isReportedAtItsInstant_byTheOneArmedDeadline() throws {
    var d = MachineDriver()
    let id = try d.show(fadeIn: 1, hold: 2, fadeOut: 0.5)
    #expect(d.armed == 1)
    d.advance(to: 10)
    #expect(
      d.lifecycle(of: id) == ["added", "queued", "fadingIn", "holding", "fadingOut", "finished:completed"])
    #expect(d.eventTimes(of: id) == [0, 0, 1, 3, 3.5])
    #expect(d.armed == nil)  // nothing due: no timer at all
  }

  @Test func aRequestAfterABoundaryWhoseTimerIsLate_seesTheBoundaryFirst() throws {
    var d = MachineDriver()
    let id = try d.show(fadeIn: 1, hold: 2, fadeOut: 1)
    d.now = 5  // the clock passed every boundary; the timer has not fired
    try d.show("later")
    #expect(d.outcome(id) == .completed)
  }

  // MARK: - Outcomes, as a table

  enum Step: Sendable {
    case cancel(now: Bool), end(hold: Double?), dismiss, invoke, update, expire
  }

  struct OutcomeCase: Sendable, CustomStringConvertible {
    var action: Step
    var at: Double
    var kind: Kind = .notice
    var outcome: Outcome
    /// When it finishes, from the start.
    var finishedAt: Double
    var description: String { "\(action) at \(at) → \(outcome) at \(finishedAt)" }
  }

  static let outcomeCases: [OutcomeCase] = [
    OutcomeCase(action: .expire, at: 0, outcome: .completed, finishedAt: 4),
    OutcomeCase(action: .expire, at: 0, kind: .progress, outcome: .timedOut, finishedAt: 4),
    OutcomeCase(action: .cancel(now: false), at: 2, outcome: .cancelled, finishedAt: 3),
    // From opacity 0.5 over fadeOut × 0.5.
    OutcomeCase(action: .cancel(now: false), at: 0.5, outcome: .cancelled, finishedAt: 1),
    OutcomeCase(action: .cancel(now: true), at: 2, outcome: .cancelled, finishedAt: 2),
    OutcomeCase(action: .end(hold: nil), at: 2, outcome: .completed, finishedAt: 3),
    OutcomeCase(action: .end(hold: 2), at: 2, kind: .progress, outcome: .completed, finishedAt: 5),
    OutcomeCase(action: .dismiss, at: 1.5, outcome: .dismissed, finishedAt: 1.5),
    OutcomeCase(action: .invoke, at: 2, outcome: .completed, finishedAt: 3),
    OutcomeCase(action: .update, at: 2, outcome: .completed, finishedAt: 5),  // the hold restarts
    // Back in from opacity 0.5 (0.5 s), hold 2, fade out 1.
    OutcomeCase(action: .update, at: 3.5, outcome: .completed, finishedAt: 7),
  ]

  @Test("how a shown notice finishes", arguments: outcomeCases)
  func outcome(_ row: OutcomeCase) throws {
    var d = MachineDriver()
    let id: Int
    if row.kind == .progress {
      id = try d.perform { m, i in
        try m.progress(ProgressParameters(title: "p", timeout: 2, fadeIn: 1, fadeOut: 1), at: i).id
      }
    } else {
      id = try d.perform { m, i in
        try m.show(
          ShowParameters(
            title: "n", fadeIn: 1, hold: 2, fadeOut: 1, easeIn: .linear, easeOut: .linear,
            actions: [Action(key: "default", label: "Open")]), at: i)
      }
    }
    d.advance(to: row.at)
    switch row.action {
    case .expire: break
    case .cancel(let now):
      _ = try d.perform { m, i in try m.cancel(CancelParameters(id: id, now: now), at: i) }
    case .end(let hold): _ = try d.perform { m, i in try m.end(EndParameters(id: id, hold: hold), at: i) }
    case .dismiss: _ = try d.perform { m, i in try m.dismiss(DismissParameters(id: id), at: i) }
    case .invoke:
      _ = try d.perform { m, i in try m.invoke(InvokeParameters(id: id, action: "default"), at: i) }
    case .update: _ = try d.perform { m, i in try m.update(UpdateParameters(id: id, body: "news"), at: i) }
    }
    if row.finishedAt > row.at {
      d.advance(to: row.finishedAt - 0.001)
      #expect(d.machine.isUnfinished(id), "still shown just before \(row.finishedAt)")
    }
    d.advance(to: row.finishedAt)
    #expect(d.outcome(id) == row.outcome)
    #expect(d.machine.notice(id, at: d.now)?.finished == MachineDriver.epoch + row.finishedAt)
  }

  @Test func afterACancel_newsAndEndDoNotBringTheNoticeBack() throws {
    var d = MachineDriver()
    let id = try d.show(fadeIn: 1, hold: 5, fadeOut: 2)
    d.advance(to: 2)
    _ = try d.perform { m, i in try m.cancel(CancelParameters(id: id), at: i) }
    d.advance(to: 2.5)
    _ = try d.perform { m, i in try m.update(UpdateParameters(id: id, body: "news"), at: i) }
    _ = try d.perform { m, i in try m.end(EndParameters(id: id, hold: 10), at: i) }
    d.advance(to: 4)
    #expect(d.outcome(id) == .cancelled)
  }

  @Test func anIndicatorRevivedAfterItsTimeoutBegan_thenEnded_completes() throws {
    var d = MachineDriver()
    let id = try d.perform { m, i in
      try m.progress(ProgressParameters(title: "p", timeout: 1, fadeIn: 1, fadeOut: 1), at: i).id
    }
    d.advance(to: 2.5)  // fading out: its timeout passed
    _ = try d.perform { m, i in try m.update(UpdateParameters(id: id, value: 50), at: i) }
    _ = try d.perform { m, i in try m.end(EndParameters(id: id, hold: 0), at: i) }
    d.advance(to: 10)
    #expect(d.outcome(id) == .completed)
  }

  // MARK: - Slots, as a table

  struct SlotCase: Sendable, CustomStringConvertible {
    var name: String
    var maxVisible: Int
    var maxSticky: Int
    /// Holds of the notices shown one after another (0 = until ended), all with fadeIn 1.
    var holds: [Double]
    /// The notices (1-based order) shown at instant 1.5.
    var shown: [Int]
    var description: String { name }
  }

  static let slotCases: [SlotCase] = [
    SlotCase(name: "one slot: the second waits", maxVisible: 1, maxSticky: 3, holds: [5, 5], shown: [1]),
    SlotCase(name: "two slots: two show", maxVisible: 2, maxSticky: 3, holds: [5, 5, 5], shown: [1, 2]),
    SlotCase(
      name: "a sticky notice leaves its slot once holding", maxVisible: 1, maxSticky: 3, holds: [0, 5],
      shown: [1, 2]),
    SlotCase(
      name: "past MaxSticky a sticky notice keeps its slot", maxVisible: 1, maxSticky: 1, holds: [0, 0, 5],
      shown: [1, 2]),
    SlotCase(name: "MaxSticky=0 is the old rule", maxVisible: 1, maxSticky: 0, holds: [0, 5], shown: [1]),
  ]

  @Test("who gets a slot", arguments: slotCases)
  func slots(_ row: SlotCase) throws {
    var d = MachineDriver(MachineDriver.settings(maxVisible: row.maxVisible, maxSticky: row.maxSticky))
    let ids = try row.holds.map { try d.show(hold: $0) }
    d.advance(to: 1.5)
    let shown = ids.enumerated().filter { d.phase($0.element)?.isVisible == true }.map { $0.offset + 1 }
    #expect(shown == row.shown)
    for id in ids where !shown.contains(ids.firstIndex(of: id)! + 1) {
      #expect(d.phase(id) == .queued)
      #expect(!d.runs.contains(id))  // no operation at all while it cannot start
    }
  }

  @Test func criticalThenNormal_withTheDefaults_bothShow() throws {
    var d = MachineDriver(QueueSettings())
    let critical = try d.perform { m, i in try m.show(ShowParameters(title: "x", urgency: .critical), at: i) }
    let normal = try d.perform { m, i in try m.show(ShowParameters(title: "y"), at: i) }
    d.advance(to: 0.1)
    #expect(d.phase(critical)?.isVisible == true)
    #expect(d.phase(normal)?.isVisible == true)
  }

  @Test func aStickyNoticeFinishing_freesItsStickyPlace() throws {
    var d = MachineDriver(MachineDriver.settings(maxVisible: 1, maxSticky: 1))
    let first = try d.show(hold: 0)
    d.advance(to: 1)
    #expect(d.machine.occupancy(of: .notices) == (0, 1))
    _ = try d.perform { m, i in try m.cancel(CancelParameters(id: first, now: true), at: i) }
    #expect(d.machine.occupancy(of: .notices) == (0, 0))
    let second = try d.show(hold: 0)
    d.advance(to: 2)
    #expect(d.machine.occupancy(of: .notices) == (0, 1))
    #expect(d.phase(second) == .holding)
  }

  @Test func higherUrgencyGetsTheNextSlot_thenFirstComeFirstServed() throws {
    var d = MachineDriver()
    let first = try d.show(hold: 1)
    let low = try d.show(urgency: .low)
    let normal = try d.show()
    let critical = try d.show(urgency: .critical)
    d.advance(to: 3)  // the first finishes
    #expect(d.runs == [first, critical])
    _ = (low, normal)
  }

  @Test func suspended_allowingNothing_nothingGetsASlot_resumeGivesThemInOrder() throws {
    var d = MachineDriver(MachineDriver.settings(maxVisible: 2))
    try d.perform { m, i in try m.suspend(for: nil, allow: .nothing, at: i) }
    let a = try d.show()
    let b = try d.show()
    #expect(d.runs.isEmpty)
    #expect(d.log.contains(.suspendLanes(true)))
    d.perform { m, i in m.resume(at: i) }
    #expect(d.runs == [a, b])
  }

  @Test func suspendForADuration_resumesAtItsEnd() throws {
    var d = MachineDriver()
    try d.perform { m, i in try m.suspend(for: 10, at: i) }
    let a = try d.show()
    #expect(d.armed == 10)
    d.advance(to: 9.999)
    #expect(d.runs.isEmpty)
    d.advance(to: 10)
    #expect(d.runs == [a])
  }

  @Test func aNoticeGrantedButNotStarted_isQueued_andCancelFinishesItsOperation() throws {
    var d = MachineDriver()
    d.autoStart = false
    let id = try d.show()
    #expect(d.runs == [id])
    #expect(d.phase(id) == .queued)
    _ = try d.perform { m, i in try m.cancel(CancelParameters(id: id), at: i) }
    #expect(
      d.log.last(where: { if case .finishOperation = $0 { true } else { false } }) == .finishOperation(id: id)
    )
    d.startPending()  // the lane starts it late: the machine ignores it
    #expect(d.outcome(id) == .cancelled)
  }

  // MARK: - Due times, dependencies, replacement

  @Test func delayed_isDueExactlyThen_andHoldsNoSlot() throws {
    var d = MachineDriver()
    let later = try d.show(delay: 5)
    let now = try d.show(hold: 10)
    #expect(d.runs == [now])
    #expect(d.armed == 1)
    d.advance(to: 4.999)
    #expect(d.phase(later) == .waiting)
    d.advance(to: 5)
    #expect(d.phase(later) == .queued)  // the first still holds the slot
  }

  @Test func after_waitsForTheOther_thenIsReady() throws {
    var d = MachineDriver(MachineDriver.settings(maxVisible: 2))
    let first = try d.show(hold: 1)
    let second = try d.show(after: first)
    #expect(d.phase(second) == .waiting)
    d.advance(to: 3)
    #expect(d.runs == [first, second])
  }

  @Test func key_replacesAQueuedNotice_andUpdatesAShownOneInPlace() throws {
    var d = MachineDriver()
    let shown = try d.show(key: "k")
    let waiting = try d.show(key: "w")
    let replacement = try d.show(key: "w")
    #expect(d.outcome(waiting) == .replaced)
    #expect(replacement != waiting)
    d.advance(to: 1.5)
    let same = try d.show("new text", key: "k")
    #expect(same == shown)
    #expect(d.machine.notice(shown, at: d.now)?.title == "new text")
  }

  @Test func aReplacement_replacesTheWholeNotice_whatItLeavesOutTakesItsDefault() throws {
    // libnotify's test-replace, and more: everything the first call gave, the second does not.
    var d = MachineDriver(QueueSettings())
    let first = ShowParameters(
      title: "first", body: "body", app: "app", urgency: .critical, style: .blur, icon: "/i.png",
      hints: Hints(category: "email", resident: true), tag: "t", key: "k", hold: 0,
      actions: [Action(key: "open", label: "Open")])
    let id = try d.perform { m, i in try m.show(first, at: i) }
    d.advance(to: 1.5)
    #expect(d.phase(id) == .holding)
    let again = try d.perform { m, i in try m.show(ShowParameters(title: "second", key: "k"), at: i) }
    #expect(again == id)
    let notice = try #require(d.machine.notice(id, at: d.now))
    #expect(notice.title == "second")
    #expect(notice.body == nil && notice.app == nil && notice.icon == nil && notice.hints == nil)
    #expect(notice.actions == nil && notice.tag == nil && notice.style == .clear)
    #expect(notice.urgency == .normal)
    #expect(notice.hold == 5)  // the default for normal, not the first call's "until ended"
    #expect(notice.created == MachineDriver.epoch + 1.5)
    #expect(notice.phase == .holding && notice.opacity == 1)  // no new fade-in
    // The hold starts again from the new timing: 5 s from the replacement, then a 1 s fade.
    d.advance(to: 6.499)
    #expect(d.phase(id) == .holding)
    d.advance(to: 6.5)
    #expect(d.phase(id) == .fadingOut)
    d.advance(to: 7.5)
    #expect(d.outcome(id) == .completed)
  }

  @Test func aReplacement_withHoldZero_holdsUntilEnded_andTakesItsFades() throws {
    // The other way round: a notice that would expire is replaced by one that never does.
    var d = MachineDriver(MachineDriver.settings(maxVisible: 1, maxSticky: 0))
    let id = try d.show("first", hold: 2, key: "k")
    d.advance(to: 2.5)  // in the middle of its 2 s hold
    let again = try d.perform { m, i in
      try m.show(ShowParameters(title: "second", key: "k", hold: 0, fadeOut: 3, easeOut: .linear), at: i)
    }
    #expect(again == id)
    d.advance(to: 1_000)
    #expect(d.phase(id) == .holding)
    _ = try d.perform { m, i in try m.end(EndParameters(id: id), at: i) }
    d.advance(to: 1_001.5)
    #expect(d.opacity(id) == 0.5)  // fading over the new 3 s, linearly
  }

  @Test func aReplacementOfTheOtherKind_isANewNotice_theOldOneReplaced() throws {
    var d = MachineDriver()
    let indicator = try d.perform { m, i in try m.progress(ProgressParameters(title: "p", key: "k"), at: i).id
    }
    d.advance(to: 1.5)
    let notice = try d.show("done", key: "k")
    #expect(notice != indicator)
    #expect(d.outcome(indicator) == .replaced)
    #expect(d.machine.notice(notice, at: d.now)?.kind == .notice)
  }

  @Test func aWholeProgressReplacement_dropsWhatItLeavesOut_anUpdateKeepsIt() throws {
    var d = MachineDriver()
    let first = ProgressParameters(
      title: "copy", body: "a.iso", icon: "/i.png", hints: Hints(category: "transfer"), key: "k", value: 10)
    let id = try d.perform { m, i in try m.progress(first, at: i).id }
    d.advance(to: 1.5)
    // Varlink's Progress with the key: an update, the body and icon stay.
    _ = try d.perform { m, i in try m.progress(ProgressParameters(title: "copy", key: "k", value: 20), at: i)
    }
    #expect(d.machine.notice(id, at: d.now)?.body == "a.iso")
    #expect(d.machine.notice(id, at: d.now)?.icon == "/i.png")
    // D-Bus Notify with replaces_id and a value hint: the whole indicator.
    let answer = try d.perform { m, i in
      try m.progress(ProgressParameters(title: "copy", value: 30), replacing: id, wholly: true, at: i)
    }
    #expect(answer.id == id && answer.existing)
    let notice = try #require(d.machine.notice(id, at: d.now))
    #expect(notice.value == 30 && notice.body == nil && notice.icon == nil && notice.hints == nil)
    #expect(notice.key == nil)
    // Its key went with the old call: a new notice with it is a new notice.
    #expect(try d.show("other", key: "k") != id)
  }

  @Test func fairSlots_aFloodFromOneApp_doesNotKeepAnotherAppWaiting() throws {
    var d = MachineDriver(MachineDriver.settings(maxVisible: 3))
    let flood = try (0..<40).map { try d.show("flood \($0)", hold: 2, app: "flood") }
    let other = try d.show("other", hold: 2, app: "other")
    #expect(d.runs == Array(flood.prefix(3)))
    d.advance(to: 4)  // the first three fade out: three slots free
    #expect(d.runs.dropFirst(3).first == other)
    #expect(Array(d.runs.dropFirst(4)) == Array(flood[3..<5]))
    // The flood goes on in its own order after that.
    d.advance(to: 8)
    #expect(Array(d.runs.dropFirst(6).prefix(3)) == Array(flood[5..<8]))
  }

  @Test func fairSlots_twoAppsTakeTurns_urgencyStillComesFirst() throws {
    var d = MachineDriver(MachineDriver.settings(maxVisible: 1))
    let blocker = try d.show("blocker", hold: 1, app: "x")
    let a = try (0..<3).map { try d.show("a\($0)", hold: 1, app: "a") }
    let b = try (0..<3).map { try d.show("b\($0)", hold: 1, app: "b") }
    let critical = try d.show("c", hold: 1, urgency: .critical, app: "a")
    d.advance(to: 100)
    #expect(d.runs == [blocker, critical, a[0], b[0], a[1], b[1], a[2], b[2]])
  }

  @Test func heapsOfFinishedNotices_areCompacted() throws {
    var d = MachineDriver()
    try d.perform { m, i in try m.suspend(for: nil, at: i) }
    for _ in 0..<2000 {
      let id = try d.show(delay: 1000)
      _ = try d.perform { m, i in try m.cancel(CancelParameters(id: id), at: i) }
    }
    #expect(d.machine.pendingScheduleSize <= 2 * 0 + 64 + 1)
  }

  // MARK: - Frames and watchers

  @Test func frames_arePacedOnlyWhileSomethingFades_toWatchersWhoAsked() throws {
    var d = MachineDriver()
    let plain = d.perform { m, i in m.watch(frames: false, interval: 0.1, at: i) }
    let framed = d.perform { m, i in m.watch(frames: true, interval: 0.25, at: i) }
    #expect(!d.machine.isPacingFrames)
    _ = try d.show(fadeIn: 1, hold: 2, fadeOut: 1)
    #expect(d.machine.isPacingFrames)
    d.advance(to: 1)
    let frames = d.log.compactMap { effect -> (Double, [Int])? in
      guard case .frames(let events, let watchers) = effect else { return nil }
      return (events[0].at - MachineDriver.epoch, watchers)
    }
    #expect(frames.map(\.0) == [0.25, 0.5, 0.75])  // at 1 it holds: nothing fades
    #expect(frames.allSatisfy { $0.1 == [framed] })
    _ = plain
    d.advance(to: 2.5)  // holding: no frames, no timer but the boundary
    #expect(!d.machine.isPacingFrames)
    #expect(d.armed == 3)
  }

  @Test func waiters_areAnsweredWhenTheNoticeFinishes_orAtOnce() throws {
    var d = MachineDriver()
    let id = try d.show(hold: 1)
    let waiter = try d.perform { m, _ in try m.wait(for: id) }
    d.advance(to: 3)
    #expect(d.log.contains { if case .answer([waiter], _) = $0 { true } else { false } })
    let late = try d.perform { m, _ in try m.wait(for: id) }
    #expect(d.log.last == .answer(waiters: [late], d.machine.notice(id, at: d.now)!))
    #expect(d.machine.subscriberCounts.waiters == 0)
  }
}
