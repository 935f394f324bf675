/// Splits the words after a verb into options and positionals, the way GNU `getopt_long` does.
///
/// `--opt=value` and `--opt value` both work, `-n 5` and `-n5` too; options may come before or
/// after positionals; `--` ends the options, and everything after it is positional.
enum ArgumentScanner {
  /// Scans `arguments` against `options`.
  ///
  /// - Parameter stopsAtFirstPositional: whether the first positional ends the options, so that
  ///   `run make -j4` leaves `-j4` to `make`.
  /// - Throws: `UsageError` for an unknown option, a missing value, or a value given to a flag.
  static func scan(
    _ arguments: ArraySlice<String>, verb: String, options: [OptionSpec], stopsAtFirstPositional: Bool = false
  ) throws(UsageError) -> ParsedArguments {
    var parsed = ParsedArguments(verb: verb)
    var remaining = arguments[...]
    var optionsEnded = false

    while let argument = remaining.popFirst() {
      if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
        parsed.positionals.append(argument)
        if stopsAtFirstPositional { optionsEnded = true }
        continue
      }
      if argument == "--" {
        optionsEnded = true
        continue
      }

      let spec: OptionSpec
      let spelling: String
      var attachedValue: String?
      if argument.hasPrefix("--") {
        let body = argument.dropFirst(2)
        let name: Substring
        if let equals = body.firstIndex(of: "=") {
          name = body[..<equals]
          attachedValue = String(body[body.index(after: equals)...])
        } else {
          name = body
        }
        spelling = "--\(name)"
        guard let found = options.first(where: { $0.name == name }) else {
          throw .unknownOption(spelling, verb: verb)
        }
        spec = found
      } else {
        let letter = argument.dropFirst().first!
        spelling = "-\(letter)"
        guard let found = options.first(where: { $0.short == letter }) else {
          throw .unknownOption(argument, verb: verb)
        }
        spec = found
        let rest = argument.dropFirst(2)
        if !rest.isEmpty {
          // Flags are not bundled (`-hx`): only a value may be attached, as in `-n5`.
          guard spec.takesValue else { throw .unknownOption(argument, verb: verb) }
          attachedValue = String(rest)
        }
      }

      if spec.takesValue {
        guard let value = attachedValue ?? remaining.popFirst() else {
          throw .missingValue(option: spelling)
        }
        parsed.values[spec.name, default: []].append(.init(spelling: spelling, value: value))
      } else {
        if attachedValue != nil { throw .unexpectedValue(option: spelling) }
        parsed.flags.insert(spec.name)
      }
    }
    return parsed
  }
}
