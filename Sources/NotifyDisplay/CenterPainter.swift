import CPangoCairo
import Foundation
import NotifyConfig
import NotifyCore
import NotifyProtocol

/// What a point of the center is on: what a click there does.
public enum CenterTarget: Hashable, Sendable {
  /// The do-not-disturb switch.
  case doNotDisturb
  /// "Clear all".
  case clearAll
  /// A group's heading: collapses or expands it.
  case group(CenterGroup)
  /// An entry, away from its × and buttons.
  case entry(Int)
  /// An entry's ×.
  case forget(Int)
  /// One of a live entry's buttons.
  case button(Int, String)
  /// A shown entry's "Remind me".
  case snooze(Int)
}

/// What the center shows beside its list: the header's state and what the pointer is over.
public struct CenterLook: Sendable, Equatable {
  public var hover: CenterTarget?
  public var suspended = false
  /// The rule that holds do-not-disturb, told beside its switch ("quiet hours, until 07:00").
  public var doNotDisturb: DoNotDisturb?
  /// Entries marked unread: those unread when the center first listed them.
  public var marked: Set<Int> = []
  /// Wall-clock seconds the times are told from.
  public var now = 0.0

  public init() {}
}

/// Draws the notification center (DESIGN §13) with the cards' fonts, colours, icons and buttons
/// (`CardPainter`): a header (do-not-disturb, the unread count, clear all, the filter), then the
/// rows of the list that show. Only those are laid out and drawn.
///
/// - Important: not thread-safe; used on the display's thread, as the card painter is.
public final class CenterPainter {
  public let cards: CardPainter
  public let metrics: CenterMetrics
  private var settings: DisplaySettings { cards.settings }
  private let lineHeight: Double
  /// The one layout every text of the center is laid out in, set up again for each: making a
  /// layout makes a pango context, which cost as much as the rest of a row.
  private let text: OpaquePointer
  /// The widths of the times told lately ("5 min ago"): a few strings, measured once.
  private var timeWidths: [String: Double] = [:]

  static let padding = 12.0
  static let entryPadding = 10.0
  static let iconSize = 32.0
  static let closeSize = 16.0
  static let switchWidth = 34.0
  static let switchHeight = 18.0
  static let clearAllWidth = 84.0

  public init(cards: CardPainter) {
    self.cards = cards
    func measure(_ font: OpaquePointer) -> Double {
      CardPainter.lineHeight(of: font, on: cards.measuringContext)
    }
    lineHeight = measure(cards.font)
    let title = measure(cards.titleFont)
    metrics = CenterMetrics(
      group: measure(cards.appFont) + 14, padding: Self.entryPadding, icon: Self.iconSize, title: title,
      body: 2 + 2 * lineHeight, bar: 8 + CardGeometry.barHeight, buttons: 8 + cards.buttonHeight)
    text = pango_cairo_create_layout(cards.measuringContext)!
  }

  deinit { g_object_unref(UnsafeMutableRawPointer(text)) }

  private var colours: CardColours { settings.colours(for: .normal) }

  // MARK: - Geometry

  /// The header's height: its two lines, and the filter's field while filtering.
  public func headerHeight(filtering: Bool) -> Double {
    var height = 2 * Self.padding + cards.buttonHeight + 8 + max(lineHeight, Self.switchHeight)
    if filtering { height += 8 + cards.buttonHeight }
    return height.rounded(.up)
  }

  private func clearAllButton(width: Double) -> CardPainter.Button {
    CardPainter.Button(
      target: .card, label: "Clear all", x: width - Self.padding - Self.clearAllWidth, y: Self.padding,
      width: Self.clearAllWidth, height: cards.buttonHeight)
  }

  /// The switch's row: the switch and its words, as far as the unread count.
  private func switchRow(width: Double) -> (x: Double, y: Double, width: Double, height: Double) {
    let height = max(lineHeight, Self.switchHeight)
    return (Self.padding, Self.padding + cards.buttonHeight + 8, width * 0.7, height)
  }

  private func closeBox(top: Double, width: Double) -> (x: Double, y: Double) {
    (width - Self.padding - Self.closeSize, top + Self.entryPadding)
  }

  /// Where an entry's text starts: after its icon, if it has one.
  private func textLeft(_ entry: CenterEntry) -> Double {
    Self.padding + (entry.icon == nil ? 0 : Self.iconSize + 10)
  }

