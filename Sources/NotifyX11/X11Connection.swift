import CXcb
import Glibc
import NotifyConfig
import NotifyCore
import NotifyDisplay
import NotifyPosix
import NotifyProtocol

/// A monitor as RandR describes it: its output name and its rectangle on the root window.
struct X11Monitor: Equatable, CustomStringConvertible {
  var name: String
  var x: Int
  var y: Int
  var width: Int
  var height: Int
  var primary: Bool

  func contains(x px: Int, y py: Int) -> Bool {
    px >= x && px < x + width && py >= y && py < y + height
  }

  /// `name WIDTHxHEIGHT`, as the log says it.
  var description: String { "\(name) \(width)x\(height)" }
}

/// One connection to an X server and what the popups need of it: the screen, a 32-bit ARGB visual,
/// the atoms they are typed with, the monitors (RandR) and whether a compositing manager runs
/// (the owner of `_NET_WM_CM_S<screen>`, followed through XFixes).
///
/// - Important: not thread-safe; used only on the display's queue. `disconnect()` frees every
///   resource it made, so a server that comes and goes leaves nothing behind.
final class X11Connection {
  let connection: OpaquePointer
  let screen: UnsafeMutablePointer<xcb_screen_t>
  let screenNumber: Int32
  var root: xcb_window_t { screen.pointee.root }
  /// The visual and depth of the popups' windows: 32-bit ARGB where the server offers it (the
  /// compositing manager blends the buffer's alpha), else the root's.
  private(set) var visual: xcb_visualid_t
  private(set) var depth: UInt8
  private(set) var colormap: xcb_colormap_t = 0
  /// A graphics context for drawables of `depth`.
  private(set) var graphics: xcb_gcontext_t = 0
  /// An unmapped window that listens for the compositing manager's selection.
  private var watcher: xcb_window_t = 0
  private(set) var atoms: Atoms
  /// The first event codes of RandR and XFixes, when the server has them.
  private(set) var randrEvents: UInt8?
  private(set) var xfixesEvents: UInt8?
  private(set) var hasShape = false
  private(set) var monitors: [X11Monitor] = []
  /// Monitor names by atom: an atom's name never changes while the server runs.
  private var monitorNames: [xcb_atom_t: String] = [:]
  /// Whether a compositing manager owns `_NET_WM_CM_S<screen>`.
  private(set) var composited = false
  /// Whether popups fade: a compositing manager blends the buffer's alpha over what is underneath.
  var fades: Bool { composited && depth == 32 }
  /// The largest request, in bytes.
  let maximumRequestBytes: Int

  struct Atoms {
    var windowType: xcb_atom_t
    var notification: xcb_atom_t
    var name: xcb_atom_t
    var utf8String: xcb_atom_t
    var state: xcb_atom_t
    var above: xcb_atom_t
    var compositorSelection: xcb_atom_t
    var activeWindow: xcb_atom_t
    var fullscreen: xcb_atom_t
  }

  /// Connects to the X server `session` names, with the cookie of its `XAUTHORITY`; to the one
  /// the process's `DISPLAY` names when `session` names none (wraps `xcb_connect(3)` and
  /// `xcb_connect_to_display_with_auth_info(3)`).
  init(session: SessionDisplay? = nil) throws(PopupDisplayFailure) {
    var screenNumber: Int32 = 0
    let name = session?.x11
    displayName = name ?? Self.environmentDisplay
    let connection = Self.open(name, authority: session?.xauthority, screen: &screenNumber)
    guard xcb_connection_has_error(connection) == 0 else {
      xcb_disconnect(connection)
      throw PopupDisplayFailure("no X server answers at DISPLAY=\(displayName)")
    }
    var roots = xcb_setup_roots_iterator(xcb_get_setup(connection))
    for _ in 0..<screenNumber where roots.rem > 0 { xcb_screen_next(&roots) }
    guard let screen = roots.data else {
      xcb_disconnect(connection)
      throw PopupDisplayFailure("the X server has no screen \(screenNumber)")
    }
    self.connection = connection
    self.screen = screen
    self.screenNumber = screenNumber
    maximumRequestBytes = Int(xcb_get_maximum_request_length(connection)) * 4
    visual = screen.pointee.root_visual
    depth = screen.pointee.root_depth
    atoms = Self.internAtoms(connection, screenNumber: screenNumber)
    if let argb = Self.argbVisual(of: screen) {
      visual = argb
      depth = 32
      colormap = xcb_generate_id(connection)
      xcb_create_colormap(connection, UInt8(XCB_COLORMAP_ALLOC_NONE.rawValue), colormap, root, visual)
    }
    makeGraphics()
    queryExtensions()
    readMonitors()
    readCompositor()
    // The X resources (`xrdb`) live on the root window: `Xft.dpi` is followed as it changes.
    var mask = XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue
    xcb_change_window_attributes(connection, root, XCB_CW_EVENT_MASK.rawValue, &mask)
    readResourceScale()
  }

