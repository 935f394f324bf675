import NotifyProtocol

/// The words after a verb, sorted into positionals and options, with typed, checked accessors.
struct ParsedArguments: Sendable, Equatable {
  /// A value of an option, with the option as it was spelled (`-n` or `--limit`) for error messages.
  struct OptionValue: Sendable, Equatable {
    var spelling: String
    var value: String
  }

  /// The verb the arguments belong to, for error messages.
  var verb: String
  /// The positional arguments, in order.
  var positionals: [String] = []
  /// The values of each option that takes one, by long name, in the order given.
  var values: [String: [OptionValue]] = [:]
  /// The flags that were given, by long name.
  var flags: Set<String> = []
  /// What a relative path is relative to.
  var workingDirectory = "/"

  // MARK: - Options

  /// Whether the flag `name` was given.
  func flag(_ name: String) -> Bool { flags.contains(name) }

  /// The last value given for `name`: as with GNU tools, a later option overrides an earlier one.
  func string(_ name: String) -> String? { values[name]?.last?.value }

  /// Every value given for `name`, for options that may repeat.
  func strings(_ name: String) -> [String] { values[name]?.map(\.value) ?? [] }

  /// The last value of `name` read as a duration of at most a day.
  func duration(_ name: String) throws(UsageError) -> Double? {
    guard let option = values[name]?.last else { return nil }
    return try ValueParser.duration(option.value, option: option.spelling)
  }

  /// The last value of `name` read as a file path, made absolute against the working directory.
  func path(_ name: String) throws(UsageError) -> String? {
    guard let option = values[name]?.last else { return nil }
    return try ValueParser.path(option.value, option: option.spelling, workingDirectory: workingDirectory)
  }

  /// The last value of `name` read as an icon: a file made absolute, or an icon name.
  func icon(_ name: String) throws(UsageError) -> String? {
    guard let option = values[name]?.last else { return nil }
    return try ValueParser.icon(option.value, option: option.spelling, workingDirectory: workingDirectory)
  }

  /// The last value of `name` read as an integer no less than `minimum`.
  func integer(_ name: String, minimum: Int = 0) throws(UsageError) -> Int? {
    guard let option = values[name]?.last else { return nil }
    return try ValueParser.integer(option.value, option: option.spelling, minimum: minimum)
  }

  /// The last value of `name` read as a notice id.
  func noticeID(_ name: String) throws(UsageError) -> Int? {
    guard let option = values[name]?.last else { return nil }
    return try ValueParser.noticeID(option.value, option: option.spelling)
  }

  /// The last value of `name` read as one of the cases of `type`.
  func choice<Choice: RawRepresentable & CaseIterable>(
    _ name: String, _ type: Choice.Type
  ) throws(UsageError) -> Choice? where Choice.RawValue == String {
    guard let option = values[name]?.last else { return nil }
    return try ValueParser.choice(option.value, option: option.spelling, type)
  }

  // MARK: - Positionals

  /// Checks that there are at least `minimum` and at most `names.count` positionals, `names`
  /// being their placeholders in order (`["TITLE", "BODY"]`).
  func expectPositionals(minimum: Int, names: [String]) throws(UsageError) {
    if positionals.count < minimum {
      throw .missingArgument(verb: verb, name: names[positionals.count])
    }
    if positionals.count > names.count {
      throw .unexpectedArgument(verb: verb, argument: positionals[names.count])
    }
  }

  /// The positional at `index`, if there is one.
  func positional(_ index: Int) -> String? {
    index < positionals.count ? positionals[index] : nil
  }
}
