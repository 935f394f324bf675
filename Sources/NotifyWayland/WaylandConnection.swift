import CWayland
import Glibc
import NotifyDisplay
import NotifyPosix

/// What a connection reports from the seat: its pointer, in the surface's own coordinates, and its
/// keyboard while one of our surfaces has it.
protocol SeatDelegate: AnyObject {
  /// A key went down on the surface that has the keyboard.
  func keyPressed(_ key: KeyInput)
  /// The surface that had the keyboard lost it.
  func keyboardLeft()
  /// The pointer is at (`x`, `y`) of `surface`: it came over it, or moved on it.
  func pointerMoved(on surface: OpaquePointer, x: Double, y: Double)
  /// The pointer left the surface it was over (which may be gone).
  func pointerLeft()
  /// A button went down at (`x`, `y`) of `surface` (linux input codes: 0x110 left, 0x111 right,
  /// 0x112 middle).
  func pointerPressed(_ button: UInt32, on surface: OpaquePointer, x: Double, y: Double)
  /// The wheel or the touchpad scrolled on `surface` by `pixels` (down when positive).
  func pointerScrolled(on surface: OpaquePointer, pixels: Double)
}

/// An output as the compositor describes it: its name and logical size through xdg-output, its
/// scale through `wl_output.scale`.
final class WaylandOutput {
  let registryName: UInt32
  let proxy: OpaquePointer
  var xdgOutput: OpaquePointer?
  var name: String?
  var width = 0
  var height = 0
  /// Device pixels per logical pixel, as of the last `wl_output.done`.
  var scale = 1
  /// The scale told since the last `done`.
  fileprivate var pendingScale = 1
  /// The name and size as last told, to tell when xdg-output changes them.
  private var described: (name: String?, width: Int, height: Int) = (nil, 0, 0)
  /// Told when a `done` changed the scale, or xdg-output's name or size.
  fileprivate let changed: () -> Void

  init(registryName: UInt32, proxy: OpaquePointer, changed: @escaping () -> Void) {
    self.registryName = registryName
    self.proxy = proxy
    self.changed = changed
  }

  fileprivate func done() {
    guard pendingScale != scale else { return }
    scale = pendingScale
    changed()
  }

  /// xdg-output's `done`: a name or size told for the first time, or changed, is news (the output
  /// was announced before it had a name).
  fileprivate func describedDone() {
    guard described != (name, width, height) else { return }
    described = (name, width, height)
    changed()
  }
}

/// One connection to a Wayland compositor and the globals notifyd uses: the compositor, shared
/// memory, layer-shell, xdg-output, the seat's pointer, and what says the person is idle.
///
/// - Important: not thread-safe; used only on the display's queue. Every proxy it made is
///   destroyed by `disconnect()`, so a compositor that comes and goes leaves nothing behind.
final class WaylandConnection {
  let display: OpaquePointer
  private var registry: OpaquePointer?
  private(set) var compositor: OpaquePointer?
  private(set) var shm: OpaquePointer?
  private(set) var layerShell: OpaquePointer?
  private(set) var layerShellVersion: UInt32 = 0
  private var xdgOutputManager: OpaquePointer?
  /// `wp_viewporter`, where offered: a surface shown larger than its buffer.
  private(set) var viewporter: OpaquePointer?
  private var seat: OpaquePointer?
  private var seatName: UInt32 = 0
  private var pointer: OpaquePointer?
  private var keyboard: OpaquePointer?
  /// The keyboard's keymap and modifiers, as the compositor last said.
  private var keys: XkbKeyboard?
  /// The most bytes of a keymap read (they are some 60 KiB).
  static let maximumKeymapSize = 1 << 20
  /// The surface the pointer is over, if it is one of ours.
  private var pointerSurface: OpaquePointer?
  /// Where the pointer is on `pointerSurface`.
  private var pointerX = 0.0
  private var pointerY = 0.0
  /// The serial of the last button press: an activation token asked for after it names it.
  private var buttonSerial: UInt32 = 0
  /// `xdg_activation_v1`, when the compositor offers it.
  private var activation: OpaquePointer?
  /// Activation tokens asked for and not yet answered (one per click on a popup).
  private var tokenRequests: [ActivationTokenRequest] = []
  private(set) var outputs: [WaylandOutput] = []
  /// `ext_idle_notifier_v1` or, where the compositor has only that, `org_kde_kwin_idle`.
  private var idleNotifier: OpaquePointer?
  private var kdeIdle: OpaquePointer?
  /// The notification (or KDE timeout) `watchIdle` asked for, and which protocol made it.
  private var idleNotification: OpaquePointer?
  private var idleNotificationIsKDE = false
  /// Called with `true` when the person has given no input for the timeout, `false` when they do.
  var idleChanged: (Bool) -> Void = { _ in }
  weak var seatDelegate: SeatDelegate?
  /// Called when outputs come or go, or one's scale changes.
  var outputsChanged: () -> Void = {}
  /// The windows, where the compositor offers `wlr-foreign-toplevel-management`.
  private(set) var toplevels: Toplevels?

