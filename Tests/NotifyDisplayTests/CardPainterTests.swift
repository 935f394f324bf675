import CPangoCairo
import NotifyConfig
import NotifyCore
import NotifyProtocol
import Testing

@testable import NotifyDisplay

@Suite("Card painter (cairo and pango)")
struct CardPainterTests {
  private func card(title: String, body: String? = nil, kind: Kind = .notice, value: Int? = nil) -> Card {
    Card(Notice(id: 1, kind: kind, title: title, body: body, value: value), look: settings.look(for: .normal))
  }

  private var settings: DisplaySettings {
    var settings = DisplaySettings()
    settings.look.font = "DejaVu Sans 11"
    settings.urgencyLooks[.normal] = LookOverrides(
      colours: CardColours(
        background: RGBA(hex: "#f0e030")!, foreground: RGBA(hex: "#ffffff")!, border: RGBA(hex: "#e02020")!,
        progress: RGBA(hex: "#00ff00")!))
    return settings
  }

  private var width: Int { settings.look(for: .normal).width }

  @Test func longText_wrapsToAFewLines_andNoFurther() {
    let painter = CardPainter(settings: settings)
    let short = painter.height(of: card(title: "Done"))
    let long = painter.height(of: card(title: String(repeating: "word ", count: 400)))
    let longer = painter.height(of: card(title: String(repeating: "word ", count: 4000)))
    #expect(long > short)
    // The title stops at two lines, ended with an ellipsis: more text adds no height.
    #expect(long == longer)
    let body = painter.height(of: card(title: "t", body: String(repeating: "body text ", count: 2000)))
    #expect(body > long)
    #expect(body < 300)
  }

  @Test func fontScale_multipliesTheTextsHeight_andTheButtons() {
    var settings = settings
    settings.look.padding = 0
    settings.look.borderWidth = 0
    let painter = CardPainter(settings: settings)
    func text(scale: Double, buttons: Bool = false) -> (height: Int, row: Double) {
      var look = settings.look(for: .normal)
      look.fontScale = scale
      var notice = Notice(id: 1, kind: .notice, title: "Backup done", body: "312 files\nin 4 minutes")
      if buttons { notice.actions = [Action(key: "open", label: "Open")] }
      let card = Card(notice, look: look)
      let height = painter.height(of: card)
      return (height, painter.geometry(of: card, height: height).buttons.first?.height ?? 0)
    }
    let (one, two, half) = (text(scale: 1).height, text(scale: 2).height, text(scale: 0.5).height)
    // Three lines of text, nothing around them: the height follows the font's size (within a
    // pixel of rounding a line).
    #expect(abs(Double(two) / Double(one) - 2) < 0.15, "\(one) → \(two)")
    #expect(abs(Double(half) / Double(one) - 0.5) < 0.15, "\(one) → \(half)")
    let (rowOne, rowTwo) = (text(scale: 1, buttons: true).row, text(scale: 2, buttons: true).row)
    // A button is a line of its label and 6 pixels above and below it.
    #expect(abs((rowTwo - 12) / (rowOne - 12) - 2) < 0.15, "\(rowOne) → \(rowTwo)")
  }

