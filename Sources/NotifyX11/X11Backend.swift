import CPangoCairo
import CXcb
import Dispatch
import Glibc
import NotifyConfig
import NotifyCore
import NotifyDisplay
import NotifyProtocol

/// The popups on an X server (DESIGN §9): one override-redirect window per visible notice and
/// monitor it shows on, typed `_NET_WM_WINDOW_TYPE_NOTIFICATION`. Cards stack per RandR monitor:
/// on the one a card's `Output=` names, on every one (`all`), or on the focused one — the primary
/// monitor, or with `FollowFocus=` the one under the pointer or the active window's, chosen again
/// each time a card appears (the stack moves with it) or the monitors change.
///
/// Where a compositing manager runs, the windows have a 32-bit ARGB visual and every frame is drawn
/// at the engine's opacity on the engine's frames (X has no frame callbacks): a card that holds is
/// drawn once and costs nothing after. Where none runs, alpha would not be blended, so a card is
/// shown at full opacity from the end of its fade-in to the start of its fade-out, as dunst does.
///
/// - Important: used only on the display's queue (`PopupDisplay.queue`).
public final class X11Backend: PopupBackend {
  /// The display this backend draws for; it owns the backend, so it outlives every call.
  private weak var host: PopupDisplay?
  private var display: PopupDisplay { host! }
  private var connection: X11Connection?
  /// The popups on each monitor, by its name.
  private var stacks: [String?: [Int: X11Popup]] = [:]
  /// The focused monitor's name, where `Output=focused` cards stack; chosen again when a card
  /// appears or the monitors change.
  private var focused: String?

  /// Every popup, on every monitor.
  private var popups: [X11Popup] { stacks.values.flatMap(\.values) }
  /// Draws the cards whose activity indicator spins, while one is shown and nothing fades.
  private var spinTimer: (any DispatchSourceTimer)?
  /// The notification center, while it is open.
  private var center: X11Center?
  /// Whether the active window, or its states, changed in what was read last: whether it is
  /// fullscreen is read once the read is done.
  private var windowsChanged = false
  /// Whether this connection's first X error was logged (the rest are not: one a frame would flood).
  private var errorLogged = false
  /// Device pixels per logical pixel the windows are drawn at: `[Display] Scale=`, else `Xft.dpi`.
  private var scale = 1.0

  /// Frames a second of an activity indicator that spins while nothing fades.
  static let spinRate = 30.0
  /// xcb's event codes: `XCB_BUTTON_PRESS`, `XCB_MOTION_NOTIFY`, `XCB_ENTER_NOTIFY`,
  /// `XCB_LEAVE_NOTIFY`, `XCB_EXPOSE`.
  private static let keyPress: UInt8 = 2
  private static let buttonPress: UInt8 = 4
  private static let focusOut: UInt8 = 10
  private static let motionNotify: UInt8 = 6
  private static let enterNotify: UInt8 = 7
  private static let leaveNotify: UInt8 = 8
  private static let expose: UInt8 = 12
  private static let propertyNotify: UInt8 = 28

  /// The X server of the session followed (with its `XAUTHORITY`); nil for the process's `DISPLAY`.
  private let session: SessionDisplay?

  public init(session: SessionDisplay? = nil) {
    self.session = session
  }

  /// What `notifyd --check-config` says of the X display `session` (or `DISPLAY`) names: its
  /// summary, or why there is none.
  public static func describeDisplay(session: SessionDisplay? = nil) -> String {
    do {
      let connection = try X11Connection(session: session)
      defer { connection.disconnect() }
      return connection.summary
    } catch {
      return error.reason
    }
  }

  public var pacedByEngineFrames: Bool { true }

  public var name: String { "x11" }

  public func watchIdle(after seconds: Double) -> IdleWatch {
    guard connection?.millisecondsSinceInput() != nil else {
      return .unavailable("the X server has no MIT-SCREEN-SAVER extension")
    }
    return .polled(source: "X11 screensaver")
  }

  public func secondsSinceInput() -> Double? {
    connection?.millisecondsSinceInput().map { Double($0) / 1000 }
  }

