import NotifyProtocol
import Testing

@testable import NotifyDisplay

/// What a press on a card asks of the engine, the same for every backend.
@Suite("CardPress")
struct CardPressTests {
  private func card(actions: [Action]?) -> Card {
    Card(Notice(id: 1, kind: .notice, title: "t", actions: actions))
  }

  @Test(
    arguments: [
      (nil, PopupButton.left, CardPress.dismiss),
      ([Action(key: "open", label: "Open")], .left, .dismiss),
      ([Action(key: "default", label: "Show")], .left, .invoke("default")),
      ([Action(key: "open", label: "Open"), Action(key: "default", label: "")], .left, .invoke("default")),
      ([Action(key: "default", label: "Show")], .right, .dismiss),
      (nil, .right, .dismiss),
    ] as [([Action]?, PopupButton, CardPress)])
  func aPress_invokesTheDefaultAction_orDismisses(actions: [Action]?, button: PopupButton, press: CardPress) {
    #expect(CardPress(button, on: card(actions: actions)) == press)
  }
}
