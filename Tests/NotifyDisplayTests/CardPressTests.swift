import NotifyCore
import NotifyProtocol
import Testing

@testable import NotifyDisplay

/// What a press on a card asks for, the same for every backend.
@Suite("CardPress")
struct CardPressTests {
  private func card(actions: [Action]?) -> Card {
    Card(Notice(id: 1, kind: .notice, title: "t", actions: actions))
  }

  private static let open = Action(key: "open", label: "Open")
  private static let show = Action(key: "default", label: "Show")

  @Test(
    arguments: [
      (nil, ClickAction.default, CardPress.dismiss),
      ([open], .default, .dismiss),
      ([show], .default, .invoke("default")),
      ([open, Action(key: "default", label: "")], .default, .invoke("default")),
      ([show], .dismiss, .dismiss),
      ([show], .dismissAll, .dismissAll),
      ([show], .menu, .menu),
      ([open], .menu, .menu),
      (nil, .menu, .nothing),  // nothing to pick from
      ([show], .none, .nothing),
    ] as [([Action]?, ClickAction, CardPress)])
  func aPressAwayFromTheButtons_doesWhatItsBindingSays(
    actions: [Action]?, binding: ClickAction, press: CardPress
  ) {
    for button in [PopupButton.left, .middle, .right] {
      #expect(CardPress(button, on: .card, of: card(actions: actions), binding: binding) == press)
    }
  }

  @Test func aLeftClickOnAButton_choosesItsAction_onMore_opensThePicker_otherButtonsFollowTheirBinding() {
    let shown = card(actions: [Self.show, Self.open])
    #expect(CardPress(.left, on: .action("open"), of: shown, binding: .none) == .invoke("open"))
    #expect(CardPress(.left, on: .more, of: shown, binding: .none) == .menu)
    #expect(CardPress(.right, on: .action("open"), of: shown, binding: .dismiss) == .dismiss)
    #expect(CardPress(.middle, on: .more, of: shown, binding: .none) == .nothing)
  }

  @Test func aCard_showsEveryActionButDefault_asButtons() {
    let shown = card(actions: [Self.open, Self.show, Action(key: "later", label: "Later")])
    #expect(shown.buttons.map(\.key) == ["open", "later"])
    #expect(shown.hasDefaultAction)
  }
}
