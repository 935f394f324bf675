import Foundation
import NotifyConfig
import NotifyCore
import NotifyProtocol
import NotifyTestSupport
import Testing

@testable import NotifyDisplay

/// Random schedules of notices, clicks, keys, outputs coming and going, fullscreen windows, the
/// center and the display server leaving, each on its own seed, with the rules every one must
/// keep checked after every step: never a surface or a frame for a finished notice, never two
/// surfaces for one card on one output (nor on two, unless its look says `Output=all`), every card
/// placed inside its output, nothing drawn off the screen or before the compositor took the last
/// frame, and the machine's surfaces the backend's.
@Suite("The display machine, simulated")
struct DisplaySimulationTests {
  static let firstSeed =
    UInt64(ProcessInfo.processInfo.environment["NOTIFYD_DISPLAY_SEED"] ?? "") ?? 53_000
  static let schedules =
    Int(ProcessInfo.processInfo.environment["NOTIFYD_DISPLAY_SCHEDULES"] ?? "") ?? 1_000
  static let steps = 150

  @Test func randomSchedules_keepEveryRuleOfTheSurfaces() {
    var totals = DisplaySimulation.Totals()
    for index in 0..<Self.schedules {
      let seed = Self.firstSeed &+ UInt64(index)
      var simulation = DisplaySimulation(seed: seed)
      simulation.run(steps: Self.steps)
      if let failure = simulation.failure {
        Issue.record(
          """
          schedule \(seed) broke a rule: \(failure)
          replay: NOTIFYD_DISPLAY_SEED=\(seed) NOTIFYD_DISPLAY_SCHEDULES=1 swift test --filter DisplaySimulation
          its last steps:
          \(simulation.trace.suffix(30).joined(separator: "\n"))
          """)
        return
      }
      totals.add(simulation)
    }
    // The schedules reached what they are for: cards made, drawn, clicked, typed into, moved.
    #expect(totals.made > 10 * Self.schedules)
    #expect(totals.frames > 10 * Self.schedules)
    #expect(totals.requests > Self.schedules)
    #expect(totals.maxSurfaces >= 4)
    #expect(totals.replies > 0 && totals.invoked > 0)
  }
}

/// One schedule (`DisplayRig` driven by a seeded generator).
struct DisplaySimulation {
  struct Totals {
    var made = 0
    var frames = 0
    var requests = 0
    var maxSurfaces = 0
    var replies = 0
    var invoked = 0
    mutating func add(_ simulation: DisplaySimulation) {
      made += simulation.rig.made
      frames += simulation.rig.frames
      requests += simulation.rig.requests.count
      maxSurfaces = max(maxSurfaces, simulation.maxSurfaces)
      replies += simulation.rig.requests.filter { if case .reply = $0 { true } else { false } }.count
      invoked += simulation.rig.requests.filter { if case .invoke = $0 { true } else { false } }.count
    }
  }

  var random: SplitMix64
  let rig: DisplayRig
  var trace: [String] = []
  var failure: String?
  var maxSurfaces = 0
  var ids: [Int] = []
  var connected = true
  static let names = ["DP-1", "DP-2", "HDMI-1"]

  init(seed: UInt64) {
    random = SplitMix64(state: seed)
    var settings = DisplaySettings()
    var queue = QueueSettings()
    for (name, output, fullscreen) in [
      ("all", CardOutput.all, FullscreenPolicy?.none), ("side", .named("DP-2"), nil),
      ("push", .focused, .pushback),
      ("show", .focused, .show),
    ] {
      var look = LookOverrides()
      look.output = output
      look.fullscreen = fullscreen
      look.width = 300
      settings.ruleLooks[name] = look
      var rule = Rule(name: name, matchApp: Glob(name))
      rule.fullscreen = fullscreen
      queue.rules.append(rule)
    }
    settings.look.width = 360
    let windows = seed % 2 == 1
    rig = DisplayRig(
      settings: settings, queue: queue,
      traits: DisplayTraits(windows: windows, blends: !windows || seed % 4 != 1),
      outputs: DisplayOutputs(
        [
          DisplayOutput(name: "DP-1", width: 1920, height: 1080),
          DisplayOutput(name: "DP-2", width: 800, height: 600),
        ],
        focus: "DP-1"))
  }

  mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
  mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &random) < p }

  mutating func run(steps: Int) {
    for _ in 0..<steps {
      step()
      check()
      if failure != nil { return }
    }
  }

  mutating func step() {
    switch Int.random(in: 0..<100, using: &random) {
    case 0..<18: show()
    case 18..<26: close()
    case 26..<44: advance()
    case 44..<52: pointer()
    case 52..<62: press()
    case 62..<70: key()
    case 70..<74: outputs()
    case 74..<77: focus()
    case 77..<79: closedByServer()
    case 79..<81: landed()
    case 81..<84: toggle("fullscreen") { $0.rig.input(.fullscreen(!$0.rig.machine.fullscreen)) }
    case 84..<86: toggle("suppressed") { $0.rig.input(.suppressed(!$0.rig.machine.suppressed)) }
    case 86..<88: toggle("center") { $0.rig.input(.center(!$0.rig.machine.centerOpen)) }
    case 88..<90: reconnect()
    case 90..<93: damage()
    default: update()
    }
    rig.settle()
    maxSurfaces = max(maxSurfaces, rig.screen.surfaces.count)
  }

  mutating func show() {
    let app = pick([nil, nil, "all", "side", "push", "show"])
    let actionCount = pick([0, 0, 1, 2, 4])
    var actions = (0..<actionCount).map { Action(key: "a\($0)", label: "A\($0)") }
    if chance(0.3) { actions.append(Action(key: "default", label: "")) }
    let parameters = ShowParameters(
      title: "n\(ids.count)", body: chance(0.5) ? "body" : nil, app: app,
      urgency: pick([.low, .normal, .critical]),
      delay: pick([0, 0, 0.5]), fadeIn: pick([0, 0.3, 1]), hold: pick([0, 0.5, 2, 5]),
      fadeOut: pick([0, 0.3, 1]),
      actions: actions.isEmpty ? nil : actions, reply: chance(0.25) ? "Reply…" : nil)
    do throws(QueueError) {
      let id = try rig.change { engine, instant throws(QueueError) in try engine.show(parameters, at: instant)
      }
      ids.append(id)
      trace.append("show \(id) app \(app ?? "-")")
    } catch {
      trace.append("show refused: \(error)")
    }
  }

  mutating func close() {
    guard let id = ids.isEmpty ? nil : pick(ids) else { return }
    trace.append("close \(id)")
    _ = try? rig.change { engine, instant throws(QueueError) in
      try engine.dismiss(DismissParameters(id: id), at: instant)
    }
  }

  mutating func update() {
    guard let id = ids.isEmpty ? nil : pick(ids) else { return }
    trace.append("update \(id)")
    let body = pick([nil, "a longer body", "x"])
    _ = try? rig.change { engine, instant throws(QueueError) in
      try engine.update(UpdateParameters(id: id, title: "u\(id)", body: body), at: instant)
    }
  }

  mutating func advance() {
    let seconds = pick([0.016, 0.05, 0.2, 0.7, 2.5])
    trace.append("advance \(seconds)")
    rig.advance(by: seconds)
  }

  /// A surface on the screen, and a point on it.
  mutating func someSurface() -> (SurfaceKey, Double, Double)? {
    let keys = rig.screen.surfaces.keys.sorted(by: DisplayMachine.order)
    guard !keys.isEmpty else { return nil }
    let key = pick(keys)
    let shown = rig.screen.surfaces[key]!.shown
    return (
      key, Double.random(in: 0..<Double(shown.card.look.width), using: &random),
      Double.random(in: 0..<Double(shown.height), using: &random)
    )
  }

  mutating func pointer() {
    guard chance(0.8), let (key, x, y) = someSurface() else {
      trace.append("pointer left")
      rig.input(.pointerLeft)
      return
    }
    trace.append("pointer \(key) \(Int(x)),\(Int(y))")
    rig.input(.pointerMoved(key, x: x, y: y))
  }

  mutating func press() {
    guard let (key, pointX, pointY) = someSurface() else { return }
    var (x, y) = (pointX, pointY)
    let shown = rig.screen.surfaces[key]!.shown
    let geometry = ArithmeticMeasure().geometry(of: shown.card, height: shown.height)
    // Aim at a part now and then: a button, the field.
    if chance(0.5), let part = chance(0.5) ? geometry.field : geometry.buttons.first {
      (x, y) = (part.x + 1, part.y + 1)
    }
    let button = pick([PopupButton.left, .left, .middle, .right])
    trace.append("press \(button) on \(key) \(Int(x)),\(Int(y))")
    rig.input(.pressed(button, key, x: x, y: y))
  }

  mutating func key() {
    let key = pick([KeyInput.text("a"), .text("é"), .backspace, .enter, .escape, .up])
    trace.append("key \(key)")
    if chance(0.15) {
      rig.input(.keyboardLeft)
    } else {
      rig.input(.key(key))
    }
  }

  mutating func someOutputs() -> DisplayOutputs {
    var outputs: [DisplayOutput] = []
    for name in Self.names where chance(0.6) {
      outputs.append(
        DisplayOutput(
          name: name, width: pick([640, 1280, 1920, 3840]), height: pick([480, 720, 1080, 2160])))
    }
    let focus = chance(0.2) ? nil : outputs.isEmpty ? nil : pick(outputs).name
    return DisplayOutputs(outputs, focus: focus)
  }

  mutating func outputs() {
    let outputs = someOutputs()
    trace.append(
      "outputs \(outputs.outputs.map { "\($0.name) \($0.width)x\($0.height)" }) focus \(outputs.focus ?? "-")"
    )
    rig.input(.outputs(outputs))
  }

  mutating func focus() {
    let name = chance(0.2) ? nil : pick(Self.names)
    trace.append("focus \(name ?? "-")")
    rig.input(.outputs(DisplayOutputs(rig.machine.outputs, focus: name)))
  }

  mutating func closedByServer() {
    guard !rig.traits.windows, let (key, _, _) = someSurface() else { return }
    trace.append("the compositor closed \(key)")
    rig.screen.surfaces[key] = nil
    rig.input(.closed(key))
  }

  mutating func landed() {
    let unplaced = rig.screen.surfaces.keys.filter { $0.output == nil }.sorted(by: DisplayMachine.order)
    guard !rig.traits.windows, !unplaced.isEmpty, !rig.machine.outputs.isEmpty else { return }
    let key = pick(unplaced)
    let output = pick(rig.machine.outputs).name
    trace.append("\(key) landed on \(output)")
    rig.input(.landed(key, on: output))
  }

  mutating func toggle(_ what: String, _ body: (inout DisplaySimulation) -> Void) {
    trace.append("toggle \(what)")
    body(&self)
  }

  mutating func reconnect() {
    if connected {
      trace.append("disconnect")
      rig.input(.disconnected)
      rig.screen = ScreenModel()
    } else {
      let outputs = someOutputs()
      trace.append("connect \(outputs.outputs.map(\.name))")
      rig.input(.connected(rig.traits, outputs))
    }
    connected.toggle()
  }

  mutating func damage() {
    guard let (key, _, _) = someSurface() else { return }
    trace.append("damaged \(key)")
    rig.input(.damaged(key))
  }

  mutating func fail(_ message: String) {
    if failure == nil { failure = message }
  }

  mutating func check() {
    let screen = rig.screen
    if let violation = screen.violations.first { return fail(violation) }
    let machine = rig.machine
    if Set(machine.surfaces.keys) != Set(screen.surfaces.keys) {
      return fail(
        "the machine holds \(machine.surfaces.keys.sorted(by: DisplayMachine.order)), the screen \(screen.surfaces.keys.sorted(by: DisplayMachine.order))"
      )
    }
    if !machine.drawsCards && !screen.surfaces.isEmpty {
      return fail(
        "surfaces while no card is to be drawn: \(screen.surfaces.keys.sorted(by: DisplayMachine.order))")
    }
    var perCard: [Int: Int] = [:]
    let names = machine.outputs.map(\.name)
    for (key, surface) in screen.surfaces {
      guard let notice = rig.notice(key.id), rig.engine.isUnfinished(key.id) else {
        return fail("a surface \(key) for a finished notice")
      }
      if !notice.phase.isVisible { return fail("a surface \(key) for a notice \(notice.phase)") }
      if machine.isPushedBack(key.id) { return fail("a surface \(key) for a card pushed back") }
      if let output = key.output, !names.contains(output) {
        return fail("a surface \(key) on an output gone")
      }
      perCard[key.id, default: 0] += 1
      if surface.shown.card.look.output != .all && perCard[key.id]! > 1 {
        return fail("two surfaces for card \(key.id)")
      }
      let size = machine.layoutSize(of: key.output)
      let place = surface.shown.placement
      // A window waiting for room is off the screen, where it was.
      if surface.mapped
        && (place.x < 0 || place.y < 0 || place.x + place.width > size.width
          || place.y + place.height > size.height)
      {
        return fail(
          "\(key) placed at \(place.x),\(place.y) \(place.width)x\(place.height) on \(size); outputs \(machine.outputs), "
            + "focused \(machine.focused ?? "-"), surfaces \(screen.surfaces.mapValues { ($0.shown.placement.y, $0.shown.height) })"
        )
      }
    }
    if let owner = screen.keyboard, machine.editing?.id != owner.id {
      return fail(
        "the keyboard on \(owner) while \(machine.editing.map { "\($0.id)" } ?? "no field") is typed into")
    }
    if let id = rig.drewFinished.first { return fail("drew notice \(id), which has finished") }
  }
}
