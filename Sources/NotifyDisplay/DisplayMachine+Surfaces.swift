import NotifyConfig
import NotifyCore
import NotifyProtocol

// The surfaces: which cards show on which output, where, and when each is drawn.
extension DisplayMachine {
  /// Brings the surfaces in line with the visible cards, output by output: gone ones destroyed,
  /// new ones made, changed ones updated, all placed, and those that need a frame drawn at `now`.
  public mutating func settle(at now: Double) {
    needsSettle = false
    guard let traits else { return }
    let wanted = wantedIDs
    let names = outputs.map(\.name)
    closed = closed.filter { key in wanted.contains(key.id) }
    chooseFocus(names: names, windows: traits.windows)
    // With no output there is nowhere to draw: the notices keep their timing meanwhile.
    guard !outputs.isEmpty else {
      for key in surfaces.keys.sorted(by: Self.order) { destroy(key) }
      return
    }
    let groups = Self.byOutput(wanted, cards: cards, outputs: names, focused: focused)
    var keep: [String?: [Int]] = [:]
    for group in groups {
      keep[group.output] = group.ids.filter { !closed.contains(SurfaceKey(id: $0, output: group.output)) }
    }
    if traits.windows { moveWindows(to: keep) }
    for key in surfaces.keys.sorted(by: Self.order) where keep[key.output]?.contains(key.id) != true {
      destroy(key)
    }
    for group in groups {
      let ids = keep[group.output] ?? []
      let size = layoutSize(of: group.output)
      var shown: [(key: SurfaceKey, card: Card, height: Int)] = []
      for id in ids {
        guard let card = drawnCard(id) else { continue }
        let key = SurfaceKey(id: id, output: group.output)
        let height =
          surfaces[key].flatMap { $0.shown.card.sameContent(as: card) ? $0.shown.height : nil }
          ?? measure.height(of: card)
        shown.append((key, card, height))
      }
      let placements = PopupLayout.place(
        shown.map { ($0.card.look.width, $0.height, $0.card.urgency) }, settings: settings,
        outputWidth: size.width, outputHeight: size.height)
      for (item, placement) in zip(shown, placements) {
        settle(item.key, item.card, height: item.height, placement: placement, traits: traits, at: now)
      }
    }
  }

  /// Where the focused output's cards go: the output of the focus as a card appears (so that a
  /// stack stays put while cards hold), kept while that output exists.
  private mutating func chooseFocus(names: [String], windows: Bool) {
    if let name = focused, !names.contains(name) { (focused, focusLearned) = (nil, false) }
    if showsNewCard {
      if let name = focusNow, names.contains(name) {
        (focused, focusLearned) = (name, false)
      } else if !focusLearned {
        focused = nil
      }
    }
    if windows, focused == nil { focused = focusNow }
  }

  /// A window whose card left its output for another where it has none goes there.
  private mutating func moveWindows(to keep: [String?: [Int]]) {
    for key in surfaces.keys.sorted(by: Self.order) where keep[key.output]?.contains(key.id) != true {
      guard
        let target = keep.keys.sorted(by: { ($0 ?? "") < ($1 ?? "") }).first(where: { output in
          keep[output]!.contains(key.id) && surfaces[SurfaceKey(id: key.id, output: output)] == nil
        })
      else { continue }
      let moved = SurfaceKey(id: key.id, output: target)
      surfaces[moved] = surfaces.removeValue(forKey: key)
      actions.append(.move(key, to: moved))
    }
  }

  /// One surface as it should be: made, updated, placed, put on or off the screen, drawn; `nil`
  /// for a card that does not fit.
  private mutating func settle(
    _ key: SurfaceKey, _ card: Card, height: Int, placement: PopupLayout.Placement?, traits: DisplayTraits,
    at now: Double
  ) {
    guard let placement else {
      // A card that does not fit waits until there is room: a window hidden, a layer surface
      // destroyed (it would stay under the cards that took its place) and made again later.
      if traits.windows {
        if surfaces[key]?.mapped == true {
          surfaces[key]!.mapped = false
          actions.append(.map(key, false))
        }
      } else if surfaces[key] != nil {
        destroy(key)
      }
      return
    }
    let shown = ShownCard(card: card, height: height, layer: layer(of: card), placement: placement)
    if var state = surfaces[key] {
      if state.shown.card != shown.card || state.shown.height != shown.height {
        actions.append(.update(key, shown))
        state.dirty = true
      } else if state.shown.placement != shown.placement || state.shown.layer != shown.layer {
        actions.append(.place(key, shown))
      }
      state.shown = shown
      surfaces[key] = state
    } else {
      actions.append(.make(key, shown))
      surfaces[key] = SurfaceState(shown: shown, mapped: false, dirty: true, ready: traits.windows)
    }
    // Where alpha does not blend, a card shows only while it holds; one that cuts rather than fades
    // shows whole while it is visible.
    let shows = traits.blends || card.cuts || appearance(of: key.id, at: now)?.phase == .holding
    if shows != surfaces[key]!.mapped {
      surfaces[key]!.mapped = shows
      // What shows anew is drawn anew.
      if shows { surfaces[key]!.dirty = true }
      actions.append(.map(key, shows))
    }
    draw(key, at: now)
  }

