import CPangoCairo
import NotifyConfig
import NotifyCore
import NotifyProtocol
import Testing

@testable import NotifyDisplay

/// A card drawn in the look its card carries: width, colours, border, padding, font, lines, format.
@Suite("Card looks, drawn")
struct CardLookPaintingTests {
  private let painter: CardPainter = {
    var settings = DisplaySettings()
    settings.look.font = "DejaVu Sans 11"
    return CardPainter(settings: settings)
  }()

  /// A look in DejaVu Sans 11 with `change` made to it.
  private func look(_ change: (inout CardLook) -> Void = { _ in }) -> CardLook {
    var look = CardLook.builtIn(for: .normal)
    look.font = "DejaVu Sans 11"
    change(&look)
    return look
  }

  private func card(
    _ look: CardLook, app: String? = "ci", title: String = "Build 42 passed",
    body: String? = "All 1,204 tests passed in 3m 12s on the main branch."
  ) -> Card {
    Card(Notice(id: 1, kind: .notice, title: title, body: body, app: app), look: look)
  }

  /// The pixel at (x, y) of an ARGB32 surface as (red, green, blue, alpha), premultiplied.
  private func pixel(_ surface: OpaquePointer, _ x: Int, _ y: Int) -> (Int, Int, Int, Int) {
    cairo_surface_flush(surface)
    let stride = Int(cairo_image_surface_get_stride(surface))
    let data = cairo_image_surface_get_data(surface)!
    let offset = y * stride + x * 4
    return (Int(data[offset + 2]), Int(data[offset + 1]), Int(data[offset]), Int(data[offset + 3]))
  }

  @Test func widthColoursAndBorder_areTheLooks() {
    let wide = card(
      look {
        $0.width = 480
        $0.borderWidth = 6
        $0.colours.border = RGBA(hex: "#ff00ff")!
        $0.colours.background = RGBA(hex: "#203020")!
      })
    let height = painter.height(of: wide)
    let image = painter.render(wide, height: height)
    defer { cairo_surface_destroy(image) }
    #expect(cairo_image_surface_get_width(image) == 480)
    // The border is 6 pixels of magenta at the left edge, then the card's green.
    for x in 0..<6 { #expect(pixel(image, x, height / 2) == (0xFF, 0x00, 0xFF, 0xFF), "x \(x)") }
    #expect(pixel(image, 6, height / 2) == (0x20, 0x30, 0x20, 0xFF))
    #expect(pixel(image, 473, height / 2) == (0x20, 0x30, 0x20, 0xFF))
    #expect(pixel(image, 477, height / 2) == (0xFF, 0x00, 0xFF, 0xFF))

    // No border at all: the background reaches the edge.
    let bare = card(
      look {
        $0.borderWidth = 0
        $0.colours.background = RGBA(hex: "#203020")!
      })
    let bareImage = painter.render(bare, height: painter.height(of: bare))
    defer { cairo_surface_destroy(bareImage) }
    #expect(pixel(bareImage, 0, height / 2) == (0x20, 0x30, 0x20, 0xFF))
  }

  @Test func paddingFontAndLines_setTheHeight() {
    let plain = painter.height(of: card(look()))
    #expect(painter.height(of: card(look { $0.padding = 30 })) == plain + 36)
    #expect(painter.height(of: card(look { $0.font = "DejaVu Sans 20" })) > plain + 20)
    let long = String(repeating: "more of the log ", count: 60)
    let six = painter.height(of: card(look(), body: long))
    let two = painter.height(of: card(look { $0.maxLines = 2 }, body: long))
    let lineHeight = Double(six - plain) / 4  // the body went from 2 lines to 6
    #expect(two < six)
    #expect(abs(Double(six - two) - 4 * lineHeight) <= 4)
  }

  @Test func aFormat_isTheCardsText() throws {
    let builtIn = painter.height(of: card(look()))
    // The title alone: one line, shorter than app + title + body.
    let titleOnly = painter.height(of: card(look { $0.format = try! CardFormat("%s") }))
    #expect(titleOnly < builtIn)
    let oneLine = painter.height(of: card(look { $0.format = try! CardFormat("%a: %s") }))
    #expect(oneLine == titleOnly)
    let twoLines = painter.height(of: card(look { $0.format = try! CardFormat("<b>%s</b>\\n%a") }))
    #expect(twoLines > titleOnly)
    // An empty format's fields leave no blank line.
    let noBody = painter.height(of: card(look { $0.format = try! CardFormat("%s\\n%b") }, body: nil))
    #expect(noBody == titleOnly)
  }

  @Test func theButtonsAndField_takeTheLooksFont() {
    let actions = [Action(key: "retry", label: "Retry")]
    func buttons(_ look: CardLook) -> [CardPainter.Button] {
      let shown = Card(Notice(id: 1, kind: .notice, title: "t", actions: actions, reply: "Reply"), look: look)
      let height = painter.height(of: shown)
      return [painter.field(of: shown, height: height)!] + painter.buttons(of: shown, height: height)
    }
    let small = buttons(look())
    let large = buttons(look { $0.font = "DejaVu Sans 20" })
    #expect(large[0].height > small[0].height + 8)
    #expect(large[1].height == large[0].height)
    // Across the look's width inside its padding.
    let wide = buttons(look { ($0.width, $0.padding) = (500, 20) })
    #expect(wide[1].x == 20 && wide[1].width == 460)
  }
}
