import CPangoCairo
import CWayland
import Dispatch
import Glibc
import NotifyCore
import NotifyDisplay

/// The popups on a Wayland compositor with layer-shell (DESIGN §9): one layer surface per visible
/// notice and output it shows on, drawn at the engine's opacity.
///
/// Cards stack per output: those on the focused output (`Output=focused`, the default) go to the
/// output of the window with the keyboard as the compositor's `wlr-foreign-toplevel-management`
/// tells it, read each time a card appears (the stack moves with the new card, as on X11), else
/// where the compositor puts a surface given no output; `Output=all` puts a card on every output,
/// a name on that one while it exists. Outputs plugged and unplugged move the cards.
///
/// The same protocol tells whether the window with the keyboard is fullscreen
/// (`PopupDisplay.fullscreenChanged`), once the compositor's news of a change has all been read: a
/// focus moving between two fullscreen windows is not a moment without one.
///
/// While a card fades or its activity indicator spins, its surface asks the compositor for
/// `wl_surface.frame` callbacks and every callback draws the next frame at the opacity the engine
/// gives for that instant; once every card holds, no callback is asked for and nothing wakes up.
///
/// - Important: used only on the display's queue (`PopupDisplay.queue`).
public final class WaylandBackend: PopupBackend {
  /// The display this backend draws for; it owns the backend, so it outlives every call.
  private weak var host: PopupDisplay?
  private var display: PopupDisplay { host! }
  private var connection: WaylandConnection?
  /// The popups on each output, by its name; `nil`: those given no output (the compositor's choice).
  private var stacks: [String?: [Int: Popup]] = [:]
  /// Where the focused output's cards go: the focused window's output as of the last card to
  /// appear, so that a stack stays put while cards hold.
  private var focused: String?
  /// Whether `focused` was learned from where the compositor put a card given no output (no
  /// window had the focus), because another stack was on that output: it stands until a window
  /// has the focus, so that the two stacks stay one.
  private var focusLearned = false
  /// Popups whose surface the compositor closed (its output went): made again only when the
  /// outputs change, so that a compositor closing every new surface cannot make us spin.
  private var closedByCompositor: Set<PopupKey> = []
  /// The notification center, while it is open.
  private var center: CenterPanel?
  /// Whether the windows' states changed in what was read last: the display hears of it once the
  /// read is done.
  private var windowsChanged = false

  /// A popup's place in `stacks`: its notice and the output it is on.
  private struct PopupKey: Hashable {
    var id: Int
    var output: String?
  }

  /// Every popup, on every output.
  private var popups: [Popup] { stacks.values.flatMap(\.values) }

  /// The compositor's socket: a name in `XDG_RUNTIME_DIR` or a path (the session's
  /// `WAYLAND_DISPLAY`); nil for the process's own `WAYLAND_DISPLAY`.
  private let socketName: String?

  public init(display: String? = nil) {
    socketName = display
  }

  /// Whether a compositor with layer-shell answers at `display` (or `WAYLAND_DISPLAY`) now
  /// (`[Display] Mode=auto` chooses Wayland then).
  public static func isReachable(display: String? = nil) -> Bool {
    guard let connection = WaylandConnection(name: display) else { return false }
    defer { connection.disconnect() }
    return connection.start() && connection.layerShell != nil
  }

  public var pacedByEngineFrames: Bool { false }

  public var name: String { "wayland" }

  public func watchIdle(after seconds: Double) -> IdleWatch {
    guard let connection else { return .unavailable("not connected") }
    connection.idleChanged = { [weak self] idle in self?.host?.idleChanged(idle) }
    let milliseconds = UInt32(min(seconds * 1000, Double(UInt32.max)))
    guard let source = connection.watchIdle(milliseconds: milliseconds) else {
      return .unavailable("the compositor offers neither ext-idle-notify-v1 nor org_kde_kwin_idle")
    }
    flush()
    return .told(source: source)
  }

  public func secondsSinceInput() -> Double? { nil }

