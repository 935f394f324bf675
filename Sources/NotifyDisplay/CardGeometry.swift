import NotifyConfig

/// Where the parts of a card are, by arithmetic alone: the reply field and the row of buttons at
/// its foot, the progress bar above them, and what a point is on — the one hit-test every
/// backend's pointer goes through. The font's measure comes in (`rowHeight`: a button's height in
/// the card's font, which `CardPainter` measures), so that none of it needs cairo or pango.
public struct CardGeometry: Equatable, Sendable {
  /// A part of a card's foot (a button, the reply field) or of the center: what a click on it
  /// chooses, its label, and where it is.
  public struct Button: Equatable, Sendable {
    public var target: CardTarget
    public var label: String
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(target: CardTarget, label: String, x: Double, y: Double, width: Double, height: Double) {
      self.target = target
      self.label = label
      self.x = x
      self.y = y
      self.width = width
      self.height = height
    }

    func contains(x pointX: Double, y pointY: Double) -> Bool {
      pointX >= x && pointX < x + width && pointY >= y && pointY < y + height
    }
  }

  /// Pixels above the rows of a card's foot.
  static let footGap = 8.0
  /// Pixels between two buttons, and between the reply field and the buttons under it.
  static let spacing = 6.0
  /// The progress bar's height.
  public static let barHeight = 6.0

  /// The buttons, left to right: one for each action but `default` up to `MaxButtons=`, then "…"
  /// when there are more, then "Remind me" with `SnoozeButton=yes`; equal widths across the card,
  /// in a row at its foot. No action buttons with no such action, or `MaxButtons=0`.
  public let buttons: [Button]
  /// The reply field: across the card above its buttons; `nil` when the notice offers no reply.
  public let field: Button?
  /// The top of the progress bar, the last thing on a card but its foot.
  public let barTop: Double

  /// The parts of `card`, `height` logical pixels high, with rows `rowHeight` high and at most
  /// `maxButtons` buttons.
  public init(_ card: Card, height: Int, rowHeight: Double, maxButtons: Int) {
    let padding = Double(card.look.padding)
    let width = Self.innerWidth(card.look)
    let bottom = Double(height) - padding
    let hasButtons = Self.hasButtons(card, maxButtons: maxButtons)
    if hasButtons {
      var entries = card.buttons.prefix(maxButtons).map { action in
        (CardTarget.action(action.key), action.label.isEmpty ? action.key : action.label)
      }
      if card.buttons.count > maxButtons { entries.append((.more, "…")) }
      if card.look.snoozeButton { entries.append((.snooze, Self.snoozeLabel)) }
      buttons = Self.row(entries, x: padding, y: bottom - rowHeight, width: width, height: rowHeight)
    } else {
      buttons = []
    }
    let below = hasButtons ? rowHeight + Self.spacing : 0
    field = card.reply.map { placeholder in
      Button(
        target: .field, label: placeholder, x: padding, y: bottom - below - rowHeight, width: width,
        height: rowHeight)
    }
    barTop = bottom - Self.footHeight(card, rowHeight: rowHeight, maxButtons: maxButtons) - Self.barHeight
  }

  /// What the point (`x`, `y`) is on: the field, a button, else the card.
  public func target(x: Double, y: Double) -> CardTarget {
    if let field, field.contains(x: x, y: y) { return .field }
    return buttons.first { $0.contains(x: x, y: y) }?.target ?? .card
  }

  /// The pixels the reply field and the row of buttons add at the foot of `card`.
  public static func footHeight(_ card: Card, rowHeight: Double, maxButtons: Int) -> Double {
    let rows = (card.reply != nil ? 1.0 : 0) + (hasButtons(card, maxButtons: maxButtons) ? 1 : 0)
    guard rows > 0 else { return 0 }
    return footGap + rows * rowHeight + (rows - 1) * spacing
  }

  /// Buttons for `entries` (what each chooses, its label) in a row `width` wide from (`x`, `y`),
  /// of equal widths `spacing` apart, `height` high: a card's foot, an entry's in the center.
  public static func row(
    _ entries: [(CardTarget, String)], x: Double, y: Double, width: Double, height: Double
  ) -> [Button] {
    let count = Double(entries.count)
    let each = (width - spacing * (count - 1)) / count
    return entries.enumerated().map { index, entry in
      Button(
        target: entry.0, label: entry.1, x: x + Double(index) * (each + spacing), y: y, width: each,
        height: height)
    }
  }

  /// The width inside the padding of a card of `look`: the text's, the progress bar's, the foot's.
  public static func innerWidth(_ look: CardLook) -> Double { max(Double(look.width - 2 * look.padding), 1) }

  /// Action buttons (`MaxButtons=` of them at most), or "Remind me" (`SnoozeButton=`).
  private static func hasButtons(_ card: Card, maxButtons: Int) -> Bool {
    (maxButtons > 0 && !card.buttons.isEmpty) || card.look.snoozeButton
  }

  /// The label of the snooze button (`SnoozeButton=`).
  public static let snoozeLabel = "Remind me"
}
