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

  public var description: String {
    switch self {
    case .focused: "focused"
    case .all: "all"
    case .named(let name): name
    }
  }
}

/// `Format=`: a card's text written as a format string — `%a` the app, `%s` the title, `%b` the
/// body, `%h` the host it came from, `%p` the progress (`42%`), `%%` a `%`, `\n` a new line — in
/// the body's markup (`<b>`, `<i>`, `<u>`, `<a href>`, entities). The title, app and host are put in
/// as text and the body as the markup it is, so nothing a notice says turns into markup around it.
public struct CardFormat: Sendable, Hashable, CustomStringConvertible {
  /// A piece of the format: text as written, or a field of the notice.
  public enum Part: Sendable, Hashable {
    case text(String)
    case app, title, body, host, progress
  }

  public let parts: [Part]
  /// The format as written in the config.
  public let description: String

  /// Reads a format; a `%` before anything but `a s b h p %` is refused.
  public init(_ text: String) throws(ConfigProblem) {
    var parts: [Part] = []
    var literal = ""
    var scalars = text.unicodeScalars.makeIterator()
    func flush() {
      if !literal.isEmpty { parts.append(.text(literal)) }
      literal = ""
    }
    while let scalar = scalars.next() {
      switch scalar {
      case "%":
        let field: Part
        switch scalars.next() {
        case "a": field = .app
        case "s": field = .title
        case "b": field = .body
        case "h": field = .host
        case "p": field = .progress
        case "%":
          literal += "%"
          continue
        case let other:
          let written = other.map { "%" + String($0) } ?? "a % at the end"
          throw ConfigProblem(
            "\(written) is not a field (%a app, %s title, %b body, %h host, %p progress, %% a %)")
        }
        flush()
        parts.append(field)
      case "\\":
        switch scalars.next() {
        case "n": literal += "\n"
        case let other?: literal += "\\" + String(other)
        case nil: literal += "\\"
        }
      default:
        literal.unicodeScalars.append(scalar)
      }
    }
    flush()
    guard !parts.isEmpty else { throw ConfigProblem("a format is needed, e.g. <b>%s</b>\\n%b") }
    self.parts = parts
    description = text
  }

  /// The card's text as body markup: each field of the notice filled in (an absent one empty),
  /// blank lines left at either end by absent fields taken away.
  public func markup(app: String?, title: String, body: String?, host: String?, value: Int?) -> String {
    var markup = ""
    for part in parts {
      switch part {
      case .text(let text): markup += text
      case .app: markup += BodyMarkup.escaped(app ?? "")
      case .title: markup += BodyMarkup.escaped(title)
      case .body: markup += body.map(BodyMarkup.normalized) ?? ""
      case .host: markup += BodyMarkup.escaped(host ?? "")
      case .progress: markup += value.map { "\($0)%" } ?? ""
      }
    }
    return String(Substring(markup).trimmingWhitespace())
  }
}

/// How a card looks: its colours, its sizes in logical pixels, its font, its text's form, its
/// layer. A card's look is resolved from the config's layers for its urgency and the rules its
/// notice matches (`DisplaySettings.look(for:rules:)`).
public struct CardLook: Sendable, Hashable {
  public var colours: CardColours
  /// Pixels, the border's width (0: none).
  public var borderWidth = 2
  /// Pixels, the card's width.
  public var width = 360
  /// A pango font description: the body's; the title is its bold, the app line a smaller size.
  public var font = "Sans 10"
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
  public var layer: CardLayer
  /// The outputs it shows on.
  public var output = CardOutput.focused

  public init(colours: CardColours, layer: CardLayer = .top) {
    self.colours = colours
    self.layer = layer
  }

  /// The built-in look of a card of `urgency`: its colours; a critical card on the overlay layer,
  /// above a fullscreen window.
  public static func builtIn(for urgency: Urgency) -> CardLook {
    CardLook(colours: .builtIn(for: urgency), layer: urgency == .critical ? .overlay : .top)
  }
}

/// One layer of the config's looks (`[Display]`, `[Display:URGENCY]`, a `[Rule:NAME]`): the keys it
/// sets, each over the look below it.
public struct LookOverrides: Sendable, Equatable {
  public var background: RGBA?
  public var foreground: RGBA?
  public var border: RGBA?
  public var progress: RGBA?
  public var borderWidth: Int?
  public var width: Int?
  public var font: String?
  public var iconSize: Int?
  public var cornerRadius: Int?
  public var padding: Int?
  public var maxLines: Int?
  public var format: CardFormat?
  public var layer: CardLayer?
  public var output: CardOutput?

  public init() {}

  /// Every key of `look`, set.
  public init(_ look: CardLook) {
    self.init()
    fill(from: look, urgencyKeys: true, rest: true)
  }

  /// Sets the colours of `colours`, and nothing else.
  public init(colours: CardColours) {
    self.init()
    (background, foreground, border, progress) = (
      colours.background, colours.foreground, colours.border, colours.progress
    )
  }

  /// Whether it sets nothing.
  public var isEmpty: Bool { self == LookOverrides() }

  /// `look` with what this layer sets put over it.
  public func over(_ look: CardLook) -> CardLook {
    var look = look
    look.colours.background = background ?? look.colours.background
    look.colours.foreground = foreground ?? look.colours.foreground
    look.colours.border = border ?? look.colours.border
    look.colours.progress = progress ?? look.colours.progress
    look.borderWidth = borderWidth ?? look.borderWidth
    look.width = width ?? look.width
    look.font = font ?? look.font
    look.iconSize = iconSize ?? look.iconSize
    look.cornerRadius = cornerRadius ?? look.cornerRadius
    look.padding = padding ?? look.padding
    look.maxLines = maxLines ?? look.maxLines
    look.format = format ?? look.format
    look.layer = layer ?? look.layer
    look.output = output ?? look.output
    return look
  }

  /// Sets what this layer leaves unset from `look`: the keys whose built-in value differs by
  /// urgency (`urgencyKeys`: the colours and the layer), and (`rest`) the other keys.
  mutating func fill(from look: CardLook, urgencyKeys: Bool, rest: Bool) {
    if urgencyKeys {
      background = background ?? look.colours.background
      foreground = foreground ?? look.colours.foreground
      border = border ?? look.colours.border
      progress = progress ?? look.colours.progress
      layer = layer ?? look.layer
    }
    if rest {
      borderWidth = borderWidth ?? look.borderWidth
      width = width ?? look.width
      font = font ?? look.font
      iconSize = iconSize ?? look.iconSize
      cornerRadius = cornerRadius ?? look.cornerRadius
      padding = padding ?? look.padding
      maxLines = maxLines ?? look.maxLines
      format = format ?? look.format
      output = output ?? look.output
    }
  }
}
