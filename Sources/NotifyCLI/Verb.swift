/// One verb of `notifyctl`: its name, its help text, the options it takes, and how its words
/// become a `Command`.
struct Verb: Sendable {
  /// The word that selects the verb: `show`.
  let name: String
  /// The arguments, as the usage line shows them: `TITLE [BODY]`.
  let synopsis: String
  /// One sentence for the command list.
  let summary: String
  /// The options the verb takes, besides `--socket` and `--help`.
  let options: [OptionSpec]
  /// Whether the first positional ends the options (for `run`, whose command has its own).
  var stopsAtFirstPositional = false
  /// Turns the scanned words into a command, checking every value.
  let build: @Sendable (ParsedArguments) throws(UsageError) -> Command

  /// The options every verb takes.
  static let commonOptions: [OptionSpec] = [
    .value("socket", "PATH", "talk to the daemon at PATH"),
    .flag("help", short: "h", "show this help"),
  ]

  /// The verb called `name`, if there is one.
  static func named(_ name: String) -> Verb? {
    all.first { $0.name == name }
  }
}
