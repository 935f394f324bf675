/// Why a message could not be read.
public enum JSONReadError: Error, Sendable, Equatable {
  /// The bytes are not JSON, or not UTF-8: nothing in the message can be trusted.
  case syntax(String)
  /// A value has the wrong type, is out of range, or is missing; `field` is its dotted path from
  /// the object being read (`actions.0.label`), empty for the value itself.
  case invalid(field: String)

  /// The error with `component` in front of its path, as an enclosing object or array sees it.
  func under(_ component: String) -> JSONReadError {
    guard case .invalid(let field) = self else { return self }
    return .invalid(field: field.isEmpty ? component : "\(component).\(field)")
  }
}

/// A JSON parser that reads one message in a single pass, value by value as its caller asks for
/// them, straight into typed fields: no tree of values is built, and a value nobody asked for is
/// only checked and skipped.
///
/// Strict where JSON is strict (UTF-8 only, no control characters in strings, no lone surrogates,
/// nothing after the value), and bounded: containers nest at most `maximumDepth` deep, so a hostile
/// message cannot exhaust the stack.
///
/// - Important: the bytes must stay valid for as long as the reader is used.
public struct JSONReader {
  /// How deep objects and arrays may nest.
  public static let maximumDepth = 512

  private let bytes: UnsafeRawBufferPointer
  /// Where the next unread byte is.
  public private(set) var position = 0
  private var depth = 0

  public init(_ bytes: UnsafeRawBufferPointer) {
    self.bytes = bytes
  }

  // MARK: - Structure

  /// Reads an object, calling `body` with each key; `body` must read or skip the key's value.
  /// A type error inside a member is reported under the member's key.
  public mutating func readObject(
    _ body: (inout JSONReader, String) throws(JSONReadError) -> Void
  ) throws(JSONReadError) {
    try readContainer(UInt8(ascii: "{"), UInt8(ascii: "}")) { reader, _ throws(JSONReadError) in
      guard try reader.skipWhitespaceAndPeek() == UInt8(ascii: "\"") else {
        throw .syntax("expected a member name")
      }
      let key = try reader.readStringToken()
      guard try reader.skipWhitespaceAndPeek() == UInt8(ascii: ":") else { throw .syntax("expected ':'") }
      reader.position += 1
      do throws(JSONReadError) {
        try body(&reader, key)
      } catch {
        throw error.under(key)
      }
    }
  }

  /// Reads an array, calling `body` with each element's index; `body` must read or skip it. A type
  /// error inside an element is reported under its index.
  public mutating func readArray(_ body: (inout JSONReader, Int) throws(JSONReadError) -> Void)
    throws(JSONReadError)
  {
    try readContainer(UInt8(ascii: "["), UInt8(ascii: "]")) { reader, index throws(JSONReadError) in
      do throws(JSONReadError) {
        try body(&reader, index)
      } catch {
        throw error.under("\(index)")
      }
    }
  }

  /// Reads a container from its `open` bracket to its `close` one, calling `element` with each
  /// element's index to read it; the commas between them are checked here.
  @inline(__always)
  private mutating func readContainer(
    _ open: UInt8, _ close: UInt8, _ element: (inout JSONReader, Int) throws(JSONReadError) -> Void
  ) throws(JSONReadError) {
    guard try peekValue() == open else { throw .invalid(field: "") }
    try enter()
    position += 1
    if try skipWhitespaceAndPeek() == close {
      position += 1
      depth -= 1
      return
    }
    var index = 0
    while true {
      try element(&self, index)
      index += 1
      switch try skipWhitespaceAndPeek() {
      case UInt8(ascii: ","): position += 1
      case close:
        position += 1
        depth -= 1
        return
      default: throw .syntax("expected ',' or '\(Character(Unicode.Scalar(close)))'")
      }
    }
  }

