/// How many terminal columns text takes, and how to cut and pad it by columns rather than by
/// bytes or code points.
///
/// A scalar takes 2 columns when its East Asian Width is Wide or Fullwidth (Hangul, CJK ideographs,
/// kana, fullwidth forms, most emoji) or it has emoji presentation; 0 when it is a combining mark,
/// a format character or a conjoining Hangul vowel or final; 1 otherwise. East Asian Ambiguous
/// characters (`—`, `…`, box drawing) count as 1, as in every terminal outside CJK legacy modes.
/// These are glibc's `wcwidth` values, which xterm, VTE and tmux use.
///
/// A character (a grapheme cluster) takes the widest any common terminal draws it: the sum of its
/// scalars, as `wcwidth` terminals draw it, or 2 where terminals that draw clusters as one glyph
/// give an emoji 2 (a flag, a text-default emoji with U+FE0F like ❤️). So an emoji ZWJ sequence
/// (👨‍👩‍👧) counts 6, and a line holding one ends a few columns short on a terminal that draws it in
/// 2, rather than overflowing the right border on one that draws it in 6.
///
/// - Important: control characters count as 1 column because they are shown as U+FFFD; text must
///   pass through `TextFormat.sanitized` before it is laid out, so that measure and output agree.
enum DisplayWidth {
  /// The ellipsis that marks text cut short: one column wide.
  static let ellipsis: Character = "…"

  /// The columns `scalar` takes on its own.
  static func columns(of scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    if value < 0xA0 { return 1 }  // ASCII, and C0 and C1 controls, which become U+FFFD
    switch value {
    case 0xAD: return 1  // soft hyphen: terminals draw it
    case 0x600...0x605, 0x6DD, 0x70F, 0x890...0x891, 0x8E2, 0x110BD, 0x110CD:
      return 1  // prepended concatenation marks: format characters with a glyph of their own
    case 0x1160...0x11FF, 0xD7B0...0xD7FF:
      return 0  // Hangul medial vowels and final consonants join the preceding initial
    case 0x1F1E6...0x1F1FF:
      return 1  // regional indicators: a pair makes a flag, see `columns(of: Character)`
    default: break
    }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    if isWide(value) || scalar.properties.isEmojiPresentation { return 2 }
    return 1
  }

