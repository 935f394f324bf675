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
  private weak var host: (any DisplayHost)?
  private var display: any DisplayHost { host! }
  private var connection: X11Connection?
  /// The popups, by their card and monitor.
  private var windows: [SurfaceKey: X11Popup] = [:]
  /// The focused monitor as read last, where a card given no monitor goes.
  private var focused: String?

  /// Every popup, on every monitor.
  private var popups: [X11Popup] { Array(windows.values) }
  /// Draws the cards whose activity indicator spins, while one is shown and nothing fades.
  private var spinTimer: (any DispatchSourceTimer)?
  /// The notification center, while it is open.
  private var center: X11Center?
  /// Whether the active window, or its states, changed in what was read last: whether it is
  /// fullscreen is read once the read is done.
  private var windowsChanged = false
  /// Whether what the server sent is being handled: requests made meanwhile are flushed once, after
  /// the read, not once per input.
  private var reading = false
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

  public func connect(to host: any DisplayHost) throws(PopupDisplayFailure) -> (
    description: String, traits: DisplayTraits
  ) {
    self.host = host
    let connection = try X11Connection(session: session)
    self.connection = connection
    focused = nil
    errorLogged = false
    scale = wantedScale(connection)
    reportFullscreen(connection)
    return (connection.summary + (scale == 1 ? "" : ", scale \(scale)"), traits(connection))
  }

  /// Windows that move, blended where a compositing manager runs.
  private func traits(_ connection: X11Connection) -> DisplayTraits {
    DisplayTraits(windows: true, blends: connection.fades)
  }

  public var fileDescriptor: Int32 { connection?.fileDescriptor ?? -1 }

  public func readable() -> Bool {
    guard let connection else { return false }
    reading = true
    defer { reading = false }
    while let event = connection.nextEvent() {
      defer { free(event) }
      handle(event, connection)
    }
    guard !connection.hasError else { return false }
    // Once all that came is read: the active window changing is not a moment without one.
    if windowsChanged { reportFullscreen(connection) }
    return connection.flush()
  }

  /// Tells the display whether the window with the keyboard is fullscreen. A window that goes
  /// fullscreen, or a fullscreen one that takes the keyboard, may be raised above our windows: the
  /// cards that show over it are raised again (the others stay under it, or leave the screen).
  private func reportFullscreen(_ connection: X11Connection) {
    windowsChanged = false
    let fullscreen = connection.activeWindowIsFullscreen()
    if fullscreen {
      for popup in popups where popup.mapped && popup.shown.card.look.fullscreen == .show {
        popup.raise(connection)
      }
    }
    display.input(.fullscreen(fullscreen))
  }

  /// The monitors, read again (monitors set with `xrandr --setmonitor` come with no event), in
  /// logical pixels, and the focused one: the primary, or with `FollowFocus=` the one under the
  /// pointer or the active window's.
  public func readOutputs() -> DisplayOutputs {
    guard let connection else { return DisplayOutputs([], focus: nil) }
    if connection.readMonitors() { logMonitors(connection) }
    return outputs(connection)
  }

  private func outputs(_ connection: X11Connection) -> DisplayOutputs {
    focused = connection.monitor(named: nil, followFocus: display.settings.followFocus).name
    let outputs = connection.monitors.map { monitor in
      DisplayOutput(
        name: monitor.name, width: Int(Double(monitor.width) / scale),
        height: Int(Double(monitor.height) / scale))
    }
    return DisplayOutputs(outputs, focus: focused)
  }

  /// The notice whose window has the keyboard (its reply field was clicked).
  private var keyboardOwner: SurfaceKey?

  private func setKeyboardFocus(on key: SurfaceKey?) {
    guard let connection, key != keyboardOwner else { return }
    keyboardOwner = key
    connection.focusKeyboard(on: key.flatMap { windows[$0]?.window } ?? 0)
  }

  public func activationToken(for surface: SurfaceKey, _ done: @escaping (String?) -> Void) {
    done(nil)
  }

  public func perform(_ actions: [DisplayAction]) {
    guard let connection else { return }
    for action in actions {
      switch action {
      case .make(let key, let shown):
        let popup = X11Popup(key: key, shown: shown, scale: scale, connection: connection)
        windows[key] = popup
        place(popup, connection)
      case .update(let key, let shown):
        guard let popup = windows[key] else { continue }
        popup.update(to: shown, painter: display.painter)
        place(popup, connection)
      case .place(let key, let shown):
        guard let popup = windows[key] else { continue }
        popup.shown = shown
        place(popup, connection)
      case .move(let key, let target):
        guard let popup = windows.removeValue(forKey: key) else { continue }
        popup.key = target
        windows[target] = popup
      case .map(let key, let on):
        windows[key]?.setMapped(on, connection)
      case .draw(let key, let opacity, let moving):
        guard let popup = windows[key] else { continue }
        let frame = popup.frameBuffer()
        popup.paint(into: frame, opacity: opacity, painter: display.painter)
        popup.put(frame, connection)
        popup.drawn(moving: moving)
      case .destroy(let key):
        windows.removeValue(forKey: key)?.destroy(connection)
      case .keyboard(let key):
        setKeyboardFocus(on: key)
      case .request:
        continue
      }
    }
    updateSpinTimer()
    flush()
  }

  /// Puts `popup`'s window where its placement says on its monitor (logical pixels there, device
  /// pixels on the root), its corners rounded where nothing composites.
  private func place(_ popup: X11Popup, _ connection: X11Connection) {
    let monitor = connection.monitor(named: popup.key.output ?? focused, followFocus: .no)
    let placement = popup.shown.placement
    popup.move(
      x: monitor.x + Int((Double(placement.x) * scale).rounded()),
      y: monitor.y + Int((Double(placement.y) * scale).rounded()), connection)
    popup.setShape(rounded: !connection.fades, connection)
  }

  /// The scale to draw at: `[Display] Scale=`, else the X resources' `Xft.dpi` over 96, else 1.
  private func wantedScale(_ connection: X11Connection) -> Double {
    display.settings.scale ?? connection.resourceScale ?? 1
  }

  /// Spins the activity indicators of shown cards at `spinRate` while one is shown; stops when
  /// none is, so that holding cards cost no wakeups.
  private func updateSpinTimer() {
    let spinning = windows.values.contains { $0.mapped && $0.shown.card.isAnimated }
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
    display.input(.frame(nil, ready: true))
  }

  private func flush() {
    guard !reading, let connection else { return }
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
      display.input(.resized(width: center.width, height: center.height))
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
        display.input(CenterInput.closed)
        return true
      }
      let x = Double(press.event_x) / center.scale
      let y = Double(press.event_y) / center.scale
      switch press.detail {
      case 1: display.input(CenterInput.pressed(.left, x: x, y: y))
      case 2: display.input(CenterInput.pressed(.middle, x: x, y: y))
      case 3: display.input(CenterInput.pressed(.right, x: x, y: y))
      case 4: display.input(CenterInput.scrolled(-Self.wheelStep))
      case 5: display.input(CenterInput.scrolled(Self.wheelStep))
      default: break
      }
      return true
    case Self.motionNotify, Self.enterNotify:
      let motion = raw.assumingMemoryBound(to: xcb_motion_notify_event_t.self).pointee
      if motion.event == center.window && center.contains(x: Int(motion.event_x), y: Int(motion.event_y)) {
        display.input(
          CenterInput.pointerMoved(
            x: Double(motion.event_x) / center.scale, y: Double(motion.event_y) / center.scale))
      } else {
        display.input(CenterInput.pointerLeft)
      }
      return true
    case Self.keyPress:
      let key = raw.assumingMemoryBound(to: xcb_key_press_event_t.self).pointee
      if let keysym = connection.keysym(of: key.detail, state: key.state),
        let input = KeyInput(keysym: keysym)
      {
        display.input(.key(input))
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
    windows.removeAll()
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

  /// Handles one event.
  private func handle(_ event: UnsafeMutablePointer<xcb_generic_event_t>, _ connection: X11Connection) {
    let type = event.pointee.response_type & 0x7f
    if handleCenter(type, event, connection) { return }
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
        display.input(DisplayInput.pointerLeft)
      }
    case Self.expose:
      if let popup = popup(for: raw.assumingMemoryBound(to: xcb_expose_event_t.self).pointee.window) {
        display.input(.damaged(popup.key))
      }
    case Self.propertyNotify:
      propertyChanged(raw.assumingMemoryBound(to: xcb_property_notify_event_t.self).pointee, connection)
    default:
      extensionEvent(type, connection)
    }
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
    display.input(
      .pressed(
        button, popup.key, x: Double(press.event_x) / popup.scale, y: Double(press.event_y) / popup.scale))
  }

  /// A key typed into the popup with the keyboard (its reply field).
  private func keyPressed(_ key: xcb_key_press_event_t, _ connection: X11Connection) {
    guard keyboardOwner != nil, let keysym = connection.keysym(of: key.detail, state: key.state),
      let input = KeyInput(keysym: keysym)
    else { return }
    display.input(.key(input))
  }

  /// The keyboard left the popup that had it: NotifyNormal, and a detail from Ancestor to
  /// NonlinearVirtual, the focus went elsewhere for good (not a grab's coming and going, nor the
  /// pointer's own focus events).
  private func focusLeft(_ focus: xcb_focus_out_event_t) {
    guard let owner = keyboardOwner, windows[owner]?.window == focus.event, focus.mode == 0, focus.detail <= 4
    else { return }
    keyboardOwner = nil
    display.input(.keyboardLeft)
  }

  private func pointerMoved(_ motion: xcb_motion_notify_event_t) {
    guard let popup = popup(for: motion.event) else { return }
    display.input(
      .pointerMoved(
        popup.key, x: Double(motion.event_x) / popup.scale, y: Double(motion.event_y) / popup.scale))
  }

  /// A property changed: another window has the keyboard, or the active one's states changed
  /// (fullscreen); or `xrdb` changed the resources, and `Xft.dpi` may give another scale (then the
  /// windows are made again at it).
  private func propertyChanged(_ property: xcb_property_notify_event_t, _ connection: X11Connection) {
    if (property.window == connection.root && property.atom == connection.atoms.activeWindow)
      || (property.window == connection.watchedWindow && property.atom == connection.atoms.state)
    {
      windowsChanged = true
      return
    }
    guard property.window == connection.root, property.atom == XCB_ATOM_RESOURCE_MANAGER.rawValue,
      connection.readResourceScale()
    else { return }
    let wanted = wantedScale(connection)
    guard wanted != scale else { return }
    // Every window is made again at the new scale (and the center, if it is open).
    display.log.info("display: drawing at scale \(wanted) now (was \(scale))")
    scale = wanted
    for popup in popups { popup.destroy(connection) }
    windows.removeAll()
    keyboardOwner = nil
    if center != nil {
      closeCenter()
      _ = openCenter()
      redrawCenter()
    }
    display.input(.remade(outputs(connection)))
  }

  /// RandR's monitors or XFixes' compositing manager changed.
  private func extensionEvent(_ type: UInt8, _ connection: X11Connection) {
    if let base = connection.randrEvents, type == base || type == base + 1 {
      guard connection.readMonitors() else { return }
      logMonitors(connection)
      display.input(.outputs(outputs(connection)))
      return
    }
    if let base = connection.xfixesEvents, type == base {
      guard connection.readCompositor() else { return }
      display.log.info(
        connection.fades
          ? "display: a compositing manager runs now; popups fade"
          : "display: no compositing manager runs now; popups appear and vanish without fades")
      for popup in popups { popup.setShape(rounded: !connection.fades, connection) }
      display.input(.traits(traits(connection)))
    }
  }
}
