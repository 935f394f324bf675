import NotifyConfig
import NotifyCore
import NotifyProtocol

/// The popups' rules as a value (DESIGN §9), in `QueueMachine`'s shape: inputs in, actions out.
///
/// Inputs are what the engine publishes (its events, and the presentation of each shown notice:
/// its rules, fullscreen policy and timeline), what the backend reads from its display server
/// (outputs, the focus, the pointer, keys, frames, a window going fullscreen), and what the
/// daemon decides (standing aside, the center). Actions are what a backend does with surfaces
/// (`DisplayAction`: make, place, show, move, draw, destroy, the keyboard) and what the engine is
/// asked (`DisplayRequest`). No locks, threads, clocks or connections: time comes with the inputs,
/// and the machine never calls a backend or the engine, so a seeded simulation can drive it.
///
/// Inputs change the state at once (`handle`); the surfaces follow in one pass (`settle`), which a
/// driver runs once the inputs queued so far are handled, so that a notice that came and went
/// within a burst gets no surface at all.
public struct DisplayMachine {
  public let settings: DisplaySettings
  /// Heights and hit-testing of cards (`CardPainter`; arithmetic in tests).
  let measure: any CardMeasuring
  /// The host `Format=`'s `%h` gives notices not relayed from elsewhere.
  let host: String?

  // What the engine said: every unfinished notice it told of, and the presentations of those shown.
  var told: [Int: Notice] = [:]
  var presentations: [Int: Presentation] = [:]
  /// Each notice's card, its look resolved from its presentation.
  public internal(set) var cards: [Int: Card] = [:]
  /// Visible notices (fading in, holding, fading out), newest first.
  public internal(set) var visible: [Int] = []

  // What the backend said.
  public internal(set) var traits: DisplayTraits?
  public internal(set) var outputs: [DisplayOutput] = []
  /// Where the focus is now, as the backend said last.
  var focusNow: String?
  /// Where the focused output's cards go: as of the last card to appear.
  public internal(set) var focused: String?
  /// Whether `focused` was learned from where the compositor put a card given no output.
  var focusLearned = false
  /// Surfaces the display server closed (their output went): made again when the outputs change.
  var closed: Set<SurfaceKey> = []
  /// The surfaces the backend holds, as this machine had them made.
  public internal(set) var surfaces: [SurfaceKey: SurfaceState] = [:]

  // What the person does.
  /// The card the pointer is over, the part of it, and the surface.
  public internal(set) var pointer: (key: SurfaceKey, target: CardTarget)?
  /// The card whose reply field has the keyboard, and what is typed into it.
  public internal(set) var editing: (id: Int, text: String)?
  /// Whether the window with the keyboard is fullscreen.
  public internal(set) var fullscreen = false
  /// Popups stand aside (notices go to another server).
  public internal(set) var suppressed = false
  /// The notification center is open: the popups stand aside.
  public internal(set) var centerOpen = false

  /// Whether the surfaces must be brought in line (`settle`).
  public internal(set) var needsSettle = false
  var actions: [DisplayAction] = []

  public init(settings: DisplaySettings, measure: any CardMeasuring, host: String? = nil) {
    self.settings = settings
    self.measure = measure
    self.host = host
  }

  /// The notices whose cards are on the screen (a surface of theirs mapped), newest shown first.
  public var onScreen: [Notice] {
    let mapped = Set(surfaces.lazy.filter { $0.value.mapped }.map { $0.key.id })
    return visible.compactMap { mapped.contains($0) ? told[$0] : nil }
  }

  /// The surfaces of notice `id`'s card, in the machine's order.
  public func surfaceKeys(of id: Int) -> [SurfaceKey] {
    surfaces.keys.filter { $0.id == id }.sorted(by: Self.order)
  }

  /// The actions listed since the last call, in order.
  public mutating func takeActions() -> [DisplayAction] {
    defer { actions.removeAll(keepingCapacity: true) }
    return actions
  }

  /// Whether the visible cards are drawn: connected, not standing aside, the center closed.
  public var drawsCards: Bool { traits != nil && !suppressed && !centerOpen }

  /// Whether the card of notice `id` is kept off the screen: its look says `Fullscreen=pushback`
  /// and the window with the keyboard is fullscreen.
  public func isPushedBack(_ id: Int) -> Bool {
    fullscreen && cards[id]?.look.fullscreen == .pushback
  }

  /// The layer `card` goes on: its look's, but overlay while a fullscreen window has the keyboard
  /// and the card shows there (`Fullscreen=show`).
  public func layer(of card: Card) -> CardLayer {
    fullscreen && card.look.fullscreen == .show ? .overlay : card.look.layer
  }

