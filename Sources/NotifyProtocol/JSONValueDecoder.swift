import FoundationEssentials

/// Decodes `Decodable` types from a `JSONValue` tree, with a coding path on every error.
///
/// Used to find exactly which field of a message has the wrong type: Foundation's `JSONDecoder`
/// reports some mismatches (a fraction where an integer belongs) with no path at all.
public struct JSONValueDecoder {
  public init() {}

  /// Decodes `type` from `value`.
  public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
    try T(from: TreeDecoder(value: value, codingPath: []))
  }
}

private struct AnyKey: CodingKey {
  var stringValue: String
  var intValue: Int?
  init(stringValue: String) { self.stringValue = stringValue }
  init(intValue: Int) {
    self.stringValue = "\(intValue)"
    self.intValue = intValue
  }
}

private struct TreeDecoder: Decoder {
  let value: JSONValue
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .object(let members) = value else {
      throw DecodingError.typeMismatch(
        [String: JSONValue].self, .init(codingPath: codingPath, debugDescription: "expected an object"))
    }
    return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let elements) = value else {
      throw DecodingError.typeMismatch(
        [JSONValue].self, .init(codingPath: codingPath, debugDescription: "expected an array"))
    }
    return UnkeyedContainer(elements: elements, codingPath: codingPath)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    SingleContainer(value: value, codingPath: codingPath)
  }
}

private func mismatch(_ type: Any.Type, _ path: [any CodingKey], _ value: JSONValue) -> DecodingError {
  .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found \(value)"))
}

private func decodeLeaf<T: Decodable>(_ type: T.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> T
{
  switch type {
  case is Bool.Type:
    guard case .bool(let flag) = value else { throw mismatch(type, path, value) }
    return flag as! T
  case is String.Type:
    guard case .string(let text) = value else { throw mismatch(type, path, value) }
    return text as! T
  case is Double.Type:
    guard case .number(let number) = value else { throw mismatch(type, path, value) }
    return number as! T
  case is Float.Type:
    guard case .number(let number) = value else { throw mismatch(type, path, value) }
    return Float(number) as! T
  case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is UInt64.Type, is UInt32.Type:
    guard case .number(let number) = value, number.rounded() == number, abs(number) <= 9.007e15 else {
      throw mismatch(type, path, value)
    }
    switch type {
    case is Int.Type: return Int(number) as! T
    case is Int64.Type: return Int64(number) as! T
    case is Int32.Type:
      guard let narrow = Int32(exactly: number) else { throw mismatch(type, path, value) }
      return narrow as! T
    default:
      guard number >= 0 else { throw mismatch(type, path, value) }
      if type is UInt.Type { return UInt(number) as! T }
      if type is UInt64.Type { return UInt64(number) as! T }
      guard let narrow = UInt32(exactly: number) else { throw mismatch(type, path, value) }
      return narrow as! T
    }
  case is JSONValue.Type:
    return value as! T
  default:
    return try T(from: TreeDecoder(value: value, codingPath: path))
  }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let members: [String: JSONValue]
  let codingPath: [any CodingKey]
  var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

  func decodeNil(forKey key: Key) throws -> Bool {
    guard let value = members[key.stringValue] else { return true }
    return value == .null
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    guard let value = members[key.stringValue] else {
      throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing"))
    }
    return try decodeLeaf(type, value, codingPath + [key])
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    try TreeDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
      .container(keyedBy: type)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try TreeDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
      .unkeyedContainer()
  }

  func superDecoder() throws -> any Decoder { TreeDecoder(value: .object(members), codingPath: codingPath) }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    TreeDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
  }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
  let elements: [JSONValue]
  let codingPath: [any CodingKey]
  var currentIndex = 0
  var count: Int? { elements.count }
  var isAtEnd: Bool { currentIndex >= elements.count }

  private mutating func next(_ type: Any.Type) throws -> (JSONValue, [any CodingKey]) {
    guard !isAtEnd else {
      throw DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "array ended"))
    }
    defer { currentIndex += 1 }
    return (elements[currentIndex], codingPath + [AnyKey(intValue: currentIndex)])
  }

  mutating func decodeNil() throws -> Bool {
    guard !isAtEnd, elements[currentIndex] == .null else { return false }
    currentIndex += 1
    return true
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let (value, path) = try next(type)
    return try decodeLeaf(type, value, path)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type
  ) throws -> KeyedDecodingContainer<NestedKey> {
    let (value, path) = try next([String: JSONValue].self)
    return try TreeDecoder(value: value, codingPath: path).container(keyedBy: type)
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let (value, path) = try next([JSONValue].self)
    return try TreeDecoder(value: value, codingPath: path).unkeyedContainer()
  }

  mutating func superDecoder() throws -> any Decoder {
    let (value, path) = try next(JSONValue.self)
    return TreeDecoder(value: value, codingPath: path)
  }
}

private struct SingleContainer: SingleValueDecodingContainer {
  let value: JSONValue
  let codingPath: [any CodingKey]

  func decodeNil() -> Bool { value == .null }

  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try decodeLeaf(type, value, codingPath)
  }
}
