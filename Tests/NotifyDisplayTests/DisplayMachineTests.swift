import NotifyConfig
import NotifyCore
import NotifyProtocol
import Testing

@testable import NotifyDisplay

/// The popups' rules, on a manual clock: a real engine's events in, actions on a model screen out
/// (`DisplayRig`).
@Suite("The display machine")
struct DisplayMachineTests {
  /// A notice that fades in over 1 s, holds 5 s and fades out over 1 s.
  private func notice(
    _ title: String, app: String? = nil, urgency: Urgency? = nil, actions: [Action]? = nil,
    reply: String? = nil
  ) -> ShowParameters {
    ShowParameters(
      title: title, app: app, urgency: urgency, delay: 0, fadeIn: 1, hold: 5, fadeOut: 1, actions: actions,
      reply: reply)
  }

  private static let twoOutputs = DisplayOutputs(
    [
      DisplayOutput(name: "DP-1", width: 1920, height: 1080),
      DisplayOutput(name: "DP-2", width: 1280, height: 720),
    ],
    focus: "DP-1")

  // MARK: - Following the engine

  @Test func aNotice_getsOneSurface_drawnAtItsTimelinesOpacity_andGoesWhenItFinishes() throws {
    let rig = DisplayRig()
    let id = rig.show(notice("Backup done"))
    let (key, surface) = try #require(rig.surface(id))
    #expect(key == SurfaceKey(id: id, output: "DP-1"))
    #expect(surface.mapped && surface.frames == 1 && surface.opacity == 0)
    // Fading in, each frame callback draws the next frame at the engine's opacity for now.
    rig.advance(by: 0.5)
    let midway = try #require(rig.notice(id)).opacity
    #expect(rig.surface(id)?.surface.opacity == midway)
    #expect(midway > 0 && midway < 1)
    // Holding: one frame at full opacity, then nothing until it fades out.
    rig.advance(by: 1)
    let held = try #require(rig.surface(id)?.surface)
    #expect(held.opacity == 1 && !held.pending)
    rig.advance(by: 1)
    #expect(rig.surface(id)?.surface.frames == held.frames)
    rig.advance(by: 3.6)  // into the fade-out
    #expect((rig.surface(id)?.surface.opacity ?? 1) < 1)
    rig.advance(by: 1)
    #expect(rig.screen.surfaces.isEmpty)
    #expect(rig.screen.violations.isEmpty)
  }

  @Test func aSnapshot_keepsTheVisibleOnes_newestShownFirst_andOtherEventsChangeNothing() {
    var machine = DisplayMachine(settings: DisplaySettings(), measure: ArithmeticMeasure())
    func notice(_ id: Int, _ phase: Phase, shown: Double? = nil) -> Notice {
      Notice(id: id, kind: .notice, title: "t", phase: phase, shown: shown)
    }
    machine.handle(
      .event(
        Event(
          kind: .snapshot, at: 10,
          notices: [
            notice(1, .holding, shown: 1), notice(2, .queued), notice(3, .fadingOut, shown: 3),
            notice(4, .fadingIn, shown: 2),
          ])), at: 0)
    #expect(machine.visible == [3, 4, 1])
    #expect(machine.cards.keys.sorted() == [1, 2, 3, 4])
    _ = machine.takeActions()
    machine.settle(at: 0)
    for kind in [EventKind.frame, .invoked, .suspended, .resumed] {
      machine.handle(.event(Event(kind: kind, at: 0, id: 1)), at: 0)
      #expect(!machine.needsSettle)
    }
  }