  public func connect(for display: PopupDisplay) throws(PopupDisplayFailure) -> String {
    host = display
    guard let connection = WaylandConnection(name: socketName) else {
      let name = socketName ?? getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? ""
      throw PopupDisplayFailure("no Wayland compositor at WAYLAND_DISPLAY=\(name)")
    }
    guard connection.start() else {
      connection.disconnect()
      throw PopupDisplayFailure("the compositor closed the connection while it was described")
    }
    guard connection.layerShell != nil, connection.compositor != nil, connection.shm != nil else {
      connection.disconnect()
      throw PopupDisplayFailure("the compositor offers no wlr-layer-shell; popups need it")
    }
    connection.seatDelegate = self
    connection.outputsChanged = { [weak self] in
      guard let self else { return }
      closedByCompositor.removeAll()
      // From inside the registry's handler: reconcile once it has returned.
      host?.reconcileSoon()
      if let center { centerMoved(center) }
    }
    connection.toplevels?.changed = { [weak self] in self?.windowsChanged = true }
    self.connection = connection
    reportFullscreen()
    return "Wayland (\(connection.outputs.compactMap(\.name).joined(separator: ", ")))"
  }

  public var fileDescriptor: Int32 { connection?.fileDescriptor ?? -1 }

  public func readable() -> Bool {
    guard let connection else { return false }
    guard connection.dispatch() else { return false }
    if windowsChanged { reportFullscreen() }
    return connection.flush()
  }

  /// Tells the display whether the window with the keyboard is fullscreen, as the compositor said
  /// last.
  private func reportFullscreen() {
    windowsChanged = false
    display.fullscreenChanged(connection?.toplevels?.activatedIsFullscreen == true)
  }

  public func phaseChanged(of id: Int) {
    for stack in stacks.values { stack[id]?.dirty = true }
  }

  public func frame() {}

  /// The notice whose popup has the keyboard (its reply field was clicked), and that popup: of a
  /// card on several outputs, the copy clicked.
  private var keyboardOwner: Int?
  private weak var keyboardPopup: Popup?
  /// The popup pressed last.
  private weak var pressedPopup: Popup?

  public func setKeyboardFocus(on id: Int?) {
    guard let connection, id != keyboardOwner else { return }
    if let popup = keyboardPopup, popup.started { popup.takeKeyboard(false, onDemand: true) }
    keyboardOwner = id
    keyboardPopup = id.flatMap { id in pressedPopup?.id == id ? pressedPopup : popup(of: id) }
    if let popup = keyboardPopup, popup.started {
      popup.takeKeyboard(true, onDemand: connection.layerShellVersion >= 4)
    }
    flush()
  }

  /// The popup of notice `id` (the first, when it shows on several outputs).
  private func popup(of id: Int) -> Popup? {
    stacks.values.lazy.compactMap { $0[id] }.first
  }

  /// Makes the surfaces match the visible cards, output by output: new ones created, gone ones
  /// destroyed, changed ones re-rendered, all placed, and those that need a frame drawn.
  public func reconcile() {
    guard let connection, let compositor = connection.compositor, let layerShell = connection.layerShell
    else { return }
    let names = connection.outputs.compactMap(\.name)
    let visible = Set(display.stack.visible)
    closedByCompositor = closedByCompositor.filter { visible.contains($0.id) }
    // A card appearing takes the focused output's stack to where the focus is now (so does the
    // output it was on going away).
    if let name = focused, !names.contains(name) {
      (focused, focusLearned) = (nil, false)
    }
    if display.showsNewCard(drawn: Set(stacks.values.flatMap(\.keys))) {
      if let name = connection.focusedOutput?.name {
        (focused, focusLearned) = (name, false)
      } else if !focusLearned {
        focused = nil
      }
    }
    // With no output there is nowhere to draw: the notices keep their timing meanwhile.
    guard !connection.outputs.isEmpty else {
      for popup in popups { popup.destroy() }
      stacks.removeAll()
      flush()
      return
    }
    let matched = display.matchByOutput(
      &stacks, outputs: names, focused: focused,
      allowed: { !closedByCompositor.contains(PopupKey(id: $1, output: $0)) },
      make: { name, id, card, height in
        Popup(
          owner: self, id: id, card: card, layer: display.layer(of: card), height: height,
          compositor: compositor, layerShell: layerShell, output: connection.output(named: name)?.proxy,
          outputName: name)
      }, destroy: { $0.destroy() })
    for (name, shown) in matched {
      let size = connection.layoutSize(for: connection.output(named: name))
      let placements = PopupLayout.place(
        shown.map { ($0.card.look.width, $0.height, $0.card.urgency) },
        settings: display.settings, outputWidth: size.width, outputHeight: size.height)
      for (popup, placement) in zip(shown, placements) {
        // A card that does not fit waits, drawn nowhere, until there is room. One that was on
        // screen leaves it (it would stay where it was, under the cards that took its place): its
        // surface is made again once it fits.
        guard let placement else {
          if popup.started {
            popup.destroy()
            stacks[name]?[popup.id] = nil
          }
          continue
        }
        rescale(popup)
        let placed = popup.place(placement)
        let moved =
          popup.move(to: display.layer(of: popup.card), shellVersion: connection.layerShellVersion) || placed
        if !popup.started {
          popup.start()
        } else if moved && popup.configured && !popup.dirty {
          wl_surface_commit(popup.surface)
        }
        if popup.dirty { draw(popup) }
      }
    }
    flush()
  }

