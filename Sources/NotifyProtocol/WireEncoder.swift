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
    return ArrayWriter(encoder: self)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    ValueWriter(encoder: self)
  }
}

/// The members of an object, each written as its key and value.
private struct ObjectWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: WireEncoding
  var codingPath: [any CodingKey] { [] }

  private func key(_ key: Key) { encoder.writer.dynamicKey(key.stringValue) }

  mutating func encodeNil(forKey key: Key) {
    self.key(key)
    encoder.writer.null()
  }
  mutating func encode(_ value: Bool, forKey key: Key) {
    self.key(key)
    encoder.writer.bool(value)
  }
  mutating func encode(_ value: String, forKey key: Key) {
    self.key(key)
    encoder.writer.string(value)
  }
  mutating func encode(_ value: Double, forKey key: Key) {
    self.key(key)
    encoder.writer.number(value)
  }
  mutating func encode(_ value: Int, forKey key: Key) {
    self.key(key)
    encoder.writer.integer(value)
  }
  mutating func encode(_ value: some Encodable, forKey key: Key) {
    self.key(key)
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

/// The elements of an array.
private struct ArrayWriter: UnkeyedEncodingContainer {
  let encoder: WireEncoding
  var codingPath: [any CodingKey] { [] }
  private(set) var count = 0

  init(encoder: WireEncoding) { self.encoder = encoder }

  mutating func encodeNil() {
    count += 1
    encoder.writer.null()
  }
  mutating func encode(_ value: Bool) {
    count += 1
    encoder.writer.bool(value)
  }
  mutating func encode(_ value: String) {
    count += 1
    encoder.writer.string(value)
  }
  mutating func encode(_ value: Double) {
    count += 1
    encoder.writer.number(value)
  }
  mutating func encode(_ value: Int) {
    count += 1
    encoder.writer.integer(value)
  }
  mutating func encode(_ value: some Encodable) {
    count += 1
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

/// A value that is not a container: a string, a number, a boolean, `null`, or an enum's raw value.
private struct ValueWriter: SingleValueEncodingContainer {
  let encoder: WireEncoding
  var codingPath: [any CodingKey] { [] }

  private func single() { encoder.open(UInt8(ascii: "=")) }

  mutating func encodeNil() {
    single()
    encoder.writer.null()
  }
  mutating func encode(_ value: Bool) {
    single()
    encoder.writer.bool(value)
  }
  mutating func encode(_ value: String) {
    single()
    encoder.writer.string(value)
  }
  mutating func encode(_ value: Double) {
    single()
    encoder.writer.number(value)
  }
  mutating func encode(_ value: Int) {
    single()
    encoder.writer.integer(value)
  }
  mutating func encode(_ value: some Encodable) {
    single()
    encoder.encodeValue(value)
  }
}