  @Test func aCardsLook_isItsUrgencysThenTheRulesItMatches_asTheEngineMatchedThem() throws {
    var ci = Rule(name: "ci", matchApp: Glob("ci"))
    ci.matchUrgency = .normal
    ci.urgency = .low  // matched by the urgency asked for, shown low: its look still applies
    var queue = QueueSettings()
    queue.rules = [ci, Rule(name: "failed", matchTitle: Glob("*failed*"))]
    var settings = DisplaySettings()
    settings.look.width = 400
    settings.ruleLooks["ci"] = LookOverrides()
    settings.ruleLooks["ci"]?.width = 480
    settings.ruleLooks["failed"] = LookOverrides()
    settings.ruleLooks["failed"]?.background = RGBA(hex: "#400000")
    let rig = DisplayRig(settings: settings, queue: queue)
    let build = rig.show(notice("Build 42", app: "ci", urgency: .normal))
    let mail = rig.show(notice("Hi", app: "mail"))
    let card = try #require(rig.surface(build)?.surface.shown.card)
    #expect(card.urgency == .low)
    #expect(card.look.width == 480 && card.look.colours == CardColours.builtIn(for: .low))
    #expect(rig.surface(mail)?.surface.shown.card.look.width == 400)
    #expect(card.host == "desk")
    // Updated to match another rule too: its card takes that rule's look over the first's.
    try rig.change { engine, instant throws(QueueError) in
      _ = try engine.update(UpdateParameters(id: build, title: "Build 42 failed"), at: instant)
    }
    rig.settle()
    let updated = try #require(rig.surface(build)?.surface.shown.card)
    #expect(updated.look.width == 480 && updated.look.colours.background.description == "#400000")
    #expect(rig.screen.violations.isEmpty)
  }

  // MARK: - Placement

  @Test func cardsStackFromTheAnchor_newestNearest_andTheOthersMoveWhenOneGoes() throws {
    let rig = DisplayRig()
    let first = rig.show(notice("first"))
    let second = rig.show(notice("second"))
    let top = try #require(rig.surface(second)?.surface.shown.placement)
    let below = try #require(rig.surface(first)?.surface.shown.placement)
    // Top right: 16 px margins, 8 px between cards, the newest at the top.
    #expect(top.y == 16 && top.x == 1920 - 16 - top.width && top.edges == [.top, .right])
    #expect(below.y == top.y + top.height + 8)
    try rig.change { engine, instant throws(QueueError) in
      _ = try engine.dismiss(DismissParameters(id: second), at: instant)
    }
    rig.advance(by: 1.5)
    #expect(rig.surface(second) == nil)
    #expect(rig.surface(first)?.surface.shown.placement.y == 16)
    #expect(rig.screen.violations.isEmpty)
  }

  @Test func aCardGoesToTheFocusedOutputAsItAppears_andTheStackStaysPutWhileCardsHold() throws {
    let rig = DisplayRig(outputs: Self.twoOutputs)
    let first = rig.show(notice("first"))
    #expect(rig.surface(first)?.key.output == "DP-1")
    // The focus moving does not move a stack that holds…
    rig.input(.outputs(DisplayOutputs(Self.twoOutputs.outputs, focus: "DP-2")))
    rig.settle()
    #expect(rig.surface(first)?.key.output == "DP-1")
    // … but the next card takes the whole stack where the focus is now.
    let second = rig.show(notice("second"))
    #expect(rig.surface(first)?.key.output == "DP-2" && rig.surface(second)?.key.output == "DP-2")
    // Its place is laid out for DP-2's size.
    let placement = try #require(rig.surface(second)?.surface.shown.placement)
    #expect(placement.x == 1280 - 16 - placement.width)
    #expect(rig.screen.violations.isEmpty)
  }

  @Test func onX11_aWindowMovesToItsNewOutput_ratherThanBeingMadeAgain() throws {
    let rig = DisplayRig(traits: DisplayRig.x11, outputs: Self.twoOutputs)
    let first = rig.show(notice("first"))
    #expect(rig.surface(first)?.key.output == "DP-1")
    // DP-1 unplugged: the window goes to DP-2, the focused output now.
    rig.input(.outputs(DisplayOutputs([Self.twoOutputs.outputs[1]], focus: "DP-2")))
    rig.settle()
    let (key, surface) = try #require(rig.surface(first))
    #expect(key.output == "DP-2")
    #expect(surface.frames >= 1)
    #expect(rig.screen.violations.isEmpty)
  }