  /// The scale to draw a surface at: that of the outputs it is on, else that of the output of
  /// `name` it was made for (`WaylandConnection.scale`).
  private func scale(of frames: SurfaceFrames, madeFor name: String?) -> Int {
    guard let connection else { return 1 }
    return connection.scale(entered: frames.outputs, made: connection.output(named: name))
  }

  /// Gives `popup` the scale of the outputs it is on; a new scale renders it again (returns true).
  @discardableResult
  private func rescale(_ popup: Popup) -> Bool {
    let scale = Double(scale(of: popup.frames, madeFor: popup.output))
    guard scale != popup.scale else { return false }
    popup.scale = scale
    popup.discardImages()
    popup.dirty = true
    return true
  }

  /// Draws `popup`'s next frame at the engine's opacity for now, unless the compositor has not
  /// shown the last one yet (then the frame callback draws it).
  private func draw(_ popup: Popup) {
    guard popup.configured, !popup.frames.pending, let connection, let shm = connection.shm else {
      return
    }
    guard let appearance = display.notices.appearances(of: [popup.id])[popup.id] else { return }
    let width = CardPainter.devicePixels(popup.card.look.width, scale: popup.scale)
    let height = CardPainter.devicePixels(popup.height, scale: popup.scale)
    guard let buffer = popup.frames.freeBuffer(shm: shm, width: width, height: height) else {
      // No buffer free: the next release or frame brings another try.
      return
    }
    display.paint(popup, into: buffer.image, opacity: appearance.opacity)
    popup.frames.attach(buffer, scale: Int(popup.scale))
    let moving = appearance.phase.isFading || popup.card.isAnimated
    if moving { popup.frames.request() }
    popup.dirty = false
    wl_surface_commit(popup.surface)
    // A card that holds is drawn again only when it changes or starts to fade out: until then it
    // keeps the one buffer on screen.
    popup.frames.still = !moving
    popup.drawn(moving: moving)
  }

  private func flush() {
    guard let connection else { return }
    if !connection.flush() { display.connectionBroken() }
  }

  // MARK: - The center

  public func openCenter() -> String? {
    guard let connection, let compositor = connection.compositor, let layerShell = connection.layerShell,
      let shm = connection.shm
    else { return "not connected" }
    guard !connection.outputs.isEmpty else { return "the compositor has no output" }
    if center == nil {
      // On the output [Display] Output= names, else where the focus is.
      let named = display.settings.namedOutput.flatMap { connection.output(named: $0) }
      center = CenterPanel(
        owner: self, settings: display.settings.center, compositor: compositor, layerShell: layerShell,
        shm: shm, viewporter: connection.viewporter, output: named ?? connection.focusedOutput,
        exclusiveKeyboard: true)
    }
    flush()
    return nil
  }

  public func closeCenter() {
    restTimer?.cancel()
    restTimer = nil
    center?.destroy()
    center = nil
    flush()
  }

  public func redrawCenter() {
    guard let center else { return }
    center.dirty = true
    draw(center)
    flush()
  }

  /// Draws the center's next frame, unless the compositor has not shown the last one yet (then the
  /// frame callback draws it).
  private func draw(_ center: CenterPanel) {
    guard center.dirty else {
      // The compositor showed the last frame and nothing changed since: it rests, unless something
      // changes within `restAfter` (a scroll's next step).
      if !center.frames.pending { restCenter(center) }
      return
    }
    guard center.width > 0, !center.frames.pending, let shm = connection?.shm else { return }
    center.scale = scale(of: center.frames, madeFor: center.output)
    guard
      let buffer = center.frames.freeBuffer(
        shm: shm, width: center.width * center.scale, height: center.height * center.scale)
    else { return }
    center.frames.still = false
    display.paintCenter(
      into: buffer.image, width: center.width, height: center.height, scale: Double(center.scale))
    center.frames.attach(buffer, scale: center.scale)
    // The next change waits for the compositor to show this one: scrolling draws once a frame.
    center.frames.request()
    center.dirty = false
    wl_surface_commit(center.surface)
  }

  /// Seconds the center must go unchanged before its buffers are let go of.
  static let restAfter = 1.0
  private var restTimer: (any DispatchSourceTimer)?