  /// The columns a character (grapheme cluster) takes: see the type's summary.
  static func columns(of character: Character) -> Int {
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return 0 }
    var sum = 0
    for scalar in scalars { sum += columns(of: scalar) }
    let drawnAsOneEmoji =
      (0x1F1E6...0x1F1FF).contains(first.value)
      || (first.properties.isEmoji && scalars.contains { $0.value == 0xFE0F })
    return drawnAsOneEmoji ? max(sum, 2) : sum
  }

  /// The columns `text` takes.
  static func columns(of text: some StringProtocol) -> Int {
    var total = 0
    for character in text { total += columns(of: character) }
    return total
  }

  // MARK: - Fitting text into columns

  /// `text` cut to at most `limit` columns, ending with an ellipsis when something was cut.
  ///
  /// A character is kept whole or dropped whole, so a wide character that would straddle the
  /// limit leaves the result one column short; `padded` fills it.
  static func truncated(_ text: some StringProtocol, toColumns limit: Int) -> String {
    guard limit > 0 else { return "" }
    if columns(of: text) <= limit { return String(text) }
    var result = ""
    var used = 0
    for character in text {
      let width = columns(of: character)
      if used + width > limit - 1 { break }
      result.append(character)
      used += width
    }
    result.append(ellipsis)
    return result
  }

  /// `text` cut to `limit` columns if longer, then padded with spaces to exactly `limit` columns.
  static func padded(_ text: some StringProtocol, toColumns limit: Int) -> String {
    let fitted = truncated(text, toColumns: limit)
    let width = columns(of: fitted)
    return width >= limit ? fitted : fitted + String(repeating: " ", count: limit - width)
  }

  /// `text` broken into lines of at most `limit` columns, at spaces where it can be, into at most
  /// `maximumLines` lines; the last one ends with an ellipsis when text was left over.
  static func wrapped(_ text: String, toColumns limit: Int, maximumLines: Int) -> [String] {
    guard limit > 0, maximumLines > 0 else { return [] }
    var lines: [String] = []
    var rest = text[...].drop { $0 == " " }
    while !rest.isEmpty {
      if lines.count == maximumLines - 1 {
        lines.append(truncated(rest, toColumns: limit))
        break
      }
      var used = 0
      var index = rest.startIndex
      var lastBreak: Substring.Index?
      while index < rest.endIndex {
        let width = columns(of: rest[index])
        if used + width > limit { break }
        used += width
        if rest[index] == " " { lastBreak = index }
        index = rest.index(after: index)
      }
      if index == rest.endIndex {
        lines.append(String(rest))
        break
      }
      // Break at the last space that fits; a word longer than the line is broken where it must be.
      let end = lastBreak ?? index
      guard end > rest.startIndex else {
        // Not even one character fits (a wide character on a one-column line).
        lines.append(truncated(rest, toColumns: limit))
        break
      }
      lines.append(String(rest[..<end].reversed().drop { $0 == " " }.reversed()))
      rest = rest[end...].drop { $0 == " " }
    }
    return lines
  }

  // MARK: - East Asian Width

  /// Whether the East Asian Width of `value` is Wide or Fullwidth.
  private static func isWide(_ value: UInt32) -> Bool {
    guard value >= wideRanges[0].lowerBound else { return false }
    var low = 0
    var high = wideRanges.count - 1
    while low <= high {
      let middle = (low + high) / 2
      let range = wideRanges[middle]
      if value < range.lowerBound {
        high = middle - 1
      } else if value > range.upperBound {
        low = middle + 1
      } else {
        return true
      }
    }
    return false
  }

  /// The code points whose East Asian Width is W or F (Unicode 14 EastAsianWidth.txt), with runs
  /// joined across unassigned code points, plus the unassigned ideograph planes 2 and 3, which are
  /// Wide by default, and U+3248...324F and U+4DC0...4DFF, which glibc draws wide. Sorted, disjoint.
  private static let wideRanges: [ClosedRange<UInt32>] = [
    0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0, 0x23F3...0x23F3,
    0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F, 0x2693...0x2693, 0x26A1...0x26A1,
    0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA,
    0x26F2...0x26F3, 0x26F5...0x26F5, 0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B,
    0x2728...0x2728, 0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
    0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55, 0x2E80...0x303E,
    0x3041...0xA4C6, 0xA960...0xA97C, 0xAC00...0xD7A3, 0xF900...0xFAD9,
    0xFE10...0xFE19, 0xFE30...0xFE6B, 0xFF01...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x1B2FB,
    0x1F004...0x1F004, 0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F320,
    0x1F32D...0x1F335, 0x1F337...0x1F37C, 0x1F37E...0x1F393, 0x1F3A0...0x1F3CA, 0x1F3CF...0x1F3D3,
    0x1F3E0...0x1F3F0, 0x1F3F4...0x1F3F4, 0x1F3F8...0x1F43E, 0x1F440...0x1F440, 0x1F442...0x1F4FC,
    0x1F4FF...0x1F53D, 0x1F54B...0x1F54E, 0x1F550...0x1F567, 0x1F57A...0x1F57A, 0x1F595...0x1F596,
    0x1F5A4...0x1F5A4, 0x1F5FB...0x1F64F, 0x1F680...0x1F6C5, 0x1F6CC...0x1F6CC, 0x1F6D0...0x1F6D2,
    0x1F6D5...0x1F6DF, 0x1F6EB...0x1F6EC, 0x1F6F4...0x1F6FC, 0x1F7E0...0x1F7F0, 0x1F90C...0x1F93A,
    0x1F93C...0x1F945, 0x1F947...0x1F9FF, 0x1FA70...0x1FAF6, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
  ]
}
