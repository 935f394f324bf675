/// How a run of text is drawn: colours (`nil`: the terminal's own) and attributes.
struct TextStyle: Sendable, Hashable {
  var foreground: RGBColor?
  var background: RGBColor?
  var bold = false
  var faint = false

  init(foreground: RGBColor? = nil, background: RGBColor? = nil, bold: Bool = false, faint: Bool = false) {
    self.foreground = foreground
    self.background = background
    self.bold = bold
    self.faint = faint
  }

  /// The terminal's defaults.
  static let plain = TextStyle()

  /// The Select Graphic Rendition sequence that sets exactly this style, starting from a reset,
  /// with colours as `mode` allows: `ESC [ 0 ; 1 ; 38 ; 2 ; r ; g ; b m`.
  func selectGraphicRendition(_ mode: ColorMode) -> String {
    var parameters = ["0"]
    if bold { parameters.append("1") }
    if faint { parameters.append("2") }
    if let foreground { parameters += Self.color(foreground, layer: 38, mode) }
    if let background { parameters += Self.color(background, layer: 48, mode) }
    return "\u{1B}[" + parameters.joined(separator: ";") + "m"
  }

  private static func color(_ color: RGBColor, layer: Int, _ mode: ColorMode) -> [String] {
    switch mode {
    case .trueColor: return ["\(layer)", "2", "\(color.red)", "\(color.green)", "\(color.blue)"]
    case .palette256: return ["\(layer)", "5", "\(color.paletteIndex)"]
    case .monochrome: return []
    }
  }
}