  /// A live entry's buttons, at the foot of its row.
  private func buttons(of entry: CenterEntry, top: Double, height: Double, width: Double) -> [CardPainter
    .Button]
  {
    let limit = settings.maxButtons
    var entries = entry.buttons.prefix(limit).map {
      (CardTarget.action($0.key), $0.label.isEmpty ? $0.key : $0.label)
    }
    if entry.snoozable { entries.append((.snooze, CardGeometry.snoozeLabel)) }
    guard !entries.isEmpty else { return [] }
    let left = textLeft(entry)
    return cards.buttonRow(
      entries, x: left, y: top + height - Self.entryPadding - cards.buttonHeight,
      width: width - Self.padding - left)
  }

  /// What the point (`x`, `y`) of a panel `width` pixels wide is on.
  public func target(of model: CenterModel, x: Double, y: Double, width: Double) -> CenterTarget? {
    let header = headerHeight(filtering: model.filter != nil)
    if y < header {
      if clearAllButton(width: width).contains(x: x, y: y) { return .clearAll }
      let row = switchRow(width: width)
      if x >= row.x && x < row.x + row.width && y >= row.y && y < row.y + row.height { return .doNotDisturb }
      return nil
    }
    guard let index = model.row(atViewportY: y - header) else { return nil }
    let top = model.tops[index] - model.offset + header
    switch model.rows[index] {
    case .group(let group, _, _):
      return .group(group)
    case .entry(let position):
      let entry = model.entries[position]
      let close = closeBox(top: top, width: width)
      if x >= close.x - 4 && x < close.x + Self.closeSize + 4 && y >= close.y - 4
        && y < close.y + Self.closeSize + 4
      {
        return .forget(entry.id)
      }
      let height = model.tops[index + 1] - model.tops[index]
      for button in buttons(of: entry, top: top, height: height, width: width)
      where button.contains(x: x, y: y) {
        if case .action(let key) = button.target { return .button(entry.id, key) }
        if button.target == .snooze { return .snooze(entry.id) }
      }
      return .entry(entry.id)
    }
  }

  // MARK: - Painting

  /// Draws the panel, `width` × `height` logical pixels, into `target` (premultiplied ARGB, that
  /// size at the target's device scale): the header, then the list's visible rows. `model`'s viewport must be the height under the header.
  public func paint(
    _ model: CenterModel, look: CenterLook, into target: OpaquePointer, width: Int, height: Int
  ) {
    let context = cairo_create(target)!
    defer {
      cairo_destroy(context)
      pango_cairo_update_layout(cards.measuringContext, text)
    }
    pango_cairo_update_layout(context, text)
    let width = Double(width)
    let colours = colours
    cairo_set_operator(context, CAIRO_OPERATOR_SOURCE)
    cards.setSource(context, colours.background)
    cairo_paint(context)
    cairo_set_operator(context, CAIRO_OPERATOR_OVER)
    let header = headerHeight(filtering: model.filter != nil)

    cairo_save(context)
    cairo_rectangle(context, 0, header, width, Double(height) - header)
    cairo_clip(context)
    for index in model.visibleRows {
      let top = (model.tops[index] - model.offset + header).rounded()
      let rowHeight = model.tops[index + 1] - model.tops[index]
      switch model.rows[index] {
      case .group(let group, let count, let collapsed):
        drawGroup(
          context, group, count: count, collapsed: collapsed, top: top, height: rowHeight, width: width,
          selected: model.selection == .group(group), hovered: look.hover == .group(group))
      case .entry(let position):
        drawEntry(
          context, model.entries[position], top: top, height: rowHeight, width: width, look: look,
          selected: model.selection == .entry(model.entries[position].id))
      }
    }
    if model.older > 0 {
      // Under the rows: how many older notices are not listed, and where they are.
      var dim = colours.foreground
      dim.alpha *= 0.6
      let top = model.rowsEnd - model.offset + header
      if top < Double(height) {
        drawText(
          context, "\(model.older) older: notifyctl history", font: cards.appFont, x: 0,
          y: top + (metrics.group - lineHeight) / 2, width: width, colour: dim, align: PANGO_ALIGN_CENTER)
      }
    }
    if model.rows.isEmpty {
      var dim = colours.foreground
      dim.alpha *= 0.6
      drawText(
        context, model.filter == nil ? "No notifications" : "Nothing matches", font: cards.font, x: 0,
        y: header + 40, width: width, colour: dim, align: PANGO_ALIGN_CENTER)
    }
    cairo_restore(context)

    drawHeader(context, model: model, look: look, width: width, height: header)
    // The edge toward the screen's middle.
    cards.setSource(context, colours.border)
    let edge = settings.center.anchor == .right ? 0.0 : width - 2
    cairo_rectangle(context, edge, 0, 2, Double(height))
    cairo_fill(context)
    cairo_surface_flush(target)
  }

