// Each method's parameters read straight from a call's JSON (`JSONReader`), field by field, as
// systemd's `sd_varlink_dispatch` reads a field table: one pass, no tree of values, unknown members
// skipped, and a wrong or missing field named by its path (`actions.0.label`). notifyd-wiregen
// writes each record's reader from the IDL; the Codable conformances stay for clients.

/// A value the daemon reads from a message without a general-purpose decoder.
public protocol WireDecodable: Sendable {
  /// Reads the value that `reader` stands at.
  init(reading reader: inout JSONReader) throws(JSONReadError)
}

extension JSONReader {
  /// An array, each element read by `element`.
  public mutating func readElements<Element>(
    _ element: (inout JSONReader) throws(JSONReadError) -> Element
  ) throws(JSONReadError) -> [Element] {
    var elements: [Element] = []
    try readArray { reader, _ throws(JSONReadError) in elements.append(try element(&reader)) }
    return elements
  }
}