  public func connect(for display: PopupDisplay) throws(PopupDisplayFailure) -> String {
    host = display
    let connection = try X11Connection(session: session)
    self.connection = connection
    focused = nil
    errorLogged = false
    reportFullscreen(connection)
    scale = wantedScale(connection)
    return connection.summary + (scale == 1 ? "" : ", scale \(scale)")
  }

  public var fileDescriptor: Int32 { connection?.fileDescriptor ?? -1 }

  public func readable() -> Bool {
    guard let connection else { return false }
    var reconcile = false
    while let event = connection.nextEvent() {
      defer { free(event) }
      reconcile = handle(event, connection) || reconcile
    }
    guard !connection.hasError else { return false }
    // Once all that came is read: the active window changing is not a moment without one.
    if windowsChanged { reportFullscreen(connection) }
    if reconcile {
      self.reconcile()
    } else {
      drawDirty()
      _ = connection.flush()
    }
    return !connection.hasError
  }

  /// Tells the display whether the window with the keyboard is fullscreen. A window that goes
  /// fullscreen, or a fullscreen one that takes the keyboard, may be raised above our windows: the
  /// cards that show over it are raised again (the others stay under it, or leave the screen).
  private func reportFullscreen(_ connection: X11Connection) {
    windowsChanged = false
    let fullscreen = connection.activeWindowIsFullscreen()
    if fullscreen {
      for popup in popups where popup.mapped && popup.card.look.fullscreen == .show {
        popup.raise(connection)
      }
    }
    display.fullscreenChanged(fullscreen)
  }

  /// The notice whose window has the keyboard (its reply field was clicked).
  private var keyboardOwner: Int?
  /// The popup pressed last: of a card on several monitors, the copy whose field was clicked.
  private weak var pressedPopup: X11Popup?

  public func setKeyboardFocus(on id: Int?) {
    guard let connection, id != keyboardOwner else { return }
    keyboardOwner = id
    let popup = id.flatMap { id in pressedPopup?.id == id ? pressedPopup : popups.first { $0.id == id } }
    connection.focusKeyboard(on: popup?.window ?? 0)
    flush()
  }

  public func phaseChanged(of id: Int) {
    for stack in stacks.values { stack[id]?.dirty = true }
  }

  /// The engine's frame: every shown card that fades is drawn at this instant's opacity.
  public func frame() {
    guard let connection, connection.fades else { return }
    draw(popups.filter { $0.mapped && display.stack.phases[$0.id]?.isFading == true })
    flush()
  }

  /// Makes the windows match the visible cards: new ones created, gone ones destroyed, changed
  /// ones re-rendered, all placed, mapped while they should show, and drawn where needed.
  public func reconcile() {
    guard let connection else { return }
    let wanted = wantedScale(connection)
    if wanted != scale {
      // Every window is made again at the new scale (and the center, if it is open).
      display.log.info("display: drawing at scale \(wanted) now (was \(scale))")
      scale = wanted
      for popup in popups { popup.destroy(connection) }
      stacks.removeAll()
      if center != nil {
        closeCenter()
        _ = openCenter()
        redrawCenter()
      }
    }
    let scale = scale
    // Monitors set with `xrandr --setmonitor` come with no event: they are read again whenever a
    // card appears, and the focused monitor's stack goes where that card goes.
    if display.showsNewCard(drawn: Set(stacks.values.flatMap(\.keys))) {
      if connection.readMonitors() { logMonitors(connection) }
      focused = nil
    }
    if focused == nil {
      focused = connection.monitor(named: nil, followFocus: display.settings.followFocus).name
    }
    // A card whose stack moved (the focused monitor changed, a monitor went) keeps its window.
    let matched = display.matchByOutput(
      &stacks, outputs: connection.monitors.map(\.name), focused: focused, movable: true,
      make: { _, id, card, height in
        X11Popup(id: id, card: card, height: height, scale: scale, connection: connection)
      }, destroy: { $0.destroy(connection) })
    for (name, shown) in matched {
      place(shown, on: connection.monitor(named: name ?? focused, followFocus: .no), connection)
    }
    updateSpinTimer()
    flush()
  }