  private func drawHeader(
    _ context: OpaquePointer, model: CenterModel, look: CenterLook, width: Double, height: Double
  ) {
    let colours = colours
    var dim = colours.foreground
    dim.alpha *= 0.65
    drawText(
      context, "Notifications", font: cards.titleFont, x: Self.padding,
      y: Self.padding + (cards.buttonHeight - metrics.title) / 2, width: width / 2, colour: colours.foreground
    )
    cards.drawButton(
      context, clearAllButton(width: width), icon: nil, font: cards.font, colours: colours,
      highlighted: look.hover == .clearAll)

    // The switch: a pill, lit and its knob at the right while do-not-disturb holds notices back.
    let row = switchRow(width: width)
    let switchY = row.y + (row.height - Self.switchHeight) / 2
    cards.roundedRectangle(
      context, x: row.x, y: switchY, width: Self.switchWidth, height: Self.switchHeight,
      radius: Self.switchHeight / 2)
    var track = look.suspended ? colours.border : colours.foreground
    track.alpha *= look.suspended ? 1 : (look.hover == .doNotDisturb ? 0.4 : 0.25)
    cards.setSource(context, track)
    cairo_fill(context)
    let knob = Self.switchHeight - 4
    let knobX = look.suspended ? row.x + Self.switchWidth - 2 - knob : row.x + 2
    cairo_arc(context, knobX + knob / 2, switchY + 2 + knob / 2, knob / 2, 0, 2 * Double.pi)
    cards.setSource(context, colours.background)
    cairo_fill(context)
    var words = "Do not disturb"
    if let detail = Self.doNotDisturbDetail(look.doNotDisturb) { words += " · " + detail }
    drawText(
      context, words, font: cards.font, x: row.x + Self.switchWidth + 8,
      y: row.y + (row.height - lineHeight) / 2,
      width: row.width - Self.switchWidth - 8, colour: look.suspended ? colours.foreground : dim)
    let unread = look.marked.count
    drawText(
      context, unread == 0 ? "all read" : "\(unread) unread", font: cards.appFont, x: row.x + row.width,
      y: row.y + (row.height - lineHeight) / 2, width: width - Self.padding - row.x - row.width,
      colour: unread == 0 ? dim : colours.border, align: PANGO_ALIGN_RIGHT)

    if let filter = model.filter {
      let field = CardPainter.Button(
        target: .field, label: "Filter by app, title or body", x: Self.padding,
        y: row.y + row.height + 8, width: width - 2 * Self.padding, height: cards.buttonHeight)
      cards.drawField(context, field, typed: filter, font: cards.font, colours: colours)
    }
    var rule = colours.foreground
    rule.alpha *= 0.2
    cards.setSource(context, rule)
    cairo_rectangle(context, 0, height - 1, width, 1)
    cairo_fill(context)
  }

  private func drawGroup(
    _ context: OpaquePointer, _ group: CenterGroup, count: Int, collapsed: Bool, top: Double, height: Double,
    width: Double, selected: Bool, hovered: Bool
  ) {
    let colours = colours
    var shade = selected ? colours.border : colours.foreground
    shade.alpha *= selected ? 0.3 : (hovered ? 0.12 : 0.06)
    cards.setSource(context, shade)
    cairo_rectangle(context, 0, top, width, height)
    cairo_fill(context)
    var dim = colours.foreground
    dim.alpha *= 0.7
    let y = top + (height - (metrics.group - 14)) / 2
    drawText(
      context, (collapsed ? "▸ " : "▾ ") + group.label, font: cards.appFont, x: Self.padding, y: y,
      width: width * 0.7, colour: colours.foreground, weight: true)
    drawText(
      context, "\(count)", font: cards.appFont, x: width * 0.7, y: y, width: width * 0.3 - Self.padding,
      colour: dim, align: PANGO_ALIGN_RIGHT)
  }

