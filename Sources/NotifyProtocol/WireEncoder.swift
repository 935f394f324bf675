// The daemon's replies, events and relay messages are written from their `Encodable` conformances
// (which the compiler derives from each type's declaration, the one place its fields are listed)
// straight into a `JSONWriter`: no tree of values, no `Data`, and what `JSONEncoder` would write
// (absent optionals left out, enums by raw value), so that clients decoding with `Codable` read
// the same values.

/// A value the daemon writes without a general-purpose encoder.
public protocol WireEncodable {
  /// Writes the value at the writer's position.
  func write(to writer: inout JSONWriter)
}

extension WireEncodable where Self: Encodable {
  public func write(to writer: inout JSONWriter) {
    WireEncoder.write(self, to: &writer)
  }
}

/// Writes `Encodable` values into a `JSONWriter`.
public enum WireEncoder {
  /// Writes `value` at the writer's position.
  public static func write(_ value: some Encodable, to writer: inout JSONWriter) {
    let encoder = WireEncoding(writer: writer)
    writer = JSONWriter()  // the encoder owns the bytes meanwhile: no copy on each append
    encoder.encodeValue(value)
    writer = encoder.writer
  }

  /// Writes `value`'s members into the object the writer has open: the caller writes more members
  /// after them (a long snapshot streams its `notices` last) and closes it.
  public static func writeMembers(of value: some Encodable, to writer: inout JSONWriter) {
    let encoder = WireEncoding(writer: writer)
    writer = JSONWriter()
    encoder.encodeMembers(value)
    writer = encoder.writer
  }
}

/// The encoder: one for a whole value, with a stack of what each value being written has opened.
private final class WireEncoding: Encoder {
  var writer: JSONWriter
  /// For each value being written, innermost last: what it opened (`{`, `[`), or nothing yet.
  private var opened: [UInt8] = []

  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(writer: JSONWriter) {
    self.writer = writer
  }

  /// Writes one value: its own `encode(to:)` opens a container (closed here once it returns) or
  /// writes a single value.
  func encodeValue(_ value: some Encodable) {
    opened.append(0)
    // The conformances the compiler derives do not throw, and neither does this encoder.
    try? value.encode(to: self)
    switch opened.removeLast() {
    case UInt8(ascii: "{"): writer.endObject()
    case UInt8(ascii: "["): writer.endArray()
    case UInt8(ascii: "="): break  // a single value
    default:
      // It wrote nothing (a type without stored properties): an empty object, as JSONEncoder writes.
      writer.beginObject()
      writer.endObject()
    }
  }

  /// Writes the members of `value`, an object, into the object open now.
  func encodeMembers(_ value: some Encodable) {
    opened.append(UInt8(ascii: "{"))
    try? value.encode(to: self)
    opened.removeLast()
  }

  /// The value being written opens `bracket`, unless it opened one already.
  func open(_ bracket: UInt8) {
    guard opened[opened.count - 1] == 0 else { return }
    opened[opened.count - 1] = bracket
    if bracket == UInt8(ascii: "{") {
      writer.beginObject()
    } else if bracket == UInt8(ascii: "[") {
      writer.beginArray()
    }
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    open(UInt8(ascii: "{"))
    return KeyedEncodingContainer(ObjectWriter<Key>(encoder: self))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    open(UInt8(ascii: "["))
    return ValueWriter(encoder: self, isArray: true)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    ValueWriter(encoder: self, isArray: false)
  }
}

/// The members of an object, each written as its key and value.
private struct ObjectWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: WireEncoding
  var codingPath: [any CodingKey] { [] }

  /// Writes `key`, then its value with `write`.
  private func member(_ key: Key, _ write: (inout JSONWriter) -> Void) {
    encoder.writer.dynamicKey(key.stringValue)
    write(&encoder.writer)
  }

  mutating func encodeNil(forKey key: Key) { member(key) { $0.null() } }
  mutating func encode(_ value: Bool, forKey key: Key) { member(key) { $0.bool(value) } }
  mutating func encode(_ value: String, forKey key: Key) { member(key) { $0.string(value) } }
  mutating func encode(_ value: Double, forKey key: Key) { member(key) { $0.number(value) } }
  mutating func encode(_ value: Int, forKey key: Key) { member(key) { $0.integer(value) } }
  mutating func encode(_ value: some Encodable, forKey key: Key) {
    encoder.writer.dynamicKey(key.stringValue)
    encoder.encodeValue(value)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
    -> KeyedEncodingContainer<NestedKey>
  {
    preconditionFailure("WireEncoder writes nested containers through the nested value's own encode(to:)")
  }
  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    preconditionFailure("WireEncoder writes nested containers through the nested value's own encode(to:)")
  }
  mutating func superEncoder() -> any Encoder { preconditionFailure("WireEncoder has no super encoder") }
  mutating func superEncoder(forKey key: Key) -> any Encoder {
    preconditionFailure("WireEncoder has no super encoder")
  }
}

/// The elements of an array, or the one value that is not a container (a string, a number, a
/// boolean, `null`, an enum's raw value): each written as it comes.
private struct ValueWriter: UnkeyedEncodingContainer, SingleValueEncodingContainer {
  let encoder: WireEncoding
  /// Whether this writes an array's elements, rather than a single value.
  let isArray: Bool
  var codingPath: [any CodingKey] { [] }
  private(set) var count = 0

  init(encoder: WireEncoding, isArray: Bool) {
    self.encoder = encoder
    self.isArray = isArray
  }

  /// Writes one value with `write`.
  private mutating func value(_ write: (inout JSONWriter) -> Void) {
    count += 1
    if !isArray { encoder.open(UInt8(ascii: "=")) }
    write(&encoder.writer)
  }

  mutating func encodeNil() { value { $0.null() } }
  mutating func encode(_ value: Bool) { self.value { $0.bool(value) } }
  mutating func encode(_ value: String) { self.value { $0.string(value) } }
  mutating func encode(_ value: Double) { self.value { $0.number(value) } }
  mutating func encode(_ value: Int) { self.value { $0.integer(value) } }
  mutating func encode(_ value: some Encodable) {
    count += 1
    if !isArray { encoder.open(UInt8(ascii: "=")) }
    encoder.encodeValue(value)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    preconditionFailure("WireEncoder writes nested containers through the nested value's own encode(to:)")
  }
  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    preconditionFailure("WireEncoder writes nested containers through the nested value's own encode(to:)")
  }
  mutating func superEncoder() -> any Encoder { preconditionFailure("WireEncoder has no super encoder") }
}
