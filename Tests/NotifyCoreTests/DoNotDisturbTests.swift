import Foundation
import NotifyCore
import NotifyProtocol
import Testing

/// Quiet hours read in a time zone: windows across midnight, on weekdays, and across both changes
/// of daylight saving time in 2026 (Europe/Berlin: clocks forward on 29 March at 02:00 CET, back
/// on 25 October at 03:00 CEST).
@Suite("QuietHours: windows of local time")
struct QuietHoursTests {
  static let utc = TimeZone(identifier: "UTC")!
  static let berlin = TimeZone(identifier: "Europe/Berlin")!

  /// Seconds since the epoch of a UTC date and time.
  static func utc(_ text: String) -> Double {
    let formatter = ISO8601DateFormatter()
    return formatter.date(from: text + "Z")!.timeIntervalSince1970
  }

  @Test(arguments: [
    ("22:00-07:00", "22:00-07:00"), ("Mon-Fri 22:00-07:00", "Mon,Tue,Wed,Thu,Fri 22:00-07:00"),
    ("sat,sun 13:00-15:30", "Sat,Sun 13:00-15:30"), ("Fri-Mon 00:00-24:00", "Mon,Fri,Sat,Sun 00:00-24:00"),
  ])
  func aWindow_readsAsWritten(text: String, description: String) {
    #expect(QuietWindow(text)?.description == description)
  }

  @Test(arguments: [
    "", "22:00", "22-07", "25:00-07:00", "22:60-07:00", "Mo 22:00-07:00", "Mon- 1:00-2:00", "2:00-3:00",
  ])
  func notAWindow_isRefused(text: String) {
    #expect(QuietWindow(text) == nil)
  }

  @Test func aWindowAcrossMidnight_holdsUntilTheMorning_andBeginsAgainInTheEvening() {
    let quiet = QuietHours(windows: [QuietWindow("22:00-07:00")!], timeZone: Self.utc)
    #expect(quiet.end(ofQuietAt: Self.utc("2026-06-10T23:30:00")) == Self.utc("2026-06-11T07:00:00"))
    #expect(quiet.end(ofQuietAt: Self.utc("2026-06-11T06:59:59")) == Self.utc("2026-06-11T07:00:00"))
    #expect(quiet.end(ofQuietAt: Self.utc("2026-06-11T07:00:00")) == nil)
    #expect(quiet.nextStart(after: Self.utc("2026-06-11T07:00:00")) == Self.utc("2026-06-11T22:00:00"))
  }

  @Test func weekdays_nameTheDaysAWindowStartsOn() {
    let quiet = QuietHours(windows: [QuietWindow("Mon-Fri 22:00-07:00")!], timeZone: Self.utc)
    // 2026-06-12 is a Friday: its window runs into Saturday morning; Saturday's evening is free.
    #expect(quiet.end(ofQuietAt: Self.utc("2026-06-13T03:00:00")) == Self.utc("2026-06-13T07:00:00"))
    #expect(quiet.end(ofQuietAt: Self.utc("2026-06-13T23:00:00")) == nil)
    #expect(quiet.nextStart(after: Self.utc("2026-06-13T07:00:00")) == Self.utc("2026-06-15T22:00:00"))
  }

  @Test func windowsThatMeet_areOneQuietTime() {
    let quiet = QuietHours(
      windows: [QuietWindow("22:00-07:00")!, QuietWindow("07:00-09:00")!], timeZone: Self.utc)
    #expect(quiet.end(ofQuietAt: Self.utc("2026-06-10T23:00:00")) == Self.utc("2026-06-11T09:00:00"))
  }

  @Test func theNightTheClocksGoForward_isAnHourShorter() {
    let quiet = QuietHours(windows: [QuietWindow("22:00-07:00")!], timeZone: Self.berlin)
    // 22:00 CET is 21:00 UTC; 07:00 CEST is 05:00 UTC: eight hours, not nine.
    #expect(quiet.nextStart(after: Self.utc("2026-03-28T12:00:00")) == Self.utc("2026-03-28T21:00:00"))
    #expect(quiet.end(ofQuietAt: Self.utc("2026-03-28T21:00:00")) == Self.utc("2026-03-29T05:00:00"))
  }