  /// Connects to the compositor at `name` (a socket in `XDG_RUNTIME_DIR`, or a path), or at
  /// `WAYLAND_DISPLAY` when nil (wraps `wl_display_connect(3)`).
  init?(name: String?) {
    guard let display = wl_display_connect(name) else { return nil }
    self.display = display
  }

  /// Asks for the globals and waits until the compositor has described them and the outputs.
  func start() -> Bool {
    registry = wl_display_get_registry(display)
    wl_registry_add_listener(registry, registryListener, Unmanaged.passUnretained(self).toOpaque())
    // One round trip for the globals, one for what binding them sent back (output names).
    return wl_display_roundtrip(display) >= 0 && wl_display_roundtrip(display) >= 0
  }

  var fileDescriptor: Int32 { wl_display_get_fd(display) }

  /// Reads what the compositor sent and runs the handlers; false once the connection is broken.
  func dispatch() -> Bool {
    while wl_display_prepare_read(display) != 0 {
      if wl_display_dispatch_pending(display) < 0 { return false }
    }
    if wl_display_read_events(display) < 0 { return false }
    return wl_display_dispatch_pending(display) >= 0
  }

  /// Sends what was asked; false once the connection is broken. A full socket is not an error:
  /// the rest goes with the next flush.
  func flush() -> Bool {
    if wl_display_flush(display) >= 0 { return true }
    return errno == EAGAIN
  }

  /// The output named `name`, if the compositor has one.
  func output(named name: String?) -> WaylandOutput? {
    guard let name else { return nil }
    return outputs.first { $0.name == name }
  }

  /// The output the activated window is on (the first it entered), when the compositor says which
  /// window that is; `nil` when it cannot (no foreign-toplevel protocol) or no window has the focus.
  var focusedOutput: WaylandOutput? {
    guard let window = toplevels?.activated else { return nil }
    return window.outputs.lazy.compactMap { proxy in self.outputs.first { $0.proxy == proxy } }.first
  }

  /// The scale to draw a surface at: the largest of the outputs it is on (`entered`), else that of
  /// the output it was made for, else of the first output (where the compositor is likeliest to put
  /// it, and where the popups are laid out).
  func scale(entered: [OpaquePointer], made for: WaylandOutput?) -> Int {
    let on = outputs.filter { entered.contains($0.proxy) }
    if let largest = on.map(\.scale).max() { return largest }
    return (`for` ?? outputs.first)?.scale ?? 1
  }

  /// Destroys every proxy and closes the connection.
  /// Asks the compositor to say when the seat has had no input for `milliseconds`, and when it has
  /// again (`idleChanged`): through `ext-idle-notify-v1`, else `org_kde_kwin_idle`. Answers the
  /// protocol's name, or `nil` when the compositor offers neither.
  func watchIdle(milliseconds: UInt32) -> String? {
    stopWatchingIdle()
    guard let seat else { return nil }
    let data = Unmanaged.passUnretained(self).toOpaque()
    if let idleNotifier {
      idleNotification = ext_idle_notifier_v1_get_idle_notification(idleNotifier, milliseconds, seat)
      ext_idle_notification_v1_add_listener(idleNotification, extIdleListener, data)
      idleNotificationIsKDE = false
      return "ext-idle-notify-v1"
    }
    if let kdeIdle {
      idleNotification = org_kde_kwin_idle_get_idle_timeout(kdeIdle, seat, milliseconds)
      org_kde_kwin_idle_timeout_add_listener(idleNotification, kdeIdleListener, data)
      idleNotificationIsKDE = true
      return "org_kde_kwin_idle"
    }
    return nil
  }

