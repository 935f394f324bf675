import NotifyProtocol

/// Turns `notifyctl`'s arguments into an `Invocation`, without touching anything outside.
public enum CommandParser {
  /// Parses the arguments that follow the program name.
  ///
  /// `--socket PATH` may come before the verb or among its options; `--relay URL` comes before
  /// `show`; `--version` and `--help` before the verb stand alone; `-h`/`--help` among a verb's
  /// options asks for that verb's help.
  ///
  /// - Parameter workingDirectory: what a relative path (`--icon`) is relative to; the daemon
  ///   takes absolute paths only.
  /// - Throws: `UsageError`, naming the option or argument at fault.
  public static func parse(_ arguments: [String], workingDirectory: String = "/") throws(UsageError)
    -> Invocation
  {
    var socketPath: String?
    var relay: [String]?
    var remaining = arguments[...]

    while let argument = remaining.first, argument.hasPrefix("-"), argument != "-" {
      remaining.removeFirst()
      switch argument {
      case "--version":
        return Invocation(socketPath: socketPath, command: .version)
      case "--help", "-h":
        return Invocation(socketPath: socketPath, command: .help(verb: nil))
      case "--socket":
        guard let path = remaining.popFirst() else { throw .missingValue(option: "--socket") }
        socketPath = path
      case _ where argument.hasPrefix("--socket="):
        socketPath = String(argument.dropFirst("--socket=".count))
      case "--relay":
        guard let urls = remaining.popFirst() else { throw .missingValue(option: "--relay") }
        relay = try ValueParser.relayURLs(urls, option: argument)
      case _ where argument.hasPrefix("--relay="):
        relay = try ValueParser.relayURLs(String(argument.dropFirst("--relay=".count)), option: "--relay")
      default:
        throw .unknownOption(argument, verb: nil)
      }
    }

    guard let name = remaining.popFirst() else { throw .missingCommand }
    guard let verb = Verb.named(name) else { throw .unknownCommand(name) }
    var parsed = try ArgumentScanner.scan(
      remaining, verb: verb.name, options: verb.options + Verb.commonOptions,
      stopsAtFirstPositional: verb.stopsAtFirstPositional)
    parsed.workingDirectory = workingDirectory
    if let path = parsed.string("socket") { socketPath = path }
    if parsed.flag("help") {
      return Invocation(socketPath: socketPath, command: .help(verb: verb.name))
    }
    let command = try verb.build(parsed)
    if relay != nil {
      guard case .show(let parameters, _) = command else {
        throw .invalidCombination(
          verb: verb.name, reason: "--relay publishes a notice: it goes with show only")
      }
      guard parameters.after == nil else {
        throw .invalidCombination(
          verb: verb.name, reason: "--after names a notice of a daemon; not with --relay")
      }
    }
    return Invocation(socketPath: socketPath, relay: relay, command: command)
  }
}

// MARK: - Verbs

