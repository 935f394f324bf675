// Each method's parameters, and the relay's messages, read straight from a message's bytes into the
// `Decodable` conformances the compiler derives from each type's declaration (the one place its
// fields are listed): an object's members are found in one pass (where each value is), and a member
// the type asks for is read from where it is; unknown members are only checked and skipped; no tree
// of values is built. A wrong or missing member is named by its path (`actions.0.label`), as
// systemd's `sd_varlink_dispatch` names it.

/// A value the daemon reads from a message without a general-purpose decoder.
public protocol WireDecodable: Sendable {
  /// Reads the value that `reader` stands at.
  init(reading reader: inout JSONReader) throws(JSONReadError)
}

extension WireDecodable where Self: Decodable {
  public init(reading reader: inout JSONReader) throws(JSONReadError) {
    self = try WireDecoder.read(Self.self, from: &reader)
  }
}

/// Reads `Decodable` values from a `JSONReader`.
public enum WireDecoder {
  /// Reads the object `reader` stands at as a `T`, and moves past it. Bytes that are not JSON are a
  /// `.syntax` error; a member of the wrong type, out of range or missing is `.invalid` with its path.
  public static func read<T: Decodable>(_ type: T.Type, from reader: inout JSONReader) throws(JSONReadError)
    -> T
  {
    let start = reader.checkpoint
    // One pass checks the whole value's syntax and depth before anything is decoded from it.
    let range = try reader.skipValue()
    let value = reader.reader(at: range)
    guard value.startsObject else {
      reader.restore(start)
      throw .invalid(field: "")
    }
    do {
      return try T(from: WireDecoding(value, path: []))
    } catch let error as JSONReadError {
      throw error
    } catch let error as DecodingError {
      throw .invalid(field: WireDecoding.path(of: error))
    } catch {
      throw .invalid(field: "")
    }
  }
}

/// A key that is an array's index, or a member's name read from the message.
private struct WireKey: CodingKey {
  var stringValue: String
  var intValue: Int?

  init(stringValue: String) { self.stringValue = stringValue }
  init(intValue: Int) {
    stringValue = "\(intValue)"
    self.intValue = intValue
  }
}

/// The decoder of one value, at `reader`'s position, `path` from the message's top.
private final class WireDecoding: Decoder {
  let reader: JSONReader
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(_ reader: JSONReader, path: [any CodingKey]) {
    self.reader = reader
    codingPath = path
  }

  /// The dotted path a decoding error names: the member missing, or the value that is wrong.
  static func path(of error: DecodingError) -> String {
    let path: [any CodingKey]
    switch error {
    case .keyNotFound(let key, let context): path = context.codingPath + [key]
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
      path = context.codingPath
    @unknown default: path = []
    }
    return path.map(\.stringValue).joined(separator: ".")
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(try ObjectReader<Key>(self))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer { try ArrayReader(self) }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { ValueReader(self) }
}

/// Reads a value with `read`, naming `path` when it is of the wrong type; bytes that are not JSON
/// stay a syntax error.
private func decoding<T>(
  _ reader: JSONReader, path: [any CodingKey], _ read: (inout JSONReader) throws(JSONReadError) -> T
) throws -> T {
  var reader = reader
  do {
    return try read(&reader)
  } catch .syntax(let reason) {
    throw JSONReadError.syntax(reason)
  } catch {
    throw DecodingError.typeMismatch(T.self, DecodingError.Context(codingPath: path, debugDescription: ""))
  }
}

/// Reads a value of a type the reader knows, or any other `Decodable` by its own `init(from:)`.
private func decodeValue<T: Decodable>(_ type: T.Type, _ reader: JSONReader, path: [any CodingKey]) throws
  -> T
{
  switch type {
  case is String.Type:
    return try decoding(reader, path: path) { reader throws(JSONReadError) in try reader.readString() } as! T
  case is Int.Type:
    return try decoding(reader, path: path) { reader throws(JSONReadError) in try reader.readInt() } as! T
  case is Double.Type:
    return try decoding(reader, path: path) { reader throws(JSONReadError) in try reader.readDouble() } as! T
  case is Bool.Type:
    return try decoding(reader, path: path) { reader throws(JSONReadError) in try reader.readBool() } as! T
  default: return try T(from: WireDecoding(reader, path: path))
  }
}

/// An object's members: where each value stands, found in one pass; a member is read when asked for.
private struct ObjectReader<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: WireDecoding
  var codingPath: [any CodingKey] { decoder.codingPath }
  /// Each member's name and where its value is, in the order they came (a name given twice: the last).
  private let members: [(name: String, value: Range<Int>)]

