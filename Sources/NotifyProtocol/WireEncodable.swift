// The daemon's replies and events written straight to JSON (`JSONWriter`): each record's writer is
// generated from the IDL by notifyd-wiregen, absent optionals left out as `JSONEncoder` leaves them
// out, so that clients decoding with Codable read the same values.

/// A value the daemon writes without a general-purpose encoder.
public protocol WireEncodable {
  /// Writes the value at the writer's position.
  func write(to writer: inout JSONWriter)
}

/// A record of the IDL (`type` or a method's parameters or reply): an object of members, which
/// notifyd-wiregen writes for each record from the IDL.
public protocol WireRecord: WireEncodable, WireDecodable {
  /// Writes the members, each a `key(_:)` and its value, absent optionals left out.
  func writeMembers(to writer: inout JSONWriter)
}

extension WireRecord {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writeMembers(to: &writer)
    writer.endObject()
  }
}

extension JSONWriter {
  /// An array of values.
  public mutating func write(_ values: [some WireEncodable]) {
    beginArray()
    for value in values { value.write(to: &self) }
    endArray()
  }
}

extension JSONValue: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    switch self {
    case .null: writer.null()
    case .bool(let value): writer.bool(value)
    case .number(let value): writer.number(value)
    case .string(let value): writer.string(value)
    case .array(let values):
      writer.beginArray()
      for value in values { value.write(to: &writer) }
      writer.endArray()
    case .object(let members):
      writer.beginObject()
      for name in members.keys.sorted() {
        writer.dynamicKey(name)
        members[name]!.write(to: &writer)
      }
      writer.endObject()
    }
  }
}

/// One whole Varlink message, framed: the envelope of a reply around its parameters, and the NUL.
public enum VarlinkReplyFrame {
  /// `{"parameters":…}\0`, with `"continues":true` when the call goes on.
  public static func encode(_ parameters: some WireEncodable, continues: Bool = false) -> [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("parameters")
    parameters.write(to: &writer)
    if continues {
      writer.key("continues")
      writer.bool(true)
    }
    writer.endObject()
    writer.bytes.append(0)
    return writer.bytes
  }

  /// An error reply, framed: `{"error":NAME,"parameters":{…}}\0`.
  public static func encode(_ error: VarlinkError) -> [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("error", error.name)
    writer.key("parameters")
    JSONValue.object(error.parameters).write(to: &writer)
    writer.endObject()
    writer.bytes.append(0)
    return writer.bytes
  }
}
