/// The freedesktop notification body markup (`b`, `i`, `u`, `a`, `img` and the XML entities),
/// read tolerantly: what it cannot read as that subset stays literal text, never dropped and never
/// handed to another markup language.
///
/// `<3`, `a < b`, an unknown tag, a tag never closed or closed out of order: all shown as written.
/// Entities (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&#NN;`, `&#xHH;`) are decoded; any other
/// `&` stays.
///
/// Bounded work for any input: a tag is at most `maximumTagLength` scalars, at most
/// `maximumDepth` tags stay open at once (those past it are literal), an entity at most 12; so a
/// body costs time in proportion to its length times those bounds, whatever a client puts in it.
public enum BodyMarkup {
  /// The longest tag read as markup, in Unicode scalars (an `<a href>` with a long link fits).
  public static let maximumTagLength = 1024
  /// The most tags open at once; an opening tag past it is shown as written.
  public static let maximumDepth = 32

  /// A stretch of text with one style.
  public struct Run: Sendable, Equatable {
    public var text: String
    public var bold = false
    public var italic = false
    public var underline = false
    /// The target of the `<a href>` this text is in.
    public var link: String?

    public init(
      text: String, bold: Bool = false, italic: Bool = false, underline: Bool = false, link: String? = nil
    ) {
      self.text = text
      self.bold = bold
      self.italic = italic
      self.underline = underline
      self.link = link
    }

    fileprivate func sameStyle(as other: Run) -> Bool {
      bold == other.bold && italic == other.italic && underline == other.underline && link == other.link
    }
  }

  /// The styled runs of `body`, adjacent runs of one style merged.
  public static func runs(_ body: String) -> [Run] {
    let tokens = tokenize(Array(body.unicodeScalars))
    let matched = matchedTags(tokens)
    var runs: [Run] = []
    var style = Run(text: "")
    var open: [(name: String, previous: Run)] = []
    func append(_ text: String) {
      guard !text.isEmpty else { return }
      if let last = runs.last, last.sameStyle(as: style) {
        runs[runs.count - 1].text += text
      } else {
        var run = style
        run.text = text
        runs.append(run)
      }
    }
    for (index, token) in tokens.enumerated() {
      switch token {
      case .text(let text): append(text)
      case .tag(let tag):
        guard matched.contains(index) else {
          append(tag.raw)
          continue
        }
        if tag.name == "img" {
          // An image is not drawn inline; its description stands in for it.
          if let alt = tag.attributes["alt"], !alt.isEmpty { append("[\(alt)]") }
        } else if tag.closing {
          if let last = open.popLast() { style = last.previous }
        } else {
          open.append((tag.name, style))
          switch tag.name {
          case "b": style.bold = true
          case "i": style.italic = true
          case "u": style.underline = true
          case "a": style.link = tag.attributes["href"] ?? ""
          default: break
          }
        }
      }
    }
    return runs
  }

  /// `body` as well-formed markup of the subset, meaning what `runs` reads in it: text escaped
  /// (`&amp;`, `&lt;`, `&gt;`), each run in its `b`, `i`, `u` and `a` tags. For a server that reads
  /// markup strictly (pango), so that `a & b` or `<3` shows as written there too. A body without
  /// `<` or `&` comes back as it is. A link whose escaped target would not fit in a tag
  /// (`maximumTagLength`) is left out: its text stays.
  public static func normalized(_ body: String) -> String {
    var markup = ""
    for run in runs(body) {
      var open: [String] = []
      if let link = run.link {
        let tag = "a href=\"\(escaped(link, quotes: true))\""
        if tag.unicodeScalars.count + 2 <= maximumTagLength { open.append(tag) }
      }
      if run.bold { open.append("b") }
      if run.italic { open.append("i") }
      if run.underline { open.append("u") }
      for tag in open { markup += "<\(tag)>" }
      markup += escaped(run.text, quotes: false)
      for tag in open.reversed() { markup += "</\(tag.prefix { $0 != " " })>" }
    }
    return markup
  }