  init(_ decoder: WireDecoding) throws {
    self.decoder = decoder
    var found: [(String, Range<Int>)] = []
    found.reserveCapacity(16)
    _ = try decoding(decoder.reader, path: decoder.codingPath) { reader throws(JSONReadError) in
      try reader.readObject { reader, name throws(JSONReadError) in
        found.append((name, try reader.skipValue()))
      }
    }
    members = found
  }

  var allKeys: [Key] { members.compactMap { Key(stringValue: $0.name) } }

  private func value(_ key: Key) -> JSONReader? {
    let name = key.stringValue
    guard let member = members.last(where: { $0.name == name }) else { return nil }
    return decoder.reader.reader(at: member.value)
  }

  private func required(_ key: Key) throws -> JSONReader {
    guard let reader = value(key) else {
      throw DecodingError.keyNotFound(
        key, DecodingError.Context(codingPath: codingPath, debugDescription: ""))
    }
    return reader
  }

  func contains(_ key: Key) -> Bool { value(key) != nil }

  func decodeNil(forKey key: Key) throws -> Bool {
    try decoding(try required(key), path: codingPath + [key]) { reader throws(JSONReadError) in
      try reader.readNull()
    }
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try decodeValue(type, try required(key), path: codingPath + [key])
  }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    KeyedDecodingContainer(
      try ObjectReader<NestedKey>(WireDecoding(try required(key), path: codingPath + [key])))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try ArrayReader(WireDecoding(try required(key), path: codingPath + [key]))
  }

  func superDecoder() throws -> any Decoder { decoder }
  func superDecoder(forKey key: Key) throws -> any Decoder {
    WireDecoding(try required(key), path: codingPath + [key])
  }
}

/// An array's elements: where each stands, found in one pass; read in order.
private struct ArrayReader: UnkeyedDecodingContainer {
  let decoder: WireDecoding
  var codingPath: [any CodingKey] { decoder.codingPath }
  private let elements: [Range<Int>]
  private(set) var currentIndex = 0

  init(_ decoder: WireDecoding) throws {
    self.decoder = decoder
    var found: [Range<Int>] = []
    _ = try decoding(decoder.reader, path: decoder.codingPath) { reader throws(JSONReadError) in
      try reader.readArray { reader, _ throws(JSONReadError) in found.append(try reader.skipValue()) }
    }
    elements = found
  }

  var count: Int? { elements.count }
  var isAtEnd: Bool { currentIndex >= elements.count }

  private mutating func next() throws -> (JSONReader, [any CodingKey]) {
    let path = codingPath + [WireKey(intValue: currentIndex)]
    guard !isAtEnd else {
      throw DecodingError.valueNotFound(
        Any.self, DecodingError.Context(codingPath: path, debugDescription: ""))
    }
    defer { currentIndex += 1 }
    return (decoder.reader.reader(at: elements[currentIndex]), path)
  }

  mutating func decodeNil() throws -> Bool {
    guard !isAtEnd else { return false }
    let isNull = try decoding(decoder.reader.reader(at: elements[currentIndex]), path: codingPath) {
      reader throws(JSONReadError) in try reader.readNull()
    }
    if isNull { currentIndex += 1 }
    return isNull
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let (reader, path) = try next()
    return try decodeValue(type, reader, path: path)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    let (reader, path) = try next()
    return KeyedDecodingContainer(try ObjectReader<NestedKey>(WireDecoding(reader, path: path)))
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let (reader, path) = try next()
    return try ArrayReader(WireDecoding(reader, path: path))
  }

  mutating func superDecoder() throws -> any Decoder {
    let (reader, path) = try next()
    return WireDecoding(reader, path: path)
  }
}

/// A value that is not a container: a string, a number, a boolean, `null`, or an enum's raw value.
private struct ValueReader: SingleValueDecodingContainer {
  let decoder: WireDecoding
  var codingPath: [any CodingKey] { decoder.codingPath }

  init(_ decoder: WireDecoding) { self.decoder = decoder }

  func decodeNil() -> Bool {
    var reader = decoder.reader
    return (try? reader.readNull()) ?? false
  }

  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    switch type {
    case is String.Type, is Int.Type, is Double.Type, is Bool.Type:
      return try decodeValue(type, decoder.reader, path: codingPath)
    default:
      return try T(from: decoder)
    }
  }
}

/// A message type the daemon both reads and writes from its `Codable` conformance.
public typealias WireCodable = WireDecodable & WireEncodable