extension CommandParser {
  static func show(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 1, names: ["TITLE", "BODY"])
    var parameters = ShowParameters(title: arguments.positionals[0], body: arguments.positional(1))
    parameters.app = arguments.string("app")
    parameters.urgency = try arguments.choice("urgency", Urgency.self)
    parameters.style = try arguments.choice("style", Style.self)
    parameters.icon = try arguments.icon("icon")
    parameters.tag = arguments.string("tag")
    parameters.key = arguments.string("key")
    parameters.delay = try arguments.duration("delay")
    parameters.fadeIn = try arguments.duration("fade-in")
    parameters.hold = try arguments.duration("hold")
    parameters.fadeOut = try arguments.duration("fade-out")
    parameters.easeIn = try arguments.choice("ease-in", Easing.self)
    parameters.easeOut = try arguments.choice("ease-out", Easing.self)
    parameters.after = try arguments.noticeID("after")
    var actions: [Action] = []
    for option in arguments.values["action"] ?? [] {
      actions.append(try ValueParser.action(option.value, option: option.spelling))
    }
    parameters.actions = actions.isEmpty ? nil : actions
    parameters.reply = arguments.string("reply")
    return .show(parameters, wait: arguments.flag("wait"))
  }

  static func progress(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 1, names: ["TITLE", "BODY"])
    var parameters = ProgressParameters(title: arguments.positionals[0], body: arguments.positional(1))
    parameters.app = arguments.string("app")
    parameters.urgency = try arguments.choice("urgency", Urgency.self)
    parameters.style = try arguments.choice("style", Style.self)
    parameters.icon = try arguments.icon("icon")
    parameters.tag = arguments.string("tag")
    parameters.key = arguments.string("key")
    parameters.value = try arguments.integer("value")
    parameters.timeout = try arguments.duration("timeout")
    parameters.delay = try arguments.duration("delay")
    parameters.fadeIn = try arguments.duration("fade-in")
    parameters.fadeOut = try arguments.duration("fade-out")
    return .progress(parameters)
  }

  static func update(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 1, names: ["ID"])
    let parameters = UpdateParameters(
      id: try ValueParser.noticeID(arguments.positionals[0], option: "ID"),
      title: arguments.string("title"), body: arguments.string("body"),
      value: try arguments.integer("value"))
    guard parameters.title != nil || parameters.body != nil || parameters.value != nil else {
      throw .invalidCombination(
        verb: arguments.verb, reason: "nothing to change; give --title, --body or --value")
    }
    return .update(parameters)
  }

  static func end(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 1, names: ["ID", "MESSAGE"])
    return .end(
      EndParameters(
        id: try ValueParser.noticeID(arguments.positionals[0], option: "ID"),
        message: arguments.positional(1), hold: try arguments.duration("hold")))
  }

  static func cancel(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    let ids = try noticeIDs(arguments)
    let tag = arguments.string("tag")
    let all = arguments.flag("all")
    let given = [!ids.isEmpty, tag != nil, all].filter { $0 }.count
    guard given == 1 else {
      let reason =
        given == 0 ? "say which notices: ID..., --tag T or --all" : "give only one of ID..., --tag and --all"
      throw .invalidCombination(verb: arguments.verb, reason: reason)
    }
    let target: CancelTarget = all ? .all : tag.map { .tag($0) } ?? .ids(ids)
    return .cancel(target, now: arguments.flag("now"))
  }

  static func dismiss(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    let ids = try noticeIDs(arguments)
    let all = arguments.flag("all")
    let app = arguments.string("app")
    guard [!ids.isEmpty, all, app != nil].filter({ $0 }).count <= 1 else {
      throw .invalidCombination(verb: arguments.verb, reason: "give only one of ID..., --app and --all")
    }
    if all { return .dismiss(.all) }
    if let app { return .dismiss(.app(try appPattern(app))) }
    return .dismiss(ids.isEmpty ? .newest : .ids(ids))
  }

  /// `read [ID...] | --all`: no id reads them all.
  static func read(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    let ids = try noticeIDs(arguments)
    guard ids.isEmpty || !arguments.flag("all") else {
      throw .invalidCombination(verb: arguments.verb, reason: "give only one of ID... and --all")
    }
    return .read(ids.isEmpty ? ReadParameters(all: true) : ReadParameters(ids: ids))
  }

  /// `restore [ID...] | --last N`: no id restores the last notice to finish.
  static func restore(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    let ids = try noticeIDs(arguments)
    let last = try arguments.integer("last", minimum: 1)
    guard ids.isEmpty || last == nil else {
      throw .invalidCombination(verb: arguments.verb, reason: "give only one of ID... and --last")
    }
    return .restore(ids.isEmpty ? RestoreParameters(last: last ?? 1) : RestoreParameters(ids: ids))
  }

  /// `forget ID... | --app GLOB | --all`: exactly one.
  static func forget(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    let ids = try noticeIDs(arguments)
    let app = arguments.string("app")
    let all = arguments.flag("all")
    let given = [!ids.isEmpty, app != nil, all].filter { $0 }.count
    guard given == 1 else {
      let reason =
        given == 0
        ? "say which notices: ID..., --app GLOB or --all" : "give only one of ID..., --app and --all"
      throw .invalidCombination(verb: arguments.verb, reason: reason)
    }
    if let app { return .forget(ForgetParameters(app: try appPattern(app))) }
    return .forget(all ? ForgetParameters(all: true) : ForgetParameters(ids: ids))
  }

  /// The positional arguments, each a notice id.
  private static func noticeIDs(_ arguments: ParsedArguments) throws(UsageError) -> [Int] {
    var ids: [Int] = []
    for text in arguments.positionals { ids.append(try ValueParser.noticeID(text, option: "ID")) }
    return ids
  }

  /// `--app`'s glob, which must not be empty.
  private static func appPattern(_ app: String) throws(UsageError) -> String {
    guard !app.isEmpty else {
      throw .invalidValue(option: "--app", value: app, reason: "a pattern is needed, such as 'slack*'")
    }
    return app
  }

  /// `invoke [ID] [ACTION]`: a first word of digits is the id.
  static func invoke(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 0, names: ["ID", "ACTION"])
    var words = arguments.positionals[...]
    var id: Int?
    if let first = words.first, !first.isEmpty, first.allSatisfy(\.isASCII), first.allSatisfy(\.isNumber) {
      id = try ValueParser.noticeID(first, option: "ID")
      words = words.dropFirst()
    }
    guard words.count <= 1 else { throw .unexpectedArgument(verb: arguments.verb, argument: words.last!) }
    return .invoke(id: id, action: words.first ?? "default")
  }

  /// `snooze [ID] DURATION` or `snooze [ID] --until TIME`: a lone bare number is refused, as it
  /// could mean either an id or seconds.
  static func snooze(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    let words = arguments.positionals
    let isNumber = { (word: String) in !word.isEmpty && word.allSatisfy { $0.isASCII && $0.isNumber } }
    if let until = arguments.string("until") {
      guard words.count <= 1 else { throw .unexpectedArgument(verb: arguments.verb, argument: words.last!) }
      let time = SnoozeTime(until, epochs: true)
      if case .after? = time {
        throw .invalidValue(
          option: "--until", value: until,
          reason: "expected a time, not a while: H:MM, tomorrow or seconds since the epoch")
      }
      guard let time else {
        throw .invalidValue(
          option: "--until", value: until,
          reason: "expected H:MM, H:MM:SS, tomorrow or seconds since the epoch")
      }
      var id: Int?
      if let first = words.first { id = try ValueParser.noticeID(first, option: "ID") }
      return .snooze(id: id, until: time)
    }
    guard let last = words.last else { throw .missingArgument(verb: arguments.verb, name: "DURATION") }
    guard words.count <= 2 else { throw .unexpectedArgument(verb: arguments.verb, argument: words[2]) }
    if words.count == 1 && isNumber(last) {
      throw .invalidCombination(
        verb: arguments.verb,
        reason: "'\(last)' could be an ID or seconds: give DURATION with a unit (10m), or ID DURATION")
    }
    guard let time = SnoozeTime(last), time != .after(0) else {
      throw .invalidValue(
        option: "DURATION", value: last, reason: "expected a duration above 0 (10m, 1h), H:MM or tomorrow")
    }
    return .snooze(id: try words.count == 2 ? ValueParser.noticeID(words[0], option: "ID") : nil, until: time)
  }

  static func unsnooze(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 1, names: ["ID"])
    return .unsnooze(id: try ValueParser.noticeID(arguments.positionals[0], option: "ID"))
  }

  static func reply(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 2, names: ["ID", "TEXT"])
    return .reply(
      ReplyParameters(
        id: try ValueParser.noticeID(arguments.positionals[0], option: "ID"), text: arguments.positionals[1]))
  }

  static func menu(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 0, names: ["ID"])
    let id = try arguments.positional(0).map { text throws(UsageError) in
      try ValueParser.noticeID(text, option: "ID")
    }
    let picker = arguments.string("picker")
    if let picker, picker.allSatisfy({ $0 == " " || $0 == "\t" }) {
      throw .invalidValue(
        option: "--picker", value: picker, reason: "a command is needed, such as 'fuzzel --dmenu'")
    }
    return .menu(id: id, picker: picker)
  }

  static func center(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 0, names: ["ACTION"])
    guard let word = arguments.positionals.first else { return .center(.toggle) }
    guard let action = CenterAction(rawValue: word) else {
      throw .invalidCombination(verb: "center", reason: "'\(word)' is not one of open, close and toggle")
    }
    return .center(action)
  }

  static func suspend(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 0, names: [])
    return .suspend(
      SuspendParameters(
        duration: try arguments.duration("for"), allow: try arguments.choice("allow", DoNotDisturbAllow.self))
    )
  }

  static func resume(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 0, names: [])
    return .resume
  }

  static func reload(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 0, names: [])
    return .reload
  }

  static func status(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 0, names: [])
    return .status(json: arguments.flag("json"))
  }

  static func list(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 0, names: [])
    return .list(
      held: arguments.flag("held"), snoozed: arguments.flag("snoozed"), json: arguments.flag("json"))
  }

  static func history(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 0, names: [])
    var options = HistoryOptions()
    options.limit = try arguments.integer("limit", minimum: 1)
    options.app = arguments.string("app")
    options.outcome = try arguments.choice("outcome", Outcome.self)
    options.foldedInto = try arguments.values["folded-into"]?.last.map { value throws(UsageError) in
      try ValueParser.noticeID(value.value, option: value.spelling)
    }
    if let since = arguments.values["since"]?.last {
      options.since = try ValueParser.timeReference(since.value, option: since.spelling)
    }
    if arguments.flag("unread") { options.unread = true }
    return .history(options, json: arguments.flag("json"))
  }

  static func get(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 1, names: ["ID"])
    return .get(
      id: try ValueParser.noticeID(arguments.positionals[0], option: "ID"), json: arguments.flag("json"))
  }

  static func wait(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 1, names: ["ID"])
    return .wait(id: try ValueParser.noticeID(arguments.positionals[0], option: "ID"))
  }

  static func watch(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 0, names: [])
    var options = WatchOptions()
    if let format = arguments.values["format"]?.last {
      options.format = try ValueParser.choice(format.value, option: format.spelling, WatchOptions.Format.self)
    }
    if arguments.flag("json") {
      guard options.format == .auto || options.format == .json else {
        throw .invalidCombination(
          verb: arguments.verb, reason: "give only one of --json and --format \(options.format.rawValue)")
      }
      options.format = .json
    }
    options.fps = try arguments.integer("fps", minimum: 1)
    options.frames = arguments.flag("frames") || options.fps != nil
    return .watch(options)
  }

  static func run(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    guard !arguments.positionals.isEmpty else {
      throw .missingArgument(verb: arguments.verb, name: "COMMAND")
    }
    return .run(
      RunOptions(
        title: arguments.string("title"), timeout: try arguments.duration("timeout"),
        command: arguments.positionals))
  }

  static func call(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 1, names: ["METHOD", "JSON"])
    let parameters = try arguments.positional(1).map { text throws(UsageError) in
      try ValueParser.jsonObject(text, option: "JSON")
    }
    return .call(
      CallOptions(
        method: CallOptions.qualifiedName(arguments.positionals[0]), parameters: parameters ?? .object([:]),
        more: arguments.flag("more")))
  }

  static func help(_ arguments: ParsedArguments) throws(UsageError) -> Command {
    try arguments.expectPositionals(minimum: 0, names: ["COMMAND"])
    guard let name = arguments.positional(0) else { return .help(verb: nil) }
    guard Verb.named(name) != nil else {
      throw .invalidValue(option: "help", value: name, reason: "a command (see 'notifyctl --help')")
    }
    return .help(verb: name)
  }
}
