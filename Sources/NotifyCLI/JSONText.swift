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
    return escapingControls(String(decoding: data, as: UTF8.self))
  }

  /// `json` with DEL and the C1 controls (U+007F–U+009F) written as `\u` escapes: JSON lets them
  /// stand raw, but a terminal acts on them (U+009B is CSI). They can only occur inside strings,
  /// where the escape means the same character.
  static func escapingControls(_ json: String) -> String {
    guard json.unicodeScalars.contains(where: { (0x7F...0x9F).contains($0.value) }) else { return json }
    var escaped = String.UnicodeScalarView()
    for scalar in json.unicodeScalars {
      if (0x7F...0x9F).contains(scalar.value) {
        let hex = String(scalar.value, radix: 16)
        escaped.append(contentsOf: "\\u00\(hex)".unicodeScalars)
      } else {
        escaped.append(scalar)
      }
    }
    return String(escaped)
  }
}