  /// Checks that only whitespace follows the value read.
  public mutating func finish() throws(JSONReadError) {
    skipWhitespace()
    guard position == bytes.count else { throw .syntax("something follows the message's value") }
  }

  // MARK: - Values

  /// Whether the next value is `null`; if so it is consumed.
  public mutating func readNull() throws(JSONReadError) -> Bool {
    guard try peekValue() == UInt8(ascii: "n") else { return false }
    try expectLiteral("null")
    return true
  }

  /// A string.
  public mutating func readString() throws(JSONReadError) -> String {
    guard try peekValue() == UInt8(ascii: "\"") else { throw .invalid(field: "") }
    return try readStringToken()
  }

  /// `true` or `false`.
  public mutating func readBool() throws(JSONReadError) -> Bool {
    switch try peekValue() {
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      return true
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      return false
    default:
      throw .invalid(field: "")
    }
  }

  /// A finite number.
  public mutating func readDouble() throws(JSONReadError) -> Double {
    let token = try readNumberToken()
    if let integer = token.integer { return Double(integer) }
    guard let value = parseDouble(token.range), value.isFinite else { throw .invalid(field: "") }
    return value
  }

  /// A number that is an integer within `Int`'s range (`3` or `3.0`, not `3.5`).
  public mutating func readInt() throws(JSONReadError) -> Int {
    let token = try readNumberToken()
    if let integer = token.integer { return integer }
    guard let value = parseDouble(token.range), value.isFinite, value.rounded() == value,
      value >= -9.2e18, value <= 9.2e18
    else { throw .invalid(field: "") }
    return Int(value)
  }

  /// One of `T`'s cases by its raw name.
  public mutating func readEnum<T: RawRepresentable>(_ type: T.Type) throws(JSONReadError) -> T
  where T.RawValue == String {
    guard let value = T(rawValue: try readString()) else { throw .invalid(field: "") }
    return value
  }

  /// Skips one value of any type, checking its syntax; answers the bytes it spans.
  @discardableResult
  public mutating func skipValue() throws(JSONReadError) -> Range<Int> {
    let first = try peekValue()
    let start = position
    switch first {
    case UInt8(ascii: "\""): _ = try readStringToken(keep: false)
    case UInt8(ascii: "t"): try expectLiteral("true")
    case UInt8(ascii: "f"): try expectLiteral("false")
    case UInt8(ascii: "n"): try expectLiteral("null")
    case UInt8(ascii: "{"), UInt8(ascii: "["): try skipContainer()
    default: _ = try readNumberToken()
    }
    return start..<position
  }

  /// Where the reader stands, to come back to (`restore`) after a value failed half-way through.
  public struct Checkpoint: Sendable {
    fileprivate let position: Int
    fileprivate let depth: Int
  }

  public var checkpoint: Checkpoint { Checkpoint(position: position, depth: depth) }

  public mutating func restore(_ checkpoint: Checkpoint) {
    position = checkpoint.position
    depth = checkpoint.depth
  }

  /// A reader of the same bytes that stands at `range.lowerBound` (a value skipped earlier).
  public func reader(at range: Range<Int>) -> JSONReader {
    var reader = JSONReader(bytes)
    reader.position = range.lowerBound
    return reader
  }

  // MARK: - Tokens

  private mutating func enter() throws(JSONReadError) {
    depth += 1
    if depth > Self.maximumDepth { throw .syntax("nested deeper than \(Self.maximumDepth)") }
  }