  /// The visible cards to be drawn, newest first: presented, not pushed back, while cards are drawn.
  var wantedIDs: [Int] {
    drawsCards ? visible.filter { presentations[$0] != nil && !isPushedBack($0) } : []
  }

  /// Whether a card to be drawn has no surface yet: one appearing, when the focused output's stack
  /// goes where the focus is now.
  public var showsNewCard: Bool {
    let drawn = Set(surfaces.keys.map(\.id))
    return wantedIDs.contains { !drawn.contains($0) }
  }

  /// Phase and opacity of notice `id` at `now`, as its timeline gives them.
  public func appearance(of id: Int, at now: Double) -> (phase: Phase, opacity: Double)? {
    presentations[id]?.appearance(at: now)
  }

  // MARK: - Inputs

  /// Takes `input` in at `now` (the scheduler's clock).
  public mutating func handle(_ input: DisplayInput, at now: Double) {
    switch input {
    case .event(let event): apply(event)
    case .presentations(let changed): present(changed)
    case .connected(let traits, let outputs):
      self.traits = traits
      closed.removeAll()
      startAfresh(on: outputs)
    case .remade(let outputs):
      pointer = nil
      startAfresh(on: outputs)
    case .traits(let traits):
      guard self.traits != nil else { return }
      self.traits = traits
      for key in surfaces.keys { surfaces[key]!.dirty = true }
      needsSettle = true
    case .disconnected:
      traits = nil
      surfaces.removeAll()
      closed.removeAll()
      if pointer != nil { pointerLeft() }
      if editing != nil { stopEditing(tellBackend: false) }
    case .outputs(let outputs):
      focusNow = outputs.focus
      guard outputs.outputs != self.outputs else { return }
      self.outputs = outputs.outputs
      closed.removeAll()
      if traits?.windows == true { focused = nil }
      needsSettle = true
    case .landed(let key, let output):
      landed(key, on: output)
    case .closed(let key):
      // The backend let it go with the display server: nothing to destroy.
      guard surfaces.removeValue(forKey: key) != nil else { return }
      closed.insert(key)
      if pointer?.key == key { pointer = nil }
    case .frame(let key, let ready):
      frame(key, ready: ready, at: now)
    case .damaged(let key):
      guard surfaces[key] != nil else { return }
      surfaces[key]!.dirty = true
      draw(key, at: now)
    case .notDrawn(let key):
      guard surfaces[key] != nil else { return }
      surfaces[key]!.dirty = true
      surfaces[key]!.ready = true
    case .pointerMoved(let key, let x, let y): pointerMoved(key, x: x, y: y)
    case .pointerLeft: pointerLeft()
    case .pressed(let button, let key, let x, let y): press(button, on: key, x: x, y: y)
    case .key(let key): keyPressed(key)
    case .keyboardLeft:
      if editing != nil { stopEditing(tellBackend: true) }
    case .fullscreen(let on):
      // Told to the engine even when unchanged: a display made anew starts from "not fullscreen"
      // while the engine may still hold notices back.
      actions.append(.request(.fullscreen(on)))
      guard on != fullscreen else { return }
      fullscreen = on
      needsSettle = true
    case .suppressed(let on):
      guard on != suppressed else { return }
      suppressed = on
      needsSettle = true
    case .center(let open):
      guard open != centerOpen else { return }
      centerOpen = open
      if open {
        if editing != nil { stopEditing(tellBackend: true) }
        if pointer != nil { pointerLeft() }
      }
      needsSettle = true
    }
  }

  /// Every surface is gone (a new connection, or all made anew): the cards on `outputs` are made
  /// again, the focused output chosen again.
  private mutating func startAfresh(on outputs: DisplayOutputs) {
    surfaces.removeAll()
    self.outputs = outputs.outputs
    focusNow = outputs.focus
    (focused, focusLearned) = (nil, false)
    needsSettle = true
  }

  private mutating func apply(_ event: Event) {
    switch event.kind {
    case .snapshot:
      told.removeAll()
      cards.removeAll()
      visible.removeAll()
      let sorted = (event.notices ?? []).sorted { ($0.shown ?? 0, $0.id) > ($1.shown ?? 0, $1.id) }
      for notice in sorted {
        told[notice.id] = notice
        cards[notice.id] = card(of: notice)
        if notice.phase.isVisible { visible.append(notice.id) }
      }
      presentations = presentations.filter { told[$0.key] != nil }
    case .added, .updated:
      guard let notice = event.notice else { return }
      told[notice.id] = notice
      cards[notice.id] = card(of: notice)
      setPhase(notice.phase, of: notice.id)
    case .phase:
      guard let id = event.id, let phase = event.phase, told[id] != nil else { return }
      setPhase(phase, of: id)
      // Off the screen unfinished (snoozed): its field gives the keyboard back, the pointer leaves it.
      if !phase.isVisible {
        if editing?.id == id { stopEditing(tellBackend: true) }
        if pointer?.key.id == id { pointer = nil }
      }
    case .finished:
      guard let id = event.id ?? event.notice?.id else { return }
      told[id] = nil
      presentations[id] = nil
      cards[id] = nil
      visible.removeAll { $0 == id }
      if editing?.id == id { stopEditing(tellBackend: true) }
      if pointer?.key.id == id { pointer = nil }
    case .snoozed:
      // Its phase events follow (fading out, then waiting): the card goes with them.
      guard let notice = event.notice, told[notice.id] != nil else { return }
      told[notice.id] = notice
    case .frame, .invoked, .replied, .suspended, .resumed, .read, .forgotten:
      return
    }
    needsSettle = true
  }