  @Test func anIndicator_isTallerByItsBar() {
    let painter = CardPainter(settings: settings)
    #expect(
      painter.height(of: card(title: "Build", kind: .progress, value: 40))
        > painter.height(of: card(title: "Build")))
  }

  @Test func composite_drawsTheCardAtTheGivenOpacity_premultiplied() {
    let painter = CardPainter(settings: settings)
    let shown = card(title: "t")
    let height = painter.height(of: shown)
    let image = painter.render(shown, height: height)
    defer { cairo_surface_destroy(image) }
    let target = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))!
    defer { cairo_surface_destroy(target) }
    painter.composite(image, of: shown, into: target, opacity: 0.5)
    // A pixel inside the border, left of the text: the background colour at half alpha,
    // premultiplied (B, G, R, A in memory on a little-endian machine).
    let stride = Int(cairo_image_surface_get_stride(target))
    let data = cairo_image_surface_get_data(target)!
    let offset = (height / 2) * stride + 6 * 4
    let (blue, green, red, alpha) = (data[offset], data[offset + 1], data[offset + 2], data[offset + 3])
    #expect(abs(Int(alpha) - 128) <= 1)
    #expect(abs(Int(red) - 0xF0 / 2) <= 1)
    #expect(abs(Int(green) - 0xE0 / 2) <= 1)
    #expect(abs(Int(blue) - 0x30 / 2) <= 1)
  }

  @Test func anIndicatorWithoutAValue_sweeps_andOneWithAValue_showsIt() {
    let painter = CardPainter(settings: settings)
    /// The fraction of the bar's row, left to right, in the progress colour (pure green here).
    func filled(_ card: Card, activity: Double) -> (first: Double, last: Double)? {
      let height = painter.height(of: card)
      let image = painter.render(card, height: height)
      defer { cairo_surface_destroy(image) }
      let target = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))!
      defer { cairo_surface_destroy(target) }
      painter.composite(image, of: card, into: target, opacity: 1, activity: activity)
      let stride = Int(cairo_image_surface_get_stride(target))
      let data = cairo_image_surface_get_data(target)!
      let row = height - 12 - 3  // the middle of the bar: padding 12, bar 6
      let green = (0..<width).filter { x in
        let offset = row * stride + x * 4
        return data[offset + 1] > 200 && data[offset + 2] < 60 && data[offset] < 60
      }
      guard let first = green.first, let last = green.last else { return nil }
      return (Double(first) / Double(width), Double(last) / Double(width))
    }
    let spinning = card(title: "Syncing", kind: .progress)
    let start = filled(spinning, activity: 0)
    let later = filled(spinning, activity: CardPainter.activityPeriod / 2)
    #expect(start != nil && later != nil)
    // At the start of its sweep the segment is at the left; half a period later, at the right.
    #expect((start?.first ?? 1) < 0.1)
    #expect((later?.last ?? 0) > 0.9)
    #expect((later?.first ?? 0) > 0.5)
    // With a value: filled from the left to the value, the same at any instant.
    let forty = card(title: "Build", kind: .progress, value: 40)
    let fill = filled(forty, activity: 0)
    #expect(fill?.first ?? 1 < 0.1)
    #expect(abs((fill?.last ?? 0) - 0.4 * 336 / 360 - 12 / 360.0) < 0.03)
    #expect(filled(forty, activity: 0.7)?.last == fill?.last)
  }

  @Test func animationNone_standsAnIndicatorWithoutAValueStill_inTheMiddleOfItsTrack() {
    var settings = settings
    settings.look.animation = CardAnimation.none
    let painter = CardPainter(settings: settings)
    let still = Card(Notice(id: 1, kind: .progress, title: "Syncing"), look: settings.look(for: .normal))
    #expect(still.isActivity && !still.isAnimated)
    let height = painter.height(of: still)
    let image = painter.render(still, height: height)
    defer { cairo_surface_destroy(image) }
    let target = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))!
    defer { cairo_surface_destroy(target) }
    func segment(at activity: Double) -> (first: Int, last: Int)? {
      painter.composite(image, of: still, into: target, opacity: 1, activity: activity)
      let stride = Int(cairo_image_surface_get_stride(target))
      let data = cairo_image_surface_get_data(target)!
      let row = height - 12 - 3
      let green = (0..<width).filter { x in
        let offset = row * stride + x * 4
        return data[offset + 1] > 200 && data[offset + 2] < 60 && data[offset] < 60
      }
      return green.first.map { ($0, green.last!) }
    }
    let start = segment(at: 0)
    #expect(start != nil)
    #expect(segment(at: CardPainter.activityPeriod / 4)! == start!)
    #expect(segment(at: CardPainter.activityPeriod / 2)! == start!)
    // A third of the track, centred.
    let middle = Double(start!.first + start!.last) / 2
    #expect(abs(middle - Double(width) / 2) < 3, "\(start!)")
  }

  @Test func bodyMarkup_becomesAttributes_overPlainText() {
    let (text, attributes) = CardPainter.styled(
      BodyMarkup.runs("a <b>bold</b> &amp; <i>it</i>"), link: RGBA(red: 0, green: 0, blue: 1))
    defer { pango_attr_list_unref(attributes) }
    #expect(text == "a bold & it")
  }

  @Test func controlCharacters_neverReachPango() {
    #expect(CardPainter.plain("a\u{1B}[2Jb\nc\u{85}") == "a\u{FFFD}[2Jb\nc\u{FFFD}")
  }
}

/// The row of buttons at a card's foot: where each is, what a point is on, how it is drawn.
@Suite("Card buttons")
struct CardButtonTests {
  private func card(_ keys: [String], labels: [String]? = nil) -> Card {
    let actions = keys.enumerated().map { Action(key: $1, label: labels?[$0] ?? $1.capitalized) }
    return Card(Notice(id: 1, kind: .notice, title: "Deploy 42?", actions: actions), look: Self.look)
  }

