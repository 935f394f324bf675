/// How many colours the terminal view may use.
enum ColorMode: Sendable, Equatable {
  /// 24-bit colour (`ESC [ 38 ; 2 ; r ; g ; b m`): every step of a fade is its own colour.
  case trueColor
  /// xterm's 256-colour palette (`ESC [ 38 ; 5 ; n m`): fades move through the nearest entries.
  case palette256
  /// No colour at all, for `NO_COLOR`: bold and faint only, and fades shown as faint text.
  case monochrome

  /// The mode the environment asks for: `NO_COLOR` (set and not empty, per no-color.org) turns
  /// colour off; `COLORTERM=truecolor` or `24bit` turns on 24-bit colour; otherwise 256 colours.
  static func detect(environment: (String) -> String?) -> ColorMode {
    if let noColor = environment("NO_COLOR"), !noColor.isEmpty { return .monochrome }
    switch environment("COLORTERM")?.lowercased() {
    case "truecolor", "24bit": return .trueColor
    default: return .palette256
    }
  }
}