  private func stopWatchingIdle() {
    guard let idleNotification else { return }
    if idleNotificationIsKDE {
      org_kde_kwin_idle_timeout_release(idleNotification)
    } else {
      ext_idle_notification_v1_destroy(idleNotification)
    }
    self.idleNotification = nil
  }

  func disconnect() {
    stopWatchingIdle()
    toplevels?.destroy()
    toplevels = nil
    if let idleNotifier { ext_idle_notifier_v1_destroy(idleNotifier) }
    if let kdeIdle { org_kde_kwin_idle_destroy(kdeIdle) }
    idleNotifier = nil
    kdeIdle = nil
    for request in tokenRequests { request.cancel() }
    tokenRequests.removeAll()
    if let activation { xdg_activation_v1_destroy(activation) }
    if let viewporter { wp_viewporter_destroy(viewporter) }
    viewporter = nil
    activation = nil
    if let pointer { wl_pointer_destroy(pointer) }
    if let keyboard { wl_keyboard_destroy(keyboard) }
    if let seat { wl_seat_destroy(seat) }
    for output in outputs { destroy(output) }
    outputs.removeAll()
    if let xdgOutputManager { zxdg_output_manager_v1_destroy(xdgOutputManager) }
    if let layerShell {
      if layerShellVersion >= 3 {
        zwlr_layer_shell_v1_destroy(layerShell)
      } else {
        wl_proxy_destroy(layerShell)
      }
    }
    if let shm { wl_shm_destroy(shm) }
    if let compositor { wl_compositor_destroy(compositor) }
    if let registry { wl_registry_destroy(registry) }
    pointer = nil
    keyboard = nil
    keys = nil
    seat = nil
    xdgOutputManager = nil
    layerShell = nil
    shm = nil
    compositor = nil
    registry = nil
    wl_display_flush(display)
    wl_display_disconnect(display)
  }

  private func destroy(_ output: WaylandOutput) {
    if let xdgOutput = output.xdgOutput { zxdg_output_v1_destroy(xdgOutput) }
    wl_output_destroy(output.proxy)
  }

  // MARK: - Registry

  fileprivate func global(name: UInt32, interface: String, version: UInt32) {
    guard let registry else { return }
    func bind(_ wanted: UnsafePointer<wl_interface>, _ highest: UInt32) -> OpaquePointer? {
      OpaquePointer(wl_registry_bind(registry, name, wanted, min(version, highest)))
    }
    switch interface {
    case "wl_compositor": compositor = bind(notifyd_wl_compositor_interface(), 4)
    case "wl_shm": shm = bind(notifyd_wl_shm_interface(), 1)
    case "zwlr_layer_shell_v1":
      layerShellVersion = min(version, 4)
      layerShell = bind(notifyd_layer_shell_interface(), 4)
    case "wp_viewporter":
      viewporter = bind(notifyd_viewporter_interface(), 1)
    case "xdg_activation_v1":
      activation = bind(notifyd_xdg_activation_interface(), 1)
    case "ext_idle_notifier_v1":
      idleNotifier = bind(notifyd_ext_idle_notifier_interface(), 1)
    case "org_kde_kwin_idle":
      kdeIdle = bind(notifyd_kde_idle_interface(), 1)
    case "zxdg_output_manager_v1":
      xdgOutputManager = bind(notifyd_xdg_output_manager_interface(), 2)
      for output in outputs where output.xdgOutput == nil { describe(output) }
    case "zwlr_foreign_toplevel_manager_v1" where toplevels == nil:
      guard let manager = bind(notifyd_foreign_toplevel_manager_interface(), 3) else { return }
      toplevels = Toplevels(manager: manager)
    case "wl_seat" where seat == nil:
      seat = bind(notifyd_wl_seat_interface(), 5)
      seatName = name
      wl_seat_add_listener(seat, seatListener, Unmanaged.passUnretained(self).toOpaque())
    case "wl_output":
      guard let proxy = bind(notifyd_wl_output_interface(), 3) else { return }
      let output = WaylandOutput(
        registryName: name, proxy: proxy, changed: { [unowned self] in outputsChanged() })
      wl_output_add_listener(proxy, outputListener, Unmanaged.passUnretained(output).toOpaque())
      outputs.append(output)
      describe(output)
      outputsChanged()
    default: break
    }
  }

