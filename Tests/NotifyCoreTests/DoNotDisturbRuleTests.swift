import Foundation
import NotifyProtocol
import Testing

@testable import NotifyCore

/// The do-not-disturb rule on its own: the hand against the quiet hours, when it changes by itself,
/// and what each step asks of the machine.
@Suite("DoNotDisturbRule")
struct DoNotDisturbRuleTests {
  /// 2027-01-15 08:00 UTC, a Friday, as the monotonic clock's 0.
  static let epoch = MachineDriver.epoch

  static func at(_ now: Double) -> Instant { Instant(now: now, wall: epoch + now) }

  /// Quiet hours 09:00-10:00 UTC every day: an hour after the epoch, for an hour.
  static func settings(windows: String? = "09:00-10:00", summary: Bool = false) -> DoNotDisturbSettings {
    var settings = DoNotDisturbSettings()
    settings.quietHours.timeZone = TimeZone(identifier: "UTC")!
    if let windows { settings.quietHours.windows = [QuietWindow(windows)!] }
    settings.summary = summary
    return settings
  }

  private func kinds(_ change: DoNotDisturbRule.Change) -> [String] {
    change.effects.map { effect in
      switch effect {
      case .journal(.hand(let choice)): return choice == nil ? "forget hand" : "journal hand"
      case .suspendLanes(let suspended): return suspended ? "suspend lanes" : "resume lanes"
      case .publish(let event): return event.kind.rawValue
      default: return "\(effect)"
      }
    }
  }

  @Test func quietHours_areRead_thenBeginAndEndByThemselves() {
    var rule = DoNotDisturbRule()
    let settings = Self.settings()
    #expect(rule.needsReading(settings, at: Self.at(0)))
    #expect(rule.readSchedule(settings, at: Self.at(0)) == DoNotDisturbRule.Change())
    #expect(!rule.needsReading(settings, at: Self.at(10)))
    #expect(rule.inForce == nil)
    // They begin at 09:00, an hour in.
    #expect(rule.nextChange == 3600)
    let begins = rule.reachChange(settings, at: Self.at(3600))
    #expect(kinds(begins) == ["suspended"])
    #expect(rule.inForce == DoNotDisturb(reason: .schedule, allow: .critical, until: Self.epoch + 7200))
    #expect(rule.nextChange == 7200)
    let ends = rule.reachChange(settings, at: Self.at(7200))
    #expect(kinds(ends) == ["resumed"])
    #expect(rule.inForce == nil && !ends.foldHeld)
  }

  @Test func aSuspendByHand_outlastsTheQuietHours_andIsJournalled() {
    var rule = DoNotDisturbRule()
    let settings = Self.settings()
    _ = rule.readSchedule(settings, at: Self.at(0))
    let suspended = rule.suspend(allow: .nothing, until: nil, settings, at: Self.at(10))
    #expect(kinds(suspended) == ["journal hand", "suspend lanes", "suspended"])
    #expect(rule.lanesSuspended)
    _ = rule.reachChange(settings, at: Self.at(3600))
    _ = rule.reachChange(settings, at: Self.at(7200))
    #expect(rule.inForce?.reason == .hand)
    let resumed = rule.resume(settings, at: Self.at(7300))
    // Outside quiet hours a resume leaves no choice to keep.
    #expect(kinds(resumed) == ["forget hand", "resume lanes", "resumed"])
    #expect(rule.inForce == nil && rule.hand == nil)
  }

  @Test func aResumeInsideQuietHours_lastsUntilTheyEnd_thenTheHandIsForgotten() {
    var rule = DoNotDisturbRule()
    let settings = Self.settings(summary: true)
    _ = rule.readSchedule(settings, at: Self.at(3700))
    #expect(rule.inForce?.reason == .schedule)
    let resumed = rule.resume(settings, at: Self.at(4000))
    #expect(rule.hand == .resumed(until: Self.epoch + 7200))
    #expect(resumed.foldHeld)  // it ended do-not-disturb, with Summary=yes
    #expect(rule.nextChange == 7200)
    // The hand's choice and the schedule end at the same instant: the hand goes first, and the
    // schedule read after it finds the next window tomorrow.
    let change = rule.reachChange(settings, at: Self.at(7200))
    #expect(kinds(change) == ["forget hand"])
    #expect(rule.hand == nil && rule.inForce == nil)
    #expect(abs((rule.nextChange ?? 0) - (3600 + 86_400)) < 0.01)
  }

  @Test func aTimedSuspend_runsOut_andHandsOverToTheQuietHours() {
    var rule = DoNotDisturbRule()
    let settings = Self.settings()
    _ = rule.readSchedule(settings, at: Self.at(0))
    _ = rule.suspend(allow: .critical, until: Self.epoch + 5000, settings, at: Self.at(0))
    #expect(rule.inForce == DoNotDisturb(reason: .duration, allow: .critical, until: Self.epoch + 5000))
    _ = rule.reachChange(settings, at: Self.at(3600))  // the quiet hours begin under the hand's suspend
    #expect(rule.inForce?.reason == .duration)
    #expect(rule.nextChange == 5000)
    let change = rule.reachChange(settings, at: Self.at(5000))
    #expect(kinds(change) == ["forget hand", "suspended"])
    #expect(rule.inForce?.reason == .schedule)
  }

  @Test func aChoiceAJournalKept_countsAgain_unlessItsTimeHasPassed() {
    var kept = DoNotDisturbRule()
    #expect(kept.restore(.suspended(allow: .critical, until: Self.epoch + 100), at: Self.at(50)).isEmpty)
    _ = kept.readSchedule(Self.settings(windows: nil), at: Self.at(50))
    #expect(kept.inForce?.reason == .duration && kept.nextChange == 100)
    var expired = DoNotDisturbRule()
    #expect(
      expired.restore(.suspended(allow: .critical, until: Self.epoch + 100), at: Self.at(150)) == [
        .journal(.hand(nil))
      ])
    #expect(expired.hand == nil)
  }

  @Test func theWallClockSet_makesTheScheduleReadAgain() {
    var rule = DoNotDisturbRule()
    let settings = Self.settings()
    _ = rule.readSchedule(settings, at: Self.at(0))
    #expect(!rule.needsReading(settings, at: Instant(now: 100, wall: Self.epoch + 100.5)))
    #expect(rule.needsReading(settings, at: Instant(now: 100, wall: Self.epoch + 3700)))
    #expect(!rule.needsReading(Self.settings(windows: nil), at: Self.at(0)))
  }

  @Test func aSuspendIsAlwaysAnnounced_evenWhenNothingChanges() {
    var rule = DoNotDisturbRule()
    let settings = Self.settings(windows: nil)
    _ = rule.suspend(allow: .critical, until: nil, settings, at: Self.at(0))
    let again = rule.suspend(allow: .critical, until: nil, settings, at: Self.at(1))
    #expect(kinds(again) == ["journal hand", "suspended"])
    #expect(rule.readSchedule(settings, at: Self.at(2)) == DoNotDisturbRule.Change())
  }
}
