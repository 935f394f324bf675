import NotifyConfig
import NotifyProtocol
import Testing

@testable import NotifyDisplay

/// Where a card's parts are, as arithmetic: no cairo, no pango, a row height given.
@Suite("CardGeometry")
struct CardGeometryTests {
  private static let row = 20.0
  private static let height = 160

  private func card(_ keys: [String], reply: String? = nil) -> Card {
    Card(
      Notice(
        id: 1, kind: .notice, title: "t", actions: keys.map { Action(key: $0, label: $0.uppercased()) },
        reply: reply))
  }

  @Test func theButtons_shareTheInnerWidth_inOneRowAtTheFoot_andMoreThanTheLimitEndInAnEllipsis() {
    let card = card(["default", "a", "b", "c", "d"])
    let look = card.look
    let geometry = CardGeometry(card, height: Self.height, rowHeight: Self.row, maxButtons: 3)
    #expect(geometry.buttons.map(\.target) == [.action("a"), .action("b"), .action("c"), .more])
    #expect(geometry.buttons.map(\.label) == ["A", "B", "C", "…"])
    let padding = Double(look.padding)
    let bottom = Double(Self.height) - padding
    for (left, right) in zip(geometry.buttons, geometry.buttons.dropFirst()) {
      #expect(right.x - (left.x + left.width) == CardGeometry.spacing)
      #expect(left.width == right.width)
    }
    #expect(geometry.buttons.first?.x == padding)
    let last = geometry.buttons.last!
    #expect(abs(last.x + last.width - (Double(look.width) - padding)) < 1e-9)
    #expect(geometry.buttons.allSatisfy { $0.y + $0.height == bottom && $0.height == Self.row })
    #expect(geometry.field == nil)
    // Without a limit, or without an action but `default`, there is no row.
    #expect(CardGeometry(card, height: Self.height, rowHeight: Self.row, maxButtons: 0).buttons.isEmpty)
    #expect(
      CardGeometry(self.card(["default"]), height: Self.height, rowHeight: Self.row, maxButtons: 3).buttons
        .isEmpty)
  }

  @Test func theReplyField_liesAcrossTheCardAboveTheButtons_orAtTheFootWithoutThem() {
    let withButtons = CardGeometry(
      card(["a"], reply: "Reply…"), height: Self.height, rowHeight: Self.row, maxButtons: 3)
    let field = withButtons.field!
    #expect(field.target == .field && field.label == "Reply…")
    #expect(field.y + field.height + CardGeometry.spacing == withButtons.buttons[0].y)
    #expect(field.width == withButtons.buttons[0].width)  // one button: the whole width, as the field
    let alone = CardGeometry(
      card([], reply: "Reply…"), height: Self.height, rowHeight: Self.row, maxButtons: 3)
    #expect(alone.field!.y + alone.field!.height == Double(Self.height) - Double(card([]).look.padding))
  }

  @Test func aPoint_isOnTheField_aButton_orElseTheCard() {
    let geometry = CardGeometry(
      card(["a", "b"], reply: "r"), height: Self.height, rowHeight: Self.row, maxButtons: 3)
    for part in geometry.buttons + [geometry.field!] {
      #expect(geometry.target(x: part.x + part.width / 2, y: part.y + part.height / 2) == part.target)
      // Edges: the left and top one are in, the right and bottom one are not.
      #expect(geometry.target(x: part.x, y: part.y) == part.target)
      #expect(geometry.target(x: part.x + part.width, y: part.y + part.height) != part.target)
    }
    let gap = geometry.buttons[0].x + geometry.buttons[0].width + CardGeometry.spacing / 2
    #expect(geometry.target(x: gap, y: geometry.buttons[0].y + 5) == .card)
    #expect(geometry.target(x: 20, y: 10) == .card)
  }

  @Test func theFoot_addsAGapAndItsRows_andTheBarSitsAboveIt() {
    let bare = card([])
    #expect(CardGeometry.footHeight(bare, rowHeight: Self.row, maxButtons: 3) == 0)
    #expect(
      CardGeometry.footHeight(card(["a"]), rowHeight: Self.row, maxButtons: 3) == CardGeometry.footGap
        + Self.row)
    #expect(CardGeometry.footHeight(card(["a"]), rowHeight: Self.row, maxButtons: 0) == 0)
    let both = card(["a"], reply: "r")
    let foot = CardGeometry.footHeight(both, rowHeight: Self.row, maxButtons: 3)
    #expect(foot == CardGeometry.footGap + 2 * Self.row + CardGeometry.spacing)
    let bottom = Double(Self.height) - Double(both.look.padding)
    let geometry = CardGeometry(both, height: Self.height, rowHeight: Self.row, maxButtons: 3)
    #expect(geometry.barTop == bottom - foot - CardGeometry.barHeight)
    // The bar ends a gap above the field, the first row of the foot.
    #expect(geometry.field!.y - (geometry.barTop + CardGeometry.barHeight) == CardGeometry.footGap)
  }
}
