import NotifyCore
import NotifyProtocol
import Testing

/// `Fullscreen=` on the machine (DESIGN §14): while the window with the keyboard is fullscreen,
/// `delay` notices wait with their timelines not started, `pushback` ones also leave the screen
/// with their holds standing still, `show` ones show. On a manual clock.
@Suite("QueueMachine: notices under a fullscreen window")
struct FullscreenTests {
  static func driver(maxVisible: Int = 3, rules: [Rule] = []) -> MachineDriver {
    var settings = MachineDriver.settings(maxVisible: maxVisible)
    settings.rules = rules
    return MachineDriver(settings)
  }

  static func rule(_ name: String, app: String, _ policy: FullscreenPolicy) -> Rule {
    var rule = Rule(name: name, matchApp: Glob(app)!)
    rule.fullscreen = policy
    return rule
  }

  @Test func byDefault_aNormalNoticeWaits_andShowsOnceTheWindowLeavesFullscreen() throws {
    var d = Self.driver()
    d.perform { m, i in m.setFullscreen(true, at: i) }
    let id = try d.show(fadeIn: 1, hold: 2, fadeOut: 1)
    d.advance(to: 100)
    // Its timeline has not started: no slot, nothing armed for it.
    #expect(d.phase(id) == .queued)
    #expect(d.runs.isEmpty)
    #expect(d.machine.status.fullscreen == FullscreenState(delayed: 1, pushedBack: 0))
    d.perform { m, i in m.setFullscreen(false, at: i) }
    #expect(d.machine.status.fullscreen == nil)
    #expect(d.runs == [id])
    d.advance(to: 101)
    #expect(d.phase(id) == .holding)
    d.advance(to: 104)
    #expect(d.outcome(id) == .completed)
    #expect(
      d.lifecycle(of: id) == ["added", "queued", "fadingIn", "holding", "fadingOut", "finished:completed"])
  }

  @Test func aCriticalNoticeShows_andOthersWaitWithoutTakingItsSlot() throws {
    var d = Self.driver(maxVisible: 1)
    d.perform { m, i in m.setFullscreen(true, at: i) }
    let normal = try d.show("normal", hold: 2)
    let critical = try d.show("critical", hold: 2, urgency: .critical)
    #expect(d.runs == [critical])
    d.advance(to: 1)
    #expect(d.phase(critical) == .holding)
    #expect(d.phase(normal) == .queued)
    #expect(d.machine.status.fullscreen?.delayed == 1)
  }

  @Test func aShownDelayNotice_goesOn() throws {
    var d = Self.driver()
    let id = try d.show(fadeIn: 1, hold: 2, fadeOut: 1)
    d.advance(to: 1.5)
    d.perform { m, i in m.setFullscreen(true, at: i) }
    d.advance(to: 4)
    #expect(d.outcome(id) == .completed)
  }

  @Test func pushback_takesAShownNoticeOff_itsHoldStandsStill_andItComesBackWithItsWholeHold() throws {
    var d = Self.driver(rules: [Self.rule("mail", app: "mail", .pushback)])
    let id = try d.show(fadeIn: 1, hold: 4, fadeOut: 1, app: "mail")
    d.advance(to: 3)
    d.perform { m, i in m.setFullscreen(true, at: i) }
    #expect(d.machine.status.fullscreen == FullscreenState(delayed: 0, pushedBack: 1))
    #expect(d.armed == nil)
    d.advance(to: 500)
    #expect(d.phase(id) == .holding)
    d.perform { m, i in m.setFullscreen(false, at: i) }
    // Its whole hold again from now, not the two seconds that were left.
    #expect(d.armed == 504)
    d.advance(to: 505)
    #expect(d.outcome(id) == .completed)
  }

  @Test func pushback_aNoticeNotShownYetWaits_likeDelay() throws {
    var d = Self.driver(rules: [Self.rule("mail", app: "mail", .pushback)])
    d.perform { m, i in m.setFullscreen(true, at: i) }
    let id = try d.show(app: "mail")
    d.advance(to: 50)
    #expect(d.phase(id) == .queued)
    #expect(d.machine.status.fullscreen == FullscreenState(delayed: 1, pushedBack: 0))
  }

  @Test func aRuleCanShowOverFullscreen_andAnotherCanHoldBackACriticalOne() throws {
    var critical = Rule(name: "quiet-alarm", matchApp: Glob("alarm")!)
    critical.fullscreen = .delay
    var d = Self.driver(rules: [Self.rule("call", app: "phone", .show), critical])
    d.perform { m, i in m.setFullscreen(true, at: i) }
    let call = try d.show("call", app: "phone")
    let alarm = try d.show("alarm", urgency: .critical, app: "alarm")
    #expect(d.runs == [call])
    d.advance(to: 1)
    #expect(d.phase(call) == .holding)
    #expect(d.phase(alarm) == .queued)
  }

  @Test func doNotDisturbAndFullscreen_bothMustLetANoticeThrough() throws {
    var d = Self.driver(rules: [Self.rule("call", app: "phone", .show)])
    _ = try d.perform { m, i in try m.suspend(for: nil, at: i) }
    d.perform { m, i in m.setFullscreen(true, at: i) }
    let call = try d.show("call", app: "phone")
    let critical = try d.show("critical", urgency: .critical)
    // The call shows over fullscreen but do-not-disturb holds it; the critical one passes both.
    #expect(d.runs == [critical])
    d.perform { m, i in m.resume(at: i) }
    #expect(d.runs == [critical, call])
    _ = call
  }

  @Test func grantedBeforeTheWindowWentFullscreen_aPushbackNoticeStartsOffTheScreen_itsHoldStill() throws {
    var d = Self.driver(rules: [Self.rule("mail", app: "mail", .pushback)])
    d.autoStart = false
    let id = try d.show(fadeIn: 0, hold: 2, fadeOut: 0, app: "mail")
    #expect(d.pendingStarts == [id])
    d.perform { m, i in m.setFullscreen(true, at: i) }
    d.startPending()
    #expect(d.machine.status.fullscreen == FullscreenState(delayed: 0, pushedBack: 1))
    #expect(d.armed == nil)
    d.advance(to: 100)
    d.perform { m, i in m.setFullscreen(false, at: i) }
    #expect(d.armed == 102)
  }

  @Test func aPushedBackNoticeReplacedByOneThatShows_holdsAgain_andOneReplacedIntoPushback_standsStill()
    throws
  {
    // Normal notices are pushed back, critical ones show.
    var settings = MachineDriver.settings(maxVisible: 3)
    settings.fullscreen[.normal] = .pushback
    var d = MachineDriver(settings)
    let first = try d.show("disk", fadeIn: 0, hold: 4, fadeOut: 0, key: "disk")
    let second = try d.show("backup", fadeIn: 0, hold: 4, fadeOut: 0, urgency: .critical, key: "backup")
    d.advance(to: 1)
    d.perform { m, i in m.setFullscreen(true, at: i) }
    #expect(d.machine.status.fullscreen?.pushedBack == 1)
    d.advance(to: 50)
    #expect(d.outcome(second) == .completed)
    #expect(d.phase(first) == .holding)
    // Replaced by a critical notice (the same key): it shows now, and holds its new 4 s.
    #expect(
      try d.show("disk failing", fadeIn: 0, hold: 4, fadeOut: 0, urgency: .critical, key: "disk") == first)
    #expect(d.armed == 54)
    d.advance(to: 54)
    #expect(d.outcome(first) == .completed)
    // The other way: a critical notice shown under the window, replaced by a normal one, leaves.
    let third = try d.show("alarm", fadeIn: 0, hold: 4, fadeOut: 0, urgency: .critical, key: "alarm")
    d.advance(to: 55)
    #expect(try d.show("alarm off", fadeIn: 0, hold: 4, fadeOut: 0, key: "alarm") == third)
    #expect(d.machine.status.fullscreen?.pushedBack == 1)
    d.advance(to: 500)
    #expect(d.phase(third) == .holding)
    #expect(d.machine.fullscreenPolicy(of: third) == .pushback)
    d.perform { m, i in m.setFullscreen(false, at: i) }
    #expect(d.armed == 504)
  }

  @Test func aPushedBackProgressIndicator_doesNotTimeOutOffTheScreen() throws {
    var settings = MachineDriver.settings()
    settings.fullscreen[.normal] = .pushback
    var d = MachineDriver(settings)
    let (id, _) = try d.perform { m, i in
      try m.progress(ProgressParameters(title: "copying", value: 50, timeout: 10), at: i)
    }
    d.advance(to: 2)
    d.perform { m, i in m.setFullscreen(true, at: i) }
    d.advance(to: 100)
    #expect(d.outcome(id) == nil)
    d.perform { m, i in m.setFullscreen(false, at: i) }
    d.advance(to: 111)
    #expect(d.outcome(id) == .timedOut)
  }

  @Test func theDefaultsPerUrgency_areTheSettings() {
    var settings = QueueSettings()
    #expect(settings.fullscreen[.critical] == .show)
    #expect(settings.fullscreen[.normal] == nil)
    settings.fullscreen[.low] = .pushback
    var d = MachineDriver(settings)
    d.perform { m, i in m.setFullscreen(true, at: i) }
    let low = try? d.show(urgency: .low)
    #expect(low.flatMap { d.phase($0) } == .queued)
  }
}
