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
  private weak var host: (any DisplayHost)?
  private var display: any DisplayHost { host! }
  private var connection: WaylandConnection?
  /// The popups, by their card and output (`nil`: those given no output, the compositor's choice).
  private var popups: [SurfaceKey: Popup] = [:]
  /// The notification center, while it is open.
  private var center: CenterPanel?
  /// Whether the windows' states changed in what was read last: the display hears of it once the
  /// read is done.
  private var windowsChanged = false
  /// Whether what the compositor sent is being handled: requests made meanwhile are flushed once,
  /// after the read, not once per input.
  private var reading = false

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

  public func connect(to host: any DisplayHost) throws(PopupDisplayFailure) -> (
    description: String, traits: DisplayTraits
  ) {
    self.host = host
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
      display.input(.outputs(readOutputs()))
      // An output's scale may have changed: its popups are drawn again at the new one.
      for popup in popups.values.sorted(by: { DisplayMachine.order($0.key, $1.key) }) where rescale(popup) {
        display.input(.damaged(popup.key))
      }
      if let center { centerMoved(center) }
    }
    connection.toplevels?.changed = { [weak self] in self?.windowsChanged = true }
    self.connection = connection
    reportFullscreen()
    let description = "Wayland (\(connection.outputs.compactMap(\.name).joined(separator: ", ")))"
    return (description, DisplayTraits(windows: false, blends: true))
  }

  public var fileDescriptor: Int32 { connection?.fileDescriptor ?? -1 }

  public func readable() -> Bool {
    guard let connection else { return false }
    reading = true
    defer { reading = false }
    guard connection.dispatch() else { return false }
    if windowsChanged { reportFullscreen() }
    return connection.flush()
  }

  /// Tells the display whether the window with the keyboard is fullscreen, as the compositor said
  /// last.
  private func reportFullscreen() {
    windowsChanged = false
    display.input(.fullscreen(connection?.toplevels?.activatedIsFullscreen == true))
  }

  /// The outputs by name, in logical pixels, and the output of the window with the keyboard, as
  /// the compositor's `wlr-foreign-toplevel-management` says (none without it, or with no window
  /// focused: the compositor chooses).
  public func readOutputs() -> DisplayOutputs {
    guard let connection else { return DisplayOutputs([], focus: nil) }
    let outputs = connection.outputs.compactMap { output in
      output.name.map { DisplayOutput(name: $0, width: output.width, height: output.height) }
    }
    return DisplayOutputs(outputs, focus: connection.focusedOutput?.name)
  }

  /// The notice whose popup has the keyboard (its reply field was clicked), and that popup.
  private var keyboardOwner: SurfaceKey?

  private func setKeyboardFocus(on key: SurfaceKey?) {
    guard let connection, key != keyboardOwner else { return }
    if let old = keyboardOwner.flatMap({ popups[$0] }), old.started {
      old.takeKeyboard(false, onDemand: true)
    }
    keyboardOwner = key
    if let popup = key.flatMap({ popups[$0] }), popup.started {
      popup.takeKeyboard(true, onDemand: connection.layerShellVersion >= 4)
    }
  }

  public func perform(_ actions: [DisplayAction]) {
    guard let connection, let compositor = connection.compositor, let layerShell = connection.layerShell
    else { return }
    for action in actions {
      switch action {
      case .make(let key, let shown):
        let popup = Popup(
          owner: self, key: key, shown: shown, compositor: compositor, layerShell: layerShell,
          output: connection.output(named: key.output)?.proxy)
        popups[key] = popup
        rescale(popup)
        _ = popup.place(shown.placement)
      case .update(let key, let shown):
        guard let popup = popups[key] else { continue }
        popup.update(to: shown, painter: display.painter)
        _ = popup.place(shown.placement)
        _ = popup.move(to: shown.layer, shellVersion: connection.layerShellVersion)
      case .place(let key, let shown):
        guard let popup = popups[key] else { continue }
        popup.shown = shown
        let placed = popup.place(shown.placement)
        let moved = popup.move(to: shown.layer, shellVersion: connection.layerShellVersion) || placed
        if moved && popup.started && popup.configured { wl_surface_commit(popup.surface) }
      case .map(let key, let on):
        guard on, let popup = popups[key], !popup.started else { continue }
        popup.start()
      case .draw(let key, let opacity, let moving):
        guard let popup = popups[key] else { continue }
        draw(popup, opacity: opacity, moving: moving)
      case .destroy(let key):
        guard let popup = popups.removeValue(forKey: key) else { continue }
        popup.destroy()
      case .move:
        continue  // A layer surface is made for one output: the machine makes another.
      case .keyboard(let key):
        setKeyboardFocus(on: key)
      case .request:
        continue
      }
    }
    flush()
  }

  public func activationToken(for key: SurfaceKey, _ done: @escaping (String?) -> Void) {
    guard let connection, let popup = popups[key] else {
      done(nil)
      return
    }
    connection.requestActivationToken(for: popup.surface, done: done)
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
    return true
  }

  /// Draws `popup`'s next frame at `opacity`; `moving` asks the compositor for a frame callback.
  /// One the compositor has not configured yet, or whose last frame it has not shown, is drawn by
  /// the configure or the callback.
  private func draw(_ popup: Popup, opacity: Double, moving: Bool) {
    guard popup.configured, !popup.frames.pending, let connection, let shm = connection.shm else { return }
    let width = CardPainter.devicePixels(popup.shown.card.look.width, scale: popup.scale)
    let height = CardPainter.devicePixels(popup.shown.height, scale: popup.scale)
    guard let buffer = popup.frames.freeBuffer(shm: shm, width: width, height: height) else {
      // No buffer free: the next release or frame brings another try.
      display.input(.notDrawn(popup.key))
      return
    }
    popup.paint(into: buffer.image, opacity: opacity, painter: display.painter)
    popup.frames.attach(buffer, scale: Int(popup.scale))
    if moving { popup.frames.request() }
    wl_surface_commit(popup.surface)
    // A card that holds is drawn again only when it changes or starts to fade out: until then it
    // keeps the one buffer on screen.
    popup.frames.still = !moving
    popup.drawn(moving: moving)
  }

  private func flush() {
    guard !reading, let connection else { return }
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
    for popup in popups.values { popup.destroy() }
    popups.removeAll()
    windowsChanged = false
    connection?.disconnect()
    connection = nil
  }
}

