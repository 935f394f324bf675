import NotifyCore
import NotifyProtocol

/// Whether and where notifyd draws its own popups (`[Display] Mode=`).
public enum DisplayMode: String, Sendable, CaseIterable {
  /// Wayland when a compositor with layer-shell is reachable, else X11 when `DISPLAY` is set,
  /// unless notices are forwarded to another notification server.
  case auto
  /// Wayland, even while forwarding.
  case wayland
  /// X11 (through XWayland too), even while forwarding.
  case x11
  /// No popups.
  case off
}

/// Which monitor is the focused one on X11 (`[Display] FollowFocus=`), where the cards of
/// `Output=focused` go, chosen when a card appears: the primary one, the one under the pointer, or
/// the one the window with the keyboard is on (`_NET_ACTIVE_WINDOW`).
public enum FollowFocus: String, Sendable, CaseIterable {
  case no
  case mouse
  case keyboard
}

/// The edge of the output the notification center opens on (`[Center] Anchor=`).
public enum CenterAnchor: String, Sendable, CaseIterable {
  case left
  case right
}

/// The notification center's panel (`[Center]`, DESIGN §13): an edge of the output, full height.
public struct CenterSettings: Sendable, Equatable {
  /// The edge it opens on.
  public var anchor = CenterAnchor.right
  /// Pixels, its width.
  public var width = 420

  public init() {}
}

/// `[Speech]`: notices spoken through speech-dispatcher as their cards show (DESIGN §18).
public struct SpeechSettings: Sendable, Equatable {
  /// `Speak=`: what is spoken of a notice no rule says otherwise of.
  public var speak = SpeechChoice.no
  /// `Socket=`: speech-dispatcher's socket; nil: `SPEECHD_ADDRESS`'s, else
  /// `$XDG_RUNTIME_DIR/speech-dispatcher/speechd.sock`.
  public var socket: String?

  public init() {}
}

/// The corner or edge of the output the popups stack from (`[Display] Anchor=`).
public enum PopupAnchor: String, Sendable, CaseIterable {
  case topLeft = "top-left"
  case topCenter = "top-center"
  case topRight = "top-right"
  case bottomLeft = "bottom-left"
  case bottomCenter = "bottom-center"
  case bottomRight = "bottom-right"
  case center

  /// Whether new popups enter at the top and older ones move down.
  public var stacksDown: Bool {
    switch self {
    case .topLeft, .topCenter, .topRight, .center: return true
    case .bottomLeft, .bottomCenter, .bottomRight: return false
    }
  }
}

/// A colour with alpha, each channel 0…1 (`#rrggbb` or `#rrggbbaa` in the config).
public struct RGBA: Sendable, Hashable, CustomStringConvertible {
  public var red: Double
  public var green: Double
  public var blue: Double
  public var alpha: Double

  public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
    self.red = red
    self.green = green
    self.blue = blue
    self.alpha = alpha
  }

  /// Parses `#rrggbb` or `#rrggbbaa`; nil for anything else.
  public init?(hex text: String) {
    let digits = Array(text.utf8)
    guard digits.first == UInt8(ascii: "#"), digits.count == 7 || digits.count == 9 else { return nil }
    var channels: [Double] = []
    var index = 1
    while index < digits.count {
      guard let high = Self.hexValue(digits[index]), let low = Self.hexValue(digits[index + 1]) else {
        return nil
      }
      channels.append(Double(high * 16 + low) / 255)
      index += 2
    }
    self.init(
      red: channels[0], green: channels[1], blue: channels[2], alpha: channels.count == 4 ? channels[3] : 1)
  }

  private static func hexValue(_ digit: UInt8) -> Int? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(digit - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(digit - UInt8(ascii: "a")) + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(digit - UInt8(ascii: "A")) + 10
    default: return nil
    }
  }

  /// `#rrggbb`, or `#rrggbbaa` when not opaque.
  public var description: String {
    func hex(_ channel: Double) -> String {
      let value = Int((channel * 255).rounded())
      let text = String(value, radix: 16)
      return value < 16 ? "0" + text : text
    }
    return "#" + hex(red) + hex(green) + hex(blue) + (alpha < 1 ? hex(alpha) : "")
  }
}

/// How the popups look and where they go (`[Display]`, DESIGN §9).
public struct DisplaySettings: Sendable, Equatable {
  public var mode = DisplayMode.auto
  public var anchor = PopupAnchor.topRight
  /// Pixels between the output's edges and the stack.
  public var margin = 16
  /// Pixels between two cards.
  public var gap = 8
  /// X11, for cards on the focused output (`Output=focused`): the primary monitor, the one under
  /// the pointer, or the active window's.
  public var followFocus = FollowFocus.no
  /// X11's device pixels per logical pixel (`[Display] Scale=`); nil: the X resources' `Xft.dpi`
  /// over 96. Wayland outputs say their own.
  public var scale: Double?
  /// `[Idle] After=`: seconds without input after which the person counts as away and shown
  /// notices' holds stand still (default 2 minutes); `nil` (`off`) never.
  public var idleAfter: Double? = 120
  /// `IconTheme=`: the icon theme whose names a D-Bus client may give as its icon (then hicolor).
  public var iconTheme = "Adwaita"
  /// `MaxButtons=`: action buttons at a card's foot at most; a "…" button opens the picker for
  /// the rest. 0 draws none.
  public var maxButtons = 3
  /// `HoverHolds=`: while the pointer is over a card its hold stands still.
  public var hoverHolds = true
  /// What each mouse button does on a card away from its buttons (a rule may say otherwise).
  public var leftClick = ClickAction.default
  public var middleClick = ClickAction.menu
  public var rightClick = ClickAction.dismiss
  /// `Snooze=`: the times a notice may be snoozed for, as the picker offers them; the first is what
  /// "Remind me" (`SnoozeButton=`) and the `snooze` click give.
  public var snooze = SnoozeTime.defaultChoices
  /// `Picker=`: the command a notice's action labels are handed to, one a line, for `menu`; `nil`:
  /// the first of `fuzzel --dmenu`, `wofi --dmenu` (Wayland), `rofi -dmenu`, `dmenu` (X11) found.
  public var picker: String?
  /// The notification center (`[Center]`).
  public var center = CenterSettings()
  /// Speaking notices (`[Speech]`).
  public var speech = SpeechSettings()
  /// The cards' look: `[Display]`'s keys, over the built-in look of each urgency.
  public var look = LookOverrides()
  /// `[Display:URGENCY]`'s keys, over `look`.
  public var urgencyLooks: [Urgency: LookOverrides] = [:]
  /// Each `[Rule:NAME]`'s look keys, by the rule's name, over the urgency's.
  public var ruleLooks: [String: LookOverrides] = [:]

  public init() {}

  /// The look of a card of `urgency` whose notice matches the rules named `rules` (in the file's
  /// order): the built-in look of the urgency ← `[Display]` ← `[Display:URGENCY]` ← each rule's.
  public func look(for urgency: Urgency, rules: [String] = []) -> CardLook {
    var resolved = look.over(CardLook.builtIn(for: urgency))
    if let layer = urgencyLooks[urgency] { resolved = layer.over(resolved) }
    for name in rules {
      if let layer = ruleLooks[name] { resolved = layer.over(resolved) }
    }
    return resolved
  }

  /// The output `[Display] Output=` names, if it names one: where the center opens.
  public var namedOutput: String? {
    if case .named(let name)? = look.output { name } else { nil }
  }

  /// The colours of a card of `urgency` no rule changes (the center's rows).
  public func colours(for urgency: Urgency) -> CardColours { look(for: urgency).colours }
}
