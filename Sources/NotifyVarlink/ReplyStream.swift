import NotifyProtocol

/// A reply too long to encode at once — `List`, `History`, a `Watch` snapshot at full capacity can
/// run to hundreds of megabytes — handed out in pieces as the client reads them, so that what the
/// daemon holds for a client is bounded by what it encodes ahead, not by the reply's length.
///
/// - Important: `nextPiece()` is called on the loop's thread only, after the stream was handed over.
public protocol ReplyStream: Sendable {
  /// The next bytes of the reply, or `nil` when it is complete (its NUL included in the last piece).
  mutating func nextPiece() -> [UInt8]?
}

/// A reply that holds one long array: what comes before and after it is encoded at once, the
/// elements one piece at a time.
public struct ArrayReplyStream<Element: WireEncodable & Sendable>: ReplyStream {
  private var head: [UInt8]?
  private let elements: [Element]
  private var index = 0
  private var tail: [UInt8]?
  /// Roughly how many bytes one piece holds; a single element may exceed it.
  static var pieceSize: Int { 64 << 10 }

  /// `{"parameters":{"notices":[…]}}`: the reply of `List` and `History`.
  public init(field: StaticString, elements: [Element]) {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("parameters")
    writer.beginObject()
    writer.key(field)
    head = writer.bytes + [UInt8(ascii: "[")]
    tail = Array("]}}".utf8) + [0]
    self.elements = elements
  }

  /// `{"parameters":{"event":{"kind":"snapshot",…,"notices":[…]}},"continues":true}`: the first
  /// reply of `Watch`, with `snapshot`'s other members before the array of `elements` (its own
  /// `notices` are not written).
  public init(snapshot: Event, elements: [Element]) {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("parameters")
    writer.beginObject()
    writer.key("event")
    writer.beginObject()
    var members = snapshot
    members.notices = nil
    members.writeMembers(to: &writer)
    writer.key("notices")
    head = writer.bytes + [UInt8(ascii: "[")]
    tail = Array(#"]}},"continues":true}"#.utf8) + [0]
    self.elements = elements
  }

  public mutating func nextPiece() -> [UInt8]? {
    if let head {
      self.head = nil
      return head
    }
    if index < elements.count {
      // The writer puts the commas between the elements of one piece; a piece after the first
      // begins with the comma that follows the element before it.
      var writer = JSONWriter(capacity: Self.pieceSize + 4096)
      let first = index
      while index < elements.count && writer.bytes.count < Self.pieceSize {
        elements[index].write(to: &writer)
        index += 1
      }
      return first > 0 ? [UInt8(ascii: ",")] + writer.bytes : writer.bytes
    }
    defer { tail = nil }
    return tail
  }
}