extension WaylandBackend: PopupOwner {
  func popupConfigured(_ popup: Popup) {
    display.input(.frame(popup.key, ready: true))
  }

  func popupMoved(_ popup: Popup) {
    // A card the compositor placed (no window has the focus) on an output where another stack is:
    // that output may become the focused one (the machine's choice), and the two stacks one.
    if popup.output == nil, let connection,
      let entered = connection.outputs.first(where: { popup.frames.outputs.contains($0.proxy) })?.name
    {
      display.input(.landed(popup.key, on: entered))
    }
    guard rescale(popup) else { return }
    display.input(.damaged(popup.key))
    flush()
  }

  func popupClosed(_ popup: Popup) {
    // The compositor took it away (its output went): made again when the outputs change.
    popups[popup.key] = nil
    popup.destroy()
    display.input(.closed(popup.key))
  }

  func popupFrameDone(_ popup: Popup) {
    display.input(.frame(popup.key, ready: true))
  }
}

extension WaylandBackend: CenterPanelOwner {
  func centerConfigured(_ panel: CenterPanel) {
    display.input(.resized(width: panel.width, height: panel.height))
    draw(panel)
  }

  func centerClosed(_ panel: CenterPanel) {
    display.input(CenterInput.closed)
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
    display.input(.key(key))
  }

  func keyboardLeft() {
    display.input(.keyboardLeft)
  }

  private func popup(on surface: OpaquePointer) -> Popup? {
    popups.values.first { $0.surface == surface }
  }

  func pointerMoved(on surface: OpaquePointer, x: Double, y: Double) {
    if let center {
      display.input(
        surface == center.surface ? CenterInput.pointerMoved(x: x, y: y) : CenterInput.pointerLeft)
      return
    }
    guard let popup = popup(on: surface) else { return }
    display.input(.pointerMoved(popup.key, x: x, y: y))
  }

  func pointerLeft() {
    if center != nil { display.input(CenterInput.pointerLeft) }
    display.input(DisplayInput.pointerLeft)
  }

  func pointerScrolled(on surface: OpaquePointer, pixels: Double) {
    guard let center, surface == center.surface else { return }
    display.input(.scrolled(pixels))
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
        display.input(CenterInput.pressed(pressed, x: x, y: y))
      } else if surface == center.catcher {
        display.input(CenterInput.closed)
      }
      return
    }
    guard let popup = popup(on: surface) else { return }
    display.input(DisplayInput.pressed(pressed, popup.key, x: x, y: y))
  }
}