  private static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0a || byte == 0x0d || byte == 0x09
  }

  private mutating func skipWhitespace() {
    while position < bytes.count, Self.isWhitespace(bytes[position]) { position += 1 }
  }

  private mutating func skipWhitespaceAndPeek() throws(JSONReadError) -> UInt8 {
    skipWhitespace()
    guard position < bytes.count else { throw .syntax("the message ends in the middle of a value") }
    return bytes[position]
  }

  /// The first byte of the next value, which must begin there.
  private mutating func peekValue() throws(JSONReadError) -> UInt8 {
    let byte = try skipWhitespaceAndPeek()
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "t"), UInt8(ascii: "f"),
      UInt8(ascii: "n"), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return byte
    default:
      throw .syntax("not a JSON value")
    }
  }

  private mutating func expectLiteral(_ literal: StaticString) throws(JSONReadError) {
    let count = literal.utf8CodeUnitCount
    guard position + count <= bytes.count else { throw .syntax("not a JSON value") }
    let matches = literal.withUTF8Buffer { expected in
      (0..<count).allSatisfy { bytes[position + $0] == expected[$0] }
    }
    guard matches else { throw .syntax("not a JSON value") }
    position += count
  }

  /// Skips an object or array without reading it, with an explicit stack of what is open.
  private mutating func skipContainer() throws(JSONReadError) {
    var open: [UInt8] = []
    // Whether the next token must be a value (after '[', ':' or ','), else a close or a comma.
    var expectValue = true
    var expectKey = false
    // Whether the object just opened, so that `}` may close it (`{}`, but not `{"a":1,}`).
    var justOpened = false
    repeat {
      let byte = try skipWhitespaceAndPeek()
      if expectKey {
        if byte == UInt8(ascii: "}"), justOpened {
          justOpened = false
          position += 1
          open.removeLast()
          depth -= 1
          expectKey = false
          expectValue = false
          continue
        }
        guard byte == UInt8(ascii: "\"") else { throw .syntax("expected a member name") }
        justOpened = false
        _ = try readStringToken(keep: false)
        guard try skipWhitespaceAndPeek() == UInt8(ascii: ":") else { throw .syntax("expected ':'") }
        position += 1
        expectKey = false
        expectValue = true
        continue
      }
      if expectValue {
        switch byte {
        case UInt8(ascii: "{"):
          try enter()
          position += 1
          open.append(byte)
          expectKey = true
          justOpened = true
        case UInt8(ascii: "["):
          try enter()
          position += 1
          open.append(byte)
          if try skipWhitespaceAndPeek() == UInt8(ascii: "]") {
            position += 1
            open.removeLast()
            depth -= 1
            expectValue = false
          }
        default:
          try skipValue()
          expectValue = false
        }
        continue
      }
      // After a value inside a container: a comma or its close.
      switch (byte, open.last) {
      case (UInt8(ascii: ","), UInt8(ascii: "{")):
        position += 1
        expectKey = true
      case (UInt8(ascii: ","), UInt8(ascii: "[")):
        position += 1
        expectValue = true
      case (UInt8(ascii: "}"), UInt8(ascii: "{")), (UInt8(ascii: "]"), UInt8(ascii: "[")):
        position += 1
        open.removeLast()
        depth -= 1
      default:
        throw .syntax("expected ',' or the end of a container")
      }
    } while !open.isEmpty
  }

  /// A number token: its bytes, and its value when it is a plain integer of at most 18 digits.
  private mutating func readNumberToken() throws(JSONReadError) -> (range: Range<Int>, integer: Int?) {
    let first = try peekValue()
    guard first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
      throw .invalid(field: "")
    }
    let start = position
    var negative = false
    if bytes[position] == UInt8(ascii: "-") {
      negative = true
      position += 1
    }
    let digitsStart = position
    var value = 0
    while position < bytes.count, let digit = Self.digit(bytes[position]) {
      if position - digitsStart < 18 { value = value * 10 + digit }
      position += 1
    }
    let digits = position - digitsStart
    guard digits > 0 else { throw .syntax("not a JSON number") }
    if digits > 1 && bytes[digitsStart] == UInt8(ascii: "0") { throw .syntax("a number with a leading zero") }
    var plain = digits <= 18
    if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
      plain = false
      position += 1
      let fraction = position
      while position < bytes.count, Self.digit(bytes[position]) != nil { position += 1 }
      guard position > fraction else { throw .syntax("not a JSON number") }
    }
    if position < bytes.count
      && (bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E"))
    {
      plain = false
      position += 1
      if position < bytes.count
        && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-"))
      {
        position += 1
      }
      let exponent = position
      while position < bytes.count, Self.digit(bytes[position]) != nil { position += 1 }
      guard position > exponent else { throw .syntax("not a JSON number") }
    }
    return (start..<position, plain ? (negative ? -value : value) : nil)
  }

  private static func digit(_ byte: UInt8) -> Int? {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
  }

  private func parseDouble(_ range: Range<Int>) -> Double? {
    Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self))
  }

  /// Reads a string token whose opening quote is at `position`; with `keep` false only checks it.
  private mutating func readStringToken(keep: Bool = true) throws(JSONReadError) -> String {
    position += 1
    let start = position
    var escaped = false
    var ascii = true
    while true {
      guard position < bytes.count else { throw .syntax("a string that does not end") }
      let byte = bytes[position]
      if byte == UInt8(ascii: "\"") { break }
      if byte < 0x20 { throw .syntax("a control character in a string") }
      if byte == UInt8(ascii: "\\") {
        escaped = true
        position += 2
        continue
      }
      if byte >= 0x80 { ascii = false }
      position += 1
    }
    let end = position
    position += 1
    let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    if !escaped {
      if ascii { return keep ? String(decoding: raw, as: UTF8.self) : "" }
      guard let text = String(validating: raw, as: UTF8.self) else { throw .syntax("not UTF-8") }
      return keep ? text : ""
    }
    return try Self.unescape(raw)
  }

  /// The text of a string's contents that hold escapes.
  private static func unescape(_ raw: UnsafeRawBufferPointer) throws(JSONReadError) -> String {
    var utf8: [UInt8] = []
    utf8.reserveCapacity(raw.count)
    var index = 0
    func hex4(_ at: Int) throws(JSONReadError) -> UInt32 {
      guard at + 4 <= raw.count else { throw .syntax("a short \\u escape") }
      var value: UInt32 = 0
      for offset in 0..<4 {
        let byte = raw[at + offset]
        let nibble: UInt8
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
        default: throw .syntax("a bad \\u escape")
        }
        value = value << 4 | UInt32(nibble)
      }
      return value
    }
    while index < raw.count {
      let byte = raw[index]
      guard byte == UInt8(ascii: "\\") else {
        utf8.append(byte)
        index += 1
        continue
      }
      guard index + 1 < raw.count else { throw .syntax("a bad escape") }
      let kind = raw[index + 1]
      index += 2
      switch kind {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(kind)
      case UInt8(ascii: "b"): utf8.append(0x08)
      case UInt8(ascii: "f"): utf8.append(0x0c)
      case UInt8(ascii: "n"): utf8.append(0x0a)
      case UInt8(ascii: "r"): utf8.append(0x0d)
      case UInt8(ascii: "t"): utf8.append(0x09)
      case UInt8(ascii: "u"):
        var scalar = try hex4(index)
        index += 4
        if (0xD800..<0xDC00).contains(scalar) {
          guard index + 6 <= raw.count, raw[index] == UInt8(ascii: "\\"), raw[index + 1] == UInt8(ascii: "u")
          else { throw .syntax("a lone surrogate in a \\u escape") }
          let low = try hex4(index + 2)
          guard (0xDC00..<0xE000).contains(low) else { throw .syntax("a lone surrogate in a \\u escape") }
          index += 6
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00..<0xE000).contains(scalar) {
          throw .syntax("a lone surrogate in a \\u escape")
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw .syntax("a bad \\u escape") }
        utf8.append(contentsOf: UTF8.encode(unicode)!)
      default:
        throw .syntax("a bad escape")
      }
    }
    guard let text = String(validating: utf8, as: UTF8.self) else { throw .syntax("not UTF-8") }
    return text
  }
}
