import CPangoCairo
import Foundation
import NotifyConfig
import NotifyCore
import NotifyIcons
import NotifyPosix
import NotifyProtocol

/// Draws cards with cairo and pango: measures a card for a width, renders it at full opacity into
/// an image of its own, and copies that image into a frame's buffer at the engine's opacity.
///
/// Text is shaped by pango (CJK, emoji, right to left), wrapped at word or character boundaries
/// and cut with `…` after a few lines. The title is always plain text; the body is the
/// freedesktop markup subset (`BodyMarkup`), turned into pango attributes — never parsed as pango
/// markup.
///
/// - Important: not thread-safe; one painter per display thread.
public final class CardPainter {
  public let settings: DisplaySettings
  /// The fonts of `[Display]`'s look (the center's), and those of every other font and scale a look
  /// names.
  private let base: Fonts
  private var fonts: [FontKey: Fonts] = [:]
  /// A 1×1 surface to lay text out on when measuring.
  private let measuringSurface: OpaquePointer
  let measuringContext: OpaquePointer
  /// Icons read lately (a card's, a button's), with the file's identity when read (nil surface:
  /// not an image).
  private var icons: [IconKey: (stamp: FileStamp, surface: OpaquePointer?)] = [:]
  /// Where icons given by name (a card's, the buttons' of `action-icons`) are found.
  private let iconTheme: IconTheme
  /// The most icons kept read (48×48 pixels each at scale 1, 96×96 at 2).
  static let iconsKept = 24

  /// An icon file read for an edge of `pixels` device pixels, in `tint` when it is symbolic.
  private struct IconKey: Hashable {
    var path: String
    var pixels: Int
    var tint: RGBA?
  }

  static let titleLines: Int32 = 2
  /// Seconds for the activity indicator to sweep across and back.
  public static let activityPeriod = 1.6
  /// Pixels around a button's label.
  static let buttonPadding = 6.0

  /// A font description at a `FontScale=`.
  struct FontKey: Hashable {
    var description: String
    var scale: Double
  }

  /// The size a font without one is drawn at, in points: pango's own default.
  static let defaultPoints = 10.0

  /// A font's faces — the body's, the title's bold, the app line's smaller one — and the height of
  /// a button labelled in it.
  final class Fonts {
    let body: OpaquePointer
    let title: OpaquePointer
    let app: OpaquePointer
    let buttonHeight: Double

    init(_ key: FontKey, measuringOn context: OpaquePointer) {
      body = pango_font_description_from_string(key.description)
      if key.scale != 1 {
        // Pango units (1024 a point, or a pixel when absolute), kept within Int32 at any scale.
        let size = Double(pango_font_description_get_size(body))
        let scaled = Int32(min((size > 0 ? size : CardPainter.defaultPoints * 1024) * key.scale, 1e9))
        if pango_font_description_get_size_is_absolute(body) != 0 {
          pango_font_description_set_absolute_size(body, Double(scaled))
        } else {
          pango_font_description_set_size(body, scaled)
        }
      }
      title = pango_font_description_copy(body)
      pango_font_description_set_weight(title, PANGO_WEIGHT_BOLD)
      app = pango_font_description_copy(body)
      let size = pango_font_description_get_size(body)
      // In pango units (1024 a point): a config may give sizes whose 85 % overflows Int32 arithmetic.
      if size > 0 { pango_font_description_set_size(app, Int32(Int64(size) * 85 / 100)) }
      buttonHeight = CardPainter.lineHeight(of: body, on: context) + 2 * CardPainter.buttonPadding
    }

    deinit {
      pango_font_description_free(body)
      pango_font_description_free(title)
      pango_font_description_free(app)
    }
  }

  /// `[Display]`'s font (the center's), its bold, its smaller face, and a button's height in it.
  var font: OpaquePointer { base.body }
  var titleFont: OpaquePointer { base.title }
  var appFont: OpaquePointer { base.app }
  public var buttonHeight: Double { base.buttonHeight }