  /// Places `shown` (newest first) on `monitor`: laid out in logical pixels, placed in the
  /// monitor's; each mapped while it should show and drawn where needed.
  private func place(_ shown: [X11Popup], on monitor: X11Monitor, _ connection: X11Connection) {
    let placements = PopupLayout.place(
      shown.map { ($0.width, $0.height, $0.card.urgency) },
      settings: display.settings,
      outputWidth: Int(Double(monitor.width) / scale),
      outputHeight: Int(Double(monitor.height) / scale))
    let appearances = display.notices.appearances(of: shown.map(\.id))
    for (popup, placement) in zip(shown, placements) {
      guard let appearance = appearances[popup.id] else { continue }
      // A card that does not fit waits, unmapped, until there is room.
      let fits = placement != nil
      if let placement {
        popup.move(
          x: monitor.x + Int((Double(placement.x) * scale).rounded()),
          y: monitor.y + Int((Double(placement.y) * scale).rounded()), connection)
      }
      // Without a compositing manager a card shows only while it holds: its alpha would not blend.
      let shows = fits && (connection.fades || appearance.phase == .holding)
      popup.setShape(rounded: !connection.fades, connection)
      if shows != popup.mapped { popup.setMapped(shows, connection) }
      if popup.mapped && popup.dirty { draw(popup, appearance) }
    }
  }

  /// The scale to draw at: `[Display] Scale=`, else the X resources' `Xft.dpi` over 96, else 1.
  private func wantedScale(_ connection: X11Connection) -> Double {
    display.settings.scale ?? connection.resourceScale ?? 1
  }

  /// Draws `popup` at `appearance`'s opacity (full where nothing composites).
  private func draw(_ popup: X11Popup, _ appearance: (phase: Phase, opacity: Double)) {
    guard let connection else { return }
    let frame = popup.frameBuffer()
    display.paint(popup, into: frame, opacity: connection.fades ? appearance.opacity : 1)
    popup.put(frame, connection)
    popup.dirty = false
    // A card that holds is drawn again only when it changes, is exposed or starts to fade out:
    // until then the server keeps its pixels.
    popup.drawn(moving: (connection.fades && appearance.phase.isFading) || popup.card.isAnimated)
  }

  /// Draws the shown cards that were exposed or changed.
  private func drawDirty() {
    draw(popups.filter { $0.mapped && $0.dirty })
  }

  /// Draws each of `popups` at the engine's opacity for now.
  private func draw(_ popups: [X11Popup]) {
    guard !popups.isEmpty else { return }
    let appearances = display.notices.appearances(of: popups.map(\.id))
    for popup in popups {
      guard let appearance = appearances[popup.id] else { continue }
      draw(popup, appearance)
    }
  }

