import NotifyCore
import NotifyProtocol
import Testing

/// Snooze (DESIGN §19) on the machine with a manual clock: a snoozed notice leaves the screen,
/// waits unfinished, and comes back as itself with a fresh timeline.
@Suite("QueueMachine: snooze")
struct SnoozeTests {
  static let epoch = MachineDriver.epoch

  static func driver(maxVisible: Int = 3) -> MachineDriver {
    MachineDriver(MachineDriver.settings(maxVisible: maxVisible))
  }

  @discardableResult
  static func snooze(_ d: inout MachineDriver, _ id: Int, for duration: Double? = nil, until: Double? = nil)
    throws
    -> Notice
  {
    try d.perform { m, i in try m.snooze(SnoozeParameters(id: id, duration: duration, until: until), at: i) }
  }

  /// Whether a `Wait` answer for notice `id` was carried out.
  static func answered(_ d: MachineDriver, _ id: Int) -> [Outcome?] {
    d.log.compactMap { effect -> Outcome?? in
      guard case .answer(_, let notice) = effect, notice.id == id else { return nil }
      return .some(notice.outcome)
    }
  }

  // MARK: - Leaving and coming back

  @Test func snoozedWhileHolding_itFadesOut_waitsUnfinished_andComesBackWithAFreshTimeline() throws {
    var d = Self.driver()
    let id = try d.show(fadeIn: 1, hold: 10, fadeOut: 1)
    _ = try d.perform { m, _ in try m.wait(for: id) }
    d.advance(to: 3)
    #expect(d.phase(id) == .holding)
    let snoozed = try Self.snooze(&d, id, for: 60)
    #expect(snoozed.snoozedUntil == Self.epoch + 63)
    #expect(snoozed.phase == .fadingOut && snoozed.opacity == 1)
    d.advance(to: 3.5)
    #expect(d.phase(id) == .fadingOut && d.opacity(id) == 0.5)
    d.advance(to: 4)
    // Off the screen, its slot and operation gone, not finished.
    #expect(d.phase(id) == .waiting && d.outcome(id) == nil)
    #expect(!d.running.contains(id))
    #expect(d.machine.occupancy(of: .notices).slots == 0)
    #expect(d.machine.status.snoozed == 1 && d.machine.status.snoozeEnds == Self.epoch + 63)
    #expect(d.machine.snoozedNotices(at: d.now).map(\.id) == [id])
    // Nothing is due before its time: the one timer is armed for it.
    #expect(d.armed == 63)
    d.advance(to: 62.999)
    #expect(d.phase(id) == .waiting)
    d.advance(to: 63)
    #expect(d.phase(id) == .fadingIn && d.opacity(id) == 0)
    let back = try #require(d.machine.notice(id, at: d.now))
    #expect(back.snoozedUntil == nil && back.shown == Self.epoch + 63)
    #expect(d.machine.status.snoozed == 0 && d.machine.status.snoozeEnds == nil)
    // The whole hold again.
    d.advance(to: 73.999)
    #expect(d.phase(id) == .holding)
    #expect(Self.answered(d, id).isEmpty)
    d.advance(to: 75)
    #expect(d.outcome(id) == .completed)
    #expect(Self.answered(d, id) == [.completed])
    #expect(
      d.lifecycle(of: id) == [
        "added", "queued", "fadingIn", "holding", "snoozed", "fadingOut", "waiting", "snoozed", "queued",
        "fadingIn", "holding", "fadingOut", "finished:completed",
      ])
    // Only its true end goes to history; the store heard of the snooze and of the way back.
    let journaled = d.log.compactMap { effect -> Double?? in
      guard case .journal(.unfinished(let notice)) = effect, notice.id == id else { return nil }
      return .some(notice.snoozedUntil)
    }
    #expect(journaled.contains(Self.epoch + 63) && journaled.last == .some(nil))
  }

  @Test func snoozedWhileFadingIn_itFadesOutFromTheOpacityItHas() throws {
    var d = Self.driver()
    let id = try d.show(fadeIn: 1, hold: 10, fadeOut: 1)
    d.advance(to: 0.5)
    try Self.snooze(&d, id, for: 30)
    d.advance(to: 0.75)
    #expect(d.phase(id) == .fadingOut && abs(d.opacity(id)! - 0.25) < 1e-12)
    d.advance(to: 1)
    #expect(d.phase(id) == .waiting)
    d.advance(to: 30.5)
    #expect(d.phase(id) == .fadingIn)
  }

  @Test func snoozedWhileFadingOutAtTheEndOfItsHold_itIsParkedNotFinished() throws {
    var d = Self.driver()
    let id = try d.show(fadeIn: 1, hold: 2, fadeOut: 1)
    d.advance(to: 3.5)
    #expect(d.phase(id) == .fadingOut)
    try Self.snooze(&d, id, for: 10)
    d.advance(to: 4)
    #expect(d.phase(id) == .waiting && d.outcome(id) == nil)
    d.advance(to: 13.5)
    #expect(d.phase(id) == .fadingIn)
    d.advance(to: 20)
    #expect(d.outcome(id) == .completed)
  }

  @Test func aNoticeNotShownYet_isParkedAtOnce_andTheNextTakesItsSlot() throws {
    var d = Self.driver(maxVisible: 1)
    let first = try d.show(hold: 10)
    let second = try d.show(hold: 10)
    #expect(d.phase(second) == .queued)
    try Self.snooze(&d, second, for: 5)
    #expect(d.phase(second) == .waiting)
    let third = try d.show(hold: 10)
    // At 5 the snoozed one is due again, behind the one shown; the third waits its turn too.
    d.advance(to: 5)
    #expect(d.phase(second) == .queued && d.phase(third) == .queued)
    d.advance(to: 12)
    #expect(d.outcome(first) == .completed)
    #expect(d.phase(second) == .fadingIn || d.phase(second) == .holding)
  }

  @Test func aProgressIndicator_keepsTakingNewsWhileSnoozed_andComesBackWithItsValueAndAWholeTimeout() throws
  {
    var d = Self.driver()
    let id = try d.perform { m, i in
      try m.progress(
        ProgressParameters(title: "Backup", key: "backup", value: 10, timeout: 30, fadeIn: 0), at: i
      ).id
    }
    d.advance(to: 5)
    try Self.snooze(&d, id, for: 60)
    d.advance(to: 10)
    #expect(d.phase(id) == .waiting)
    let again = try d.perform { m, i in
      try m.progress(ProgressParameters(title: "Backup", key: "backup", value: 80), at: i)
    }
    #expect(again.id == id && again.existing)
    _ = try d.perform { m, i in try m.update(UpdateParameters(id: id, value: 90), at: i) }
    #expect(d.phase(id) == .waiting)
    d.advance(to: 65)
    let back = try #require(d.machine.notice(id, at: d.now))
    #expect(back.value == 90 && back.phase == .holding)
    // Its timeout counts from its return.
    d.advance(to: 94.9)
    #expect(d.phase(id) == .holding)
    d.advance(to: 200)
    #expect(d.outcome(id) == .timedOut)
  }

  @Test func endingASnoozedIndicator_withAMessage_showsItNow_withoutOne_finishesItAtOnce() throws {
    var d = Self.driver()
    let withMessage = try d.perform { m, i in
      try m.progress(ProgressParameters(title: "Build", timeout: 0), at: i).id
    }
    let without = try d.perform { m, i in
      try m.progress(ProgressParameters(title: "Sync", timeout: 0), at: i).id
    }
    d.advance(to: 2)
    try Self.snooze(&d, withMessage, for: 600)
    try Self.snooze(&d, without, for: 600)
    d.advance(to: 4)
    _ = try d.perform { m, i in try m.end(EndParameters(id: withMessage, message: "Built", hold: 2), at: i) }
    _ = try d.perform { m, i in try m.end(EndParameters(id: without), at: i) }
    #expect(d.outcome(without) == .completed)
    let shown = try #require(d.machine.notice(withMessage, at: d.now))
    #expect(shown.snoozedUntil == nil && shown.message == "Built" && shown.phase == .fadingIn)
    #expect(d.machine.status.snoozed == 0)
    d.advance(to: 20)
    #expect(d.outcome(withMessage) == .completed)
  }

  @Test func cancelledWhileSnoozed_itFinishesThen_andNeverComesBack() throws {
    var d = Self.driver()
    let parked = try d.show(hold: 10)
    let fading = try d.show(hold: 10)
    _ = try d.perform { m, _ in try m.wait(for: parked) }
    d.advance(to: 2)
    try Self.snooze(&d, parked, for: 30)
    d.advance(to: 3)
    #expect(d.phase(parked) == .waiting)
    _ = try d.perform { m, i in try m.cancel(CancelParameters(id: parked), at: i) }
    #expect(d.outcome(parked) == .cancelled && Self.answered(d, parked) == [.cancelled])
    // One still fading out for its snooze is dismissed: it finishes as it leaves.
    try Self.snooze(&d, fading, for: 30)
    d.advance(to: 3.5)
    #expect(d.phase(fading) == .fadingOut)
    _ = try d.perform { m, i in try m.dismiss(DismissParameters(id: fading), at: i) }
    #expect(d.outcome(fading) == .dismissed)
    let runs = d.runs.count
    d.advance(to: 100)
    #expect(d.runs.count == runs)
    #expect(d.machine.status.snoozed == 0 && d.machine.notice(parked, at: d.now)?.snoozedUntil == nil)
  }

  @Test func replacedWhileSnoozed_theReplacementStaysSnoozed_untilTheSameTime() throws {
    var d = Self.driver()
    let old = try d.show(hold: 10, key: "chat")
    d.advance(to: 2)
    try Self.snooze(&d, old, for: 30)
    d.advance(to: 4)
    let new = try d.show("3 new messages", hold: 10, key: "chat")
    #expect(new != old && d.outcome(old) == .replaced)
    let replacement = try #require(d.machine.notice(new, at: d.now))
    #expect(replacement.snoozedUntil == Self.epoch + 32 && replacement.phase == .waiting)
    #expect(d.machine.status.snoozed == 1)
    d.advance(to: 31.9)
    #expect(d.phase(new) == .waiting)
    d.advance(to: 32)
    #expect(d.phase(new) == .fadingIn)
  }

  @Test func replacedWhileFadingOutForItsSnooze_itChangesInPlace_andStillLeaves() throws {
    var d = Self.driver()
    let id = try d.show(fadeIn: 1, hold: 10, fadeOut: 2)
    d.advance(to: 3)
    try Self.snooze(&d, id, for: 30)
    d.advance(to: 3.5)
    #expect(try d.show("news", hold: 10, key: nil, replacing: id) == id)
    #expect(d.machine.notice(id, at: d.now)?.title == "news")
    #expect(d.phase(id) == .fadingOut)
    d.advance(to: 5)
    #expect(d.phase(id) == .waiting && d.outcome(id) == nil)
  }

  @Test func aNoticeEqualToOneLeavingForItsSnooze_isANewNotice_notMergedIntoIt() throws {
    var settings = MachineDriver.settings(maxVisible: 3)
    settings.stackDuplicates = true
    var d = MachineDriver(settings)
    let first = try d.show("Build failed", hold: 10)
    d.advance(to: 2)
    #expect(try d.show("Build failed", hold: 10) == first)  // merged while it shows
    try Self.snooze(&d, first, for: 60)
    let second = try d.show("Build failed", hold: 10)
    #expect(second != first && d.phase(second) == .fadingIn)
  }

  @Test func comingBackUnderDoNotDisturb_itIsHeldLikeAnyOther_andShowsOnResume() throws {
    var d = Self.driver()
    let id = try d.show(hold: 10)
    d.advance(to: 2)
    try Self.snooze(&d, id, for: 20)
    d.advance(to: 10)
    _ = try d.perform { m, i in try m.suspend(for: nil, allow: .critical, at: i) }
    d.advance(to: 30)
    #expect(d.phase(id) == .queued)
    #expect(d.machine.heldNotices().map(\.id) == [id])
    #expect(d.machine.notice(id, at: d.now)?.snoozedUntil == nil)
    d.perform { m, i in m.resume(at: i) }
    #expect(d.phase(id) == .fadingIn)
  }

  @Test func snoozedAgain_itComesBackAtTheNewTimeOnly_andTheScheduleStaysBounded() throws {
    var d = Self.driver()
    let id = try d.show(hold: 10)
    d.advance(to: 2)
    try Self.snooze(&d, id, for: 10)
    d.advance(to: 4)
    for step in 1...500 { try Self.snooze(&d, id, for: 10 + Double(step) / 100) }
    try Self.snooze(&d, id, for: 100)
    #expect(d.machine.pendingScheduleSize <= 2 * 1 + 64 + 1)
    d.advance(to: 103.9)
    #expect(d.phase(id) == .waiting)
    d.advance(to: 104)
    #expect(d.phase(id) == .fadingIn)
  }

  @Test func unsnoozed_aParkedNoticeComesBackNow_andOneStillLeavingFadesBackIn() throws {
    var d = Self.driver()
    let parked = try d.show(fadeIn: 1, hold: 10, fadeOut: 1)
    let leaving = try d.show(fadeIn: 1, hold: 10, fadeOut: 2)
    d.advance(to: 2)
    try Self.snooze(&d, parked, for: 300)
    try Self.snooze(&d, leaving, for: 300)
    d.advance(to: 3)
    #expect(d.phase(parked) == .waiting && d.phase(leaving) == .fadingOut)
    _ = try d.perform { m, i in try m.unsnooze(IDParameters(id: parked), at: i) }
    _ = try d.perform { m, i in try m.unsnooze(IDParameters(id: leaving), at: i) }
    #expect(d.phase(parked) == .fadingIn)
    #expect(d.phase(leaving) == .fadingIn && d.opacity(leaving) == 0.5)
    #expect(d.machine.status.snoozed == 0)
    // Back at full opacity, it holds its whole hold.
    d.advance(to: 13.4)
    #expect(d.phase(leaving) == .holding)
    #expect(throws: QueueError.invalidArgument(field: "id", reason: "notice \(parked) is not snoozed")) {
      try d.perform { m, i in try m.unsnooze(IDParameters(id: parked), at: i) }
    }
  }

  // MARK: - Bad requests change nothing

  @Test func badRequests_areRefusedWithTheFieldAtFault_andChangeNothing() throws {
    var d = Self.driver()
    let id = try d.show(hold: 10)
    let wall = Self.epoch
    let cases: [(SnoozeParameters, String)] = [
      (SnoozeParameters(id: id), "duration"),
      (SnoozeParameters(id: id, duration: 5, until: wall + 5), "duration"),
      (SnoozeParameters(id: id, duration: 0), "duration"),
      (SnoozeParameters(id: id, duration: -1), "duration"),
      (SnoozeParameters(id: id, duration: .infinity), "duration"),
      (SnoozeParameters(id: id, duration: QueueMachine.maximumSnooze + 1), "duration"),
      (SnoozeParameters(id: id, until: wall - 1), "until"), (SnoozeParameters(id: id, until: wall), "until"),
      (SnoozeParameters(id: id, until: wall + QueueMachine.maximumSnooze + 1), "until"),
    ]
    for (request, field) in cases {
      #expect {
        try d.perform { m, i in try m.snooze(request, at: i) }
      } throws: { error in
        guard case QueueError.invalidArgument(let reported, _) = error else { return false }
        return reported == field
      }
    }
    #expect(throws: QueueError.noSuchNotice(id: 99)) { try Self.snooze(&d, 99, for: 5) }
    d.advance(to: 2)
    _ = try d.perform { m, i in try m.cancel(CancelParameters(id: id), at: i) }
    #expect(throws: QueueError.invalidArgument(field: "id", reason: "notice \(id) is closing")) {
      try Self.snooze(&d, id, for: 5)
    }
    d.advance(to: 5)
    #expect(throws: QueueError.invalidArgument(field: "id", reason: "notice \(id) has already finished")) {
      try Self.snooze(&d, id, for: 5)
    }
    #expect(d.machine.status.snoozed == 0)
    // The longest snooze is allowed.
    let other = try d.show(hold: 10)
    try Self.snooze(&d, other, for: QueueMachine.maximumSnooze)
  }

  @Test func snoozedNotices_areBounded_perAppAndInAll_withAClearError() throws {
    var settings = MachineDriver.settings(maxVisible: 1)
    settings.capacity = 2_000
    var d = MachineDriver(settings)
    for _ in 0..<QueueMachine.maximumSnoozedPerApp {
      try Self.snooze(&d, try d.show(delay: 1_000, hold: 1, app: "chat"), for: 60)
    }
    let oneTooMany = try d.show(delay: 1_000, hold: 1, app: "chat")
    #expect {
      try Self.snooze(&d, oneTooMany, for: 60)
    } throws: { error in
      guard case QueueError.invalidArgument("id", let reason) = error else { return false }
      return reason.contains("\(QueueMachine.maximumSnoozedPerApp) notices of app 'chat' are snoozed already")
    }
    // Snoozing one already snoozed again takes no more room.
    try Self.snooze(&d, 1, for: 90)
    var app = 0
    while d.machine.status.snoozed < QueueMachine.maximumSnoozed {
      app += 1
      for _
        in 0..<min(QueueMachine.maximumSnoozedPerApp, QueueMachine.maximumSnoozed - d.machine.status.snoozed)
      {
        try Self.snooze(&d, try d.show(delay: 1_000, hold: 1, app: "app\(app)"), for: 60)
      }
    }
    let beyond = try d.show(delay: 1_000, hold: 1, app: "another")
    #expect(throws: QueueError.self) { try Self.snooze(&d, beyond, for: 60) }
    #expect(d.machine.status.snoozed == QueueMachine.maximumSnoozed)
    #expect(d.machine.notice(beyond, at: d.now)?.snoozedUntil == nil)
  }

  // MARK: - Restart

  /// The journal's view of the machine after `d`'s effects: its unfinished notices, as written last.
  static func journaled(_ d: MachineDriver) -> JournalState {
    var unfinished: [Int: Notice] = [:]
    var nextID = 1
    for effect in d.log {
      switch effect {
      case .journal(.unfinished(let notice)): unfinished[notice.id] = notice
      case .journal(.finished(let notice)): unfinished[notice.id] = nil
      case .journal(.nextID(let next)): nextID = next
      default: break
      }
    }
    return JournalState(unfinished: unfinished.values.sorted { $0.id < $1.id }, nextID: nextID)
  }

  @Test func afterARestart_aSnoozedNoticeComesBackAtItsWallClockTime_atOnceIfThatPassedMeanwhile() throws {
    var d = Self.driver()
    let id = try d.show(hold: 10)
    d.advance(to: 2)
    try Self.snooze(&d, id, for: 60)  // back at epoch + 62
    d.advance(to: 2.5)  // gone in the middle of its fade-out: it still comes back only then
    let saved = Self.journaled(d)
    #expect(saved.unfinished.first?.snoozedUntil == Self.epoch + 62)

    // Started again 30 s later by the wall clock, on a monotonic clock that starts over.
    var soon = Self.driver()
    soon.now = 1_000
    soon.machine.restore(saved, at: Instant(now: 1_000, wall: Self.epoch + 32))
    soon.carryOut()
    #expect(soon.phase(id) == .waiting && soon.machine.status.snoozed == 1)
    #expect(soon.armed == 1_030)

    // Started after the time passed (the machine was off): back at once.
    var late = Self.driver()
    late.machine.restore(saved, at: Instant(now: 0, wall: Self.epoch + 3_600))
    late.carryOut()
    #expect(late.phase(id) == .fadingIn)
    #expect(late.machine.notice(id, at: late.now)?.snoozedUntil == nil)
  }
}
