import Glibc
import NotifyProtocol
import Testing

/// When a snooze ends, as people write it (`notifyctl snooze`, `[Display] Snooze=`).
@Suite("SnoozeTime")
struct SnoozeTimeTests {
  @Test(arguments: [
    ("10m", SnoozeTime.after(600)), ("1h", .after(3600)), ("90s", .after(90)), ("2d", .after(172_800)),
    ("14:30", .at(hour: 14, minute: 30, second: 0)), ("7:05", .at(hour: 7, minute: 5, second: 0)),
    ("23:59:59", .at(hour: 23, minute: 59, second: 59)), ("Tomorrow", .tomorrow), (" tomorrow ", .tomorrow),
  ])
  func reads_whatPeopleWrite(text: String, expected: SnoozeTime) {
    #expect(SnoozeTime(text) == expected)
  }

  @Test(arguments: ["", "soon", "24:00", "9:60", "9:5", "9:05:7", "1:2:3:4", "-5m", "1800000000x", ":30"])
  func refuses_anythingElse(text: String) {
    #expect(SnoozeTime(text) == nil)
  }

  @Test func epochSeconds_areReadOnlyWhenAsked() {
    #expect(SnoozeTime("1800000000", epochs: true) == .epoch(1_800_000_000))
    #expect(SnoozeTime("1800000000") == .after(1_800_000_000))
  }

  @Test(arguments: [
    SnoozeTime.after(600), .after(3600), .after(90), .after(1.5), .after(5400), .tomorrow,
    .at(hour: 14, minute: 30, second: 0), .at(hour: 9, minute: 5, second: 7),
  ])
  func configText_readsBackTheSame(time: SnoozeTime) {
    #expect(SnoozeTime(time.configText) == time)
  }

  @Test func labelsAndPhrases_readAsAButtonOrAMenuSaysThem() {
    #expect(SnoozeTime.after(600).phrase == "in 10 min")
    #expect(SnoozeTime.after(3600).phrase == "in 1 h")
    #expect(SnoozeTime.after(5400).label == "1 h 30 min")
    #expect(SnoozeTime.after(86_400).label == "1 day")
    #expect(SnoozeTime.at(hour: 14, minute: 5, second: 0).phrase == "at 14:05")
    #expect(SnoozeTime.tomorrow.phrase == "tomorrow")
  }

  /// The local time of day and the day of the year `time` falls on.
  static func local(_ time: Double) -> (day: Int32, hour: Int32, minute: Int32, second: Int32) {
    var clock = time_t(time)
    var parts = tm()
    localtime_r(&clock, &parts)
    return (parts.tm_yday, parts.tm_hour, parts.tm_min, parts.tm_sec)
  }

  @Test func aTimeOfDay_isTheNextOne_andTomorrowIsTheNextMorning() {
    let now = 1_800_000_000.0
    let soon = SnoozeTime.at(hour: 14, minute: 30, second: 0).end(from: now)
    #expect(soon > now && soon <= now + 86_400 + 3_600)  // a day, and an hour of a change of time at most
    #expect(Self.local(soon).hour == 14 && Self.local(soon).minute == 30 && Self.local(soon).second == 0)
    let morning = SnoozeTime.tomorrow.end(from: now)
    #expect(Self.local(morning).hour == Int32(SnoozeTime.morningHour) && Self.local(morning).minute == 0)
    #expect(morning > now && morning - now <= 2 * 86_400)
    #expect(Self.local(morning).day != Self.local(now).day)
    #expect(SnoozeTime.after(600).end(from: now) == now + 600)
    #expect(SnoozeTime.after(600).request(for: 3, now: now) == SnoozeParameters(id: 3, duration: 600))
    #expect(SnoozeTime.tomorrow.request(for: 3, now: now) == SnoozeParameters(id: 3, until: morning))
  }
}
