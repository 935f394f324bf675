import NotifyConfig
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
      (nil, .snooze, .snooze),
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

  @Test func remindMe_isAButtonAfterTheActions_onlyWithSnoozeButton_andAClickOnItSnoozes() {
    var look = CardLook.builtIn(for: .normal)
    look.snoozeButton = true
    let snoozing = Card(Notice(id: 1, kind: .notice, title: "t", actions: [Self.open]), look: look)
    let geometry = CardGeometry(snoozing, height: 200, rowHeight: 20, maxButtons: 3)
    #expect(geometry.buttons.map(\.target) == [CardTarget.action("open"), .snooze])
    #expect(geometry.buttons.last?.label == "Remind me")
    // Without actions, or with MaxButtons=0, it is there alone.
    let alone = CardGeometry(
      Card(Notice(id: 2, kind: .notice, title: "t"), look: look), height: 200, rowHeight: 20, maxButtons: 0)
    #expect(alone.buttons.map(\.target) == [CardTarget.snooze])
    let plain = CardGeometry(card(actions: [Self.open]), height: 200, rowHeight: 20, maxButtons: 3)
    #expect(plain.buttons.map(\.target) == [CardTarget.action("open")])
    #expect(CardPress(.left, on: .snooze, of: snoozing, binding: .none) == .snooze)
    #expect(CardTarget.snooze.isButton)
  }

  @Test func aCard_showsEveryActionButDefault_asButtons() {
    let shown = card(actions: [Self.open, Self.show, Action(key: "later", label: "Later")])
    #expect(shown.buttons.map(\.key) == ["open", "later"])
    #expect(shown.hasDefaultAction)
  }
}

/// The reply field: where it is, and what a key does.
@Suite("Reply field")
struct ReplyFieldTests {
  @Test func theField_isAboveTheButtons_andALeftClickOnItTakesTheKeyboard() {
    var settings = DisplaySettings()
    settings.look.font = "DejaVu Sans 11"
    let painter = CardPainter(settings: settings)
    let card = Card(
      Notice(
        id: 1, kind: .notice, title: "Ada", actions: [Action(key: "later", label: "Later")], reply: "Reply"),
      look: settings.look(for: .normal))
    let height = painter.height(of: card)
    let field = try! #require(painter.field(of: card, height: height))
    let button = painter.buttons(of: card, height: height)[0]
    #expect(field.y + field.height <= button.y)
    #expect(painter.target(of: card, height: height, x: field.x + 20, y: field.y + 5) == .field)
    #expect(CardPress(.left, on: .field, of: card, binding: .default) == .focusField)
    #expect(CardPress(.right, on: .field, of: card, binding: .dismiss) == .dismiss)
    #expect(painter.field(of: Card(Notice(id: 2, kind: .notice, title: "t")), height: 100) == nil)
  }

  @Test(arguments: [
    (0xff0d as UInt32, KeyInput?.some(.enter)), (0xff1b, .escape), (0xff08, .backspace), (0x61, .text("a")),
    (0x41, .text("A")), (0x20ac, .text("€")), (0x00e9, .text("é")), (0xffe1, nil),  // Shift_L
    (0xff09, nil),  // Tab
  ])
  func aKeysym_typesItsText_orActsOnTheField(keysym: UInt32, input: KeyInput?) {
    #expect(KeyInput(keysym: keysym) == input)
  }
}