  private func drawEntry(
    _ context: OpaquePointer, _ entry: CenterEntry, top: Double, height: Double, width: Double,
    look: CenterLook,
    selected: Bool
  ) {
    let colours = settings.colours(for: entry.urgency)
    let hovered: Bool
    switch look.hover {
    case .entry(entry.id), .forget(entry.id), .button(entry.id, _), .snooze(entry.id): hovered = true
    default: hovered = false
    }
    if selected || hovered {
      var shade = selected ? colours.border : colours.foreground
      shade.alpha *= selected ? 0.22 : 0.07
      cards.setSource(context, shade)
      cairo_rectangle(context, 0, top, width, height)
      cairo_fill(context)
    }
    var dim = colours.foreground
    dim.alpha *= 0.65
    let padding = Self.entryPadding
    if entry.urgency == .critical {
      // A critical notice: a bar down its row's outer side, in its urgency's colour.
      cards.setSource(context, colours.border)
      let x = settings.center.anchor == .right ? width - 3 : 0
      cairo_rectangle(context, x, top, 3, height)
      cairo_fill(context)
    }
    if look.marked.contains(entry.id) {
      cards.setSource(context, colours.border)
      cairo_arc(context, 6, top + padding + metrics.title / 2, 3.5, 0, 2 * Double.pi)
      cairo_fill(context)
    }
    if let name = entry.icon,
      let icon = cards.icon(
        name, edge: IconImage.cardSize, scale: CardPainter.scale(of: cairo_get_target(context)),
        colour: colours.foreground)
    {
      let size = CardPainter.logicalSize(of: icon)
      let side = max(size.width, size.height)
      let scale = min(Self.iconSize / max(side, 1), 1)
      cairo_save(context)
      cairo_translate(context, Self.padding, top + padding)
      cairo_scale(context, scale, scale)
      cairo_set_source_surface(context, icon, 0, 0)
      cairo_paint(context)
      cairo_restore(context)
    }
    let left = textLeft(entry)
    let close = closeBox(top: top, width: width)
    var time =
      entry.snoozedUntil.map { "until " + Self.clockTime($0) }
      ?? (entry.live ? (entry.isIndicator ? "running" : "now") : Self.relativeTime(look.now - entry.time))
    if let host = entry.host { time += " · " + host }
    let timeWidth = min(timeWidth(of: time), width / 3)
    let timeX = close.x - 6 - timeWidth
    drawText(
      context, time, font: cards.appFont, x: timeX, y: top + padding + 1, width: timeWidth, colour: dim,
      align: PANGO_ALIGN_RIGHT)
    drawText(
      context, entry.title, font: cards.titleFont, x: left, y: top + padding, width: max(timeX - 8 - left, 1),
      colour: colours.foreground)
    // The ×: lit under the pointer.
    var cross = colours.foreground
    cross.alpha *= look.hover == .forget(entry.id) ? 1 : 0.45
    cards.setSource(context, cross)
    cairo_set_line_width(context, 1.6)
    let inset = 4.0
    cairo_move_to(context, close.x + inset, close.y + inset)
    cairo_line_to(context, close.x + Self.closeSize - inset, close.y + Self.closeSize - inset)
    cairo_move_to(context, close.x + Self.closeSize - inset, close.y + inset)
    cairo_line_to(context, close.x + inset, close.y + Self.closeSize - inset)
    cairo_stroke(context)

    var y = top + padding + metrics.title
    let textWidth = width - Self.padding - left
    if let body = entry.body, !body.isEmpty {
      let (plain, attributes) = CardPainter.styled(BodyMarkup.runs(body), link: colours.border)
      // Two lines in all, not two a paragraph: line breaks become spaces (a byte for a byte, so the
      // attributes' ranges hold).
      layOut(
        String(plain.map { $0 == "\n" ? " " : $0 }), font: cards.font, width: textWidth,
        align: PANGO_ALIGN_LEFT,
        lines: 2, attributes: attributes)
      pango_attr_list_unref(attributes)
      cards.setSource(context, colours.foreground)
      cairo_move_to(context, left, y + 2)
      pango_cairo_show_layout(context, text)
      y += metrics.body
    }
    if entry.isIndicator && entry.live {
      cards.drawBar(context, x: left, y: y + 6, width: textWidth, value: entry.value, colours: colours)
    }
    for button in buttons(of: entry, top: top, height: height, width: width) {
      var lit = false
      if case .action(let key) = button.target { lit = look.hover == .button(entry.id, key) }
      if button.target == .snooze { lit = look.hover == .snooze(entry.id) }
      cards.drawButton(context, button, icon: nil, font: cards.font, colours: colours, highlighted: lit)
    }
    var rule = colours.foreground
    rule.alpha *= 0.1
    cards.setSource(context, rule)
    cairo_rectangle(context, Self.padding, top + height - 1, width - 2 * Self.padding, 1)
    cairo_fill(context)
  }

