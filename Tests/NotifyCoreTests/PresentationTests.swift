import Foundation
import NotifyCore
import NotifyProtocol
import NotifySupport
import Testing

/// What the popups are told of each shown notice (`NoticeQueue.present`): its rules, its fullscreen
/// policy and its timeline, whenever one of them changes, so that the display never asks the engine.
@Suite("Presentations")
struct PresentationTests {
  @Test func aShownNotice_isPresented_withItsRulesAndTimeline_andAgainWhenItsHoldStandsStill() throws {
    var settings = QueueHarness.settings()
    var loud = Rule(name: "loud", matchApp: Glob("loud"))
    loud.fullscreen = .show
    settings.rules = [loud]
    let h = QueueHarness(settings: settings)
    let told = Locked<[[Int: Presentation]]>([])
    let subscription = try h.queue.present(
      frames: false, sink: { _ in },
      presentations: { presentations in told.withLock { $0.append(presentations) } })
    defer { subscription.cancel() }
    let id = try h.show(fadeIn: 1, hold: 2, fadeOut: 1, app: "loud")
    #expect(h.waitUntilShown(id))
    h.queue.flushEvents()
    let first = try #require(told.withLock { $0.last?[id] })
    #expect(first.rules.map(\.name) == ["loud"])
    #expect(first.fullscreen == .show)
    // Its phase and opacity follow from the timeline alone, at any instant, as the engine's do.
    h.advance(to: 0.5)
    let appearance = try #require(first.appearance(at: h.clock.now))
    #expect(appearance.phase == .fadingIn)
    #expect(abs(appearance.opacity - (h.opacity(id) ?? -1)) < 1e-9)
    // The pointer over it: its hold stands still, a new timeline that holds until the pointer goes.
    h.advance(to: 1.5)
    h.queue.flushEvents()
    let before = told.withLock { $0.count }
    h.queue.pointer(over: id)
    h.queue.flushEvents()
    let held = try #require(told.withLock { $0.count > before ? $0.last?[id] : nil })
    #expect(held.timeline != first.timeline)
    #expect(held.appearance(at: h.clock.now + 60)?.phase == .holding)
    // Nobody told of presentations: none are kept (the engine notes no timelines).
    subscription.cancel()
    h.queue.pointer(over: nil)
    h.queue.flushEvents()
    #expect(told.withLock { $0.count } == before + 1)
  }
}