  /// Draws `key`'s next frame if it is on the screen, must be drawn and can take a frame.
  mutating func draw(_ key: SurfaceKey, at now: Double) {
    guard let traits, var state = surfaces[key], state.mapped, state.dirty, state.ready,
      let appearance = appearance(of: key.id, at: now)
    else { return }
    let card = state.shown.card
    let fades = traits.blends && !card.cuts
    let moving = (fades && appearance.phase.isFading) || card.isAnimated
    actions.append(.draw(key, opacity: fades ? appearance.opacity : 1, moving: moving))
    state.dirty = false
    // A layer surface that moves waits for its frame callback; one that holds can draw at once.
    if !traits.windows { state.ready = !moving }
    surfaces[key] = state
  }

  /// A frame can be drawn: on `key` (configured, or its frame callback came), or on every surface
  /// that moves (`nil`: a tick of a backend without frame callbacks).
  mutating func frame(_ key: SurfaceKey?, ready: Bool, at now: Double) {
    guard let traits else { return }
    if let key {
      guard surfaces[key] != nil else { return }
      if ready { surfaces[key]!.ready = true }
      surfaces[key]!.dirty = true
      draw(key, at: now)
      return
    }
    for key in surfaces.keys.sorted(by: Self.order) {
      guard let state = surfaces[key], state.mapped else { continue }
      let card = state.shown.card
      let fading = traits.blends && !card.cuts && appearance(of: key.id, at: now)?.phase.isFading == true
      guard fading || card.isAnimated else { continue }
      surfaces[key]!.dirty = true
      draw(key, at: now)
    }
  }

  /// A surface given no output entered `output`: where another stack is, that output counts as the
  /// focused one (no window has the focus), and the two stacks become one.
  mutating func landed(_ key: SurfaceKey, on output: String) {
    guard key.output == nil, focused == nil, surfaces[key] != nil,
      surfaces.keys.contains(where: { $0.output == output })
    else { return }
    (focused, focusLearned) = (output, true)
    needsSettle = true
  }

  private mutating func destroy(_ key: SurfaceKey) {
    guard surfaces.removeValue(forKey: key) != nil else { return }
    actions.append(.destroy(key))
    if pointer?.key == key { pointer = nil }
  }

  /// The card of notice `id` as its surfaces show it: the button under the pointer lit, what is
  /// typed in its field.
  func drawnCard(_ id: Int) -> Card? {
    guard var card = cards[id] else { return nil }
    if let pointer, pointer.key.id == id, pointer.target.isButton { card.highlighted = pointer.target }
    if let editing, editing.id == id { card.typed = editing.text }
    return card
  }

  /// The size to lay cards out for on the output of `name`, or on the first output with a size
  /// when the display server chooses.
  func layoutSize(of name: String?) -> (width: Int, height: Int) {
    let chosen = name.flatMap { name in outputs.first { $0.name == name } } ?? outputs.first { $0.width > 0 }
    guard let chosen, chosen.width > 0, chosen.height > 0 else { return (1920, 1080) }
    return (chosen.width, chosen.height)
  }

  /// The visible cards each output shows (newest first), for `outputs` by name in their order, and
  /// `nil` for "where the focus is" when `focused` names none of them (the display server's
  /// choice). A card goes where its look's `Output=` says: the focused output; every output
  /// (`all`); the output of its name, else the focused one.
  public static func byOutput(
    _ ids: [Int], cards: [Int: Card], outputs: [String], focused: String?
  ) -> [(output: String?, ids: [Int])] {
    let focused = focused.flatMap { outputs.contains($0) ? $0 : nil }
    var groups: [String?: [Int]] = [:]
    for id in ids {
      guard let card = cards[id] else { continue }
      let targets: [String?]
      switch card.look.output {
      case .focused: targets = [focused]
      case .all: targets = outputs.isEmpty ? [focused] : outputs
      case .named(let name): targets = outputs.contains(name) ? [name] : [focused]
      }
      for target in targets { groups[target, default: []].append(id) }
    }
    return (outputs.map { Optional($0) } + [nil]).compactMap { key in groups[key].map { (key, $0) } }
  }

  /// Surfaces in a stable order (actions come out the same for the same inputs).
  public static func order(_ a: SurfaceKey, _ b: SurfaceKey) -> Bool {
    (a.output ?? "", a.id) < (b.output ?? "", b.id)
  }
}
