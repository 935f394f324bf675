import NotifyProtocol
import Testing

@testable import NotifyCore

/// A notice relayed from another host (DESIGN §10), on a manual clock: it keeps its origin through
/// its life, a key replaces across hosts, and one that came too late goes to history as `missed`.
@Suite("Relayed notices")
struct RelayedNoticeTests {
  let origin = NoticeOrigin(host: "server", store: "ab", id: 7, sent: 1_800_000_000)

  @Test func aRelayedNotice_livesAsAnyOther_andKeepsItsOrigin() throws {
    let h = QueueHarness()
    let id = try h.queue.showRelayed(
      ShowParameters(title: "built", app: "ci@server", fadeIn: 1, hold: 2, fadeOut: 1), origin: origin,
      missed: false)
    #expect(h.waitUntilShown(id))
    #expect(try h.queue.get(id).origin == origin)
    h.advance(to: 4)
    let finished = try h.queue.get(id)
    #expect(finished.outcome == .completed && finished.origin == origin && finished.app == "ci@server")
  }

  @Test func aMissedNotice_goesStraightToHistory_shownNever_replacingNothing() throws {
    let h = QueueHarness()
    let shown = try h.show("deploying", key: "deploy")
    #expect(h.waitUntilShown(shown))
    let missed = try h.queue.showRelayed(
      ShowParameters(title: "deployed", key: "deploy"), origin: origin, missed: true)
    let notice = try h.queue.get(missed)
    #expect(notice.outcome == .missed && notice.shown == nil && notice.origin == origin)
    #expect(h.queue.history(HistoryParameters(outcome: .missed)).map(\.id) == [missed])
    // The key still belongs to the notice shown here.
    let kept = try h.queue.get(shown)
    #expect(kept.outcome == nil && kept.title == "deploying")
  }

  @Test func aKey_replacesAcrossHosts_inPlace_takingTheNewOrigin() throws {
    let h = QueueHarness()
    let first = try h.queue.showRelayed(
      ShowParameters(title: "building", key: "build", hold: 60), origin: origin, missed: false)
    #expect(h.waitUntilShown(first))
    var later = origin
    later.id = 8
    let second = try h.queue.showRelayed(
      ShowParameters(title: "built", key: "build", hold: 60), origin: later, missed: false)
    #expect(second == first)
    let notice = try h.queue.get(first)
    #expect(notice.title == "built" && notice.origin == later)
  }
}