  /// `text` as markup that reads back as it is: `&`, `<` and `>` (and `"` with `quotes`) escaped.
  public static func escaped(_ text: String, quotes: Bool = false) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"" where quotes: result += "&quot;"
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// `body` as plain text: the runs' text, links shown as their text.
  public static func plainText(_ body: String) -> String {
    runs(body).map(\.text).joined()
  }

  // MARK: - Tokens

  private struct Tag {
    var name: String
    var closing: Bool
    var selfClosing: Bool
    var attributes: [String: String]
    /// The tag as written, shown when it is not part of the subset or not matched.
    var raw: String
  }

  private enum Token {
    case text(String)
    case tag(Tag)
  }

  private static let elements: Set<String> = ["b", "i", "u", "a", "img"]

  /// The indices of the tags that are read as markup: `img` on its own, and opening and closing
  /// tags that pair up, properly nested.
  private static func matchedTags(_ tokens: [Token]) -> Set<Int> {
    var matched: Set<Int> = []
    var stack: [(name: String, index: Int)] = []
    for (index, token) in tokens.enumerated() {
      guard case .tag(let tag) = token else { continue }
      if tag.name == "img" {
        if !tag.closing { matched.insert(index) }
      } else if tag.selfClosing {
        continue
      } else if !tag.closing {
        if stack.count < maximumDepth { stack.append((tag.name, index)) }
      } else if let top = stack.last, top.name == tag.name {
        stack.removeLast()
        matched.insert(top.index)
        matched.insert(index)
      } else if let depth = stack.lastIndex(where: { $0.name == tag.name }) {
        // Closed out of order: the tags opened inside it stay literal.
        let opener = stack[depth]
        stack.removeSubrange(depth...)
        matched.insert(opener.index)
        matched.insert(index)
      }
    }
    // A tag that closes an outer one cannot leave an inner matched pair crossing it.
    return matched
  }

  private static func tokenize(_ scalars: [Unicode.Scalar]) -> [Token] {
    var tokens: [Token] = []
    var text = String.UnicodeScalarView()
    var index = 0
    func flush() {
      if !text.isEmpty {
        tokens.append(.text(String(text)))
        text = String.UnicodeScalarView()
      }
    }
    while index < scalars.count {
      let scalar = scalars[index]
      if scalar == "<", let (tag, next) = parseTag(scalars, from: index) {
        flush()
        tokens.append(.tag(tag))
        index = next
      } else if scalar == "&", let (decoded, next) = parseEntity(scalars, from: index) {
        text.append(decoded)
        index = next
      } else {
        text.append(scalar)
        index += 1
      }
    }
    flush()
    return tokens
  }

  /// A tag of the subset starting at `start` (`<b>`, `</i>`, `<a href="…">`, `<img src=… alt=…/>`).
  private static func parseTag(_ scalars: [Unicode.Scalar], from start: Int) -> (Tag, Int)? {
    // The name first, without looking further: most `<` in a body start no tag of the subset.
    var scan = start + 1
    if scan < scalars.count, scalars[scan] == "/" { scan += 1 }
    let first = scan
    while scan < scalars.count, scan - first < 3, scalars[scan].properties.isAlphabetic { scan += 1 }
    let candidate = String(String.UnicodeScalarView(scalars[first..<scan])).lowercased()
    guard elements.contains(candidate) else { return nil }
    let limit = min(scalars.count, start + maximumTagLength)
    guard let end = scalars[start..<limit].firstIndex(of: ">") else { return nil }
    let raw = String(String.UnicodeScalarView(scalars[start...end]))
    var inner = Substring(String(String.UnicodeScalarView(scalars[(start + 1)..<end])))
    var closing = false
    var selfClosing = false
    if inner.hasPrefix("/") {
      closing = true
      inner = inner.dropFirst()
    }
    if inner.hasSuffix("/") {
      selfClosing = true
      inner = inner.dropLast()
    }
    let nameEnd = inner.firstIndex(where: { $0 == " " || $0 == "\t" || $0 == "\n" }) ?? inner.endIndex
    let name = inner[..<nameEnd].lowercased()
    guard elements.contains(name) else { return nil }
    if closing && (selfClosing || nameEnd != inner.endIndex) { return nil }
    guard let attributes = parseAttributes(inner[nameEnd...]) else { return nil }
    return (
      Tag(name: name, closing: closing, selfClosing: selfClosing, attributes: attributes, raw: raw), end + 1
    )
  }

