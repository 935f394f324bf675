import NotifyProtocol

/// The colours of the terminal view, chosen for the terminal's background, which every fade
/// blends toward.
///
/// A terminal cannot be asked its background colour without a round trip on its input, so the
/// view assumes one: `NOTIFYD_WATCH_BACKGROUND` names it (`dark`, `light` or `#rrggbb`); else
/// `COLORFGBG` (set by rxvt, Konsole and others) says whether it is light; else it is taken to be
/// black.
struct WatchPalette: Sendable, Equatable {
  /// The terminal's background, the colour a notice fades from and to.
  var background: RGBColor
  /// Titles.
  var title: RGBColor
  /// Bodies and closing messages.
  var body: RGBColor
  /// Secondary text: app, time left, the status line's counts.
  var muted: RGBColor
  /// The empty part of a progress bar.
  var track: RGBColor
  /// The band behind a `blur` notice, at full opacity.
  var band: RGBColor
  /// The suspended state in the status line.
  var warning: RGBColor
  /// Borders, the urgency label and the filled part of a progress bar, by urgency.
  var accents: [Urgency: RGBColor]

  /// The accent colour of `urgency`.
  func accent(_ urgency: Urgency) -> RGBColor { accents[urgency] ?? title }

  /// Colours for a dark background, black unless given.
  static func dark(background: RGBColor = RGBColor(red: 0, green: 0, blue: 0)) -> WatchPalette {
    WatchPalette(
      background: background,
      title: RGBColor(red: 0xF2, green: 0xF2, blue: 0xF2),
      body: RGBColor(red: 0xC0, green: 0xC0, blue: 0xC0),
      muted: RGBColor(red: 0x8A, green: 0x8A, blue: 0x8A),
      track: RGBColor(red: 0x44, green: 0x44, blue: 0x44),
      band: RGBColor(red: 0x2E, green: 0x2E, blue: 0x36),
      warning: RGBColor(red: 0xFF, green: 0xB0, blue: 0x3B),
      accents: [
        .low: RGBColor(red: 0x7A, green: 0x9C, blue: 0xB8),
        .normal: RGBColor(red: 0x4F, green: 0xA8, blue: 0xFF),
        .critical: RGBColor(red: 0xFF, green: 0x55, blue: 0x55),
      ])
  }

  /// Colours for a light background, white unless given.
  static func light(background: RGBColor = RGBColor(red: 0xFF, green: 0xFF, blue: 0xFF)) -> WatchPalette {
    WatchPalette(
      background: background,
      title: RGBColor(red: 0x1A, green: 0x1A, blue: 0x1A),
      body: RGBColor(red: 0x3C, green: 0x3C, blue: 0x3C),
      muted: RGBColor(red: 0x70, green: 0x70, blue: 0x70),
      track: RGBColor(red: 0xD0, green: 0xD0, blue: 0xD0),
      band: RGBColor(red: 0xE2, green: 0xE2, blue: 0xEA),
      warning: RGBColor(red: 0xB3, green: 0x5C, blue: 0x00),
      accents: [
        .low: RGBColor(red: 0x4E, green: 0x6E, blue: 0x8A),
        .normal: RGBColor(red: 0x00, green: 0x5F, blue: 0xD7),
        .critical: RGBColor(red: 0xD7, green: 0x00, blue: 0x00),
      ])
  }

  /// The palette for the background the environment describes (see the type's summary).
  static func detect(environment: (String) -> String?) -> WatchPalette {
    if let setting = environment("NOTIFYD_WATCH_BACKGROUND")?.lowercased(), !setting.isEmpty {
      switch setting {
      case "light": return .light()
      case "dark": return .dark()
      default:
        if let color = RGBColor(hex: setting) {
          return color.luminance > 0.5 ? .light(background: color) : .dark(background: color)
        }
      }
    }
    // COLORFGBG is "fg;bg" or "fg;default;bg" in the 16 system colours: 7 and 9...15 are light.
    if let colors = environment("COLORFGBG"), let last = colors.split(separator: ";").last,
      let index = Int(last), index == 7 || (9...15).contains(index)
    {
      return .light()
    }
    return .dark()
  }
}
