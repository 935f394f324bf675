import CPangoCairo
import NotifyConfig
import NotifyCore
import NotifyProtocol
import Testing

@testable import NotifyDisplay

@Suite("Card painter (cairo and pango)")
struct CardPainterTests {
  private func card(title: String, body: String? = nil, kind: Kind = .notice, value: Int? = nil) -> Card {
    Card(Notice(id: 1, kind: kind, title: title, body: body, value: value))
  }

  private var settings: DisplaySettings {
    var settings = DisplaySettings()
    settings.font = "DejaVu Sans 11"
    settings.colours[.normal] = CardColours(
      background: RGBA(hex: "#f0e030")!, foreground: RGBA(hex: "#ffffff")!, border: RGBA(hex: "#e02020")!,
      progress: RGBA(hex: "#00ff00")!)
    return settings
  }

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
    let target = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(settings.width), Int32(height))!
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
      let target = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(settings.width), Int32(height))!
      defer { cairo_surface_destroy(target) }
      painter.composite(image, of: card, into: target, opacity: 1, activity: activity)
      let stride = Int(cairo_image_surface_get_stride(target))
      let data = cairo_image_surface_get_data(target)!
      let row = height - 12 - 3  // the middle of the bar: padding 12, bar 6
      let green = (0..<settings.width).filter { x in
        let offset = row * stride + x * 4
        return data[offset + 1] > 200 && data[offset + 2] < 60 && data[offset] < 60
      }
      guard let first = green.first, let last = green.last else { return nil }
      return (Double(first) / Double(settings.width), Double(last) / Double(settings.width))
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
