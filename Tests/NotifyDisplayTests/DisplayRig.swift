import NotifyConfig
import NotifyCore
import NotifyProtocol

@testable import NotifyDisplay

/// Cards measured by arithmetic: a title row, a body row, a field and a row of buttons, each 20
/// pixels, inside 10 pixels of padding; parts placed by `CardGeometry` with rows 20 high.
struct ArithmeticMeasure: CardMeasuring {
  func height(of card: Card) -> Int {
    20 + 20 + (card.body == nil ? 0 : 20) + (card.reply == nil ? 0 : 24) + (card.buttons.isEmpty ? 0 : 24)
  }
  func geometry(of card: Card, height: Int) -> CardGeometry {
    CardGeometry(card, height: height, rowHeight: 20, maxButtons: 3)
  }
}

/// A display server as the machine's actions leave it, and every action that broke the protocol a
/// backend keeps: a surface made twice, touched before it was made or after it went, drawn while
/// off the screen or before its last moving frame was shown.
struct ScreenModel {
  struct Surface {
    var shown: ShownCard
    var mapped = false
    /// Waiting for a frame callback (a layer surface that drew a moving frame), or for its first
    /// configure.
    var pending: Bool
    var frames = 0
    var opacity = 0.0
  }
  var surfaces: [SurfaceKey: Surface] = [:]
  var keyboard: SurfaceKey?
  var violations: [String] = []
  /// Surfaces made since the last look: the compositor configures them.
  var made: [SurfaceKey] = []
  /// Every frame drawn, by notice.
  var drawnIDs: [Int] = []

  mutating func apply(_ action: DisplayAction, traits: DisplayTraits) {
    switch action {
    case .make(let key, let shown):
      if surfaces[key] != nil { violations.append("made \(key) twice") }
      surfaces[key] = Surface(shown: shown, pending: !traits.windows)
      made.append(key)
    case .update(let key, let shown), .place(let key, let shown):
      guard surfaces[key] != nil else { return violations.append("changed \(key), which is not there") }
      surfaces[key]!.shown = shown
    case .map(let key, let on):
      guard surfaces[key] != nil else { return violations.append("mapped \(key), which is not there") }
      surfaces[key]!.mapped = on
    case .move(let key, let target):
      guard let surface = surfaces.removeValue(forKey: key) else {
        return violations.append("moved \(key), which is not there")
      }
      if surfaces[target] != nil { violations.append("moved \(key) onto \(target), which is there") }
      if !traits.windows { violations.append("moved a layer surface \(key)") }
      surfaces[target] = surface
    case .draw(let key, let opacity, let moving):
      guard var surface = surfaces[key] else { return violations.append("drew \(key), which is not there") }
      if !surface.mapped { violations.append("drew \(key) off the screen") }
      if surface.pending { violations.append("drew \(key) before the compositor took its last frame") }
      if !(0...1).contains(opacity) { violations.append("drew \(key) at opacity \(opacity)") }
      surface.frames += 1
      surface.opacity = opacity
      surface.pending = moving && !traits.windows
      surfaces[key] = surface
      drawnIDs.append(key.id)
    case .destroy(let key):
      if surfaces.removeValue(forKey: key) == nil {
        violations.append("destroyed \(key), which is not there")
      }
      if keyboard == key { keyboard = nil }
    case .keyboard(let key):
      if let key, surfaces[key] == nil {
        violations.append("gave the keyboard to \(key), which is not there")
      }
      keyboard = key
    case .request:
      break
    }
  }
}

/// A `DisplayMachine` fed by the engine's own rules (`QueueMachine`) on a manual clock, its
/// actions carried out on a `ScreenModel` and its requests on the engine, as `PopupDisplay`, the
/// engine's façade and a backend would; a lane's operation starts as soon as it is handed one.
/// Everything runs on the caller's thread, in order: the same inputs give the same run.
final class DisplayRig {
  var now = 1000.0
  var engine: QueueMachine
  var machine: DisplayMachine
  var screen = ScreenModel()
  let traits: DisplayTraits
  /// When the engine's timer is due.
  private var deadline: Double?
  /// What the engine told, not yet handed to the machine.
  private var inbox: [DisplayInput] = []
  /// Every request the machine made, in order.
  var requests: [DisplayRequest] = []
  /// Requests the engine refused (the notice finished meanwhile).
  var refused = 0
  /// Notices a frame was drawn for after they finished.
  var drewFinished: [Int] = []
  /// Surfaces made and frames drawn, over every connection.
  var made = 0
  var frames = 0

  static let wayland = DisplayTraits(windows: false, blends: true)
  static let x11 = DisplayTraits(windows: true, blends: true)

  init(
    settings: DisplaySettings = DisplaySettings(), queue: QueueSettings = QueueSettings(),
    traits: DisplayTraits = DisplayRig.wayland,
    outputs: DisplayOutputs = DisplayOutputs(
      [DisplayOutput(name: "DP-1", width: 1920, height: 1080)], focus: "DP-1"),
    connected: Bool = true
  ) {
    engine = QueueMachine(settings: queue)
    engine.notePresentations(true)
    machine = DisplayMachine(settings: settings, measure: ArithmeticMeasure(), host: "desk")
    self.traits = traits
    engine.setPresenter(.popups, true, at: instant)
    drain()
    if connected { input(.connected(traits, outputs)) }
    settle()
  }