  private mutating func present(_ changed: [Int: Presentation]) {
    for (id, presentation) in changed {
      guard let notice = told[id] else { continue }
      let old = presentations.updateValue(presentation, forKey: id)
      if old?.rules != presentation.rules || old?.fullscreen != presentation.fullscreen {
        cards[id] = card(of: notice)
      }
      // A new timeline (a pause, a replacement, a dismissal): its surfaces are drawn again.
      for key in surfaces.keys where key.id == id { surfaces[key]!.dirty = true }
    }
    needsSettle = true
  }

  private mutating func setPhase(_ phase: Phase, of id: Int) {
    if phase.isVisible {
      if !visible.contains(id) { visible.insert(id, at: 0) }
    } else {
      visible.removeAll { $0 == id }
    }
    for key in surfaces.keys where key.id == id { surfaces[key]!.dirty = true }
  }

  /// The card of `notice`: its urgency's look, then that of each rule it matches as the engine
  /// matched it, in the file's order; what it does under a fullscreen window as the engine holds it
  /// to, so that the two never disagree.
  func card(of notice: Notice) -> Card {
    let presentation = presentations[notice.id]
    var look =
      settings.ruleLooks.isEmpty
      ? settings.look(for: notice.urgency)
      : settings.look(for: notice.urgency, rules: (presentation?.rules ?? []).map(\.name))
    if let policy = presentation?.fullscreen { look.fullscreen = policy }
    return Card(notice, look: look, host: host)
  }

  /// What `button` does on the card of notice `id`: the last matching rule's `LeftClick=`,
  /// `MiddleClick=` or `RightClick=`, else `[Display]`'s.
  public func binding(of button: PopupButton, for id: Int) -> ClickAction {
    let path: KeyPath<Rule, ClickAction?>
    let fallback: ClickAction
    switch button {
    case .left: (path, fallback) = (\.leftClick, settings.leftClick)
    case .middle: (path, fallback) = (\.middleClick, settings.middleClick)
    case .right: (path, fallback) = (\.rightClick, settings.rightClick)
    }
    return (presentations[id]?.rules ?? []).compactMap { $0[keyPath: path] }.last ?? fallback
  }

  /// What is spoken of notice `id` as its card shows: the last matching rule's `Speak=`, else
  /// `[Speech]`'s.
  public func speech(of id: Int) -> SpeechChoice {
    (presentations[id]?.rules ?? []).compactMap(\.speak).last ?? settings.speech.speak
  }
}

/// A surface the display shows: the card of notice `id` on the output of that name (`nil`: where
/// the display server puts it).
public struct SurfaceKey: Hashable, Sendable, CustomStringConvertible {
  public var id: Int
  public var output: String?
  public init(id: Int, output: String?) {
    self.id = id
    self.output = output
  }
  public var description: String { "\(id)@\(output ?? "-")" }
}

/// An output as the layout sees it: its name and size in logical pixels (0 while not yet known).
public struct DisplayOutput: Sendable, Equatable {
  public var name: String
  public var width: Int
  public var height: Int
  public init(name: String, width: Int, height: Int) {
    self.name = name
    self.width = width
    self.height = height
  }
}

/// The outputs in their order, and the one with the focus now (`nil` when the backend cannot tell).
public struct DisplayOutputs: Sendable, Equatable {
  public var outputs: [DisplayOutput]
  public var focus: String?
  public init(_ outputs: [DisplayOutput], focus: String?) {
    self.outputs = outputs
    self.focus = focus
  }
}

/// What a backend's surfaces can do, which the machine's choices follow.
public struct DisplayTraits: Sendable, Equatable {
  /// Windows (X11): a card's surface moves to another output rather than being made again, waits
  /// hidden while it does not fit, and is ready to draw as soon as it is made; the focused output
  /// is chosen again when the outputs change. Else (Wayland layer surfaces) a surface is made for
  /// one output, is destroyed when it does not fit, draws once the compositor configured it, and
  /// waits for a frame callback after a frame that moves.
  public var windows: Bool
  /// Whether alpha blends (where it does not, a card shows only while it holds, at full opacity).
  public var blends: Bool
  public init(windows: Bool, blends: Bool) {
    self.windows = windows
    self.blends = blends
  }
}

