import NotifyCore
import NotifyProtocol

/// The colours of a card.
public struct CardColours: Sendable, Hashable {
  public var background: RGBA
  public var foreground: RGBA
  public var border: RGBA
  public var progress: RGBA

  public init(background: RGBA, foreground: RGBA, border: RGBA, progress: RGBA) {
    self.background = background
    self.foreground = foreground
    self.border = border
    self.progress = progress
  }

  /// The built-in colours: a dark card, the border and bar in the urgency's colour (the terminal
  /// view's palette).
  public static func builtIn(for urgency: Urgency) -> CardColours {
    let accent: RGBA
    switch urgency {
    case .low: accent = RGBA(hex: "#8a94a6")!
    case .normal: accent = RGBA(hex: "#4fa8ff")!
    case .critical: accent = RGBA(hex: "#ff5c5c")!
    }
    return CardColours(
      background: RGBA(hex: "#1f232b")!, foreground: RGBA(hex: "#e8ebf0")!, border: accent, progress: accent)
  }
}

/// The layer-shell layer a card is on (`Layer=`, Wayland): `top` is under a fullscreen window,
/// `overlay` over it. On X11 every card is above the other windows.
public enum CardLayer: String, Sendable, CaseIterable {
  case top
  case overlay
}

/// Where a card shows (`Output=`): where the focus is, on every output, or on the output of a name.
public enum CardOutput: Sendable, Hashable, CustomStringConvertible {
  /// The output with the keyboard focus as the card appears (Wayland: the activated window's, else
  /// the compositor's choice; X11: `FollowFocus=`'s monitor).
  case focused
  /// A card on every output.
  case all
  /// The output (X11: the RandR monitor) of that name; while there is none, as `focused`.
  case named(String)

  /// `focused`, `all`, or a name.
  public init(_ text: String) {
    switch text {
    case "focused": self = .focused
    case "all": self = .all
    default: self = .named(text)
    }
  }

  /// As the config writes it.
  public var description: String {
    switch self {
    case .focused: "focused"
    case .all: "all"
    case .named(let name): name
    }
  }
}

/// How a card comes and goes (`Animation=`): `fade` in and out over its fades; `none` cuts — the
/// card is there at full opacity from the start of its fade-in to the end of its fade-out, and
/// nothing on it moves (reduced motion).
public enum CardAnimation: String, Sendable, CaseIterable {
  case fade
  case none
}

/// How a card looks: its colours, its sizes in logical pixels, its font, its text's form, its
/// layer. A card's look is resolved from the config's layers for its urgency and the rules its
/// notice matches (`DisplaySettings.look(for:rules:)`).
public struct CardLook: Sendable, Hashable {
  /// The card's, its text's, its border's and its bar's.
  public var colours: CardColours
  /// Pixels, the border's width (0: none).
  public var borderWidth = 2
  /// Pixels, the card's width.
  public var width = 360
  /// A pango font description: the body's; the title is its bold, the app line a smaller size.
  public var font = "Sans 10"
  /// What every text's size is multiplied by (`FontScale=`), the font's and the buttons'.
  public var fontScale = 1.0
  /// How it comes and goes.
  public var animation = CardAnimation.fade
  /// Whether it has a "Remind me" button (`SnoozeButton=`): a click snoozes it for the first of
  /// `[Display] Snooze=`'s choices.
  public var snoozeButton = false
  /// Pixels, the edge of the icon's square.
  public var iconSize = 48
  /// Pixels, the radius of the card's corners.
  public var cornerRadius = 8
  /// Pixels inside the border, around everything on the card.
  public var padding = 12
  /// Lines of the body at most (of the formatted text, with `format`), cut with `…` after.
  public var maxLines = 6
  /// The card's text as one format; `nil`: the app's line, the bold title (two lines at most) and
  /// the body.
  public var format: CardFormat?
  /// The layer-shell layer it is on (Wayland).
  public var layer: CardLayer
  /// The outputs it shows on.
  public var output = CardOutput.focused
  /// What it does while the window with the keyboard is fullscreen.
  public var fullscreen: FullscreenPolicy

  /// A look in `colours` on `layer`, every other key at its default.
  public init(colours: CardColours, layer: CardLayer = .top, fullscreen: FullscreenPolicy = .delay) {
    self.colours = colours
    self.layer = layer
    self.fullscreen = fullscreen
  }

  /// The built-in look of a card of `urgency`: its colours; a critical card on the overlay layer,
  /// above a fullscreen window, and shown there.
  public static func builtIn(for urgency: Urgency) -> CardLook {
    let critical = urgency == .critical
    return CardLook(
      colours: .builtIn(for: urgency), layer: critical ? .overlay : .top,
      fullscreen: critical ? .show : .delay)
  }
}
