import CPangoCairo
import CXcb
import Glibc
import NotifyCore
import NotifyDisplay
import NotifyPosix
import NotifyProtocol

/// One card on an X server: an override-redirect window of its own, and while it moves (fades or
/// spins) the rendered card and the frame copied to the window.
final class X11Popup: PopupSurface {
  /// Its card on its monitor, as the display machine knows it.
  var key: SurfaceKey
  let window: xcb_window_t
  var shown: ShownCard
  /// The card's width (its look's) and height in logical pixels.
  var width: Int { shown.card.look.width }
  var height: Int { shown.height }
  /// Device pixels per logical pixel: the window is the card's size times this.
  let scale: Double
  private var deviceWidth: Int { CardPainter.devicePixels(width, scale: scale) }
  private var deviceHeight: Int { CardPainter.devicePixels(height, scale: scale) }
  /// The card at full opacity; kept only while the card moves.
  var image: OpaquePointer?
  /// The frame's pixels, copied to the window with `PutImage`; kept only while the card moves.
  private var frame: OpaquePointer?
  private(set) var mapped = false
  /// Where the window was put last, and the size it was given (logical pixels).
  private var geometry: (x: Int, y: Int, width: Int, height: Int)?
  /// The bounding shape set: rounded (nothing composites) or none (alpha draws the corners), for a
  /// size and radius.
  private var shape: (rounded: Bool, width: Int, height: Int, radius: Int)?
  /// When the popup appeared, for the activity indicator's sweep.
  let appeared = Posix.monotonicNow()

  init(key: SurfaceKey, shown: ShownCard, scale: Double, connection: X11Connection) {
    self.key = key
    self.shown = shown
    self.scale = scale
    window = X11Window.make(
      width: CardPainter.devicePixels(shown.card.look.width, scale: scale),
      height: CardPainter.devicePixels(shown.height, scale: scale),
      connection)
  }

  /// Moves the window to (`x`, `y`) on the root window (device pixels), and gives it the card's
  /// size.
  func move(x: Int, y: Int, _ connection: X11Connection) {
    guard geometry.map({ $0 != (x, y, width, height) }) ?? true else { return }
    geometry = (x, y, width, height)
    var values = xcb_configure_window_value_list_t()
    values.x = Int32(x)
    values.y = Int32(y)
    values.width = UInt32(deviceWidth)
    values.height = UInt32(deviceHeight)
    let mask =
      XCB_CONFIG_WINDOW_X.rawValue | XCB_CONFIG_WINDOW_Y.rawValue | XCB_CONFIG_WINDOW_WIDTH.rawValue
      | XCB_CONFIG_WINDOW_HEIGHT.rawValue
    xcb_configure_window_aux(connection.connection, window, UInt16(mask), &values)
  }

  /// Puts the window above its siblings (a fullscreen window raised over it).
  func raise(_ connection: X11Connection) {
    var values = xcb_configure_window_value_list_t()
    values.stack_mode = XCB_STACK_MODE_ABOVE.rawValue
    xcb_configure_window_aux(
      connection.connection, window, UInt16(XCB_CONFIG_WINDOW_STACK_MODE.rawValue), &values)
  }

  /// Maps the window above the others, or unmaps it.
  func setMapped(_ mapped: Bool, _ connection: X11Connection) {
    self.mapped = mapped
    if mapped {
      raise(connection)
      xcb_map_window(connection.connection, window)
    } else {
      xcb_unmap_window(connection.connection, window)
    }
  }

  /// Cuts the window's corners round to its card's look's radius (`rounded`: nothing composites, so
  /// the card's transparent corners would show black), or takes the cut away (the alpha draws them).
  func setShape(rounded: Bool, _ connection: X11Connection) {
    let radius = shown.card.look.cornerRadius
    guard connection.hasShape, shape.map({ $0 != (rounded, width, height, radius) }) ?? true else { return }
    shape = (rounded, width, height, radius)
    let operation = UInt8(XCB_SHAPE_SO_SET.rawValue)
    let kind = UInt8(XCB_SHAPE_SK_BOUNDING.rawValue)
    guard rounded, radius > 0 else {
      xcb_shape_mask(connection.connection, operation, kind, window, 0, 0, 0)
      return
    }
    let rectangles = Self.roundedRectangles(
      width: deviceWidth, height: deviceHeight, radius: Int((Double(radius) * scale).rounded()))
    rectangles.withUnsafeBufferPointer { list in
      _ = xcb_shape_rectangles(
        connection.connection, operation, kind, UInt8(XCB_CLIP_ORDERING_UNSORTED.rawValue), window, 0, 0,
        UInt32(list.count), list.baseAddress)
    }
  }

  /// A rounded rectangle as rows: one rectangle per pixel row of each corner, one for the middle.
  static func roundedRectangles(width: Int, height: Int, radius: Int) -> [xcb_rectangle_t] {
    let radius = min(radius, width / 2, height / 2)
    var rows: [xcb_rectangle_t] = []
    for row in 0..<radius {
      let distance = Double(radius) - Double(row) - 0.5
      let inset = Int(
        (Double(radius) - (Double(radius * radius) - distance * distance).squareRoot()).rounded())
      let span = UInt16(max(width - 2 * inset, 0))
      rows.append(xcb_rectangle_t(x: Int16(inset), y: Int16(row), width: span, height: 1))
      rows.append(xcb_rectangle_t(x: Int16(inset), y: Int16(height - 1 - row), width: span, height: 1))
    }
    rows.append(
      xcb_rectangle_t(
        x: 0, y: Int16(radius), width: UInt16(width), height: UInt16(max(height - 2 * radius, 0))))
    return rows
  }

  /// The frame buffer, made when first needed (a change of height discards it with the image).
  func frameBuffer() -> OpaquePointer {
    if let frame { return frame }
    let made = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(deviceWidth), Int32(deviceHeight))!
    frame = made
    return made
  }

  /// Copies `frame` to the window.
  func put(_ frame: OpaquePointer, _ connection: X11Connection) {
    X11Window.put(frame, to: window, width: deviceWidth, height: deviceHeight, connection)
  }

  /// Lets the rendered card and the frame go; they are made again when next drawn.
  func discardImages() {
    if let image { cairo_surface_destroy(image) }
    if let frame { cairo_surface_destroy(frame) }
    image = nil
    frame = nil
  }

  /// Destroys the window and frees the images.
  func destroy(_ connection: X11Connection) {
    xcb_destroy_window(connection.connection, window)
    discardImages()
  }
}