  /// Black cards with white text, a red border and a green bar, in DejaVu Sans 11.
  private static let look: CardLook = {
    var look = CardLook(
      colours: CardColours(
        background: RGBA(hex: "#000000")!, foreground: RGBA(hex: "#ffffff")!, border: RGBA(hex: "#ff0000")!,
        progress: RGBA(hex: "#00ff00")!))
    look.font = "DejaVu Sans 11"
    return look
  }()

  private func painter(maxButtons: Int = 3) -> CardPainter {
    var settings = DisplaySettings()
    settings.look = LookOverrides(Self.look)
    settings.maxButtons = maxButtons
    return CardPainter(settings: settings)
  }

  @Test func buttons_shareTheWidth_atTheFoot_upToMaxButtons_thenMore() {
    let painter = painter()
    let two = card(["approve", "reject"])
    let height = painter.height(of: two)
    #expect(height >= painter.height(of: card([])) + Int(painter.buttonHeight))
    let buttons = painter.buttons(of: two, height: height)
    #expect(buttons.map(\.target) == [.action("approve"), .action("reject")])
    #expect(buttons.map(\.label) == ["Approve", "Reject"])
    #expect(buttons[0].width == buttons[1].width)
    #expect(buttons[0].x == 12 && abs(buttons[1].x + buttons[1].width - (360 - 12)) < 0.001)
    #expect(abs(buttons[0].y + buttons[0].height - Double(height - 12)) < 0.001)
    let five = card(["a", "b", "c", "d", "e"])
    #expect(
      painter.buttons(of: five, height: 200).map(\.target) == [
        .action("a"), .action("b"), .action("c"), .more,
      ])
    #expect(self.painter(maxButtons: 0).buttons(of: five, height: 200).isEmpty)
    // default is the card itself, not a button.
    #expect(painter.buttons(of: card(["default"]), height: 200).isEmpty)
    #expect(painter.height(of: card(["default"])) == painter.height(of: card([])))
  }

  @Test func aPoint_isOnTheButtonUnderIt_elseOnTheCard() {
    let painter = painter()
    let shown = card(["approve", "reject"])
    let height = painter.height(of: shown)
    let buttons = painter.buttons(of: shown, height: height)
    for button in buttons {
      let middle = (x: button.x + button.width / 2, y: button.y + button.height / 2)
      #expect(painter.target(of: shown, height: height, x: middle.x, y: middle.y) == button.target)
    }
    // Between the two buttons, above them, and on the title: the card.
    let between = buttons[0].x + buttons[0].width + 3
    #expect(painter.target(of: shown, height: height, x: between, y: buttons[0].y + 5) == .card)
    #expect(painter.target(of: shown, height: height, x: 100, y: buttons[0].y - 2) == .card)
    #expect(painter.target(of: shown, height: height, x: 20, y: 20) == .card)
  }

  @Test func theButtonUnderThePointer_isHighlighted_andEachHasItsLabel() {
    let painter = painter()
    var shown = card(
      ["approve", "reject"], labels: ["Approve", "A label far too long to fit in a third of a card"])
    let height = painter.height(of: shown)
    let buttons = painter.buttons(of: shown, height: height)
    /// The share of a button's pixels that are bright (its label) and the red of its fill.
    func look(_ card: Card, _ button: CardPainter.Button) -> (label: Double, red: Int) {
      let image = painter.render(card, height: height)
      defer { cairo_surface_destroy(image) }
      let stride = Int(cairo_image_surface_get_stride(image))
      let data = cairo_image_surface_get_data(image)!
      var bright = 0
      var total = 0
      for y in Int(button.y) + 2..<Int(button.y + button.height) - 2 {
        for x in Int(button.x) + 2..<Int(button.x + button.width) - 2 {
          total += 1
          if data[y * stride + x * 4 + 1] > 200 { bright += 1 }  // green: only the white label has it
        }
      }
      let row = Int(button.y) + 3  // inside the fill, above the label
      let red = Int(data[row * stride + (Int(button.x) + 3) * 4 + 2])
      return (Double(bright) / Double(total), red)
    }
    let plain = look(shown, buttons[0])
    #expect(plain.label > 0.02)  // a label is drawn
    #expect(look(shown, buttons[1]).label > 0.02)  // the long one too, ellipsized within it
    shown.highlighted = .action("approve")
    let lit = look(shown, buttons[0])
    #expect(lit.red > plain.red + 80)  // the border's red under the pointer
    #expect(look(shown, buttons[1]).red < plain.red + 10)
  }
  @Test(arguments: [1.0, 2.0, 1.5])
  func lightingAButton_orTyping_paintsOnlyThatPart_withTheFullRendersPixels(scale: Double) {
    let painter = painter()
    var before = card(["approve", "reject"])
    before.reply = "Reply…"
    before.style = .blur
    let height = painter.height(of: before)
    func rendered(_ card: Card) -> [UInt8] {
      let image = painter.render(card, height: height, scale: scale)
      defer { cairo_surface_destroy(image) }
      return Self.pixels(image)
    }
    /// Pixels of `to` reached from `from` by `redrawInput`, and of `to` rendered whole.
    func reached(_ from: Card, _ to: Card) -> (patched: [UInt8], whole: [UInt8])? {
      let image = painter.render(from, height: height, scale: scale)
      defer { cairo_surface_destroy(image) }
      guard painter.redrawInput(image, from: from, to: to, height: height) else { return nil }
      return (Self.pixels(image), rendered(to))
    }
    var lit = before
    lit.highlighted = .action("reject")
    var moved = lit
    moved.highlighted = .action("approve")
    var typed = moved
    typed.typed = "on my way"
    for (from, to) in [(before, lit), (lit, moved), (moved, before), (moved, typed), (typed, lit)] {
      let result = reached(from, to)
      #expect(result != nil)
      guard let result else { continue }
      #expect(result.patched != rendered(from))  // something changed
      #expect(result.patched == result.whole)
    }
    // Anything else changed: nothing is touched, the card is rendered again.
    var retitled = lit
    retitled.title = "Deploy 43?"
    let image = painter.render(before, height: height, scale: scale)
    defer { cairo_surface_destroy(image) }
    let untouched = Self.pixels(image)
    #expect(!painter.redrawInput(image, from: before, to: retitled, height: height))
    #expect(Self.pixels(image) == untouched)
  }

  /// At scale 2 a card is rendered at twice its logical size, in the device's pixels: its text has
  /// edges a scaled-up scale-1 image cannot have (between the two device pixels of one logical
  /// pixel), and its layout is the same (the ink, halved, lands where scale 1 puts it).
  @Test func atScale2_aCardIsRenderedAtTheDevicesResolution_notScaledUp() {
    let painter = painter()
    let shown = Card(
      Notice(
        id: 1, kind: .notice, title: "Sharp at every scale",
        body: "The quick brown fox jumps over the lazy dog"), look: Self.look)
    let height = painter.height(of: shown)
    let one = painter.render(shown, height: height)
    let two = painter.render(shown, height: height, scale: 2)
    defer {
      cairo_surface_destroy(one)
      cairo_surface_destroy(two)
    }
    #expect(cairo_image_surface_get_width(two) == 2 * cairo_image_surface_get_width(one))
    #expect(cairo_image_surface_get_height(two) == 2 * cairo_image_surface_get_height(one))
    #expect(CardPainter.scale(of: two) == 2)
    /// The green channel (the text's contrast with the card) of the pixel at (x, y).
    func green(_ image: OpaquePointer, _ x: Int, _ y: Int) -> Int {
      let stride = Int(cairo_image_surface_get_stride(image))
      return Int(cairo_image_surface_get_data(image)![y * stride + x * 4 + 1])
    }
    // Steps of a quarter of the range or more inside a pair of device pixels (odd x to even x+1),
    // where a card drawn at scale 1 and scaled up has none.
    var inside = 0
    var between = 0
    let text = (top: 2 * Self.look.padding, bottom: 2 * (height - Self.look.padding))
    for y in text.top..<text.bottom {
      for x in 0..<(Int(cairo_image_surface_get_width(two)) - 1)
      where abs(green(two, x, y) - green(two, x + 1, y)) >= 64 {
        if x % 2 == 0 { inside += 1 } else { between += 1 }
      }
    }
    #expect(inside > 100)
    #expect(Double(inside) > 0.3 * Double(inside + between))
  }

  private static func pixels(_ image: OpaquePointer) -> [UInt8] {
    cairo_surface_flush(image)
    let count = Int(cairo_image_surface_get_stride(image)) * Int(cairo_image_surface_get_height(image))
    return Array(UnsafeBufferPointer(start: cairo_image_surface_get_data(image)!, count: count))
  }
}