  fileprivate func globalRemoved(name: UInt32) {
    if let index = outputs.firstIndex(where: { $0.registryName == name }) {
      let output = outputs.remove(at: index)
      toplevels?.forget(output: output.proxy)
      destroy(output)
      outputsChanged()
    } else if name == seatName, let seat {
      // What watched the seat for idleness goes with it: the person counts as present.
      if idleNotification != nil {
        stopWatchingIdle()
        idleChanged(false)
      }
      if let pointer { wl_pointer_destroy(pointer) }
      if let keyboard { wl_keyboard_destroy(keyboard) }
      keyboard = nil
      keys = nil
      wl_seat_destroy(seat)
      pointer = nil
      self.seat = nil
    }
  }

  private func describe(_ output: WaylandOutput) {
    guard let xdgOutputManager else { return }
    output.xdgOutput = zxdg_output_manager_v1_get_xdg_output(xdgOutputManager, output.proxy)
    zxdg_output_v1_add_listener(
      output.xdgOutput, xdgOutputListener, Unmanaged.passUnretained(output).toOpaque())
  }

  fileprivate func output(for xdgOutput: OpaquePointer?) -> WaylandOutput? {
    outputs.first { $0.xdgOutput == xdgOutput }
  }

  // MARK: - Seat and pointer

  fileprivate func seatCapabilities(_ capabilities: UInt32) {
    let hasKeyboard = capabilities & WL_SEAT_CAPABILITY_KEYBOARD.rawValue != 0
    if hasKeyboard, keyboard == nil, let seat {
      keyboard = wl_seat_get_keyboard(seat)
      wl_keyboard_add_listener(keyboard, keyboardListener, Unmanaged.passUnretained(self).toOpaque())
    } else if !hasKeyboard, let keyboard {
      wl_keyboard_destroy(keyboard)
      self.keyboard = nil
      keys = nil
    }
    let hasPointer = capabilities & WL_SEAT_CAPABILITY_POINTER.rawValue != 0
    if hasPointer, pointer == nil, let seat {
      pointer = wl_seat_get_pointer(seat)
      wl_pointer_add_listener(pointer, pointerListener, Unmanaged.passUnretained(self).toOpaque())
    } else if !hasPointer, let pointer {
      wl_pointer_destroy(pointer)
      self.pointer = nil
    }
  }

  fileprivate func pointerEntered(_ surface: OpaquePointer?, x: wl_fixed_t, y: wl_fixed_t) {
    pointerSurface = surface
    pointerMoved(x: x, y: y)
  }

  fileprivate func pointerMoved(x: wl_fixed_t, y: wl_fixed_t) {
    pointerX = wl_fixed_to_double(x)
    pointerY = wl_fixed_to_double(y)
    guard let pointerSurface else { return }
    seatDelegate?.pointerMoved(on: pointerSurface, x: pointerX, y: pointerY)
  }

  fileprivate func pointerLeft() {
    pointerSurface = nil
    seatDelegate?.pointerLeft()
  }

  fileprivate func pointerButton(_ button: UInt32, serial: UInt32, state: UInt32) {
    guard state == WL_POINTER_BUTTON_STATE_PRESSED.rawValue, let pointerSurface else { return }
    buttonSerial = serial
    seatDelegate?.pointerPressed(button, on: pointerSurface, x: pointerX, y: pointerY)
  }

  /// Where the scroll being told comes from (`wl_pointer.axis_source`): a wheel's steps are made
  /// longer than a touchpad's pixels.
  private var axisSource: UInt32?
  /// Pixels a wheel's step of 15 (its `axis` value, as libinput gives it) scrolls.
  static let wheelFactor = 4.0

  fileprivate func axis(_ axis: UInt32, value: wl_fixed_t) {
    guard axis == WL_POINTER_AXIS_VERTICAL_SCROLL.rawValue, let pointerSurface else { return }
    let factor = axisSource == WL_POINTER_AXIS_SOURCE_WHEEL.rawValue ? Self.wheelFactor : 1
    seatDelegate?.pointerScrolled(on: pointerSurface, pixels: wl_fixed_to_double(value) * factor)
  }

  fileprivate func axisSource(_ source: UInt32) { axisSource = source }

  fileprivate func pointerFrame() { axisSource = nil }

  // MARK: - Keyboard

