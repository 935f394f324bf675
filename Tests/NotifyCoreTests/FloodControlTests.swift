import NotifyProtocol
import Testing

@testable import NotifyCore

/// Flood control's buckets and the summaries' bookkeeping on their own.
@Suite("FloodControl and Summaries")
struct FloodControlTests {
  private let limit = FloodLimit(count: 3, period: 60)

  /// Asks `flood` once for each of `asks` (an app, an instant), in order.
  private func answers(_ flood: inout FloodControl, _ asks: [(String, Double)], limit: FloodLimit?) -> [Bool]
  {
    asks.map { app, now in flood.admits(app, under: limit, at: now) }
  }

  @Test func aBucket_allowsItsBurst_thenRefillsAtItsRate() {
    var flood = FloodControl()
    let burst = answers(&flood, Array(repeating: ("backup", 0), count: 4), limit: limit)
    #expect(burst == [true, true, true, false])
    // Another app has a bucket of its own; a token comes back every 20 s, not sooner.
    let later = answers(
      &flood, [("mail", 0), ("backup", 19.9), ("backup", 21), ("backup", 21)], limit: limit)
    #expect(later == [true, false, true, false])
    #expect(flood.trackedApps == 2)
  }

  @Test func withoutALimit_everythingIsAdmitted_andNothingTracked() {
    var flood = FloodControl()
    #expect(answers(&flood, Array(repeating: ("backup", 0), count: 100), limit: nil).allSatisfy { $0 })
    #expect(flood.trackedApps == 0)
    _ = answers(&flood, [("backup", 0)], limit: limit)
    flood.forgetAll()
    #expect(flood.trackedApps == 0)
  }

  @Test func pastTheBound_fullBucketsAreDropped_elseNewAppsShareOne() {
    var flood = FloodControl()
    let apps = (0..<FloodControl.maximumTrackedApps).map { ("app\($0)", 0.0) }
    #expect(answers(&flood, apps, limit: limit).allSatisfy { $0 })
    // Every bucket has a token gone: none is full, so the next apps share one bucket.
    let late = answers(&flood, [("late1", 1), ("late2", 1), ("late3", 1), ("late4", 1)], limit: limit)
    #expect(late == [true, true, true, false])
    #expect(flood.trackedApps == FloodControl.maximumTrackedApps + 1)
    // A minute on, every bucket is full again and is dropped to make room.
    #expect(answers(&flood, [("later", 61)], limit: limit) == [true])
    #expect(flood.trackedApps <= 2)
  }

  @Test func aSummary_isJoinedWhileOpen_andForgottenWhenItFinishes() {
    var summaries = Summaries()
    #expect(summaries.flood(from: "backup") { _ in true } == nil)
    summaries.setFlood(Summaries.Summary(id: 7, count: 2), from: "backup")
    summaries.setFlood(Summaries.Summary(id: 8, count: 1), from: nil)
    #expect(summaries.flood(from: "backup") { _ in true } == Summaries.Summary(id: 7, count: 2))
    // One closing is not joined: the next fold writes a new summary.
    #expect(summaries.flood(from: "backup") { $0 != 7 } == nil)
    summaries.finished(7, app: "backup")
    #expect(summaries.flood(from: "backup") { _ in true } == nil)
    #expect(summaries.flood(from: nil) { _ in true }?.id == 8)
    // Another app's notice with the same id leaves it alone.
    summaries.finished(8, app: "mail")
    #expect(summaries.flood(from: nil) { _ in true }?.id == 8)
    summaries.setAway(Summaries.Summary(id: 9, count: 12))
    #expect(summaries.away { _ in true }?.count == 12)
    summaries.finished(9, app: "notifyd")
    #expect(summaries.away == nil)
  }

  @Test func whatSummariesSay() {
    #expect(
      Summaries.flood(count: 37, from: "backup", newest: "disk 4 done")
        == Summaries.Text(title: "37 more from backup", body: "disk 4 done"))
    #expect(Summaries.flood(count: 2, from: nil, newest: "x").title == "2 more from an app without a name")
    let held = (1...7).map { Notice(id: $0, kind: .notice, title: "t\($0)", app: $0 == 2 ? nil : "mail") }
    let text = Summaries.away(held, before: 5)
    #expect(text.title == "12 notices while you were away")
    #expect(text.body == "mail: t1\nt2\nmail: t3\nmail: t4\nmail: t5\n…and 2 more")
  }
}