  public init(settings: DisplaySettings, environment: [String: String] = ProcessInfo.processInfo.environment)
  {
    self.settings = settings
    iconTheme = IconTheme.named(settings.iconTheme, environment: environment)
    measuringSurface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1)
    measuringContext = cairo_create(measuringSurface)
    let look = settings.look(for: .normal)
    let key = FontKey(description: look.font, scale: look.fontScale)
    base = Fonts(key, measuringOn: measuringContext)
    fonts[key] = base
  }

  /// The faces of `look`'s font at its scale, made the first time a look names them (a config names
  /// a few).
  func fonts(_ look: CardLook) -> Fonts {
    let key = FontKey(description: look.font, scale: look.fontScale)
    if let made = fonts[key] { return made }
    let made = Fonts(key, measuringOn: measuringContext)
    fonts[key] = made
    return made
  }

  /// The height of a line of `font` laid out on `context`, in pixels.
  static func lineHeight(of font: OpaquePointer, on context: OpaquePointer) -> Double {
    let line = pango_cairo_create_layout(context)!
    defer { g_object_unref(UnsafeMutableRawPointer(line)) }
    pango_layout_set_font_description(line, font)
    pango_layout_set_text(line, "Ag…", -1)
    var width: Int32 = 0
    var height: Int32 = 0
    pango_layout_get_pixel_size(line, &width, &height)
    return Double(height)
  }

  deinit {
    cairo_destroy(measuringContext)
    cairo_surface_destroy(measuringSurface)
    for entry in icons.values { entry.surface.map { cairo_surface_destroy($0) } }
  }

  /// Device pixels for `logical` pixels at `scale` (whole ones, rounded up).
  public static func devicePixels(_ logical: Int, scale: Double) -> Int {
    max(1, Int((Double(logical) * scale).rounded(.up)))
  }

  /// The scale `surface` is drawn at: its device pixels per logical pixel.
  public static func scale(of surface: OpaquePointer) -> Double {
    var x = 1.0
    var y = 1.0
    cairo_surface_get_device_scale(surface, &x, &y)
    return x
  }

  /// `value` (logical pixels) moved to a whole device pixel at `scale`, by `rule`.
  static func snapped(
    _ value: Double, scale: Double, _ rule: FloatingPointRoundingRule = .down
  ) -> Double {
    (value * scale).rounded(rule) / scale
  }

  /// An image surface's size in logical pixels (its pixels over its device scale).
  static func logicalSize(of image: OpaquePointer) -> (width: Double, height: Double) {
    let scale = scale(of: image)
    return (
      Double(cairo_image_surface_get_width(image)) / scale,
      Double(cairo_image_surface_get_height(image)) / scale
    )
  }

  /// The card's height in logical pixels at its look's width.
  public func height(of card: Card) -> Int {
    let icon = self.icon(card)
    let blocks = textBlocks(card, context: measuringContext, width: textWidth(card.look, icon: icon != nil))
    defer { blocks.forEach { g_object_unref(UnsafeMutableRawPointer($0.layout)) } }
    return Int(layoutHeight(card, blocks, icon: icon != nil).rounded(.up))
  }

  /// Renders `card` at full opacity, `height` logical pixels high, at `scale` device pixels to a
  /// logical one (text, corners, bars and icons drawn at the device's resolution, not scaled up),
  /// but for the activity indicator's moving segment (`composite` draws that, each frame). The
  /// image carries its scale (`cairo_surface_set_device_scale`), so that it is drawn in logical
  /// pixels; the caller owns it.
  public func render(_ card: Card, height: Int, scale: Double = 1) -> OpaquePointer {
    let surface = cairo_image_surface_create(
      CAIRO_FORMAT_ARGB32, Int32(Self.devicePixels(card.look.width, scale: scale)),
      Int32(Self.devicePixels(height, scale: scale)))!
    cairo_surface_set_device_scale(surface, scale, scale)
    let context = cairo_create(surface)!
    defer { cairo_destroy(context) }
    let look = card.look
    let colours = look.colours
    let padding = Double(look.padding)
    drawBackground(context, card, height: height)

    let icon = self.icon(card, scale: scale)
    if let icon {
      let size = Double(look.iconSize)
      paint(icon, centredIn: (padding, padding, size, size), context)
    }
    let textLeft = padding + (icon == nil ? 0 : Double(look.iconSize) + padding)
    let blocks = textBlocks(card, context: context, width: textWidth(look, icon: icon != nil))
    defer { blocks.forEach { g_object_unref(UnsafeMutableRawPointer($0.layout)) } }
    var y = padding
    for block in blocks {
      y += block.spaceBefore
      var colour = colours.foreground
      colour.alpha *= block.dim ? 0.65 : 1
      setSource(context, colour)
      cairo_move_to(context, textLeft, y)
      pango_cairo_show_layout(context, block.layout)
      y += block.height
    }
    let fonts = fonts(look)
    let geometry = geometry(of: card, height: height)
    for button in geometry.buttons {
      drawButton(
        context, button,
        icon: card.actionIcons
          ? buttonIcon(for: button.target, height: button.height, scale: scale, colour: colours.foreground)
          : nil,
        font: fonts.body, colours: colours, highlighted: card.highlighted == button.target)
    }
    if let field = geometry.field {
      drawField(context, field, typed: card.typed, font: fonts.body, colours: colours)
    }
    if card.kind == .progress {
      drawBar(
        context, x: padding, y: geometry.barTop, width: CardGeometry.innerWidth(look), value: card.value,
        colours: colours)
    }
    cairo_surface_flush(surface)
    return surface
  }

  /// Draws again, into `image` (`old` rendered `height` logical pixels high), what differs in `new` when
  /// only the lit button or the reply field's text changed: those parts alone, each over the card's
  /// background drawn again under it, so the pixels are those `render(new)` gives. The pointer
  /// moving onto a button then costs a button's painting, not the card's: a click right behind it
  /// does not wait. Answers false, touching nothing, when anything else changed.
  public func redrawInput(_ image: OpaquePointer, from old: Card, to new: Card, height: Int) -> Bool {
    guard old.sameContent(as: new) else { return false }
    let geometry = geometry(of: new, height: height)
    var parts = geometry.buttons.filter { (old.highlighted == $0.target) != (new.highlighted == $0.target) }
    if old.typed != new.typed, let field = geometry.field { parts.append(field) }
    guard !parts.isEmpty else { return true }
    let context = cairo_create(image)!
    defer { cairo_destroy(context) }
    let colours = new.look.colours
    let font = fonts(new.look).body
    let scale = Self.scale(of: image)
    for part in parts {
      cairo_save(context)
      // Whole device pixels around the part and its antialiased edge: inside them nothing else is
      // drawn.
      let left = Self.snapped(part.x - 1, scale: scale)
      let top = Self.snapped(part.y - 1, scale: scale)
      let right = Self.snapped(part.x + part.width + 1, scale: scale, .up)
      let bottom = Self.snapped(part.y + part.height + 1, scale: scale, .up)
      cairo_rectangle(context, left, top, right - left, bottom - top)
      cairo_clip(context)
      cairo_set_operator(context, CAIRO_OPERATOR_SOURCE)
      cairo_set_source_rgba(context, 0, 0, 0, 0)
      cairo_paint(context)
      cairo_set_operator(context, CAIRO_OPERATOR_OVER)
      drawBackground(context, new, height: height)
      if part.target == .field {
        drawField(context, part, typed: new.typed, font: font, colours: colours)
      } else {
        drawButton(
          context, part,
          icon: new.actionIcons
            ? buttonIcon(for: part.target, height: part.height, scale: scale, colour: colours.foreground)
            : nil,
          font: font, colours: colours, highlighted: new.highlighted == part.target)
      }
      cairo_restore(context)
    }
    cairo_surface_flush(image)
    return true
  }

  /// Copies `image` of `card` into `target` (same size and scale, premultiplied ARGB) at `opacity`:
  /// the frame's pixels. An indicator without a value gets its segment `activity` seconds into its
  /// sweep drawn on top, so that a sweeping card costs a copy and a rectangle per frame.
  public func composite(
    _ image: OpaquePointer, of card: Card, into target: OpaquePointer, opacity: Double, activity: Double = 0
  ) {
    let context = cairo_create(target)!
    defer { cairo_destroy(context) }
    let opacity = min(max(opacity, 0), 1)
    cairo_set_operator(context, CAIRO_OPERATOR_SOURCE)
    cairo_set_source_rgba(context, 0, 0, 0, 0)
    cairo_paint(context)
    cairo_set_operator(context, CAIRO_OPERATOR_OVER)
    cairo_set_source_surface(context, image, 0, 0)
    cairo_paint_with_alpha(context, opacity)
    if card.isActivity {
      // A segment a third of the track wide, sweeping across and back, eased at the ends; standing
      // in the middle where the look asks for no motion.
      let track = CardGeometry.innerWidth(card.look)
      let segment = track / 3
      let phase = activity.truncatingRemainder(dividingBy: Self.activityPeriod) / Self.activityPeriod
      let travel = phase < 0.5 ? phase * 2 : 2 - phase * 2
      let eased = card.isAnimated ? travel * travel * (3 - 2 * travel) : 0.5
      var colours = card.look.colours
      colours.progress.alpha *= opacity
      drawFill(
        context, x: Double(card.look.padding) + (track - segment) * eased,
        y: geometry(of: card, height: Int(Self.logicalSize(of: target).height.rounded())).barTop,
        length: segment,
        colours: colours)
    }
    cairo_surface_flush(target)
  }

  // MARK: - Text

  private struct TextBlock {
    var layout: OpaquePointer
    var height: Double
    var spaceBefore: Double
    var dim: Bool
  }

  /// The text's width beside an icon, or without one.
  private func textWidth(_ look: CardLook, icon: Bool) -> Double {
    let inner = CardGeometry.innerWidth(look)
    return icon ? max(inner - Double(look.iconSize + look.padding), 1) : inner
  }

  private func textBlocks(_ card: Card, context: OpaquePointer, width: Double) -> [TextBlock] {
    var blocks: [TextBlock] = []
    func add(
      _ text: String, font: OpaquePointer, lines: Int32, attributes: OpaquePointer? = nil, dim: Bool = false
    ) {
      let layout = pango_cairo_create_layout(context)!
      pango_layout_set_font_description(layout, font)
      pango_layout_set_width(layout, Int32(width * Double(PANGO_SCALE)))
      pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
      pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
      pango_layout_set_height(layout, -lines)
      pango_layout_set_text(layout, text, -1)
      if let attributes { pango_layout_set_attributes(layout, attributes) }
      var width: Int32 = 0
      var height: Int32 = 0
      pango_layout_get_pixel_size(layout, &width, &height)
      blocks.append(
        TextBlock(layout: layout, height: Double(height), spaceBefore: blocks.isEmpty ? 0 : 4, dim: dim))
    }
    let look = card.look
    let fonts = fonts(look)
    func addMarkup(_ markup: String) {
      let (text, attributes) = Self.styled(BodyMarkup.runs(markup), link: look.colours.border)
      add(text, font: fonts.body, lines: Int32(look.maxLines), attributes: attributes)
      pango_attr_list_unref(attributes)
    }
    if let format = look.format {
      // One block: the format filled in with the notice's fields.
      addMarkup(
        format.markup(
          app: card.appName, title: card.title, body: card.body, host: card.host,
          value: card.kind == .progress ? card.value : nil))
      return blocks
    }
    if let app = card.app, !app.isEmpty { add(Self.plain(app), font: fonts.app, lines: 1, dim: true) }
    add(Self.plain(card.title), font: fonts.title, lines: Self.titleLines)
    if let body = card.body, !body.isEmpty { addMarkup(body) }
    return blocks
  }

  private func layoutHeight(_ card: Card, _ blocks: [TextBlock], icon: Bool) -> Double {
    var text = 0.0
    for block in blocks { text += block.spaceBefore + block.height }
    let look = card.look
    var height = Double(2 * look.padding) + max(text, icon ? Double(look.iconSize) : 0)
    if card.kind == .progress { height += 8 + CardGeometry.barHeight }
    return height
      + CardGeometry.footHeight(
        card, rowHeight: fonts(look).buttonHeight, maxButtons: settings.maxButtons)
  }

  // MARK: - Buttons

  /// A part of a card's foot, or of the center (`CardGeometry.Button`).
  public typealias Button = CardGeometry.Button

  /// Where the parts of `card`, `height` pixels high, are, in its font's measure.
  public func geometry(of card: Card, height: Int) -> CardGeometry {
    CardGeometry(
      card, height: height, rowHeight: fonts(card.look).buttonHeight, maxButtons: settings.maxButtons)
  }

  /// The buttons of `card`, `height` pixels high (`CardGeometry.buttons`).
  public func buttons(of card: Card, height: Int) -> [Button] { geometry(of: card, height: height).buttons }

  /// The reply field of `card`, `height` pixels high (`CardGeometry.field`).
  public func field(of card: Card, height: Int) -> Button? { geometry(of: card, height: height).field }

  /// What the point (`x`, `y`) of `card`, `height` pixels high, is on (`CardGeometry.target`).
  public func target(of card: Card, height: Int, x: Double, y: Double) -> CardTarget {
    geometry(of: card, height: height).target(x: x, y: y)
  }

  /// Buttons for `entries` in a row (`CardGeometry.row`), `height` high (default `[Display]`'s
  /// font's): an entry's in the center.
  func buttonRow(
    _ entries: [(CardTarget, String)], x: Double, y: Double, width: Double, height: Double? = nil
  ) -> [Button] {
    CardGeometry.row(entries, x: x, y: y, width: width, height: height ?? buttonHeight)
  }

  /// The reply field: what is typed with a caret after it while it has the keyboard (its end, when
  /// longer than the field), else the placeholder, dimmed; its border lit while it has the keyboard.
  func drawField(
    _ context: OpaquePointer, _ field: Button, typed: String?, font: OpaquePointer, colours: CardColours
  ) {
    let focused = typed != nil
    roundedRectangle(
      context, x: field.x + 0.5, y: field.y + 0.5, width: field.width - 1, height: field.height - 1, radius: 5
    )
    var fill = colours.foreground
    fill.alpha *= 0.08
    setSource(context, fill)
    cairo_fill_preserve(context)
    var edge = focused ? colours.border : colours.foreground
    edge.alpha *= focused ? 1 : 0.3
    setSource(context, edge)
    cairo_set_line_width(context, 1)
    cairo_stroke(context)
    let layout = pango_cairo_create_layout(context)!
    defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
    pango_layout_set_font_description(layout, font)
    let inner = max(field.width - 2 * Self.buttonPadding - 2, 1)
    pango_layout_set_width(layout, Int32(inner * Double(PANGO_SCALE)))
    pango_layout_set_single_paragraph_mode(layout, 1)
    let typed = typed ?? ""
    pango_layout_set_ellipsize(layout, typed.isEmpty ? PANGO_ELLIPSIZE_END : PANGO_ELLIPSIZE_START)
    pango_layout_set_text(layout, Self.plain(typed.isEmpty ? field.label : typed), -1)
    var width: Int32 = 0
    var height: Int32 = 0
    pango_layout_get_pixel_size(layout, &width, &height)
    var text = colours.foreground
    text.alpha *= typed.isEmpty ? 0.5 : 1
    setSource(context, text)
    let top = (field.y + (field.height - Double(height)) / 2).rounded(.down)
    cairo_move_to(context, field.x + Self.buttonPadding, top)
    pango_cairo_show_layout(context, layout)
    guard focused else { return }
    // The caret: after the text, or at the start before the placeholder.
    let caretX = field.x + Self.buttonPadding + (typed.isEmpty ? 0 : Double(width)) + 1
    setSource(context, colours.foreground)
    cairo_rectangle(context, caretX.rounded(.down), top, 1.5, Double(height))
    cairo_fill(context)
  }

  /// The icon the action key of `target` names, fitting a button `height` pixels high
  /// (`action-icons`), a symbolic one in `colour`; `nil` for "…" or a key no theme has an icon for
  /// (its label is drawn then).
  func buttonIcon(for target: CardTarget, height: Double, scale: Double, colour: RGBA) -> OpaquePointer? {
    // A key that is a path is no icon name: it would be read as a file.
    guard case .action(let name) = target, RequestLimits.isIconName(name) else { return nil }
    return icon(name, edge: Int(height - 2 * Self.buttonPadding + 4), scale: scale, colour: colour)
  }

  func drawButton(
    _ context: OpaquePointer, _ button: Button, icon: OpaquePointer?, font: OpaquePointer,
    colours: CardColours,
    highlighted: Bool
  ) {
    roundedRectangle(context, x: button.x, y: button.y, width: button.width, height: button.height, radius: 5)
    var fill = highlighted ? colours.border : colours.foreground
    fill.alpha *= highlighted ? 0.6 : 0.14
    setSource(context, fill)
    cairo_fill(context)
    if let icon {
      // The icon in the middle; the label is what assistive tools would read, and is not drawn.
      paint(icon, centredIn: (button.x, button.y, button.width, button.height), context)
      return
    }
    let layout = pango_cairo_create_layout(context)!
    defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
    pango_layout_set_font_description(layout, font)
    let inner = max(button.width - 2 * Self.buttonPadding, 1)
    pango_layout_set_width(layout, Int32(inner * Double(PANGO_SCALE)))
    pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
    pango_layout_set_single_paragraph_mode(layout, 1)
    pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
    pango_layout_set_text(layout, Self.plain(button.label), -1)
    var width: Int32 = 0
    var height: Int32 = 0
    pango_layout_get_pixel_size(layout, &width, &height)
    setSource(context, colours.foreground)
    cairo_move_to(
      context, button.x + Self.buttonPadding, (button.y + (button.height - Double(height)) / 2).rounded(.down)
    )
    pango_cairo_show_layout(context, layout)
  }

  // MARK: - Icons

  /// Paints `icon` in the middle of `box` (logical pixels), on a whole device pixel of the icon's
  /// scale: a card's icon in its square, an action's in its button.
  private func paint(
    _ icon: OpaquePointer, centredIn box: (x: Double, y: Double, width: Double, height: Double),
    _ context: OpaquePointer
  ) {
    let (width, height) = Self.logicalSize(of: icon)
    let scale = Self.scale(of: icon)
    cairo_set_source_surface(
      context, icon, Self.snapped(box.x + (box.width - width) / 2, scale: scale),
      Self.snapped(box.y + (box.height - height) / 2, scale: scale))
    cairo_paint(context)
  }

  /// The card's icon at its look's `iconSize` logical pixels and `scale`, a symbolic one in the
  /// card's foreground; nil when the card has none or it is no readable image within bounds.
  private func icon(_ card: Card, scale: Double = 1) -> OpaquePointer? {
    card.icon.flatMap {
      icon($0, edge: card.look.iconSize, scale: scale, colour: card.look.colours.foreground)
    }
  }

  /// The icon `icon` names, a file's absolute path or a theme's icon name (looked up for `edge`
  /// logical pixels at `scale`), fitting `edge` logical pixels at `scale`; a symbolic icon
  /// (`*-symbolic`) drawn in `colour`. The last `iconsKept` read are kept, each read again only
  /// when its file changed; nil when nothing is found or the file is no image within bounds.
  func icon(_ icon: String, edge: Int, scale: Double, colour: RGBA) -> OpaquePointer? {
    let path =
      icon.hasPrefix("/")
      ? icon : iconTheme.path(forName: icon, size: edge, scale: Int(scale.rounded(.up)))
    guard let path, let stamp = FileStamp(path: path) else { return nil }
    let key = IconKey(
      path: path, pixels: Self.devicePixels(edge, scale: scale),
      tint: IconImage.isSymbolic(path) ? colour : nil)
    if let kept = icons[key], kept.stamp == stamp { return kept.surface }
    if let kept = icons.removeValue(forKey: key) { kept.surface.map { cairo_surface_destroy($0) } }
    if icons.count >= Self.iconsKept, let victim = icons.keys.first {
      icons.removeValue(forKey: victim)?.surface.map { cairo_surface_destroy($0) }
    }
    let surface = IconImage.load(path: path, fitting: key.pixels, scale: scale, tint: key.tint)
    icons[key] = (stamp, surface)
    return surface
  }

  /// Plain text for a layout: control characters other than newline and tab shown as U+FFFD, so
  /// that nothing reaches pango as anything but text.
  static func plain(_ text: String) -> String {
    String(
      String.UnicodeScalarView(
        text.unicodeScalars.map { scalar in
          let value = scalar.value
          let control = value < 0x20 && value != 0x0A && value != 0x09 || (0x7F...0x9F).contains(value)
          return control ? "\u{FFFD}" : scalar
        }))
  }

  /// The runs' text and a pango attribute list of their styles (byte ranges into the text).
  static func styled(_ runs: [BodyMarkup.Run], link: RGBA) -> (String, OpaquePointer) {
    let attributes = pango_attr_list_new()!
    var text = ""
    for run in runs {
      let start = UInt32(text.utf8.count)
      text += plain(run.text)
      let end = UInt32(text.utf8.count)
      func insert(_ attribute: UnsafeMutablePointer<PangoAttribute>?) {
        guard let attribute else { return }
        attribute.pointee.start_index = start
        attribute.pointee.end_index = end
        pango_attr_list_insert(attributes, attribute)
      }
      if run.bold { insert(pango_attr_weight_new(PANGO_WEIGHT_BOLD)) }
      if run.italic { insert(pango_attr_style_new(PANGO_STYLE_ITALIC)) }
      if run.underline || run.link != nil { insert(pango_attr_underline_new(PANGO_UNDERLINE_SINGLE)) }
      if run.link != nil {
        insert(
          pango_attr_foreground_new(
            UInt16(link.red * 65535), UInt16(link.green * 65535), UInt16(link.blue * 65535)))
      }
    }
    return (text, attributes)
  }

  // MARK: - Shapes

  /// A progress bar `width` wide at (`x`, `y`): its track, and its fill of `value` percent when it
  /// has one (a card's, an indicator's in the center).
  func drawBar(
    _ context: OpaquePointer, x: Double, y: Double, width: Double, value: Int?, colours: CardColours
  ) {
    var track = colours.foreground
    track.alpha *= 0.2
    roundedRectangle(
      context, x: x, y: y, width: width, height: CardGeometry.barHeight, radius: CardGeometry.barHeight / 2)
    setSource(context, track)
    cairo_fill(context)
    if let value {
      drawFill(context, x: x, y: y, length: width * Double(min(max(value, 0), 100)) / 100, colours: colours)
    }
  }

  /// The bar's fill, `length` wide from (`x`, `y`).
  private func drawFill(_ context: OpaquePointer, x: Double, y: Double, length: Double, colours: CardColours)
  {
    guard length > 0 else { return }
    roundedRectangle(
      context, x: x, y: y, width: max(length, CardGeometry.barHeight), height: CardGeometry.barHeight,
      radius: CardGeometry.barHeight / 2)
    setSource(context, colours.progress)
    cairo_fill(context)
  }

  /// The card's rounded rectangle, `height` pixels high: filled (frosted with `Style=blur`) and
  /// bordered (unless its look's border is 0 wide).
  private func drawBackground(_ context: OpaquePointer, _ card: Card, height: Int) {
    let look = card.look
    let inset = Double(look.borderWidth) / 2
    roundedRectangle(
      context, x: inset, y: inset, width: Double(look.width) - 2 * inset, height: Double(height) - 2 * inset,
      radius: max(Double(look.cornerRadius) - inset, 0))
    var background = look.colours.background
    if card.style == .blur { background.alpha *= 0.72 }
    setSource(context, background)
    cairo_fill_preserve(context)
    if card.style == .blur { frost(context, height: Double(height)) }
    if look.borderWidth > 0 {
      setSource(context, look.colours.border)
      cairo_set_line_width(context, Double(look.borderWidth))
      cairo_stroke(context)
    } else {
      cairo_new_path(context)
    }
  }

  /// A frosted look for `style=blur`: a soft light sheen over the (more translucent) card.
  private func frost(_ context: OpaquePointer, height: Double) {
    let gradient = cairo_pattern_create_linear(0, 0, 0, height)!
    defer { cairo_pattern_destroy(gradient) }
    cairo_pattern_add_color_stop_rgba(gradient, 0, 1, 1, 1, 0.16)
    cairo_pattern_add_color_stop_rgba(gradient, 0.5, 1, 1, 1, 0.06)
    cairo_pattern_add_color_stop_rgba(gradient, 1, 1, 1, 1, 0.10)
    cairo_set_source(context, gradient)
    cairo_fill_preserve(context)
  }

  func roundedRectangle(
    _ context: OpaquePointer, x: Double, y: Double, width: Double, height: Double, radius: Double
  ) {
    let radius = min(radius, width / 2, height / 2)
    cairo_new_sub_path(context)
    cairo_arc(context, x + width - radius, y + radius, radius, -Double.pi / 2, 0)
    cairo_arc(context, x + width - radius, y + height - radius, radius, 0, Double.pi / 2)
    cairo_arc(context, x + radius, y + height - radius, radius, Double.pi / 2, Double.pi)
    cairo_arc(context, x + radius, y + radius, radius, Double.pi, 3 * Double.pi / 2)
    cairo_close_path(context)
  }

  func setSource(_ context: OpaquePointer, _ colour: RGBA) {
    cairo_set_source_rgba(context, colour.red, colour.green, colour.blue, colour.alpha)
  }
}