  fileprivate func keymap(format: UInt32, descriptor: Int32, size: UInt32) {
    defer { Posix.close(descriptor) }
    guard format == WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue,
      let bytes = Posix.readShared(descriptor, size: Int(size), limit: Self.maximumKeymapSize)
    else { return }
    keys = XkbKeyboard(keymap: String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self))
  }

  fileprivate func key(_ code: UInt32, state: UInt32) {
    guard state == WL_KEYBOARD_KEY_STATE_PRESSED.rawValue, let input = keys?.pressed(code) else { return }
    seatDelegate?.keyPressed(input)
  }

  fileprivate func modifiers(depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) {
    keys?.setModifiers(depressed: depressed, latched: latched, locked: locked, group: group)
  }

  fileprivate func keyboardLeft() { seatDelegate?.keyboardLeft() }

  // MARK: - Activation

  /// Asks the compositor for an xdg-activation token for the click just made on `surface`, and
  /// calls `done` with it once it comes; with no `xdg_activation_v1`, calls `done(nil)` at once.
  func requestActivationToken(for surface: OpaquePointer, done: @escaping (String?) -> Void) {
    guard let activation, let proxy = xdg_activation_v1_get_activation_token(activation) else {
      done(nil)
      return
    }
    let request = ActivationTokenRequest(proxy: proxy) { [weak self] request, token in
      self?.tokenRequests.removeAll { $0 === request }
      done(token)
    }
    tokenRequests.append(request)
    xdg_activation_token_v1_add_listener(
      proxy, activationTokenListener, Unmanaged.passUnretained(request).toOpaque())
    if let seat { xdg_activation_token_v1_set_serial(proxy, buttonSerial, seat) }
    xdg_activation_token_v1_set_surface(proxy, surface)
    xdg_activation_token_v1_commit(proxy)
    wl_display_flush(display)
  }
}

/// One `xdg_activation_token_v1` on its way: destroyed once its token came, or with the connection.
final class ActivationTokenRequest {
  private var proxy: OpaquePointer?
  private let done: (ActivationTokenRequest, String?) -> Void

  init(proxy: OpaquePointer, done: @escaping (ActivationTokenRequest, String?) -> Void) {
    self.proxy = proxy
    self.done = done
  }

  fileprivate func received(_ token: String?) {
    guard let proxy else { return }
    xdg_activation_token_v1_destroy(proxy)
    self.proxy = nil
    done(self, token)
  }

  /// The connection goes: the proxy with it, and the click is reported without a token.
  func cancel() { received(nil) }
}

// MARK: - Listeners
// C function pointers cannot capture: each handler finds its object through `data`.

private func connection(_ data: UnsafeMutableRawPointer?) -> WaylandConnection {
  Unmanaged<WaylandConnection>.fromOpaque(data!).takeUnretainedValue()
}

nonisolated(unsafe) private let registryListener: UnsafeMutablePointer<wl_registry_listener> = {
  let listener = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)
  listener.initialize(to: wl_registry_listener())
  listener.pointee.global = { data, _, name, interface, version in
    connection(data).global(name: name, interface: String(cString: interface!), version: version)
  }
  listener.pointee.global_remove = { data, _, name in connection(data).globalRemoved(name: name) }
  return listener
}()

private func output(_ data: UnsafeMutableRawPointer?) -> WaylandOutput {
  Unmanaged<WaylandOutput>.fromOpaque(data!).takeUnretainedValue()
}

nonisolated(unsafe) private let outputListener: UnsafeMutablePointer<wl_output_listener> = {
  // The size and name come through xdg-output; of the core events only the scale is read.
  let listener = UnsafeMutablePointer<wl_output_listener>.allocate(capacity: 1)
  listener.initialize(to: wl_output_listener())
  listener.pointee.geometry = { _, _, _, _, _, _, _, _, _, _ in }
  listener.pointee.mode = { _, _, _, _, _, _ in }
  listener.pointee.done = { data, _ in output(data).done() }
  listener.pointee.scale = { data, _, factor in output(data).pendingScale = max(1, Int(factor)) }
  listener.pointee.name = { _, _, _ in }
  listener.pointee.description = { _, _, _ in }
  return listener
}()

nonisolated(unsafe) private let xdgOutputListener: UnsafeMutablePointer<zxdg_output_v1_listener> = {
  let listener = UnsafeMutablePointer<zxdg_output_v1_listener>.allocate(capacity: 1)
  listener.initialize(to: zxdg_output_v1_listener())
  listener.pointee.logical_position = { _, _, _, _ in }
  listener.pointee.logical_size = { data, _, width, height in
    output(data).width = Int(width)
    output(data).height = Int(height)
  }
  listener.pointee.done = { data, _ in output(data).describedDone() }
  listener.pointee.name = { data, _, name in output(data).name = name.map { String(cString: $0) } }
  listener.pointee.description = { _, _, _ in }
  return listener
}()

