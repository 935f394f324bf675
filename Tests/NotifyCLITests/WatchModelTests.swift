import NotifyProtocol
import Testing

@testable import NotifyCLI

private func toast(
  _ id: Int, fadeIn: Double = 2, hold: Double = 3, fadeOut: Double = 2, kind: Kind = .notice,
  phase: Phase = .waiting, opacity: Double = 0, shown: Double? = nil
) -> Notice {
  Notice(
    id: id, kind: kind, title: "t\(id)", fadeIn: fadeIn, hold: hold, fadeOut: fadeOut, phase: phase,
    opacity: opacity, shown: shown)
}

private func model(_ events: [Event]) -> WatchModel {
  var model = WatchModel()
  for event in events { model.apply(event) }
  return model
}

@Suite("The live view's model: phases, time left, backlog")
struct WatchModelTests {
  private let life: [Event] = [
    Event(kind: .snapshot, at: 100, notices: []),
    Event(kind: .added, at: 100, id: 1, notice: toast(1)),
    Event(kind: .phase, at: 100, id: 1, phase: .fadingIn, opacity: 0),
  ]

  @Test func timeLeft_duringFadeIn_isTheRestOfTheFadePlusHoldAndFadeOut() throws {
    let model = model(life)
    let notice = try #require(model.visible.first)
    #expect(model.timeLeft(of: notice, now: 100) == 7)
    #expect(model.timeLeft(of: notice, now: 101.5) == 5.5)
  }

  @Test func timeLeft_duringHold_countsFromTheHoldsStart() throws {
    let model = model(life + [Event(kind: .phase, at: 102, id: 1, phase: .holding, opacity: 1)])
    let notice = try #require(model.visible.first)
    #expect(model.timeLeft(of: notice, now: 103.25) == 3.75)
    #expect(model.timeLeft(of: notice, now: 200) == 2)  // the fade-out is still ahead
  }

  @Test func timeLeft_duringFadeOut_scalesWithTheOpacityItStartedFrom() throws {
    let cancelled = model(life + [Event(kind: .phase, at: 101, id: 1, phase: .fadingOut, opacity: 0.5)])
    let notice = try #require(cancelled.visible.first)
    #expect(cancelled.timeLeft(of: notice, now: 101.25) == 0.75)
  }

  @Test func timeLeft_isUnknownForHoldUntilEnded_andForProgress() throws {
    let critical = model([
      Event(kind: .snapshot, at: 0, notices: [toast(1, hold: 0, phase: .holding, opacity: 1, shown: 0)])
    ])
    #expect(critical.timeLeft(of: try #require(critical.visible.first), now: 5) == nil)
    let progress = model([
      Event(
        kind: .snapshot, at: 0, notices: [toast(2, kind: .progress, phase: .holding, opacity: 1, shown: 0)])
    ])
    #expect(progress.timeLeft(of: try #require(progress.visible.first), now: 5) == nil)
  }

  @Test func update_whileHolding_restartsTheCountdown() throws {
    var updated = toast(1, phase: .holding, opacity: 1)
    updated.body = "new"
    let model = model(
      life + [
        Event(kind: .phase, at: 102, id: 1, phase: .holding, opacity: 1),
        Event(kind: .updated, at: 104, id: 1, notice: updated),
      ])
    #expect(model.timeLeft(of: try #require(model.visible.first), now: 104) == 5)
  }

  @Test func snapshot_estimatesTheHoldsStartFromShownAndFadeIn() throws {
    let model = model([
      Event(kind: .snapshot, at: 103, notices: [toast(1, phase: .holding, opacity: 1, shown: 100)])
    ])
    // Shown at 100, faded in by 102, holds 3 s to 105, then 2 s of fade-out.
    #expect(model.timeLeft(of: try #require(model.visible.first), now: 103) == 4)
  }

  @Test func nextCountdownChange_isWhenTheRoundedUpSecondsDrop() {
    let model = model(life + [Event(kind: .phase, at: 102, id: 1, phase: .holding, opacity: 1)])
    // At 102.2, 4.8 s are left, shown as "5 s": it becomes "4 s" 0.8 s later.
    #expect(abs((model.nextCountdownChange(now: 102.2) ?? 0) - 0.8) < 1e-9)
    #expect(WatchModel().nextCountdownChange(now: 0) == nil)
  }

  @Test func backlog_countsWaitingAndQueued_andFinishedNoticesLeave() {
    let model = model([
      Event(
        kind: .snapshot, at: 0,
        notices: [
          toast(1, phase: .waiting), toast(2, phase: .queued), toast(3, phase: .queued),
          toast(4, phase: .holding, opacity: 1),
        ]),
      Event(kind: .finished, at: 1, id: 4),
    ])
    #expect(model.backlog.waiting == 1)
    #expect(model.backlog.queued == 2)
    #expect(model.visible.isEmpty)
    #expect(model.connected)
  }

  @Test func disconnect_forgetsEverythingUntilTheNextSnapshot() {
    var model = model(life)
    model.disconnect()
    #expect(!model.connected)
    #expect(model.visible.isEmpty)
    model.apply(Event(kind: .snapshot, at: 5, notices: [], suspended: true))
    #expect(model.connected)
    #expect(model.suspended)
  }
}
