/// One row of the terminal view: runs of text, each with its style, and the columns they take.
struct StyledLine: Sendable, Equatable {
  /// A run of text in one style.
  struct Span: Sendable, Equatable {
    var text: String
    var style: TextStyle
  }

  private(set) var spans: [Span] = []
  /// The columns the text takes, by `DisplayWidth`.
  private(set) var columns = 0

  init() {}

  init(_ text: String, _ style: TextStyle = .plain) {
    append(text, style)
  }

  /// Adds `text` in `style`, joining it to the last run when the style is the same.
  mutating func append(_ text: String, _ style: TextStyle = .plain) {
    guard !text.isEmpty else { return }
    columns += DisplayWidth.columns(of: text)
    if let last = spans.indices.last, spans[last].style == style {
      spans[last].text += text
    } else {
      spans.append(Span(text: text, style: style))
    }
  }

  /// Adds `count` spaces in `style`.
  mutating func appendSpaces(_ count: Int, _ style: TextStyle = .plain) {
    if count > 0 { append(String(repeating: " ", count: count), style) }
  }

  /// The text without its styles, as `tmux capture-pane` without `-e` shows it.
  var text: String { spans.map(\.text).joined() }

  /// The line as the terminal receives it: each run preceded by the SGR sequence of its style,
  /// ending in the terminal's default style.
  ///
  /// - Important: the only escape sequences in the result are the SGR sequences made here from
  ///   `TextStyle` values. Text should be sanitized before it gets here; should a control
  ///   character slip through anyway, it is written as U+FFFD, never as itself.
  func encoded(_ mode: ColorMode) -> String {
    var output = ""
    var current = TextStyle.plain
    for span in spans {
      if span.style != current {
        output += span.style.selectGraphicRendition(mode)
        current = span.style
      }
      for scalar in span.text.unicodeScalars {
        switch scalar.value {
        case 0x00..<0x20, 0x7F..<0xA0: output.unicodeScalars.append("\u{FFFD}")
        default: output.unicodeScalars.append(scalar)
        }
      }
    }
    if current != .plain { output += TextStyle.plain.selectGraphicRendition(mode) }
    return output
  }
}
