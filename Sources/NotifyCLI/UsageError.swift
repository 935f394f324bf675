/// What was wrong with the command line: `notifyctl` prints it on one line and exits with status 2.
public enum UsageError: Error, Sendable, Equatable, CustomStringConvertible {
  /// No command was given at all.
  case missingCommand
  /// The first word is not one of the verbs.
  case unknownCommand(String)
  /// An option the verb does not know, as it was spelled.
  case unknownOption(String, verb: String?)
  /// An option that takes a value came last, with nothing after it.
  case missingValue(option: String)
  /// A flag was given a value with `--flag=value`.
  case unexpectedValue(option: String)
  /// An option's or argument's value could not be read; `reason` says what was expected.
  case invalidValue(option: String, value: String, reason: String)
  /// A required positional argument is missing; `name` is its placeholder, as in `TITLE`.
  case missingArgument(verb: String, name: String)
  /// More positional arguments than the verb takes.
  case unexpectedArgument(verb: String, argument: String)
  /// A combination of arguments the verb cannot act on.
  case invalidCombination(verb: String, reason: String)

  public var description: String {
    switch self {
    case .missingCommand:
      return "no command given (see 'notifyctl --help')"
    case .unknownCommand(let name):
      return "unknown command '\(name)' (see 'notifyctl --help')"
    case .unknownOption(let option, let verb?):
      return "\(verb): unknown option '\(option)'"
    case .unknownOption(let option, nil):
      return "unknown option '\(option)'"
    case .missingValue(let option):
      return "option '\(option)' needs a value"
    case .unexpectedValue(let option):
      return "option '\(option)' takes no value"
    case .invalidValue(let option, let value, let reason):
      return "\(option): '\(value)' is not \(reason)"
    case .missingArgument(let verb, let name):
      return "\(verb): missing \(name)"
    case .unexpectedArgument(let verb, let argument):
      return "\(verb): unexpected argument '\(argument)'"
    case .invalidCombination(let verb, let reason):
      return "\(verb): \(reason)"
    }
  }
}