  @Test func theNightTheClocksGoBack_isAnHourLonger() {
    let quiet = QuietHours(windows: [QuietWindow("22:00-07:00")!], timeZone: Self.berlin)
    // 22:00 CEST is 20:00 UTC; 07:00 CET is 06:00 UTC: ten hours.
    #expect(quiet.end(ofQuietAt: Self.utc("2026-10-24T20:00:00")) == Self.utc("2026-10-25T06:00:00"))
  }

  @Test func aStartTheClocksSkip_isTheInstantOfTheChange_andARepeatedOne_itsFirstOccurrence() {
    let skipped = QuietHours(windows: [QuietWindow("02:30-04:00")!], timeZone: Self.berlin)
    // 02:30 does not happen on 29 March: the window starts at 03:00 CEST, 01:00 UTC.
    #expect(skipped.nextStart(after: Self.utc("2026-03-28T12:00:00")) == Self.utc("2026-03-29T01:00:00"))
    let repeated = QuietHours(windows: [QuietWindow("02:30-04:00")!], timeZone: Self.berlin)
    // 02:30 happens twice on 25 October: first at 00:30 UTC (CEST).
    #expect(repeated.nextStart(after: Self.utc("2026-10-24T12:00:00")) == Self.utc("2026-10-25T00:30:00"))
  }
}

/// Do-not-disturb on the machine (DESIGN §11): what passes, the hand against the schedule, the
/// summary on resume, flood control and merged duplicates, on a manual clock.
@Suite("QueueMachine: do-not-disturb and floods")
struct DoNotDisturbTests {
  /// 2027-01-15 08:00 UTC, a Friday: the driver's epoch.
  static let epoch = MachineDriver.epoch

  static func settings(_ change: (inout QueueSettings) -> Void = { _ in }) -> QueueSettings {
    var settings = MachineDriver.settings(maxVisible: 5)
    settings.doNotDisturb.quietHours.timeZone = TimeZone(identifier: "UTC")!
    change(&settings)
    return settings
  }

  static func show(
    _ d: inout MachineDriver, _ title: String, app: String? = nil, urgency: Urgency? = nil, hold: Double = 2
  ) throws -> Int {
    try d.perform { m, i in
      try m.show(
        ShowParameters(title: title, app: app, urgency: urgency, fadeIn: 1, hold: hold, fadeOut: 1), at: i)
    }
  }

  // MARK: - Levels

  @Test func allowCritical_letsCriticalThrough_andHoldsTheRest_untilResumed() throws {
    var d = MachineDriver(Self.settings())
    try d.perform { m, i in try m.suspend(for: nil, at: i) }
    #expect(d.machine.doNotDisturb == DoNotDisturb(reason: .hand, allow: .critical))
    let normal = try Self.show(&d, "normal")
    let critical = try Self.show(&d, "critical", urgency: .critical)
    #expect(d.runs == [critical])
    #expect(d.machine.heldNotices().map(\.id) == [normal])
    #expect(!d.log.contains(.suspendLanes(true)))
    d.perform { m, i in m.resume(at: i) }
    #expect(d.runs == [critical, normal])
  }

  @Test func allowNothing_holdsCriticalToo_andSuspendsTheLanes() throws {
    var d = MachineDriver(Self.settings())
    try d.perform { m, i in try m.suspend(for: nil, allow: .nothing, at: i) }
    let critical = try Self.show(&d, "critical", urgency: .critical)
    #expect(d.runs.isEmpty)
    #expect(d.log.contains(.suspendLanes(true)))
    #expect(d.machine.heldNotices().map(\.id) == [critical])
    d.perform { m, i in m.resume(at: i) }
    #expect(d.runs == [critical])
    #expect(d.log.last { if case .suspendLanes = $0 { true } else { false } } == .suspendLanes(false))
  }

  @Test func aRule_bypassesDoNotDisturb_orHoldsBackCriticalNotices() throws {
    var bypass = Rule(name: "backup", matchApp: Glob("backup"))
    bypass.bypassDoNotDisturb = true
    var hold = Rule(name: "chat", matchApp: Glob("chat"))
    hold.bypassDoNotDisturb = false
    var d = MachineDriver(Self.settings { $0.rules = [bypass, hold] })
    try d.perform { m, i in try m.suspend(for: nil, at: i) }
    let backup = try Self.show(&d, "backup done", app: "backup")
    let chat = try Self.show(&d, "ping", app: "chat", urgency: .critical)
    #expect(d.runs == [backup])
    #expect(d.machine.heldNotices().map(\.id) == [chat])
  }

  // MARK: - The hand and the schedule