/// What the display is told (`DisplayMachine.handle`).
public enum DisplayInput: Sendable {
  /// An event of the engine.
  case event(Event)
  /// The presentations of shown notices, as the engine resolved them.
  case presentations([Int: Presentation])
  /// The backend connected: its traits and outputs.
  case connected(DisplayTraits, DisplayOutputs)
  case disconnected
  /// The backend let every surface go (it draws at another scale now): all are made again.
  case remade(DisplayOutputs)
  /// What the surfaces can do changed (a compositing manager came or went).
  case traits(DisplayTraits)
  /// Outputs came, went or changed size.
  case outputs(DisplayOutputs)
  /// A surface given no output entered the output of this name.
  case landed(SurfaceKey, on: String)
  /// The display server closed a surface (its output went).
  case closed(SurfaceKey)
  /// A surface can take a frame (`ready`: configured, or its frame callback came); `nil`: a tick
  /// for every surface of a backend without frame callbacks.
  case frame(SurfaceKey?, ready: Bool)
  /// A surface must be drawn again (exposed, or its scale changed).
  case damaged(SurfaceKey)
  /// A draw found no buffer free: the surface is drawn at its next chance.
  case notDrawn(SurfaceKey)
  case pointerMoved(SurfaceKey, x: Double, y: Double)
  case pointerLeft
  case pressed(PopupButton, SurfaceKey, x: Double, y: Double)
  case key(KeyInput)
  /// The reply field lost the keyboard.
  case keyboardLeft
  /// Whether the window with the keyboard is fullscreen.
  case fullscreen(Bool)
  /// Whether popups stand aside (notices go to another server).
  case suppressed(Bool)
  /// Whether the notification center is open.
  case center(Bool)
}

/// A card as a surface shows it: highlighted and typed into as the person left it, its height,
/// layer and place on its output.
public struct ShownCard: Equatable, Sendable {
  public var card: Card
  public var height: Int
  public var layer: CardLayer
  public var placement: PopupLayout.Placement
}

/// What the machine keeps of each surface it had made.
public struct SurfaceState: Equatable, Sendable {
  public var shown: ShownCard
  /// Whether it is on the screen (a window waiting for room, or a card that cannot blend before it
  /// holds, is not).
  public var mapped: Bool
  /// Whether its next frame is to be drawn.
  public var dirty: Bool
  /// Whether it can take a frame now.
  public var ready: Bool
}

/// What a backend does (`DisplayMachine.takeActions`).
public enum DisplayAction: Equatable, Sendable {
  /// Make a surface showing `ShownCard` where it says (not yet on the screen: `map` shows it).
  case make(SurfaceKey, ShownCard)
  /// Its card or height changed: rendered again (or only the part a person touched).
  case update(SurfaceKey, ShownCard)
  /// Its place or layer changed.
  case place(SurfaceKey, ShownCard)
  /// Put it on the screen, or take it off and keep it.
  case map(SurfaceKey, Bool)
  /// Its window goes to another output (windows only).
  case move(SurfaceKey, to: SurfaceKey)
  /// Draw its next frame at this opacity; `moving`: it fades or spins, so another frame follows.
  case draw(SurfaceKey, opacity: Double, moving: Bool)
  case destroy(SurfaceKey)
  /// Give the keyboard to this surface (its reply field), or give it back.
  case keyboard(SurfaceKey?)
  /// Ask the engine (through `NoticeService`), or the picker.
  case request(DisplayRequest)
}

/// What the display asks of the engine, for a person's input.
public enum DisplayRequest: Equatable, Sendable {
  /// Choose an action; `from` is the surface clicked, whose activation token it carries.
  case invoke(id: Int, action: String, from: SurfaceKey)
  case dismiss(Int)
  case dismissAll
  case reply(id: Int, text: String)
  /// The pointer is over the card of notice `id` (its hold stands still), or none.
  case pointer(over: Int?)
  /// The reply field of notice `id` has the keyboard, or none.
  case typing(in: Int?)
  /// The picker with the notice's actions.
  case menu(Int)
  /// Snooze notice `id` (its "Remind me" button, a `snooze` click).
  case snooze(Int, until: SnoozeTime)
  case fullscreen(Bool)
}

/// Heights and hit-testing of cards: `CardPainter` measures with pango; tests with arithmetic.
public protocol CardMeasuring {
  /// The height of `card` in logical pixels at its look's width.
  func height(of card: Card) -> Int
  /// Where the parts of `card`, `height` pixels high, are.
  func geometry(of card: Card, height: Int) -> CardGeometry
}

extension CardPainter: CardMeasuring {}