  /// Device pixels per logical pixel as the X resources say: `Xft.dpi` over 96; nil when no
  /// resource sets it (or it is not a number from 48 to 384).
  private(set) var resourceScale: Double?
  /// The most bytes of `RESOURCE_MANAGER` read (a desktop's resources are a few KiB).
  static let maximumResourceBytes = 1 << 16

  /// Reads `Xft.dpi` from the root window's `RESOURCE_MANAGER` again; returns whether the scale
  /// it gives changed.
  @discardableResult
  func readResourceScale() -> Bool {
    let cookie = xcb_get_property(
      connection, 0, root, XCB_ATOM_RESOURCE_MANAGER.rawValue, XCB_ATOM_STRING.rawValue, 0,
      UInt32(Self.maximumResourceBytes / 4))
    var found: Double?
    if let reply = xcb_get_property_reply(connection, cookie, nil) {
      let length = Int(xcb_get_property_value_length(reply))
      if let value = xcb_get_property_value(reply), length > 0 {
        let bytes = UnsafeRawBufferPointer(start: value, count: length)
        found = Self.scale(fromResources: String(decoding: bytes, as: UTF8.self))
      }
      free(reply)
    }
    defer { resourceScale = found }
    return found != resourceScale
  }

  /// The scale `Xft.dpi` gives in X resources' text (`Xft.dpi:\t192` → 2), the last line setting it.
  static func scale(fromResources text: String) -> Double? {
    var scale: Double?
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: ":", maxSplits: 1)
      guard parts.count == 2, parts[0].trimmingWhitespace() == "Xft.dpi",
        let dpi = Double(parts[1].trimmingWhitespace()),
        (48...384).contains(dpi)
      else { continue }
      scale = dpi / 96
    }
    return scale
  }

  static var environmentDisplay: String { getenv("DISPLAY").map { String(cString: $0) } ?? "" }

  /// The display connected to, for messages.
  let displayName: String

  /// Connects to display `name` (nil: `DISPLAY`): with the cookie for it in the file `authority`
  /// when that is not the process's own `XAUTHORITY` (which xcb reads itself) and holds one (a
  /// local display only), else as xcb finds one itself.
  private static func open(_ name: String?, authority: String?, screen: inout Int32) -> OpaquePointer {
    let own = getenv("XAUTHORITY").map { String(cString: $0) }
    guard let name, let authority, authority != own, let number = SessionDisplay.x11DisplayNumber(name),
      // Xauthority files name a local display by the host's whole name.
      let cookie = XAuthority.cookie(inFileAt: authority, display: number, host: Posix.hostName() ?? "")
    else { return xcb_connect(name, &screen)! }
    var cookieName = cookie.name.map { CChar(bitPattern: $0) }
    var cookieData = cookie.data.map { CChar(bitPattern: $0) }
    return cookieName.withUnsafeMutableBufferPointer { namePointer in
      cookieData.withUnsafeMutableBufferPointer { dataPointer in
        var info = xcb_auth_info_t(
          namelen: Int32(namePointer.count), name: namePointer.baseAddress,
          datalen: Int32(dataPointer.count), data: dataPointer.baseAddress)
        return xcb_connect_to_display_with_auth_info(name, &info, &screen)!
      }
    }
  }

  var fileDescriptor: Int32 { xcb_get_file_descriptor(connection) }
  var hasError: Bool { xcb_connection_has_error(connection) != 0 }

  /// Sends what was asked; false once the connection is broken.
  func flush() -> Bool { xcb_flush(connection) > 0 }

  /// The next event already read, if any (the caller frees it).
  func nextEvent() -> UnsafeMutablePointer<xcb_generic_event_t>? { xcb_poll_for_event(connection) }

  // MARK: - Keyboard

  /// The core keyboard mapping, read when the reply field first takes the keyboard: each key
  /// code's keysyms, unshifted first.
  private var keysyms: (first: UInt8, perCode: Int, symbols: [xcb_keysym_t])?

  /// The keysym key `code` gives with `state`'s modifiers (Shift, Lock): the core protocol's rule
  /// for the first two of a key's keysyms.
  func keysym(of code: UInt8, state: UInt16) -> UInt32? {
    if keysyms == nil { readKeyboardMapping() }
    guard let keysyms, code >= keysyms.first else { return nil }
    let base = Int(code - keysyms.first) * keysyms.perCode
    guard base + 1 < keysyms.symbols.count else { return nil }
    let lower = keysyms.symbols[base]
    let upper = keysyms.symbols[base + 1] != 0 ? keysyms.symbols[base + 1] : lower
    let shift = state & UInt16(XCB_MOD_MASK_SHIFT.rawValue) != 0
    let lock = state & UInt16(XCB_MOD_MASK_LOCK.rawValue) != 0
    // Lock capitalizes letters only.
    let letter = (0x61...0x7a).contains(lower)
    return shift != (lock && letter) ? upper : lower
  }

  private func readKeyboardMapping() {
    let setup = xcb_get_setup(connection)!.pointee
    let count = UInt8(Int(setup.max_keycode) - Int(setup.min_keycode) + 1)
    let cookie = xcb_get_keyboard_mapping(connection, setup.min_keycode, count)
    guard let reply = xcb_get_keyboard_mapping_reply(connection, cookie, nil) else { return }
    defer { free(reply) }
    let length = Int(xcb_get_keyboard_mapping_keysyms_length(reply))
    let symbols = Array(UnsafeBufferPointer(start: xcb_get_keyboard_mapping_keysyms(reply), count: length))
    keysyms = (setup.min_keycode, Int(reply.pointee.keysyms_per_keycode), symbols)
  }

  /// Gives the keyboard to `window`, or (0) back to whatever the pointer is over.
  func focusKeyboard(on window: xcb_window_t) {
    let target = window == 0 ? xcb_window_t(XCB_INPUT_FOCUS_POINTER_ROOT.rawValue) : window
    xcb_set_input_focus(
      connection, UInt8(XCB_INPUT_FOCUS_POINTER_ROOT.rawValue), target, xcb_timestamp_t(XCB_CURRENT_TIME))
  }

  /// Frees what the connection made and closes it.
  func disconnect() {
    if !hasError {
      if watcher != 0 { xcb_destroy_window(connection, watcher) }
      if graphics != 0 { xcb_free_gc(connection, graphics) }
      if colormap != 0 { xcb_free_colormap(connection, colormap) }
      _ = flush()
    }
    xcb_disconnect(connection)
  }

  // MARK: - Set-up

  private static func internAtoms(_ connection: OpaquePointer, screenNumber: Int32) -> Atoms {
    let names = [
      "_NET_WM_WINDOW_TYPE", "_NET_WM_WINDOW_TYPE_NOTIFICATION", "_NET_WM_NAME", "UTF8_STRING",
      "_NET_WM_STATE", "_NET_WM_STATE_ABOVE", "_NET_WM_CM_S\(screenNumber)", "_NET_ACTIVE_WINDOW",
      "_NET_WM_STATE_FULLSCREEN",
    ]
    let cookies = names.map { name in xcb_intern_atom(connection, 0, UInt16(name.utf8.count), name) }
    let values = cookies.map { cookie -> xcb_atom_t in
      guard let reply = xcb_intern_atom_reply(connection, cookie, nil) else { return 0 }
      defer { free(reply) }
      return reply.pointee.atom
    }
    return Atoms(
      windowType: values[0], notification: values[1], name: values[2], utf8String: values[3],
      state: values[4], above: values[5], compositorSelection: values[6], activeWindow: values[7],
      fullscreen: values[8])
  }

  private static func argbVisual(of screen: UnsafeMutablePointer<xcb_screen_t>) -> xcb_visualid_t? {
    var depths = xcb_screen_allowed_depths_iterator(screen)
    while depths.rem > 0 {
      if depths.data.pointee.depth == 32 {
        var visuals = xcb_depth_visuals_iterator(depths.data)
        while visuals.rem > 0 {
          let visual = visuals.data.pointee
          if visual._class == UInt8(XCB_VISUAL_CLASS_TRUE_COLOR.rawValue), visual.red_mask == 0xff_0000,
            visual.green_mask == 0xff00, visual.blue_mask == 0xff
          {
            return visual.visual_id
          }
          xcb_visualtype_next(&visuals)
        }
      }
      xcb_depth_next(&depths)
    }
    return nil
  }

  /// A graphics context for drawables of the popups' depth, made on a pixmap freed at once.
  private func makeGraphics() {
    let pixmap = xcb_generate_id(connection)
    xcb_create_pixmap(connection, depth, pixmap, root, 1, 1)
    graphics = xcb_generate_id(connection)
    xcb_create_gc(connection, graphics, pixmap, 0, nil)
    xcb_free_pixmap(connection, pixmap)
  }

  private func queryExtensions() {
    if let randr = xcb_get_extension_data(connection, notifyd_xcb_randr_id()), randr.pointee.present != 0 {
      let version = xcb_randr_query_version_reply(connection, xcb_randr_query_version(connection, 1, 5), nil)
      if let version {
        if version.pointee.major_version > 1 || version.pointee.minor_version >= 5 {
          randrEvents = randr.pointee.first_event
          let mask =
            XCB_RANDR_NOTIFY_MASK_SCREEN_CHANGE.rawValue | XCB_RANDR_NOTIFY_MASK_OUTPUT_CHANGE.rawValue
            | XCB_RANDR_NOTIFY_MASK_CRTC_CHANGE.rawValue
          xcb_randr_select_input(connection, root, UInt16(mask))
        }
        free(version)
      }
    }
    if let xfixes = xcb_get_extension_data(connection, notifyd_xcb_xfixes_id()), xfixes.pointee.present != 0 {
      let version = xcb_xfixes_query_version_reply(
        connection, xcb_xfixes_query_version(connection, 5, 0), nil)
      if let version {
        free(version)
        xfixesEvents = xfixes.pointee.first_event
        watcher = xcb_generate_id(connection)
        xcb_create_window(
          connection, 0, watcher, root, -1, -1, 1, 1, 0, UInt16(XCB_WINDOW_CLASS_INPUT_ONLY.rawValue),
          0, 0, nil)
        let mask =
          XCB_XFIXES_SELECTION_EVENT_MASK_SET_SELECTION_OWNER.rawValue
          | XCB_XFIXES_SELECTION_EVENT_MASK_SELECTION_WINDOW_DESTROY.rawValue
          | XCB_XFIXES_SELECTION_EVENT_MASK_SELECTION_CLIENT_CLOSE.rawValue
        xcb_xfixes_select_selection_input(connection, watcher, atoms.compositorSelection, mask)
      }
    }
    if let shape = xcb_get_extension_data(connection, notifyd_xcb_shape_id()) {
      hasShape = shape.pointee.present != 0
    }
  }

  // MARK: - What the server says

  /// Reads the monitors again (RandR 1.5; one round trip once their names are known); without
  /// RandR the whole screen is one monitor. Returns whether they changed.
  @discardableResult
  func readMonitors() -> Bool {
    var found: [X11Monitor] = []
    if randrEvents != nil,
      let reply = xcb_randr_get_monitors_reply(connection, xcb_randr_get_monitors(connection, root, 1), nil)
    {
      defer { free(reply) }
      var iterator = xcb_randr_get_monitors_monitors_iterator(reply)
      var unnamed: [xcb_atom_t: xcb_get_atom_name_cookie_t] = [:]
      var infos: [xcb_randr_monitor_info_t] = []
      while iterator.rem > 0 {
        let info = iterator.data.pointee
        infos.append(info)
        if monitorNames[info.name] == nil, unnamed[info.name] == nil {
          unnamed[info.name] = xcb_get_atom_name(connection, info.name)
        }
        xcb_randr_monitor_info_next(&iterator)
      }
      for (atom, cookie) in unnamed {
        guard let reply = xcb_get_atom_name_reply(connection, cookie, nil) else { continue }
        let length = Int(xcb_get_atom_name_name_length(reply))
        let bytes = UnsafeRawBufferPointer(start: xcb_get_atom_name_name(reply), count: length)
        monitorNames[atom] = String(decoding: bytes, as: UTF8.self)
        free(reply)
      }
      for info in infos where info.width > 0 && info.height > 0 {
        found.append(
          X11Monitor(
            name: monitorNames[info.name] ?? "", x: Int(info.x), y: Int(info.y), width: Int(info.width),
            height: Int(info.height), primary: info.primary != 0))
      }
    }
    if found.isEmpty {
      found = [
        X11Monitor(
          name: "screen", x: 0, y: 0, width: Int(screen.pointee.width_in_pixels),
          height: Int(screen.pointee.height_in_pixels), primary: true)
      ]
    }
    defer { monitors = found }
    return found != monitors
  }

  /// Asks who owns the compositing manager's selection; returns whether that changed.
  @discardableResult
  func readCompositor() -> Bool {
    var owned = false
    let cookie = xcb_get_selection_owner(connection, atoms.compositorSelection)
    if let reply = xcb_get_selection_owner_reply(connection, cookie, nil) {
      owned = reply.pointee.owner != 0
      free(reply)
    }
    defer { composited = owned }
    return owned != composited
  }

  /// Milliseconds since the last input on this screen (MIT-SCREEN-SAVER), or `nil` when the server
  /// lacks the extension.
  func millisecondsSinceInput() -> UInt32? {
    guard let extensionData = xcb_get_extension_data(connection, notifyd_xcb_screensaver_id()),
      extensionData.pointee.present != 0,
      let reply = xcb_screensaver_query_info_reply(
        connection, xcb_screensaver_query_info(connection, root), nil)
    else { return nil }
    defer { free(reply) }
    return reply.pointee.ms_since_user_input
  }

  /// Where the pointer is on the root window, if it is on this screen.
  func pointerPosition() -> (x: Int, y: Int)? {
    guard let reply = xcb_query_pointer_reply(connection, xcb_query_pointer(connection, root), nil) else {
      return nil
    }
    defer { free(reply) }
    guard reply.pointee.same_screen != 0 else { return nil }
    return (Int(reply.pointee.root_x), Int(reply.pointee.root_y))
  }

  /// The window the window manager says has the keyboard (the root window's `_NET_ACTIVE_WINDOW`);
  /// nil when it names none.
  func activeWindow() -> xcb_window_t? {
    let cookie = xcb_get_property(connection, 0, root, atoms.activeWindow, XCB_ATOM_WINDOW.rawValue, 0, 1)
    guard let reply = xcb_get_property_reply(connection, cookie, nil) else { return nil }
    defer { free(reply) }
    guard xcb_get_property_value_length(reply) >= 4, let value = xcb_get_property_value(reply) else {
      return nil
    }
    let window = value.load(as: xcb_window_t.self)
    return window == 0 || window == root ? nil : window
  }

  /// The most states of a window read (`_NET_WM_STATE` holds a handful).
  static let maximumStates: UInt32 = 64

  /// Whether the window with the keyboard is fullscreen: `_NET_WM_STATE_FULLSCREEN` among the
  /// states of `_NET_ACTIVE_WINDOW`. Its states are followed from now on (`PropertyNotify`).
  func activeWindowIsFullscreen() -> Bool {
    guard let window = activeWindow() else { return false }
    if window != watchedWindow {
      // Our own mask on a window of another client: the window manager's changes of its state
      // come to us; the window watched before is let go. Checked requests whose errors are
      // dropped: a window gone by now is no error of ours (and answers no state below).
      if let previous = watchedWindow { selectProperties(of: previous, false) }
      selectProperties(of: window, true)
      watchedWindow = window
    }
    let cookie = xcb_get_property(
      connection, 0, window, atoms.state, XCB_ATOM_ATOM.rawValue, 0, Self.maximumStates)
    guard let reply = xcb_get_property_reply(connection, cookie, nil) else { return false }
    defer { free(reply) }
    let count = Int(xcb_get_property_value_length(reply)) / MemoryLayout<xcb_atom_t>.size
    guard count > 0, let value = xcb_get_property_value(reply) else { return false }
    let states = UnsafeBufferPointer(start: value.assumingMemoryBound(to: xcb_atom_t.self), count: count)
    return states.contains(atoms.fullscreen)
  }

  /// The window whose states are followed: the active one when last asked.
  private(set) var watchedWindow: xcb_window_t?

  /// Asks for (`on`), or stops, the `PropertyNotify` events of another client's window `window`.
  private func selectProperties(of window: xcb_window_t, _ on: Bool) {
    var mask = on ? XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue : 0
    let cookie = xcb_change_window_attributes_checked(connection, window, XCB_CW_EVENT_MASK.rawValue, &mask)
    xcb_discard_reply(connection, cookie.sequence)
  }

  /// The middle of the window the window manager says has the keyboard (the root window's
  /// `_NET_ACTIVE_WINDOW`), on the root window; nil when none is named, or it is gone.
  func activeWindowCentre() -> (x: Int, y: Int)? {
    guard let window = activeWindow() else { return nil }
    // The window's size, and where its corner is on the root window (a window manager reparents
    // it into a frame: its own position is the frame's offset).
    let geometry = xcb_get_geometry(connection, window)
    let translation = xcb_translate_coordinates(connection, window, root, 0, 0)
    let size = xcb_get_geometry_reply(connection, geometry, nil)
    let corner = xcb_translate_coordinates_reply(connection, translation, nil)
    defer {
      free(size)
      free(corner)
    }
    guard let size, let corner else { return nil }
    return (
      Int(corner.pointee.dst_x) + Int(size.pointee.width) / 2,
      Int(corner.pointee.dst_y) + Int(size.pointee.height) / 2
    )
  }

  /// The monitor popups go to: the one named `output`, else (with `followFocus`) the one under
  /// the pointer or the one the active window's middle is on (the primary one if it is, else the
  /// smallest: monitors may overlap), else the primary one, else the first.
  func monitor(named output: String?, followFocus: FollowFocus) -> X11Monitor {
    if let output, let named = monitors.first(where: { $0.name == output }) { return named }
    let point: (x: Int, y: Int)?
    switch followFocus {
    case .no: point = nil
    case .mouse: point = pointerPosition()
    case .keyboard: point = activeWindowCentre()
    }
    if let point {
      let under = monitors.filter { $0.contains(x: point.x, y: point.y) }
      if let chosen = under.first(where: \.primary)
        ?? under.min(by: { $0.width * $0.height < $1.width * $1.height })
      {
        return chosen
      }
    }
    return monitors.first(where: \.primary) ?? monitors[0]
  }

  // MARK: - Summary

  /// What the log and `notifyd --check-config` say of this display: where it is, its monitors,
  /// and whether popups fade there (a compositing manager runs) or appear and vanish at the phase
  /// boundaries.
  var summary: String {
    let monitors = monitors.map(\.description).joined(separator: ", ")
    let place = "X11 at DISPLAY=\(displayName) (\(monitors))"
    if fades { return "\(place): a compositing manager runs, popups fade" }
    let why =
      depth == 32
      ? "no compositing manager owns _NET_WM_CM_S\(screenNumber)" : "the X server has no 32-bit visual"
    return "\(place): \(why); popups appear at the end of their fade-in and vanish at the start of "
      + "their fade-out"
  }
}
