// What the daemon writes that is not a type's members: arrays, `JSONValue`s (error parameters),
// the envelope of a reply, and a snapshot's members before its streamed notices. Every message
// type's own members are written from its `Encodable` conformance (`WireEncoder`).

extension JSONWriter {
  /// An array of values.
  public mutating func write(_ values: [some WireEncodable]) {
    beginArray()
    for value in values { value.write(to: &self) }
    endArray()
  }
}

extension Event {
  /// Every member but `notices`, into the object the writer has open: a long snapshot streams its
  /// notices after them.
  public func writeMembers(to writer: inout JSONWriter) {
    var members = self
    members.notices = nil
    WireEncoder.writeMembers(of: members, to: &writer)
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
