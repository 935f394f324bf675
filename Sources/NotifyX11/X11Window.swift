import CPangoCairo
import CXcb
import Glibc
import NotifyConfig
import NotifyDisplay

/// What every window of notifyd's on an X server shares, popup or center: made override-redirect
/// in the connection's visual, named and typed as a notification, and given pixels by `PutImage`.
enum X11Window {
  /// A new unmapped window `width` × `height` at the root's origin, taking the pointer's and the
  /// keyboard's events.
  static func make(width: Int, height: Int, _ connection: X11Connection) -> xcb_window_t {
    let window = xcb_generate_id(connection.connection)
    var values = xcb_create_window_value_list_t()
    values.background_pixel = 0
    values.border_pixel = 0
    values.override_redirect = 1
    values.event_mask =
      XCB_EVENT_MASK_EXPOSURE.rawValue | XCB_EVENT_MASK_BUTTON_PRESS.rawValue
      | XCB_EVENT_MASK_POINTER_MOTION.rawValue | XCB_EVENT_MASK_ENTER_WINDOW.rawValue
      | XCB_EVENT_MASK_LEAVE_WINDOW.rawValue | XCB_EVENT_MASK_KEY_PRESS.rawValue
      | XCB_EVENT_MASK_FOCUS_CHANGE.rawValue
    values.colormap = connection.colormap
    var mask =
      XCB_CW_BACK_PIXEL.rawValue | XCB_CW_BORDER_PIXEL.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue
      | XCB_CW_EVENT_MASK.rawValue
    if connection.colormap != 0 { mask |= XCB_CW_COLORMAP.rawValue }
    xcb_create_window_aux(
      connection.connection, connection.depth, window, connection.root, 0, 0, UInt16(width), UInt16(height),
      0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), connection.visual, mask, &values)
    let atoms = connection.atoms
    setProperty(
      atoms.windowType, of: window, type: XCB_ATOM_ATOM.rawValue, atoms: [atoms.notification], connection)
    setProperty(atoms.state, of: window, type: XCB_ATOM_ATOM.rawValue, atoms: [atoms.above], connection)
    setText(atoms.name, of: window, type: atoms.utf8String, "notifyd", connection)
    setText(XCB_ATOM_WM_NAME.rawValue, of: window, type: XCB_ATOM_STRING.rawValue, "notifyd", connection)
    // WM_CLASS: instance and class, each ending in NUL.
    setText(
      XCB_ATOM_WM_CLASS.rawValue, of: window, type: XCB_ATOM_STRING.rawValue, "notifyd\0notifyd\0", connection
    )
    return window
  }

  private static func setProperty(
    _ property: xcb_atom_t, of window: xcb_window_t, type: xcb_atom_t, atoms: [xcb_atom_t],
    _ connection: X11Connection
  ) {
    guard property != 0 else { return }
    atoms.withUnsafeBufferPointer { values in
      _ = xcb_change_property(
        connection.connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, property, type, 32,
        UInt32(values.count), values.baseAddress)
    }
  }

  private static func setText(
    _ property: xcb_atom_t, of window: xcb_window_t, type: xcb_atom_t, _ text: String,
    _ connection: X11Connection
  ) {
    guard property != 0, type != 0 else { return }
    var text = text
    text.withUTF8 { bytes in
      _ = xcb_change_property(
        connection.connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, property, type, 8,
        UInt32(bytes.count), bytes.baseAddress)
    }
  }

  /// Copies `frame` (`width` × `height`) to `window`: premultiplied ARGB32 is the ARGB visual's
  /// pixel format on a little-endian machine (and the depth-24 one's, the top byte ignored). In as
  /// few `PutImage` requests as the server's request size allows, each a band of whole rows.
  static func put(
    _ frame: OpaquePointer, to window: xcb_window_t, width: Int, height: Int, _ connection: X11Connection
  ) {
    let stride = Int(cairo_image_surface_get_stride(frame))
    guard let data = cairo_image_surface_get_data(frame), stride > 0 else { return }
    let headerBytes = 24
    let rowsPerRequest = max(1, (connection.maximumRequestBytes - headerBytes) / stride)
    var row = 0
    while row < height {
      let rows = min(rowsPerRequest, height - row)
      xcb_put_image(
        connection.connection, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), window, connection.graphics,
        UInt16(width), UInt16(rows), 0, Int16(row), 0, connection.depth, UInt32(rows * stride),
        data + row * stride)
      row += rows
    }
  }
}

