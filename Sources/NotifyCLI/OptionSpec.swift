/// One option a verb accepts: its long name, an optional one-letter form, and whether it takes a value.
struct OptionSpec: Sendable {
  /// The long name, without the leading `--`.
  let name: String
  /// The one-letter form, used as `-n 5` or `-n5`.
  let short: Character?
  /// The placeholder of the value in help text, or `nil` for a flag.
  let valueName: String?
  /// One line for the help text.
  let help: String

  /// Whether the option takes a value.
  var takesValue: Bool { valueName != nil }

  /// An option that takes a value.
  static func value(_ name: String, _ valueName: String, short: Character? = nil, _ help: String)
    -> OptionSpec
  {
    OptionSpec(name: name, short: short, valueName: valueName, help: help)
  }

  /// An option that is on or off.
  static func flag(_ name: String, short: Character? = nil, _ help: String) -> OptionSpec {
    OptionSpec(name: name, short: short, valueName: nil, help: help)
  }

  /// How the option reads in help text: `-n, --limit N`.
  var synopsis: String {
    let long = "--\(name)" + (valueName.map { " \($0)" } ?? "")
    return short.map { "-\($0), \(long)" } ?? long
  }
}
