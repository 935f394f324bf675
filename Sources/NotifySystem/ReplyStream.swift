import Foundation
import NotifyProtocol

/// A reply too long to encode at once — `List`, `History`, a `Watch` snapshot at full capacity can
/// run to hundreds of megabytes — handed out in pieces as the client reads them, so that what the
/// daemon holds for a client is bounded by what it encodes ahead, not by the reply's length.
///
/// - Important: `nextPiece()` is called on the server's queue only, after the stream was handed over.
public protocol ReplyStream: Sendable {
  /// The next bytes of the reply, or `nil` when it is complete (its NUL included in the last piece).
  mutating func nextPiece() -> [UInt8]?
}

/// A reply that holds one long array: the rest of the reply is encoded at once, the elements one
/// piece at a time.
///
/// The array goes in as the last member of `object`, which sits in the reply's parameters under
/// the members named by `path`: `List` is `{"parameters":{"notices":[…]}}` (path `[]`), a `Watch`
/// snapshot `{"parameters":{"event":{"kind":"snapshot",…,"notices":[…]}},"continues":true}`
/// (path `["event"]`).
public struct ArrayReplyStream<Element: Encodable & Sendable>: ReplyStream {
  private var head: [UInt8]?
  private let elements: [Element]
  private var index = 0
  private var tail: [UInt8]?
  /// Roughly how many bytes one piece holds; a single element may exceed it.
  static var pieceSize: Int { 64 << 10 }

  /// A reply of `object`'s members plus `field: elements`, nested in the parameters under `path`;
  /// `continues` marks a reply of a call that goes on (`more`).
  public init(
    _ object: some Encodable, field: String, elements: [Element], under path: [String] = [],
    continues: Bool = false
  ) throws {
    let encoder = JSONEncoder()
    var members = [UInt8](try encoder.encode(object))
    guard members.first == UInt8(ascii: "{"), members.last == UInt8(ascii: "}") else {
      throw EncodingError.invalidValue(
        field, .init(codingPath: [], debugDescription: "what holds the array must encode as an object"))
    }
    members.removeLast()
    if members.count > 1 { members.append(UInt8(ascii: ",")) }
    var head = Array(#"{"parameters":"#.utf8)
    for name in path {
      head += Array("{".utf8) + [UInt8](try encoder.encode(name)) + Array(":".utf8)
    }
    head += members + [UInt8](try encoder.encode(field)) + Array(":[".utf8)
    self.head = head
    let closing = String(repeating: "}", count: path.count + 1)
    tail = Array("]\(closing)\(continues ? #","continues":true"# : "")}".utf8) + [0]
    self.elements = elements
  }

  public mutating func nextPiece() -> [UInt8]? {
    if let head {
      self.head = nil
      return head
    }
    if index < elements.count {
      let encoder = JSONEncoder()
      var piece: [UInt8] = []
      while index < elements.count && piece.count < Self.pieceSize {
        if index > 0 { piece.append(UInt8(ascii: ",")) }
        // Every element is a value of this package's own Codable types: encoding cannot fail.
        let encoded: Data? = try? encoder.encode(elements[index])
        piece.append(contentsOf: encoded ?? Data("null".utf8))
        index += 1
      }
      return piece
    }
    defer { tail = nil }
    return tail
  }
}
