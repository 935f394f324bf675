/// A mouse button pressed over a popup.
public enum PopupButton: Sendable {
  case left
  case right
}

/// What a press on a card asks of the engine (DESIGN §9): the one place where a click becomes a
/// request, for every backend, which only tells which button went down on which card.
public enum CardPress: Equatable, Sendable {
  /// Choose the card's action with this key.
  case invoke(String)
  /// Close it, as a person does.
  case dismiss

  /// What `button` over `card` does: left chooses the default action when the notice has one,
  /// else dismisses; right dismisses.
  public init(_ button: PopupButton, on card: Card) {
    self = button == .left && card.hasDefaultAction ? .invoke(Card.defaultActionKey) : .dismiss
  }
}
