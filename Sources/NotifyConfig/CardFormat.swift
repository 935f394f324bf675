import NotifyProtocol

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

  /// The pieces, in order.
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