  var instant: Instant { Instant(now: now, wall: 1_800_000_000 + now) }

  /// Changes the engine as a client would, and carries out what it asks for.
  @discardableResult
  func change<Result>(_ body: (inout QueueMachine, Instant) throws(QueueError) -> Result) throws(QueueError)
    -> Result
  {
    defer { drain() }
    return try body(&engine, instant)
  }

  /// The engine's notice `id` as it is now.
  func notice(_ id: Int) -> Notice? { engine.notice(id, at: now) }

  /// Carries out the engine's effects: operations start at once, events and then the presentations
  /// they changed go to the display's inbox, the timer is kept.
  private func drain() {
    while true {
      let effects = engine.takeEffects()
      if effects.isEmpty { break }
      for effect in effects {
        switch effect {
        case .run(let id, _, _): engine.started(id, at: instant)
        case .publish(let event): inbox.append(.event(event))
        case .arm(let deadline): self.deadline = deadline
        default: break
        }
      }
    }
    var presentations: [Int: Presentation] = [:]
    for id in engine.takePresentationChanges() {
      if let presentation = engine.presentation(of: id) { presentations[id] = presentation }
    }
    if !presentations.isEmpty { inbox.append(.presentations(presentations)) }
  }

  /// Hands the machine `input`, and carries out what it asks.
  func input(_ input: DisplayInput) {
    machine.handle(input, at: now)
    carryOut()
    pump()
  }

  /// Hands the machine what the engine told, until it tells nothing more.
  func pump() {
    while !inbox.isEmpty {
      let told = inbox
      inbox.removeAll()
      for input in told {
        machine.handle(input, at: now)
        carryOut()
      }
    }
  }

  /// What a driver does once the inputs queued so far are handled: the surfaces follow, and the
  /// compositor configures the surfaces made.
  func settle() {
    pump()
    machine.settle(at: now)
    carryOut()
    pump()
    configureMade()
  }

  /// The compositor configures each surface made (a layer surface draws only then).
  func configureMade() {
    while !screen.made.isEmpty {
      let made = screen.made
      screen.made.removeAll()
      guard !traits.windows else { continue }
      for key in made where screen.surfaces[key]?.pending == true {
        screen.surfaces[key]!.pending = false
        input(.frame(key, ready: true))
      }
    }
  }

  /// The clock moves on by `seconds`, the engine's timer firing on the way; the compositor's frame
  /// callbacks come for the surfaces waiting for one, and the surfaces settle.
  func advance(by seconds: Double) {
    let end = now + seconds
    var ticks = 0
    while let due = deadline, due <= end, ticks < 10_000 {
      now = max(now, due)
      deadline = nil
      engine.tick(at: instant)
      drain()
      ticks += 1
    }
    now = end
    pump()
    frameCallbacks()
    settle()
  }

  /// The compositor shows the last frame of every surface that waits for it (or, without frame
  /// callbacks, a tick).
  func frameCallbacks() {
    guard !traits.windows else {
      input(.frame(nil, ready: true))
      return
    }
    for key in screen.surfaces.keys.sorted(by: DisplayMachine.order)
    where screen.surfaces[key]?.pending == true {
      screen.surfaces[key]!.pending = false
      input(.frame(key, ready: true))
    }
  }

  private func carryOut() {
    for action in machine.takeActions() {
      screen.apply(action, traits: traits)
      switch action {
      case .make: made += 1
      case .draw(let key, _, _):
        frames += 1
        if !engine.isUnfinished(key.id) { drewFinished.append(key.id) }
      default: break
      }
      guard case .request(let request) = action else { continue }
      requests.append(request)
      do throws(QueueError) {
        try change { engine, instant throws(QueueError) in
          switch request {
          case .invoke(let id, let key, _):
            _ = try engine.invoke(InvokeParameters(id: id, action: key), at: instant)
          case .dismiss(let id): _ = try engine.dismiss(DismissParameters(id: id), at: instant)
          case .dismissAll: _ = try engine.dismiss(DismissParameters(all: true), at: instant)
          case .reply(let id, let text):
            _ = try engine.reply(ReplyParameters(id: id, text: text), at: instant)
          case .pointer(let id): engine.pointer(over: id, at: instant)
          case .typing(let id): engine.typing(in: id, at: instant)
          case .fullscreen(let on): engine.setFullscreen(on, at: instant)
          case .menu: break
          case .snooze(let id, let time):
            _ = try engine.snooze(time.request(for: id, now: instant.wall), at: instant)
          }
        }
      } catch {
        refused += 1
      }
    }
  }

  /// Shows a notice and lets the display follow.
  @discardableResult
  func show(_ parameters: ShowParameters) -> Int {
    let id = try! change { engine, instant throws(QueueError) in try engine.show(parameters, at: instant) }
    settle()
    return id
  }

  /// The one surface of notice `id`.
  func surface(_ id: Int) -> (key: SurfaceKey, surface: ScreenModel.Surface)? {
    screen.surfaces.first { $0.key.id == id }.map { ($0.key, $0.value) }
  }
}
