import FoundationEssentials
import NotifyProtocol

/// The JSON text `notifyctl` reads and prints: keys sorted, slashes left alone.
enum JSONText {
  /// Parses JSON text of any shape.
  static func parse(_ text: String) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
  }

  /// `value` as JSON: indented for a person, or on one line for a stream of objects.
  static func encode(_ value: some Encodable, pretty: Bool) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting =
      pretty
      ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    // Every value printed here was decoded from JSON or built from strings and numbers, so
    // encoding it cannot fail; if it somehow does, print JSON's null rather than nothing.
    guard let data = try? encoder.encode(value) else { return "null" }
    return String(decoding: data, as: UTF8.self)
  }
}