  @Test func quietHours_suspend_andResumeByThemselves() throws {
    // 08:30-09:00 UTC: from half an hour after the epoch to an hour after.
    var d = MachineDriver(
      Self.settings { $0.doNotDisturb.quietHours.windows = [QuietWindow("08:30-09:00")!] })
    try d.perform { m, i in _ = m.status(at: i) }
    #expect(!d.machine.suspended)
    #expect(d.armed == 1800)
    d.advance(to: 1800)
    #expect(
      d.machine.doNotDisturb == DoNotDisturb(reason: .schedule, allow: .critical, until: Self.epoch + 3600))
    let held = try Self.show(&d, "held")
    #expect(d.runs.isEmpty)
    d.advance(to: 3600)
    #expect(!d.machine.suspended)
    #expect(d.runs == [held])
    // The next day's window comes again.
    d.advance(to: 86_400 + 1800)
    #expect(d.machine.doNotDisturb?.reason == .schedule)
  }

  @Test func aResumeInsideQuietHours_lastsUntilTheyEnd_andTheNextWindowHoldsAgain() throws {
    var d = MachineDriver(
      Self.settings { $0.doNotDisturb.quietHours.windows = [QuietWindow("08:00-09:00")!] })
    try d.perform { m, i in _ = m.status(at: i) }
    #expect(d.machine.doNotDisturb?.reason == .schedule)
    d.advance(to: 600)
    d.perform { m, i in m.resume(at: i) }
    #expect(!d.machine.suspended)
    #expect(d.machine.status.resumedUntil == Self.epoch + 3600)
    #expect(d.log.contains(.journal(.hand(.resumed(until: Self.epoch + 3600)))))
    let shown = try Self.show(&d, "shown")
    #expect(d.runs == [shown])
    d.advance(to: 3600)
    #expect(d.machine.hand == nil && d.machine.status.resumedUntil == nil)
    d.advance(to: 86_400)
    #expect(d.machine.doNotDisturb?.reason == .schedule)
  }

  @Test func aSuspendByHand_outlastsQuietHours_untilResumed() throws {
    var d = MachineDriver(
      Self.settings { $0.doNotDisturb.quietHours.windows = [QuietWindow("08:30-09:00")!] })
    try d.perform { m, i in try m.suspend(for: nil, at: i) }
    d.advance(to: 2000)
    #expect(d.machine.doNotDisturb?.reason == .hand)
    d.advance(to: 4000)
    #expect(d.machine.doNotDisturb == DoNotDisturb(reason: .hand, allow: .critical))
    d.perform { m, i in m.resume(at: i) }
    #expect(!d.machine.suspended)
  }

  @Test func aTimedSuspend_endingInsideQuietHours_handsOverToThem() throws {
    var d = MachineDriver(
      Self.settings { $0.doNotDisturb.quietHours.windows = [QuietWindow("08:30-09:00")!] })
    try d.perform { m, i in try m.suspend(for: 2000, allow: .nothing, at: i) }
    #expect(
      d.machine.doNotDisturb == DoNotDisturb(reason: .duration, allow: .nothing, until: Self.epoch + 2000))
    d.advance(to: 2000)
    #expect(
      d.machine.doNotDisturb == DoNotDisturb(reason: .schedule, allow: .critical, until: Self.epoch + 3600))
    #expect(d.log.contains(.journal(.hand(nil))))
  }

  @Test func theWallClockSetForward_isSeenByTheNextInput() throws {
    var d = MachineDriver(
      Self.settings { $0.doNotDisturb.quietHours.windows = [QuietWindow("10:00-11:00")!] })
    try d.perform { m, i in _ = m.status(at: i) }
    #expect(!d.machine.suspended)
    // Two hours on the wall clock, one second on the monotonic one.
    _ = d.machine.status(at: Instant(now: 1, wall: Self.epoch + 7200 + 1))
    #expect(d.machine.doNotDisturb?.reason == .schedule)
  }

  // MARK: - The summary on resume

  @Test func summary_foldsWhatWasHeld_intoOneNotice_criticalStillShowsByItself() throws {
    var d = MachineDriver(Self.settings { $0.doNotDisturb.summary = true })
    try d.perform { m, i in try m.suspend(for: nil, allow: .nothing, at: i) }
    let held = try ["one", "two", "three"].map { try Self.show(&d, $0, app: "mail") }
    let critical = try Self.show(&d, "battery", urgency: .critical)
    d.perform { m, i in m.resume(at: i) }
    let summary = try #require(d.machine.unfinishedNotices(at: d.now).first { $0.app == "notifyd" })
    #expect(summary.title == "3 notices while you were away")
    #expect(summary.body == "mail: one\nmail: two\nmail: three")
    #expect(Set(d.runs) == [critical, summary.id])
    for id in held {
      #expect(d.outcome(id) == .folded)
      #expect(d.machine.notice(id, at: d.now)?.foldedInto == summary.id)
    }
    #expect(d.machine.finishedNotices(HistoryParameters(foldedInto: summary.id)).map(\.id) == held.reversed())
  }

  @Test func summary_ofOneHeldNotice_isTheNoticeItself() throws {
    var d = MachineDriver(Self.settings { $0.doNotDisturb.summary = true })
    try d.perform { m, i in try m.suspend(for: nil, at: i) }
    let only = try Self.show(&d, "only")
    d.perform { m, i in m.resume(at: i) }
    #expect(d.runs == [only])
  }

  // MARK: - Flood control

  @Test func pastItsBucket_anAppsNotices_foldIntoOneSummary_updatedInPlace_othersUnaffected() throws {
    var d = MachineDriver(Self.settings { $0.perApp = FloodLimit(count: 3, period: 60) })
    let first = try (1...3).map { try Self.show(&d, "backup \($0)", app: "backup") }
    let fourth = try Self.show(&d, "backup 4", app: "backup")
    let fifth = try Self.show(&d, "backup 5", app: "backup")
    let summary = try #require(d.machine.notice(fourth, at: d.now)?.foldedInto)
    #expect(d.machine.notice(fifth, at: d.now)?.foldedInto == summary)
    #expect(d.outcome(fourth) == .folded && d.outcome(fifth) == .folded)
    let written = try #require(d.machine.notice(summary, at: d.now))
    #expect(written.title == "2 more from backup")
    #expect(written.body == "backup 5")
    #expect(Set(d.runs) == Set(first + [summary]))
    let mail = try Self.show(&d, "mail", app: "mail")
    #expect(d.runs.last == mail)
    // 3 per minute: one token back after 20 seconds.
    d.advance(to: 19.9)
    let tooSoon = try Self.show(&d, "too soon", app: "backup")
    #expect(d.outcome(tooSoon) == .folded)
    d.advance(to: 40)
    let refilled = try Self.show(&d, "refilled", app: "backup")
    #expect(d.machine.notice(refilled, at: d.now)?.foldedInto == nil)
    #expect(d.outcome(refilled) == nil)
  }

  @Test func floodControl_keepsAtMostSoManyBuckets() throws {
    var d = MachineDriver(Self.settings { $0.perApp = FloodLimit(count: 1, period: 3600) })
    for app in 0...QueueMachine.maximumTrackedApps + 10 {
      _ = try d.perform { m, i in
        try m.show(ShowParameters(title: "t", app: "app \(app)", delay: 60), at: i)
      }
    }
    #expect(d.machine.trackedApps == QueueMachine.maximumTrackedApps + 1)
    // Buckets that filled up again make room.
    d.advance(to: 3600)
    _ = try Self.show(&d, "new", app: "another")
    #expect(d.machine.trackedApps <= 2)
  }

  // MARK: - Duplicates

  @Test func aDuplicateOfAVisibleNotice_mergesIntoIt_withACount_andRestartsItsHold() throws {
    var d = MachineDriver(Self.settings())
    let first = try Self.show(&d, "disk full", app: "df")
    d.advance(to: 2.5)  // holding, half a second before its fade-out
    let again = try Self.show(&d, "disk full", app: "df")
    #expect(again == first)
    #expect(d.machine.notice(first, at: d.now)?.count == 2)
    #expect(d.machine.notice(first, at: d.now)?.displayTitle == "disk full ×2")
    d.advance(to: 4.4)  // it would have finished at 4 without the merge
    #expect(d.phase(first) == .holding)
    let other = try Self.show(&d, "disk full", app: "other app")
    #expect(other != first)
  }

  @Test func stackDuplicatesOff_showsEachOnItsOwn() throws {
    var d = MachineDriver(Self.settings { $0.stackDuplicates = false })
    let first = try Self.show(&d, "same")
    d.advance(to: 1.5)
    #expect(try Self.show(&d, "same") != first)
  }
}
