import NotifyCore
import NotifyProtocol

/// One layer of the config's looks (`[Display]`, `[Display:URGENCY]`, a `[Rule:NAME]`): the keys it
/// sets, each over the look below it.
public struct LookOverrides: Sendable, Equatable {
  // Each key of the config of the same name, `nil` while this layer leaves it to the one below
  // (`CardLook` says what each is).
  public var background: RGBA?
  public var foreground: RGBA?
  public var border: RGBA?
  public var progress: RGBA?
  public var borderWidth: Int?
  public var width: Int?
  public var font: String?
  public var fontScale: Double?
  public var animation: CardAnimation?
  public var snoozeButton: Bool?
  public var iconSize: Int?
  public var cornerRadius: Int?
  public var padding: Int?
  public var maxLines: Int?
  public var format: CardFormat?
  public var layer: CardLayer?
  public var output: CardOutput?
  public var fullscreen: FullscreenPolicy?

  /// A layer that sets nothing.
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
    look.fontScale = fontScale ?? look.fontScale
    look.animation = animation ?? look.animation
    look.snoozeButton = snoozeButton ?? look.snoozeButton
    look.iconSize = iconSize ?? look.iconSize
    look.cornerRadius = cornerRadius ?? look.cornerRadius
    look.padding = padding ?? look.padding
    look.maxLines = maxLines ?? look.maxLines
    look.format = format ?? look.format
    look.layer = layer ?? look.layer
    look.output = output ?? look.output
    look.fullscreen = fullscreen ?? look.fullscreen
    return look
  }

  /// Sets what this layer leaves unset from `look`: the keys whose built-in value differs by
  /// urgency (`urgencyKeys`: the colours, the layer and `Fullscreen=`), and (`rest`) the other keys.
  mutating func fill(from look: CardLook, urgencyKeys: Bool, rest: Bool) {
    if urgencyKeys {
      background = background ?? look.colours.background
      foreground = foreground ?? look.colours.foreground
      border = border ?? look.colours.border
      progress = progress ?? look.colours.progress
      layer = layer ?? look.layer
      fullscreen = fullscreen ?? look.fullscreen
    }
    if rest {
      borderWidth = borderWidth ?? look.borderWidth
      width = width ?? look.width
      font = font ?? look.font
      fontScale = fontScale ?? look.fontScale
      animation = animation ?? look.animation
      snoozeButton = snoozeButton ?? look.snoozeButton
      iconSize = iconSize ?? look.iconSize
      cornerRadius = cornerRadius ?? look.cornerRadius
      padding = padding ?? look.padding
      maxLines = maxLines ?? look.maxLines
      format = format ?? look.format
      output = output ?? look.output
    }
  }
}
