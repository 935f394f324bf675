import NotifyProtocol
import Testing

@testable import NotifyCore

/// The parts `QueueMachine` is made of, each on its own: what comes in (`Admission`), when notices
/// are due (`DueSchedule`), who gets a slot next (`LaneSchedule`), and who hears what (`EventHub`).
@Suite("The engine's parts")
struct EnginePartsTests {
  // MARK: - Admission

  @Test func admission_answersTheTimingARequestAsksFor_andRefusesWhatBreaksALimit() throws {
    let timing = try Admission.validate(ShowParameters(title: "t", delay: 2, hold: 0, easeIn: .linear))
    #expect(timing.delay == 2 && timing.hold == 0 && timing.easeIn == .linear && timing.fadeIn == nil)
    #expect(
      throws: QueueError.invalidArgument(
        field: "delay", reason: "must be a finite number of seconds from 0 to 86400")
    ) {
      try Admission.validate(ShowParameters(title: "t", delay: -1))
    }
    #expect(throws: QueueError.invalidArgument(field: "after", reason: "must be a positive notice id")) {
      try Admission.validate(ShowParameters(title: "t", after: 0))
    }
    let long = String(repeating: "a", count: Admission.maximumNameLength + 1)
    #expect(throws: QueueError.self) { try Admission.validate(ShowParameters(title: "t", app: long)) }
    #expect(throws: QueueError.self) { try Admission.validate(reply: String(repeating: "r", count: 4097)) }
    try Admission.validate(reply: String(repeating: "r", count: 4096))
  }

  @Test func admission_buildsTheNoticeWithItsResolvedTiming_notTheRequests() {
    let settings = QueueSettings()
    let request = ShowParameters(title: "t", body: "b", app: "a", urgency: .low, hold: 9, actions: [])
    let resolution = settings.resolve(
      app: "a", tag: nil, title: "t", urgency: .critical,
      explicit: TimingOverrides(hold: 3))
    let notice = Admission.notice(request, id: 7, resolution: resolution, created: 100)
    #expect(notice.id == 7 && notice.kind == .notice && notice.phase == .waiting && notice.created == 100)
    #expect(notice.urgency == .critical && notice.hold == 3)
    #expect(notice.actions == [] && notice.style == .clear)
  }

  @Test func admission_holds_aNoticeForItsHold_aProgressUntilItsTimeout_orTheEndHoldOnceEnded() {
    let settings = QueueSettings()
    let notice = Notice(id: 1, kind: .notice, title: "t", hold: 4)
    #expect(Admission.hold(of: notice, settings) == 4)
    #expect(Admission.hold(of: Notice(id: 1, kind: .notice, title: "t", hold: 0), settings) == nil)
    var progress = Notice(id: 2, kind: .progress, title: "p")
    #expect(Admission.hold(of: progress, settings) == settings.progressTimeout)
    progress.timeout = 0
    #expect(Admission.hold(of: progress, settings) == nil)
    progress.message = "done"
    #expect(Admission.hold(of: progress, settings) == settings.endHold)
  }

  // MARK: - DueSchedule

  @Test func dueSchedule_answersNoticesInTheOrderTheyAreDue_firstComeFirstAmongEqualTimes() {
    var schedule = DueSchedule()
    schedule.add(3, dueAt: 5)
    schedule.add(1, dueAt: 2)
    schedule.add(2, dueAt: 2)
    #expect(schedule.earliest == 2)
    #expect(schedule.popDue(by: 1.9) == nil)
    #expect(schedule.popDue(by: 2)?.id == 1)
    #expect(schedule.popDue(by: 2)?.id == 2)
    #expect(schedule.popDue(by: 4.9) == nil)
    #expect(schedule.popDue(by: 5).map { [$0.id, Int($0.dueAt)] } == [3, 5])
    #expect(schedule.earliest == nil && schedule.count == 0)
  }

  @Test func dueSchedule_releasesWhatWaitedForANotice_once() {
    var schedule = DueSchedule()
    schedule.wait(5, for: 1)
    schedule.wait(6, for: 1)
    schedule.wait(7, for: 2)
    #expect(schedule.release(1) == [5, 6])
    #expect(schedule.release(1) == [])
    #expect(schedule.release(2) == [7])
  }

  @Test func dueSchedule_dropsFinishedNotices_onceTheyOutnumberTheLiveOnesTwiceOver() {
    var schedule = DueSchedule()
    for id in 1...200 { schedule.add(id, dueAt: Double(id)) }
    // Ten still live: 200 entries are more than 2 × 10 + 64, so the finished ones go.
    schedule.compact(live: 10) { id, _ in id <= 10 }
    #expect(schedule.count == 10)
    // Below the bound nothing is dropped, even what is no longer live.
    schedule.compact(live: 0) { _, _ in false }
    #expect(schedule.count == 10)
  }

  @Test func dueSchedule_dropsEntriesWhoseNoticeIsDueAtAnotherTimeNow() {
    // A notice snoozed again and again leaves an entry per time; the engine keeps its one due time,
    // and only the entry with that time is live.
    var schedule = DueSchedule()
    for time in 1...200 { schedule.add(7, dueAt: Double(time)) }
    schedule.compact(live: 1) { id, dueAt in id == 7 && dueAt == 200 }
    #expect(schedule.count == 1)
    #expect(schedule.popDue(by: 1000).map { [$0.id, Int($0.dueAt)] } == [7, 200])
  }

  // MARK: - LaneSchedule

  @Test func laneSchedule_givesSlots_byUrgency_thenRoundRobinByApp_thenArrival() {
    var lane = LaneSchedule()
    let gates = NoticeRecord.Gates()
    for id in 1...3 { lane.add(id, app: "flood", urgency: .normal, gates: gates) }
    lane.add(4, app: "other", urgency: .normal, gates: gates)
    lane.add(5, app: "late", urgency: .low, gates: gates)
    lane.add(6, app: "alarm", urgency: .critical, gates: gates)
    var order: [Int] = []
    while let id = lane.next(isLive: { _ in true }) { order.append(id) }
    // The critical one first; the other app's notice after the flood's first, not its last.
    #expect(order == [6, 1, 4, 2, 3, 5])
  }

  @Test func laneSchedule_passesOverWhatItsGatesHoldBack_andSkipsFinishedNotices() {
    var lane = LaneSchedule()
    let held = NoticeRecord.Gates(passesDoNotDisturb: false, fullscreen: .delay)
    let passes = NoticeRecord.Gates(passesDoNotDisturb: true, fullscreen: .delay)
    lane.add(1, app: "a", urgency: .normal, gates: held)
    lane.add(2, app: "b", urgency: .normal, gates: passes)
    lane.add(3, app: "c", urgency: .normal, gates: passes)
    let suspended = { (gates: NoticeRecord.Gates) in gates.admit(suspended: true, fullscreen: false) }
    #expect(lane.next(admitting: suspended, isLive: { $0 != 2 }) == 3)
    #expect(lane.next(admitting: suspended, isLive: { _ in true }) == nil)
    #expect(lane.count == 1)
    #expect(lane.next(isLive: { _ in true }) == 1)
  }

  @Test func fairRounds_forgetApps_onceTheyOutnumberTheWaitingNotices() {
    var rounds = FairRounds()
    for app in 0..<100 { _ = rounds.round(for: "app\(app)") }
    #expect(rounds.last.count == 100)
    rounds.serve(0, waiting: 10)
    // Every app's round is 0, none ahead of the one served: all forgotten.
    #expect(rounds.last.isEmpty)
    #expect(rounds.round(for: "again") == 0)
  }

  // MARK: - EventHub

  @Test func eventHub_answersTheWaitersOfAFinishedNotice_once_andCountsThem() {
    var hub = EventHub()
    let first = hub.addWaiter(for: 1)
    let second = hub.addWaiter(for: 1)
    let other = hub.addWaiter(for: 2)
    #expect(hub.waitingCount == 3)
    hub.removeWaiter(second, of: 1)
    #expect(hub.waitingCount == 2)
    #expect(hub.takeWaiters(of: 1) == [first])
    #expect(hub.takeWaiters(of: 1) == [])
    #expect(hub.waitingCount == 1)
    let reserved = hub.reserveWaiter()
    #expect(reserved > other && hub.waitingCount == 1)
  }

  @Test func eventHub_pacesFrames_atTheFastestWatchersInterval_onlyWhileSomethingFades() {
    var hub = EventHub()
    let slow = hub.addWatcher(frames: true, interval: 0.5, now: 0)
    let fast = hub.addWatcher(frames: true, interval: 0.25, now: 0)
    _ = hub.addWatcher(frames: false, interval: 0.125, now: 0)
    hub.pace(fading: false, now: 0)
    #expect(hub.nextFrameTick == nil)
    hub.pace(fading: true, now: 1)
    #expect(hub.nextFrameTick == 1.25)
    // Each watcher from its first frame at its own pace: the fast one at every tick, the slow one
    // (which was due since the pacing began) at the first, then at every other.
    #expect(hub.tick(at: 1.25) == [slow, fast].sorted())
    #expect(hub.tick(at: 1.5) == [slow, fast].sorted())
    #expect(hub.tick(at: 1.75) == [fast])
    #expect(hub.tick(at: 2) == [slow, fast].sorted())
    // A late tick does not make frames pile up: the next is a whole interval on.
    _ = hub.tick(at: 3)
    #expect(hub.nextFrameTick == 3.25)
    hub.removeWatcher(slow)
    hub.removeWatcher(fast)
    #expect(hub.tick(at: 3.25) == [] && hub.nextFrameTick == nil)
  }
}