  /// `name="value"` or `name='value'` pairs, entities decoded; nil when they do not parse.
  private static func parseAttributes(_ text: Substring) -> [String: String]? {
    var attributes: [String: String] = [:]
    var rest = text.drop(while: \.isWhitespace)
    while !rest.isEmpty {
      guard let equals = rest.firstIndex(of: "=") else { return nil }
      let name = rest[..<equals].trimmingWhitespace().lowercased()
      guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0 == "-" }) else { return nil }
      rest = rest[rest.index(after: equals)...].drop(while: \.isWhitespace)
      guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
      rest = rest.dropFirst()
      guard let close = rest.firstIndex(of: quote) else { return nil }
      let value = Array(rest[..<close].unicodeScalars)
      var decoded = String.UnicodeScalarView()
      var index = 0
      while index < value.count {
        if value[index] == "&", let (scalar, next) = parseEntity(value, from: index) {
          decoded.append(scalar)
          index = next
        } else {
          decoded.append(value[index])
          index += 1
        }
      }
      attributes[name] = String(decoded)
      rest = rest[rest.index(after: close)...].drop(while: \.isWhitespace)
    }
    return attributes
  }

  private static let namedEntities: [String: Unicode.Scalar] = [
    "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'",
  ]

  /// The entity starting at `start` and the index after its `;`.
  private static func parseEntity(_ scalars: [Unicode.Scalar], from start: Int) -> (Unicode.Scalar, Int)? {
    let limit = min(scalars.count, start + 12)
    guard let semicolon = scalars[start..<limit].firstIndex(of: ";") else { return nil }
    let name = String(String.UnicodeScalarView(scalars[(start + 1)..<semicolon]))
    if let named = namedEntities[name] { return (named, semicolon + 1) }
    guard name.hasPrefix("#") else { return nil }
    let digits = name.dropFirst()
    let value: UInt32?
    if digits.hasPrefix("x") || digits.hasPrefix("X") {
      value = UInt32(digits.dropFirst(), radix: 16)
    } else {
      value = UInt32(digits, radix: 10)
    }
    guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
    return (scalar, semicolon + 1)
  }
}

extension Substring {
  /// The text without the white space (blanks, tabs, line ends) around it: markup's attributes,
  /// `index.theme`'s keys and values, X resources.
  public func trimmingWhitespace() -> Substring {
    let start = drop(while: \.isWhitespace)
    var end = start.endIndex
    while end > start.startIndex, start[start.index(before: end)].isWhitespace {
      end = start.index(before: end)
    }
    return start[..<end]
  }
}

extension BodyMarkup {
  /// `parts` (plain text) as one line to be read aloud: each on one line, empty ones left out,
  /// joined by a full stop and a space (none after a part that ends in `.`, `!`, `?` or `:`), and
  /// the last closed the same way when `closingLast` — "Deploy 42. ready", "backup. Backup done."
  public static func sentences(_ parts: [String], closingLast: Bool) -> String {
    let lines = parts.map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
      .filter { !$0.isEmpty }
    var text = ""
    for (index, line) in lines.enumerated() {
      text += line
      let closed = line.last.map { ".!?:".contains($0) } == true
      if index < lines.count - 1 {
        text += closed ? " " : ". "
      } else if closingLast, !closed {
        text += "."
      }
    }
    return text
  }
}
