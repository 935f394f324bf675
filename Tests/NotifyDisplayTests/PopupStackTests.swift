import NotifyConfig
import NotifyCore
import NotifyProtocol
import NotifyTestSupport
import Testing

@testable import NotifyDisplay

@Suite("The popup stack (what the engine's events make visible)")
struct PopupStackTests {
  private func notice(_ id: Int, _ phase: Phase, shown: Double? = nil, title: String = "t") -> Notice {
    Notice(id: id, kind: .notice, title: title, phase: phase, shown: shown)
  }

  @Test func snapshot_keepsTheVisibleOnes_newestShownFirst() {
    var stack = PopupStack()
    let event = Event(
      kind: .snapshot, at: 10,
      notices: [
        notice(1, .holding, shown: 1), notice(2, .queued), notice(3, .fadingOut, shown: 3),
        notice(4, .fadingIn, shown: 2),
      ])
    #expect(stack.apply(event) == (true, nil))
    #expect(stack.visible == [3, 4, 1])
    #expect(stack.cards.keys.sorted() == [1, 2, 3, 4])
  }

  @Test func phases_bringANoticeIn_atTheTop_andTakeItOut() {
    var stack = PopupStack()
    _ = stack.apply(Event(kind: .added, at: 0, notice: notice(1, .queued)))
    #expect(stack.visible.isEmpty)
    #expect(stack.apply(Event(kind: .phase, at: 1, id: 1, phase: .fadingIn)) == (true, 1))
    _ = stack.apply(Event(kind: .added, at: 2, notice: notice(2, .fadingIn, shown: 2)))
    #expect(stack.visible == [2, 1])
    // A phase change within the visible ones keeps the order.
    _ = stack.apply(Event(kind: .phase, at: 3, id: 1, phase: .holding))
    #expect(stack.visible == [2, 1])
    #expect(stack.phases[1] == .holding)
    _ = stack.apply(Event(kind: .finished, at: 4, id: 2))
    #expect(stack.visible == [1])
    #expect(stack.cards[2] == nil && stack.phases[2] == nil)
  }

  @Test func anUpdate_changesTheCard_notItsPlace() {
    var stack = PopupStack()
    _ = stack.apply(Event(kind: .added, at: 0, notice: notice(1, .holding, shown: 0, title: "old")))
    _ = stack.apply(Event(kind: .added, at: 1, notice: notice(2, .holding, shown: 1)))
    _ = stack.apply(Event(kind: .updated, at: 2, notice: notice(1, .holding, shown: 0, title: "new")))
    #expect(stack.visible == [2, 1])
    #expect(stack.cards[1]?.title == "new")
  }

  @Test func framesAndOtherEvents_changeNothing() {
    var stack = PopupStack()
    for kind in [EventKind.frame, .invoked, .suspended, .resumed] {
      #expect(stack.apply(Event(kind: kind, at: 0, id: 1)) == (false, nil))
    }
  }

  @Test func aCardsLook_isItsUrgencysThenTheRulesItMatches_asTheEngineMatchesThem() throws {
    var ci = Rule(name: "ci", matchApp: Glob("ci"))
    ci.matchUrgency = .normal
    ci.urgency = .low  // matched by the urgency asked for, shown low: its look still applies
    var queueSettings = QueueSettings()
    queueSettings.rules = [ci, Rule(name: "failed", matchTitle: Glob("*failed*"))]
    let engine = NoticeQueue(settings: queueSettings, scheduler: ManualScheduler())
    var settings = DisplaySettings()
    settings.look.width = 400
    settings.ruleLooks["ci"] = LookOverrides()
    settings.ruleLooks["ci"]?.width = 480
    settings.ruleLooks["failed"] = LookOverrides()
    settings.ruleLooks["failed"]?.background = RGBA(hex: "#400000")
    var stack = PopupStack { [settings] notice in
      Card(notice, look: PopupDisplay.look(of: notice, settings: settings, engine: engine), host: "desk")
    }
    /// The engine's notice `id`, as an event says it is shown.
    func shown(_ id: Int) throws -> Notice {
      var notice = try engine.get(id)
      (notice.phase, notice.shown) = (.holding, Double(id))
      return notice
    }
    let build = try engine.show(ShowParameters(title: "Build 42", app: "ci", urgency: .normal))
    let mail = try engine.show(ShowParameters(title: "Hi", app: "mail"))
    _ = stack.apply(Event(kind: .added, at: 0, notice: try shown(build)))
    _ = stack.apply(Event(kind: .added, at: 1, notice: try shown(mail)))
    let card = try #require(stack.cards[build])
    #expect(card.urgency == .low)
    #expect(card.look.width == 480 && card.look.colours == CardColours.builtIn(for: .low))
    #expect(stack.cards[mail]?.look.width == 400)
    #expect(card.host == "desk")
    // Updated to match another rule too: its card takes that rule's look over the first's.
    _ = try engine.update(UpdateParameters(id: build, title: "Build 42 failed"))
    _ = stack.apply(Event(kind: .updated, at: 2, notice: try shown(build)))
    #expect(stack.cards[build]?.look.width == 480)
    #expect(stack.cards[build]?.look.colours.background.description == "#400000")
  }

  @Test func byOutput_putsEachCardWhereItsLookSays_newestFirst() {
    var settings = DisplaySettings()
    settings.ruleLooks["everywhere"] = LookOverrides()
    settings.ruleLooks["everywhere"]?.output = .all
    settings.ruleLooks["side"] = LookOverrides()
    settings.ruleLooks["side"]?.output = .named("DP-2")
    var stack = PopupStack { [settings] notice in
      Card(notice, look: settings.look(for: notice.urgency, rules: notice.app.map { [$0] } ?? []))
    }
    for (id, app) in [(1, nil), (2, "everywhere"), (3, "side"), (4, nil)] {
      let notice = Notice(id: id, kind: .notice, title: "t", app: app, phase: .holding, shown: Double(id))
      _ = stack.apply(Event(kind: .added, at: Double(id), notice: notice))
    }
    func groups(_ outputs: [String], focused: String?) -> [String] {
      stack.byOutput(outputs, focused: focused).map { "\($0.output ?? "nil"): \($0.ids)" }
    }
    // The focused output has the focused cards and the "all" one; the named one has its own.
    #expect(groups(["DP-1", "DP-2"], focused: "DP-1") == ["DP-1: [4, 2, 1]", "DP-2: [3, 2]"])
    #expect(groups(["DP-1", "DP-2"], focused: "DP-2") == ["DP-1: [2]", "DP-2: [4, 3, 2, 1]"])
    // The focus unknown: the compositor's choice (nil) for the focused ones.
    #expect(groups(["DP-1", "DP-2"], focused: nil) == ["DP-1: [2]", "DP-2: [3, 2]", "nil: [4, 1]"])
    // DP-2 unplugged: its card goes where the focus is.
    #expect(groups(["DP-1"], focused: "DP-1") == ["DP-1: [4, 3, 2, 1]"])
    // A focus on an output that is gone counts as unknown.
    #expect(groups(["DP-1"], focused: "DP-2") == ["DP-1: [2]", "nil: [4, 3, 1]"])
    // No outputs at all: everything where the compositor chooses.
    #expect(groups([], focused: nil) == ["nil: [4, 3, 2, 1]"])
  }
}