/// The notification center on an X server (DESIGN §13): an override-redirect window on one edge of
/// the monitor, its full height, with the keyboard and the pointer grabbed while it is open, so that
/// a click outside comes to it (and closes it).
final class X11Center {
  let window: xcb_window_t
  /// Its size in logical pixels; the window's is that times `scale`.
  let width: Int
  let height: Int
  let scale: Double
  private let deviceWidth: Int
  private let deviceHeight: Int
  /// The frame's pixels, copied to the window.
  private let frame: OpaquePointer

  init(settings: CenterSettings, monitor: X11Monitor, scale: Double, _ connection: X11Connection) {
    self.scale = scale
    width = min(settings.width, Int(Double(monitor.width) / scale))
    height = Int(Double(monitor.height) / scale)
    deviceWidth = min(CardPainter.devicePixels(width, scale: scale), monitor.width)
    deviceHeight = monitor.height
    window = X11Window.make(width: deviceWidth, height: deviceHeight, connection)
    frame = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(deviceWidth), Int32(deviceHeight))!
    var values = xcb_configure_window_value_list_t()
    values.x = Int32(settings.anchor == .right ? monitor.x + monitor.width - deviceWidth : monitor.x)
    values.y = Int32(monitor.y)
    values.stack_mode = XCB_STACK_MODE_ABOVE.rawValue
    let mask =
      XCB_CONFIG_WINDOW_X.rawValue | XCB_CONFIG_WINDOW_Y.rawValue | XCB_CONFIG_WINDOW_STACK_MODE.rawValue
    xcb_configure_window_aux(connection.connection, window, UInt16(mask), &values)
    xcb_map_window(connection.connection, window)
    connection.focusKeyboard(on: window)
    let events = XCB_EVENT_MASK_BUTTON_PRESS.rawValue | XCB_EVENT_MASK_POINTER_MOTION.rawValue
    let asynchronous = UInt8(XCB_GRAB_MODE_ASYNC.rawValue)
    // The events of our own window as usual; a press anywhere else comes to it too.
    _ = xcb_grab_pointer(
      connection.connection, 1, window, UInt16(events), asynchronous, asynchronous, xcb_window_t(XCB_NONE),
      xcb_cursor_t(XCB_NONE), xcb_timestamp_t(XCB_CURRENT_TIME))
    _ = xcb_grab_keyboard(
      connection.connection, 1, window, xcb_timestamp_t(XCB_CURRENT_TIME), asynchronous, asynchronous)
  }

  /// Whether (`x`, `y`), in device pixels relative to the window, is on it.
  func contains(x: Int, y: Int) -> Bool { x >= 0 && y >= 0 && x < deviceWidth && y < deviceHeight }

  /// Draws a frame with `paint` and copies it to the window.
  func draw(_ connection: X11Connection, paint: (OpaquePointer) -> Void) {
    paint(frame)
    X11Window.put(frame, to: window, width: deviceWidth, height: deviceHeight, connection)
  }

  /// Lets the pointer and keyboard go and destroys the window.
  func destroy(_ connection: X11Connection) {
    xcb_ungrab_pointer(connection.connection, xcb_timestamp_t(XCB_CURRENT_TIME))
    xcb_ungrab_keyboard(connection.connection, xcb_timestamp_t(XCB_CURRENT_TIME))
    xcb_destroy_window(connection.connection, window)
    connection.focusKeyboard(on: 0)
    cairo_surface_destroy(frame)
  }
}