  @Test func outputAll_putsACardOnEveryOutput_andNamedOnItsOwn() {
    var settings = DisplaySettings()
    settings.ruleLooks["everywhere"] = LookOverrides()
    settings.ruleLooks["everywhere"]?.output = .all
    settings.ruleLooks["side"] = LookOverrides()
    settings.ruleLooks["side"]?.output = .named("DP-2")
    var queue = QueueSettings()
    queue.rules = [
      Rule(name: "everywhere", matchApp: Glob("all")), Rule(name: "side", matchApp: Glob("side")),
    ]
    let rig = DisplayRig(settings: settings, queue: queue, outputs: Self.twoOutputs)
    let everywhere = rig.show(notice("e", app: "all"))
    let side = rig.show(notice("s", app: "side"))
    let keys = Set(rig.screen.surfaces.keys)
    #expect(
      keys == [
        SurfaceKey(id: everywhere, output: "DP-1"), SurfaceKey(id: everywhere, output: "DP-2"),
        SurfaceKey(id: side, output: "DP-2"),
      ])
  }

  @Test func byOutput_putsEachCardWhereItsLookSays_newestFirst() {
    var cards: [Int: Card] = [:]
    for (id, output) in [(1, CardOutput.focused), (2, .all), (3, .named("DP-2")), (4, .focused)] {
      var look = CardLook.builtIn(for: .normal)
      look.output = output
      cards[id] = Card(Notice(id: id, kind: .notice, title: "t", phase: .holding), look: look)
    }
    func groups(_ outputs: [String], focused: String?) -> [String] {
      DisplayMachine.byOutput([4, 3, 2, 1], cards: cards, outputs: outputs, focused: focused).map {
        "\($0.output ?? "nil"): \($0.ids)"
      }
    }
    #expect(groups(["DP-1", "DP-2"], focused: "DP-1") == ["DP-1: [4, 2, 1]", "DP-2: [3, 2]"])
    #expect(groups(["DP-1", "DP-2"], focused: "DP-2") == ["DP-1: [2]", "DP-2: [4, 3, 2, 1]"])
    // The focus unknown: the compositor's choice (nil) for the focused ones.
    #expect(groups(["DP-1", "DP-2"], focused: nil) == ["DP-1: [2]", "DP-2: [3, 2]", "nil: [4, 1]"])
    // DP-2 unplugged: its card goes where the focus is; a focus on an output gone counts as unknown.
    #expect(groups(["DP-1"], focused: "DP-1") == ["DP-1: [4, 3, 2, 1]"])
    #expect(groups(["DP-1"], focused: "DP-2") == ["DP-1: [2]", "nil: [4, 3, 1]"])
    #expect(groups([], focused: nil) == ["nil: [4, 3, 2, 1]"])
  }

  @Test func aSurfaceTheCompositorClosed_isMadeAgainOnlyWhenTheOutputsChange() {
    let rig = DisplayRig()
    let id = rig.show(notice("n"))
    let key = SurfaceKey(id: id, output: "DP-1")
    rig.screen.surfaces[key] = nil  // the compositor took it away
    rig.input(.closed(key))
    rig.advance(by: 0.2)
    #expect(rig.screen.surfaces.isEmpty)
    rig.input(
      .outputs(DisplayOutputs([DisplayOutput(name: "DP-1", width: 2560, height: 1440)], focus: "DP-1")))
    rig.settle()
    #expect(rig.screen.surfaces[key] != nil)
    #expect(rig.screen.violations.isEmpty)
  }

  // MARK: - The pointer and buttons

  @Test func thePointerOverAButton_lightsIt_andHoldsTheNotice_untilItLeaves() throws {
    let rig = DisplayRig()
    let id = rig.show(notice("n", actions: [Action(key: "open", label: "Open")]))
    let (key, surface) = try #require(rig.surface(id))
    let geometry = ArithmeticMeasure().geometry(of: surface.shown.card, height: surface.shown.height)
    let button = try #require(geometry.buttons.first)
    rig.input(.pointerMoved(key, x: button.x + 2, y: button.y + 2))
    rig.settle()
    #expect(rig.surface(id)?.surface.shown.card.highlighted == .action("open"))
    #expect(rig.requests.contains(.pointer(over: id)))
    // Held: long past its hold it is still there.
    rig.advance(by: 30)
    #expect(rig.surface(id) != nil)
    // A move within the same button asks nothing more.
    let asked = rig.requests.count
    rig.input(.pointerMoved(key, x: button.x + 3, y: button.y + 3))
    #expect(rig.requests.count == asked && !rig.machine.needsSettle)
    rig.input(.pointerLeft)
    rig.settle()
    #expect(rig.surface(id)?.surface.shown.card.highlighted == nil)
    #expect(rig.requests.last == .pointer(over: nil))
    rig.advance(by: 5.5)
    rig.advance(by: 1)
    #expect(rig.surface(id) == nil)
    #expect(rig.screen.violations.isEmpty)
  }

  @Test func aClick_onAButtonInvokesIt_elsewhereDoesWhatItsBindingSays() throws {
    var settings = DisplaySettings()
    settings.middleClick = .dismissAll
    var quiet = Rule(name: "quiet", matchApp: Glob("quiet"))
    quiet.rightClick = ClickAction.none
    var queue = QueueSettings()
    queue.rules = [quiet]
    let rig = DisplayRig(settings: settings, queue: queue)
    let id = rig.show(
      notice("n", actions: [Action(key: "default", label: ""), Action(key: "open", label: "Open")]))
    let (key, surface) = try #require(rig.surface(id))
    let button = try #require(
      ArithmeticMeasure().geometry(of: surface.shown.card, height: surface.shown.height).buttons.first)
    rig.input(.pressed(.left, key, x: button.x + 1, y: button.y + 1))
    #expect(rig.requests.last == .invoke(id: id, action: "open", from: key))
    let other = rig.show(notice("m", actions: [Action(key: "default", label: "")]))
    let otherKey = try #require(rig.surface(other)?.key)
    rig.input(.pressed(.left, otherKey, x: 2, y: 2))
    #expect(rig.requests.last == .invoke(id: other, action: "default", from: otherKey))
    let quietID = rig.show(notice("q", app: "quiet"))
    let quietKey = try #require(rig.surface(quietID)?.key)
    let asked = rig.requests.count
    rig.input(.pressed(.right, quietKey, x: 2, y: 2))  // the rule's RightClick=none
    #expect(rig.requests.count == asked)
    rig.input(.pressed(.middle, quietKey, x: 2, y: 2))
    #expect(rig.requests.last == .dismissAll)
  }

  // MARK: - The reply field

  /// Clicks the reply field of notice `id`'s card; answers its surface as it was.
  private func clickField(of id: Int, _ rig: DisplayRig) throws -> (
    key: SurfaceKey, surface: ScreenModel.Surface
  ) {
    let (key, surface) = try #require(rig.surface(id))
    let field = try #require(
      ArithmeticMeasure().geometry(of: surface.shown.card, height: surface.shown.height).field)
    rig.input(.pressed(.left, key, x: field.x + 1, y: field.y + 1))
    return (key, surface)
  }

  @Test func aClickOnTheField_givesItTheKeyboard_keysTypeIntoIt_andEnterReplies() throws {
    let rig = DisplayRig()
    let id = rig.show(notice("chat", reply: "Answer…"))
    let (key, surface) = try clickField(of: id, rig)
    #expect(rig.screen.keyboard == key)
    #expect(rig.requests.last == .typing(in: id))
    for key in [KeyInput.text("o"), .text("k"), .text("!"), .backspace] { rig.input(.key(key)) }
    rig.settle()
    #expect(rig.surface(id)?.surface.shown.card.typed == "ok")
    // Typing changes only the field: the card keeps its height (its pixels are painted in part).
    #expect(rig.surface(id)?.surface.shown.height == surface.shown.height)
    rig.input(.key(.enter))
    #expect(rig.requests.suffix(2) == [.typing(in: nil), .reply(id: id, text: "ok")])
    #expect(rig.screen.keyboard == nil)
    #expect(rig.notice(id)?.replied == "ok")
    #expect(rig.screen.violations.isEmpty)
  }

  @Test func theField_takesNoMoreThanAReplysLimit_andEscapeOrTheKeyboardLeavingSendsNothing() throws {
    let rig = DisplayRig()
    let id = rig.show(notice("chat", reply: "…"))
    _ = try clickField(of: id, rig)
    rig.input(.key(.text(String(repeating: "x", count: RequestLimits.maximumReplyLength))))
    rig.input(.key(.text("y")))
    #expect(rig.machine.editing?.text.utf8.count == RequestLimits.maximumReplyLength)
    rig.input(.key(.escape))
    #expect(rig.machine.editing == nil && rig.screen.keyboard == nil)
    _ = try clickField(of: id, rig)
    rig.input(.keyboardLeft)
    #expect(rig.machine.editing == nil)
    #expect(!rig.requests.contains { if case .reply = $0 { true } else { false } })
  }

  @Test func theCardWhoseFieldHasTheKeyboard_going_takesTheKeyboardBack() throws {
    let rig = DisplayRig()
    let id = rig.show(notice("chat", reply: "…"))
    _ = try clickField(of: id, rig)
    try rig.change { engine, instant throws(QueueError) in
      _ = try engine.cancel(CancelParameters(id: id, now: true), at: instant)
    }
    rig.settle()
    #expect(rig.machine.editing == nil && rig.screen.keyboard == nil && rig.surface(id) == nil)
    #expect(rig.screen.violations.isEmpty)
  }

  // MARK: - Fullscreen, standing aside, the center

  @Test func underAFullscreenWindow_pushbackCardsLeave_showCardsGoOverIt_andComeBackAfter() throws {
    var settings = DisplaySettings()
    settings.ruleLooks["game"] = LookOverrides()
    settings.ruleLooks["game"]?.fullscreen = .pushback
    settings.ruleLooks["alarm"] = LookOverrides()
    settings.ruleLooks["alarm"]?.fullscreen = .show
    var queue = QueueSettings()
    let game = Rule(name: "game", matchApp: Glob("game"))
    let alarm = Rule(name: "alarm", matchApp: Glob("alarm"))
    queue.rules = [game, alarm]
    queue.rules[0].fullscreen = .pushback
    queue.rules[1].fullscreen = .show
    let rig = DisplayRig(settings: settings, queue: queue)
    let pushed = rig.show(notice("p", app: "game"))
    let shown = rig.show(notice("s", app: "alarm"))
    #expect(rig.surface(shown)?.surface.shown.layer == .top)
    rig.input(.fullscreen(true))
    rig.settle()
    #expect(rig.surface(pushed) == nil)
    #expect(rig.surface(shown)?.surface.shown.layer == .overlay)
    #expect(rig.requests.contains(.fullscreen(true)))
    rig.input(.fullscreen(false))
    rig.settle()
    #expect(rig.surface(pushed) != nil)
    #expect(rig.surface(shown)?.surface.shown.layer == .top)
    #expect(rig.screen.violations.isEmpty)
  }

  @Test func standingAside_orTheCenterOpen_takesEveryCardDown_andTheyComeBack() {
    let rig = DisplayRig()
    let id = rig.show(notice("n", reply: "…"))
    rig.input(.suppressed(true))
    rig.settle()
    #expect(rig.screen.surfaces.isEmpty)
    rig.input(.suppressed(false))
    rig.settle()
    #expect(rig.surface(id) != nil)
    rig.input(.center(true))
    rig.settle()
    #expect(rig.screen.surfaces.isEmpty)
    // Keys and the pointer belong to the center meanwhile: the cards' field takes none.
    rig.input(.key(.text("x")))
    #expect(rig.machine.editing == nil)
    rig.input(.center(false))
    rig.settle()
    #expect(rig.surface(id) != nil)
    #expect(rig.screen.violations.isEmpty)
  }

  @Test func aDisplayGoneAndBack_makesTheVisibleCardsAgain() {
    let rig = DisplayRig()
    let id = rig.show(notice("n"))
    rig.input(.disconnected)
    rig.screen = ScreenModel()  // the connection took every surface with it
    rig.settle()
    #expect(rig.screen.surfaces.isEmpty)
    rig.input(
      .connected(
        DisplayRig.wayland, DisplayOutputs([DisplayOutput(name: "DP-1", width: 800, height: 600)], focus: nil)
      ))
    rig.settle()
    #expect(rig.surface(id)?.key == SurfaceKey(id: id, output: nil))
    #expect(rig.screen.violations.isEmpty)
  }

  @Test func animationNone_showsACardWholeFromItsFadeInsStartToItsFadeOutsEnd_drawingNoFadeFrames() throws {
    for traits in [DisplayRig.wayland, DisplayRig.x11, DisplayTraits(windows: true, blends: false)] {
      var settings = DisplaySettings()
      settings.look.animation = CardAnimation.none
      let rig = DisplayRig(settings: settings, traits: traits)
      let id = rig.show(notice("Calm"))
      rig.advance(by: 0.1)
      let first = try #require(rig.surface(id)?.surface)
      #expect(rig.notice(id)?.phase == .fadingIn)
      #expect(first.mapped && first.opacity == 1 && !first.pending, "\(traits)")
      // The rest of the fade-in draws nothing: no frame follows a cut.
      rig.advance(by: 0.8)
      #expect(rig.surface(id)?.surface.frames == first.frames, "\(traits)")
      rig.advance(by: 5.5)  // 6.4 s: into the fade-out
      #expect(rig.notice(id)?.phase == .fadingOut)
      let fading = try #require(rig.surface(id)?.surface)
      #expect(fading.mapped && fading.opacity == 1, "\(traits)")
      rig.advance(by: 0.4)
      #expect(rig.surface(id)?.surface.frames == fading.frames, "\(traits)")
      rig.advance(by: 1)
      #expect(rig.screen.surfaces.isEmpty && rig.screen.violations.isEmpty, "\(traits)")
    }
  }

  @Test func animationNone_byRule_stillsAnIndicatorWithoutAValue_whileOthersSweep() throws {
    var queue = QueueSettings()
    queue.rules = [Rule(name: "calm", matchApp: Glob("calm"))]
    var settings = DisplaySettings()
    settings.ruleLooks["calm"] = LookOverrides()
    settings.ruleLooks["calm"]?.animation = CardAnimation.none
    let rig = DisplayRig(settings: settings, queue: queue)
    func indicator(app: String) -> Int {
      let id = try! rig.change { engine, instant throws(QueueError) in
        try engine.progress(
          ProgressParameters(title: "Copying", app: app, timeout: 0, delay: 0, fadeIn: 1, fadeOut: 1),
          at: instant
        ).id
      }
      rig.settle()
      return id
    }
    let calm = indicator(app: "calm")
    let busy = indicator(app: "busy")
    rig.advance(by: 2)  // both holding
    let (calmFrames, busyFrames) = (
      rig.surface(calm)?.surface.frames ?? 0, rig.surface(busy)?.surface.frames ?? 0
    )
    rig.advance(by: 0.5)
    rig.advance(by: 0.5)
    #expect(rig.surface(calm)?.surface.frames == calmFrames)
    #expect((rig.surface(busy)?.surface.frames ?? 0) > busyFrames)
    #expect(rig.surface(calm)?.surface.shown.card.isActivity == true)
    #expect(rig.screen.violations.isEmpty)
  }

  @Test func whatIsSaid_isTheLastMatchingRulesSpeak_elseSpeechs_inPlainWords() throws {
    var quiet = Rule(name: "quiet", matchApp: Glob("quiet"))
    quiet.speak = SpeechChoice.no
    var brief = Rule(name: "brief", matchApp: Glob("*"))
    brief.speak = .title
    var queue = QueueSettings()
    queue.rules = [quiet, brief]
    var settings = DisplaySettings()
    settings.speech.speak = .yes
    let rig = DisplayRig(settings: settings, queue: queue)
    let loud = rig.show(notice("Backup <b>done</b>", app: "backup"))
    let hushed = rig.show(notice("Psst", app: "quiet"))
    // The later matching rule wins: title for every app, but quiet's own is overruled by brief's.
    #expect(rig.machine.speech(of: loud) == .title && rig.machine.speech(of: hushed) == .title)
    let plain = DisplayRig(settings: settings)
    let id = plain.show(notice("Backup done"))
    #expect(plain.machine.speech(of: id) == .yes)
    var shown = Notice(
      id: 1, kind: .notice, title: "Backup <b>done</b>", body: "312 files\ncopied  today", app: "backup")
    #expect(PopupDisplay.words(of: shown, .yes) == "backup. Backup done. 312 files copied today.")
    #expect(PopupDisplay.words(of: shown, .title) == "backup. Backup done.")
    #expect(PopupDisplay.words(of: shown, .no) == nil)
    shown.app = nil
    shown.title = "Done?"
    shown.body = nil
    #expect(PopupDisplay.words(of: shown, .yes) == "Done?")
  }

  @Test func whereAlphaDoesNotBlend_aCardShowsOnlyWhileItHolds_atFullOpacity() {
    let rig = DisplayRig(traits: DisplayTraits(windows: true, blends: false))
    let id = rig.show(notice("n"))
    #expect(rig.surface(id)?.surface.mapped == false)
    rig.advance(by: 1.2)
    #expect(rig.surface(id)?.surface.mapped == true && rig.surface(id)?.surface.opacity == 1)
    rig.advance(by: 5)
    #expect(rig.surface(id)?.surface.mapped != true)
    #expect(rig.screen.violations.isEmpty)
  }
}