  /// Spins the activity indicators of shown cards at `spinRate` while one is shown; stops when
  /// none is, so that holding cards cost no wakeups.
  private func updateSpinTimer() {
    let spinning = popups.contains { $0.mapped && $0.card.isAnimated }
    if !spinning {
      spinTimer?.cancel()
      spinTimer = nil
      return
    }
    guard spinTimer == nil else { return }
    let timer = DispatchSource.makeTimerSource(queue: display.queue)
    let interval = 1 / Self.spinRate
    timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(2))
    timer.setEventHandler { [weak self] in self?.spin() }
    timer.resume()
    spinTimer = timer
  }

  private func spin() {
    for popup in popups where popup.mapped && popup.card.isAnimated { popup.dirty = true }
    drawDirty()
    updateSpinTimer()
    flush()
  }

  private func flush() {
    guard let connection else { return }
    if !connection.flush() { display.connectionBroken() }
  }

  // MARK: - The center

  /// Pixels a wheel's step (buttons 4 and 5) scrolls the center.
  static let wheelStep = 60.0

  public func openCenter() -> String? {
    guard let connection else { return "not connected" }
    if center == nil {
      if connection.readMonitors() { logMonitors(connection) }
      let monitor = connection.monitor(
        named: display.settings.namedOutput, followFocus: display.settings.followFocus)
      let center = X11Center(settings: display.settings.center, monitor: monitor, scale: scale, connection)
      self.center = center
      display.centerResized(width: center.width, height: center.height)
    }
    flush()
    return nil
  }

  public func closeCenter() {
    guard let connection, let center else { return }
    center.destroy(connection)
    self.center = nil
    flush()
  }

  public func redrawCenter() {
    guard let connection, let center else { return }
    center.draw(connection) {
      display.paintCenter(into: $0, width: center.width, height: center.height, scale: center.scale)
    }
    flush()
  }

  /// Handles an event while the center is open: every press (the pointer is grabbed), the pointer's
  /// moves over it, keys, and its exposure. Answers whether the event was the center's.
  private func handleCenter(
    _ type: UInt8, _ event: UnsafeMutablePointer<xcb_generic_event_t>, _ connection: X11Connection
  ) -> Bool {
    guard let center else { return false }
    let raw = UnsafeMutableRawPointer(event)
    switch type {
    case Self.buttonPress:
      let press = raw.assumingMemoryBound(to: xcb_button_press_event_t.self).pointee
      guard press.event == center.window, center.contains(x: Int(press.event_x), y: Int(press.event_y)) else {
        // A click outside.
        display.closeCenter()
        return true
      }
      let x = Double(press.event_x) / center.scale
      let y = Double(press.event_y) / center.scale
      switch press.detail {
      case 1: display.centerPressed(.left, x: x, y: y)
      case 2: display.centerPressed(.middle, x: x, y: y)
      case 3: display.centerPressed(.right, x: x, y: y)
      case 4: display.centerScrolled(by: -Self.wheelStep)
      case 5: display.centerScrolled(by: Self.wheelStep)
      default: break
      }
      return true
    case Self.motionNotify, Self.enterNotify:
      let motion = raw.assumingMemoryBound(to: xcb_motion_notify_event_t.self).pointee
      if motion.event == center.window && center.contains(x: Int(motion.event_x), y: Int(motion.event_y)) {
        display.centerPointerMoved(
          x: Double(motion.event_x) / center.scale, y: Double(motion.event_y) / center.scale)
      } else {
        display.centerPointerLeft()
      }
      return true
    case Self.keyPress:
      let key = raw.assumingMemoryBound(to: xcb_key_press_event_t.self).pointee
      if let keysym = connection.keysym(of: key.detail, state: key.state),
        let input = KeyInput(keysym: keysym)
      {
        display.keyPressed(input)
      }
      return true
    case Self.expose:
      let expose = raw.assumingMemoryBound(to: xcb_expose_event_t.self).pointee
      guard expose.window == center.window else { return false }
      redrawCenter()
      return true
    default:
      return false
    }
  }

  public func disconnect() {
    if let connection { center?.destroy(connection) }
    center = nil
    keyboardOwner = nil
    spinTimer?.cancel()
    spinTimer = nil
    guard let connection else { return }
    for popup in popups { popup.destroy(connection) }
    stacks.removeAll()
    connection.disconnect()
    self.connection = nil
  }

  private func logMonitors(_ connection: X11Connection) {
    let monitors = connection.monitors.map { ($0.primary ? "*" : "") + $0.description }
    display.log.info("display: monitors now \(monitors.joined(separator: ", "))")
  }

  // MARK: - Events

  /// The popup whose window an event names.
  private func popup(for window: xcb_window_t) -> X11Popup? {
    popups.first { $0.window == window }
  }

  /// Handles one event; answers whether the popups must be reconciled (monitors or the
  /// compositing manager changed).
  private func handle(_ event: UnsafeMutablePointer<xcb_generic_event_t>, _ connection: X11Connection) -> Bool
  {
    let type = event.pointee.response_type & 0x7f
    if handleCenter(type, event, connection) { return false }
    let raw = UnsafeMutableRawPointer(event)
    switch type {
    case 0: refused(raw.assumingMemoryBound(to: xcb_generic_error_t.self).pointee)
    case Self.buttonPress: pressed(raw.assumingMemoryBound(to: xcb_button_press_event_t.self).pointee)
    case Self.keyPress:
      keyPressed(raw.assumingMemoryBound(to: xcb_key_press_event_t.self).pointee, connection)
    case Self.focusOut: focusLeft(raw.assumingMemoryBound(to: xcb_focus_out_event_t.self).pointee)
    case Self.motionNotify, Self.enterNotify:
      // The two events share their layout up to the coordinates.
      pointerMoved(raw.assumingMemoryBound(to: xcb_motion_notify_event_t.self).pointee)
    case Self.leaveNotify:
      if popup(for: raw.assumingMemoryBound(to: xcb_leave_notify_event_t.self).pointee.event) != nil {
        display.pointerLeft()
      }
    case Self.expose:
      popup(for: raw.assumingMemoryBound(to: xcb_expose_event_t.self).pointee.window)?.dirty = true
    case Self.propertyNotify:
      return propertyChanged(
        raw.assumingMemoryBound(to: xcb_property_notify_event_t.self).pointee, connection)
    default:
      return extensionEvent(type, connection)
    }
    return false
  }

  /// An error: a request of ours the server refused. Logged once; the popups carry on.
  private func refused(_ error: xcb_generic_error_t) {
    guard !errorLogged else { return }
    errorLogged = true
    display.log.info(
      "display: the X server refused a request (error \(error.error_code), request \(error.major_code)."
        + "\(error.minor_code)); later errors are not logged")
  }

  /// A button pressed on a popup: core buttons 1 left, 2 middle, 3 right.
  private func pressed(_ press: xcb_button_press_event_t) {
    guard let popup = popup(for: press.event) else { return }
    let button: PopupButton
    switch press.detail {
    case 1: button = .left
    case 2: button = .middle
    case 3: button = .right
    default: return
    }
    pressedPopup = popup
    let action = display.press(
      button, on: popup, x: Double(press.event_x) / popup.scale, y: Double(press.event_y) / popup.scale)
    display.carryOut(action, on: popup.id)
  }

  /// A key typed into the popup with the keyboard (its reply field).
  private func keyPressed(_ key: xcb_key_press_event_t, _ connection: X11Connection) {
    guard keyboardOwner != nil, let keysym = connection.keysym(of: key.detail, state: key.state),
      let input = KeyInput(keysym: keysym)
    else { return }
    display.keyPressed(input)
  }

  /// The keyboard left the popup that had it: NotifyNormal, and a detail from Ancestor to
  /// NonlinearVirtual, the focus went elsewhere for good (not a grab's coming and going, nor the
  /// pointer's own focus events).
  private func focusLeft(_ focus: xcb_focus_out_event_t) {
    guard let owner = keyboardOwner, popups.contains(where: { $0.id == owner && $0.window == focus.event }),
      focus.mode == 0, focus.detail <= 4
    else { return }
    keyboardOwner = nil
    display.keyboardLeft()
  }

  private func pointerMoved(_ motion: xcb_motion_notify_event_t) {
    guard let popup = popup(for: motion.event) else { return }
    display.pointerMoved(
      over: popup, x: Double(motion.event_x) / popup.scale, y: Double(motion.event_y) / popup.scale)
  }

  /// A property changed: another window has the keyboard, or the active one's states changed
  /// (fullscreen); or `xrdb` changed the resources, and `Xft.dpi` may give another scale (then the
  /// popups are reconciled).
  private func propertyChanged(_ property: xcb_property_notify_event_t, _ connection: X11Connection) -> Bool {
    if (property.window == connection.root && property.atom == connection.atoms.activeWindow)
      || (property.window == connection.watchedWindow && property.atom == connection.atoms.state)
    {
      windowsChanged = true
      return false
    }
    guard property.window == connection.root, property.atom == XCB_ATOM_RESOURCE_MANAGER.rawValue else {
      return false
    }
    return connection.readResourceScale()
  }

  /// RandR's monitors or XFixes' compositing manager changed; answers whether the popups must be
  /// reconciled.
  private func extensionEvent(_ type: UInt8, _ connection: X11Connection) -> Bool {
    if let base = connection.randrEvents, type == base || type == base + 1 {
      guard connection.readMonitors() else { return false }
      focused = nil
      logMonitors(connection)
      return true
    }
    if let base = connection.xfixesEvents, type == base {
      guard connection.readCompositor() else { return false }
      display.log.info(
        connection.fades
          ? "display: a compositing manager runs now; popups fade"
          : "display: no compositing manager runs now; popups appear and vanish without fades")
      for popup in popups { popup.dirty = true }
      return true
    }
    return false
  }
}
