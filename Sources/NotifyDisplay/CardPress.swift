import NotifyCore

/// A mouse button pressed over a popup.
public enum PopupButton: Sendable {
  case left
  case middle
  case right
}

/// What part of a card a point is on: one of its action buttons, the "…" button, or the rest.
public enum CardTarget: Equatable, Sendable {
  /// The button of the action with this key.
  case action(String)
  /// The "…" button: the rest of the actions, in the picker.
  case more
  /// "Remind me" (`SnoozeButton=`): snooze for the first of `[Display] Snooze=`.
  case snooze
  /// The reply field.
  case field
  /// Anywhere else on the card.
  case card

  /// Whether it is a button (drawn highlighted under the pointer).
  public var isButton: Bool {
    switch self {
    case .action, .more, .snooze: true
    case .field, .card: false
    }
  }
}

/// What a press on a card asks for (DESIGN §9, §12): the one place where a click becomes a
/// request, for every backend, which only tells which button went down where on which card.
public enum CardPress: Equatable, Sendable {
  /// Choose the card's action with this key.
  case invoke(String)
  /// Close it, as a person does.
  case dismiss
  /// Close every visible card.
  case dismissAll
  /// Hand its actions to the picker.
  case menu
  /// Snooze it for the first of `[Display] Snooze=`'s choices.
  case snooze
  /// Give the reply field the keyboard.
  case focusField
  /// Nothing.
  case nothing

  /// What `button` on `target` of `card` does: a left click on an action's button chooses it, on
  /// "…" opens the picker; any other press does what `binding` (the click action configured for
  /// that button, `[Display]` or a rule's) says — `default` the default action when the notice
  /// has one, else dismiss; `menu` only when the notice has actions.
  public init(_ button: PopupButton, on target: CardTarget, of card: Card, binding: ClickAction) {
    switch (button, target) {
    case (.left, .action(let key)): self = .invoke(key)
    case (.left, .more): self = .menu
    case (.left, .snooze): self = .snooze
    case (.left, .field): self = .focusField
    default:
      switch binding {
      case .default: self = card.hasDefaultAction ? .invoke(Card.defaultActionKey) : .dismiss
      case .dismiss: self = .dismiss
      case .dismissAll: self = .dismissAll
      case .menu: self = card.hasDefaultAction || !card.buttons.isEmpty ? .menu : .nothing
      case .snooze: self = .snooze
      case .none: self = .nothing
      }
    }
  }
}