nonisolated(unsafe) private let seatListener: UnsafeMutablePointer<wl_seat_listener> = {
  let listener = UnsafeMutablePointer<wl_seat_listener>.allocate(capacity: 1)
  listener.initialize(to: wl_seat_listener())
  listener.pointee.capabilities = { data, _, capabilities in connection(data).seatCapabilities(capabilities) }
  listener.pointee.name = { _, _, _ in }
  return listener
}()

nonisolated(unsafe) private let pointerListener: UnsafeMutablePointer<wl_pointer_listener> = {
  // Every slot is filled: libwayland calls the handler of any event the version allows.
  let listener = UnsafeMutablePointer<wl_pointer_listener>.allocate(capacity: 1)
  listener.initialize(to: wl_pointer_listener())
  listener.pointee.enter = { data, _, _, surface, x, y in connection(data).pointerEntered(surface, x: x, y: y)
  }
  listener.pointee.leave = { data, _, _, _ in connection(data).pointerLeft() }
  listener.pointee.motion = { data, _, _, x, y in connection(data).pointerMoved(x: x, y: y) }
  listener.pointee.button = { data, _, serial, _, button, state in
    connection(data).pointerButton(button, serial: serial, state: state)
  }
  listener.pointee.axis = { data, _, _, axis, value in connection(data).axis(axis, value: value) }
  listener.pointee.frame = { data, _ in connection(data).pointerFrame() }
  listener.pointee.axis_source = { data, _, source in connection(data).axisSource(source) }
  listener.pointee.axis_stop = { _, _, _, _ in }
  listener.pointee.axis_discrete = { _, _, _, _ in }
  listener.pointee.axis_value120 = { _, _, _, _ in }
  return listener
}()

nonisolated(unsafe) private let keyboardListener: UnsafeMutablePointer<wl_keyboard_listener> = {
  let listener = UnsafeMutablePointer<wl_keyboard_listener>.allocate(capacity: 1)
  listener.initialize(to: wl_keyboard_listener())
  listener.pointee.keymap = { data, _, format, fd, size in
    connection(data).keymap(format: format, descriptor: fd, size: size)
  }
  listener.pointee.enter = { _, _, _, _, _ in }
  listener.pointee.leave = { data, _, _, _ in connection(data).keyboardLeft() }
  listener.pointee.key = { data, _, _, _, key, state in connection(data).key(key, state: state) }
  listener.pointee.modifiers = { data, _, _, depressed, latched, locked, group in
    connection(data).modifiers(depressed: depressed, latched: latched, locked: locked, group: group)
  }
  listener.pointee.repeat_info = { _, _, _, _ in }
  return listener
}()

nonisolated(unsafe) private let extIdleListener: UnsafeMutablePointer<ext_idle_notification_v1_listener> = {
  let listener = UnsafeMutablePointer<ext_idle_notification_v1_listener>.allocate(capacity: 1)
  listener.initialize(to: ext_idle_notification_v1_listener())
  listener.pointee.idled = { data, _ in connection(data).idleChanged(true) }
  listener.pointee.resumed = { data, _ in connection(data).idleChanged(false) }
  return listener
}()

nonisolated(unsafe) private let kdeIdleListener: UnsafeMutablePointer<org_kde_kwin_idle_timeout_listener> = {
  let listener = UnsafeMutablePointer<org_kde_kwin_idle_timeout_listener>.allocate(capacity: 1)
  listener.initialize(to: org_kde_kwin_idle_timeout_listener())
  listener.pointee.idle = { data, _ in connection(data).idleChanged(true) }
  listener.pointee.resumed = { data, _ in connection(data).idleChanged(false) }
  return listener
}()

nonisolated(unsafe) private let activationTokenListener:
  UnsafeMutablePointer<xdg_activation_token_v1_listener> = {
    let listener = UnsafeMutablePointer<xdg_activation_token_v1_listener>.allocate(capacity: 1)
    listener.initialize(to: xdg_activation_token_v1_listener())
    listener.pointee.done = { data, _, token in
      Unmanaged<ActivationTokenRequest>.fromOpaque(data!).takeUnretainedValue()
        .received(token.map { String(cString: $0) })
    }
    return listener
  }()