  // MARK: - Text

  /// Sets `text` up for `string` (plain text but for `attributes`): one line ellipsized at `width`
  /// (`lines` 1), or up to `lines` lines wrapped at words.
  private func layOut(
    _ string: String, font: OpaquePointer, width: Double, align: PangoAlignment, lines: Int32 = 1,
    attributes: OpaquePointer? = nil
  ) {
    pango_layout_set_font_description(text, font)
    pango_layout_set_width(text, Int32(max(width, 1) * Double(PANGO_SCALE)))
    pango_layout_set_ellipsize(text, PANGO_ELLIPSIZE_END)
    pango_layout_set_single_paragraph_mode(text, lines == 1 ? 1 : 0)
    pango_layout_set_wrap(text, PANGO_WRAP_WORD_CHAR)
    pango_layout_set_height(text, -lines)
    pango_layout_set_alignment(text, align)
    pango_layout_set_text(text, string, -1)
    pango_layout_set_attributes(text, attributes)
  }

  private func drawText(
    _ context: OpaquePointer, _ string: String, font: OpaquePointer, x: Double, y: Double, width: Double,
    colour: RGBA, align: PangoAlignment = PANGO_ALIGN_LEFT, weight: Bool = false
  ) {
    var bold: OpaquePointer?
    if weight {
      bold = pango_attr_list_new()!
      pango_attr_list_insert(bold, pango_attr_weight_new(PANGO_WEIGHT_BOLD))
    }
    layOut(CardPainter.plain(string), font: font, width: width, align: align, attributes: bold)
    if let bold { pango_attr_list_unref(bold) }
    cards.setSource(context, colour)
    cairo_move_to(context, x, y.rounded())
    pango_cairo_show_layout(context, text)
  }

  private func size(of string: String, font: OpaquePointer) -> (width: Double, height: Double) {
    layOut(CardPainter.plain(string), font: font, width: 10_000, align: PANGO_ALIGN_LEFT)
    var width: Int32 = 0
    var height: Int32 = 0
    pango_layout_get_pixel_size(text, &width, &height)
    return (Double(width), Double(height))
  }

  /// The width of a time told beside a title, measured once per string (the last 64 kept).
  private func timeWidth(of time: String) -> Double {
    if let known = timeWidths[time] { return known }
    if timeWidths.count >= 64 { timeWidths.removeAll() }
    let width = size(of: time, font: cards.appFont).width + 1
    timeWidths[time] = width
    return width
  }

  /// What the header says of do-not-disturb beside its switch.
  static func doNotDisturbDetail(_ rule: DoNotDisturb?) -> String? {
    guard let rule else { return nil }
    var parts: [String] = []
    if rule.reason == .schedule { parts.append("quiet hours") }
    if let until = rule.until { parts.append("until " + clockTime(until)) }
    parts.append(rule.allow == .critical ? "critical shows" : "nothing shows")
    return parts.joined(separator: ", ")
  }

  /// `wall` (seconds since the epoch) as the local time of day, "07:00".
  static func clockTime(_ wall: Double) -> String {
    var seconds = time_t(wall)
    var parts = tm()
    localtime_r(&seconds, &parts)
    let hour = Int(parts.tm_hour)
    let minute = Int(parts.tm_min)
    return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
  }

  /// How long ago, in words: "now", "5 min ago", "3 h ago", "yesterday", "4 days ago".
  public static func relativeTime(_ seconds: Double) -> String {
    let minutes = Int(max(seconds, 0) / 60)
    switch minutes {
    case 0: return "now"
    case ..<60: return "\(minutes) min ago"
    case ..<(24 * 60): return "\(minutes / 60) h ago"
    case ..<(48 * 60): return "yesterday"
    default: return "\(minutes / (24 * 60)) days ago"
    }
  }
}