  private func restCenter(_ center: CenterPanel) {
    restTimer?.cancel()
    let timer = DispatchSource.makeTimerSource(queue: display.queue)
    timer.schedule(deadline: .now() + Self.restAfter)
    timer.setEventHandler { [weak self, weak center] in
      self?.restTimer = nil
      if let center, !center.dirty, !center.frames.pending { center.frames.still = true }
    }
    timer.resume()
    restTimer = timer
  }

  public func disconnect() {
    restTimer?.cancel()
    restTimer = nil
    center?.destroy()
    center = nil
    keyboardOwner = nil
    for popup in popups { popup.destroy() }
    stacks.removeAll()
    closedByCompositor.removeAll()
    windowsChanged = false
    connection?.disconnect()
    connection = nil
  }
}

extension WaylandBackend: PopupOwner {
  func popupConfigured(_ popup: Popup) {
    popup.dirty = true
    draw(popup)
  }

  func popupMoved(_ popup: Popup) {
    // A card the compositor placed (no window has the focus) on an output where another stack is:
    // that output counts as the focused one, and the two stacks become one.
    if popup.output == nil, focused == nil, let connection,
      let entered = connection.outputs.first(where: { popup.frames.outputs.contains($0.proxy) })?.name,
      stacks[entered]?.isEmpty == false
    {
      (focused, focusLearned) = (entered, true)
      display.reconcileSoon()
      return
    }
    guard rescale(popup) else { return }
    draw(popup)
    flush()
  }

  func popupClosed(_ popup: Popup) {
    // The compositor took it away (its output went): made again when the outputs change.
    popup.destroy()
    stacks[popup.output]?[popup.id] = nil
    closedByCompositor.insert(PopupKey(id: popup.id, output: popup.output))
  }

  func popupFrameDone(_ popup: Popup) {
    popup.dirty = true
    draw(popup)
  }
}

extension WaylandBackend: CenterPanelOwner {
  func centerConfigured(_ panel: CenterPanel) {
    display.centerResized(width: panel.width, height: panel.height)
    draw(panel)
  }

  func centerClosed(_ panel: CenterPanel) {
    display.closeCenter()
  }

  func centerFrameDone(_ panel: CenterPanel) {
    draw(panel)
  }

  func centerMoved(_ panel: CenterPanel) {
    guard scale(of: panel.frames, madeFor: panel.output) != panel.scale else { return }
    panel.dirty = true
    draw(panel)
    flush()
  }
}

extension WaylandBackend: SeatDelegate {
  func keyPressed(_ key: KeyInput) {
    display.keyPressed(key)
  }

  func keyboardLeft() {
    display.keyboardLeft()
  }

  private func popup(on surface: OpaquePointer) -> Popup? {
    popups.first { $0.surface == surface }
  }

  func pointerMoved(on surface: OpaquePointer, x: Double, y: Double) {
    if let center {
      if surface == center.surface {
        display.centerPointerMoved(x: x, y: y)
      } else {
        display.centerPointerLeft()
      }
      return
    }
    guard let popup = popup(on: surface) else { return }
    display.pointerMoved(over: popup, x: x, y: y)
  }

  func pointerLeft() {
    if center != nil { display.centerPointerLeft() }
    display.pointerLeft()
  }

  func pointerScrolled(on surface: OpaquePointer, pixels: Double) {
    guard let center, surface == center.surface else { return }
    display.centerScrolled(by: pixels)
  }

  func pointerPressed(_ button: UInt32, on surface: OpaquePointer, x: Double, y: Double) {
    // BTN_LEFT, BTN_RIGHT and BTN_MIDDLE of linux/input-event-codes.h.
    let pressed: PopupButton
    switch button {
    case 0x110: pressed = .left
    case 0x111: pressed = .right
    case 0x112: pressed = .middle
    default: return
    }
    if let center {
      if surface == center.surface {
        display.centerPressed(pressed, x: x, y: y)
      } else if surface == center.catcher {
        display.closeCenter()
      }
      return
    }
    guard let popup = popup(on: surface) else { return }
    pressedPopup = popup
    let press = display.press(pressed, on: popup, x: x, y: y)
    guard case .invoke = press else {
      display.carryOut(press, on: popup.id)
      return
    }
    // The action's program may want the focus: it gets the click's activation token.
    let id = popup.id
    connection?.requestActivationToken(for: popup.surface) { [weak self] token in
      self?.display.carryOut(press, on: id, activationToken: token)
    }
  }
}