/// Phase boundaries and the fading set on their own.
@Suite("BoundarySchedule")
struct BoundaryScheduleTests {
  @Test func boundaries_comeOutInOrder_andStaleOnesAreSkipped() {
    var schedule = BoundarySchedule()
    let generations = [1: 1, 2: 1]
    schedule.add(1, at: 5, elapsed: 5, generation: 1)
    schedule.add(2, at: 3, elapsed: 3, generation: 1)
    schedule.add(1, at: 4, elapsed: 4, generation: 0)  // of a timeline notice 1 no longer has
    #expect(schedule.earliest == 3)
    #expect(schedule.popDue(by: 2.9) { generations[$0] }?.id == nil)
    #expect(schedule.count == 3)
    #expect(schedule.popDue(by: 10) { generations[$0] }?.id == 2)
    #expect(schedule.popDue(by: 10) { generations[$0] }?.id == nil)  // the stale one
    #expect(schedule.popDue(by: 10) { generations[$0] }?.id == 1)
    #expect(schedule.earliest == nil)
  }

  @Test func compacting_dropsStaleBoundaries_atTheFrontAndOnceTheyOutnumberTheLive() {
    var schedule = BoundarySchedule()
    for generation in 0..<100 {
      schedule.add(1, at: Double(100 - generation), elapsed: 0, generation: generation)
    }
    schedule.compact(live: 1) { _ in 99 }
    #expect(schedule.count == 1)
    #expect(schedule.earliest == 1)
    schedule.compact(live: 1) { _ in nil }
    #expect(schedule.count == 0)
  }

  @Test func fading_isKeptPerNotice() {
    var schedule = BoundarySchedule()
    schedule.setFading(3, true)
    schedule.setFading(4, true)
    schedule.setFading(3, false)
    #expect(schedule.fading == [4])
  }
}

/// Shown notices by their text, for merging duplicates.
@Suite("DuplicateIndex")
struct DuplicateIndexTests {
  @Test func aNoticeIsFoundUnderItsTextNow_andOnlyWhileItShows() {
    var index = DuplicateIndex()
    let first = DuplicateKey(app: "a", title: "t", body: nil)
    let changed = DuplicateKey(app: "a", title: "t2", body: nil)
    index.index(1, under: first, replacing: nil)
    #expect(index[first] == 1)
    index.index(1, under: changed, replacing: first)
    #expect(index[first] == nil && index[changed] == 1)
    // Another notice under the same text takes its place; the first going leaves it alone.
    index.index(2, under: changed, replacing: nil)
    index.remove(1, under: changed)
    #expect(index[changed] == 2)
    index.remove(2, under: changed)
    #expect(index.isEmpty)
  }
}

/// Fair slots' rounds on their own.
@Suite("FairRounds")
struct FairRoundsTests {
  @Test func anAppFarAhead_letsANewcomerGoFirst() {
    var rounds = FairRounds()
    let flood = (0..<5).map { _ in rounds.round(for: "flood") }
    #expect(flood == [0, 1, 2, 3, 4])
    rounds.serve(0, waiting: 4)
    rounds.serve(1, waiting: 3)
    #expect(rounds.round(for: "other") == 1)  // before the flood's round 2
    #expect(rounds.round(for: "other") == 2)
  }

  @Test func theAppsKept_areBoundedByWhatWaits() {
    var rounds = FairRounds()
    for index in 0..<10_000 {
      let round = rounds.round(for: "app\(index)")
      rounds.serve(round, waiting: 5)
      #expect(rounds.last.count <= 2 * 5 + 64 + 1)
    }
    _ = rounds.round(for: "last")
    rounds.serve(rounds.serving, waiting: 0)
    #expect(rounds.last.count <= 64 + 1)
  }
}
