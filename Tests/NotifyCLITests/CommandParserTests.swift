import NotifyProtocol
import Testing

@testable import NotifyCLI

/// The command `words` parse to.
private func command(_ words: String...) throws -> Command {
  try CommandParser.parse(words).command
}

/// The usage error `words` raise, or `nil` if they parse.
private func usageError(_ words: String...) -> UsageError? {
  usageError(words)
}

private func usageError(_ words: [String]) -> UsageError? {
  do {
    _ = try CommandParser.parse(words)
    return nil
  } catch {
    return error
  }
}

@Suite("Turning argv into a Command")
struct CommandParserTests {
  // MARK: - show

  @Test func show_withTitleOnly_leavesEveryOptionToTheDaemon() throws {
    #expect(try command("show", "Backup done") == .show(ShowParameters(title: "Backup done"), wait: false))
  }

  @Test func show_withBody_setsBody() throws {
    #expect(
      try command("show", "Backup done", "42 files")
        == .show(ShowParameters(title: "Backup done", body: "42 files"), wait: false))
  }

  @Test func icon_relative_isMadeAbsoluteAgainstTheWorkingDirectory() throws {
    #expect(
      try CommandParser.parse(["show", "t", "--icon", "img/a.png"], workingDirectory: "/home/ann").command
        == .show(ShowParameters(title: "t", icon: "/home/ann/img/a.png"), wait: false))
    #expect(
      try CommandParser.parse(["progress", "t", "--icon=/x/b.png"], workingDirectory: "/home/ann").command
        == .progress(ProgressParameters(title: "t", icon: "/x/b.png")))
    #expect(usageError("show", "t", "--icon", "") != nil)
  }

  @Test func icon_withoutASlashOrAnImageExtension_isAnIconName() throws {
    func icon(_ value: String) throws -> String? {
      guard
        case .show(let parameters, _) = try CommandParser.parse(
          ["show", "t", "--icon", value], workingDirectory: "/home/ann"
        ).command
      else { return nil }
      return parameters.icon
    }
    #expect(try icon("dialog-warning") == "dialog-warning")
    #expect(try icon("mail-unread-symbolic") == "mail-unread-symbolic")
    #expect(try icon("org.gnome.Nautilus") == "org.gnome.Nautilus")
    // A file by its extension, whatever its case, or by a slash.
    #expect(try icon("logo.PNG") == "/home/ann/logo.PNG")
    #expect(try icon("drawing.svg") == "/home/ann/drawing.svg")
    #expect(try icon("./dialog-warning") == "/home/ann/./dialog-warning")
    #expect(usageError("show", "t", "--icon", ".hidden") != nil)
    #expect(usageError("show", "t", "--icon", String(repeating: "n", count: 256)) != nil)
  }

  @Test func show_withEqualsForm_parsesHold() throws {
    #expect(
      try command("show", "t", "--hold=2.5s") == .show(ShowParameters(title: "t", hold: 2.5), wait: false))
  }

  @Test func show_withSeparateValue_parsesHold() throws {
    #expect(
      try command("show", "t", "--hold", "300ms") == .show(ShowParameters(title: "t", hold: 0.3), wait: false)
    )
  }

  @Test func show_withOptionsBeforeAndBetweenPositionals_keepsPositionalOrder() throws {
    let parsed = try command("show", "--urgency", "critical", "Title", "--tag=backup", "Body", "--wait")
    #expect(
      parsed
        == .show(ShowParameters(title: "Title", body: "Body", urgency: .critical, tag: "backup"), wait: true))
  }

  @Test func show_withEveryOption_mapsEachToItsParameter() throws {
    let parsed = try command(
      "show", "t", "--delay", "1m", "--fade-in", "0.5", "--hold", "0", "--fade-out", "2s",
      "--ease-in", "linear", "--ease-out", "easeInOut", "--urgency", "low", "--style", "blur",
      "--tag", "g", "--key", "k", "--app", "make", "--after", "#7")
    let expected = ShowParameters(
      title: "t", app: "make", urgency: .low, style: .blur, tag: "g", key: "k", delay: 60, fadeIn: 0.5,
      hold: 0, fadeOut: 2, easeIn: .linear, easeOut: .easeInOut, after: 7)
    #expect(parsed == .show(expected, wait: false))
  }

  @Test func show_withRepeatedAction_keepsEveryActionInOrder() throws {
    let parsed = try command(
      "show", "t", "--action", "open=Open log", "--action=retry=Try again", "--action", "ok")
    let actions = [
      Action(key: "open", label: "Open log"), Action(key: "retry", label: "Try again"),
      Action(key: "ok", label: "ok"),
    ]
    #expect(parsed == .show(ShowParameters(title: "t", actions: actions), wait: false))
  }

  @Test func show_withActionMissingKey_isUsageError() {
    #expect(
      usageError("show", "t", "--action", "=Open")
        == .invalidValue(option: "--action", value: "=Open", reason: "an action (KEY=LABEL)"))
  }

  @Test func show_withRepeatedHold_takesTheLast() throws {
    #expect(
      try command("show", "t", "--hold", "1", "--hold", "2")
        == .show(ShowParameters(title: "t", hold: 2), wait: false))
  }

  @Test func doubleDash_endsOptions_soATitleMayStartWithADash() throws {
    #expect(
      try command("show", "--hold", "1", "--", "-5 °C", "--wait")
        == .show(ShowParameters(title: "-5 °C", body: "--wait", hold: 1), wait: false))
  }

  @Test func show_withoutTitle_isUsageErrorNamingTitle() {
    #expect(usageError("show", "--wait") == .missingArgument(verb: "show", name: "TITLE"))
  }

  @Test func show_withThirdPositional_isUsageError() {
    #expect(usageError("show", "a", "b", "c") == .unexpectedArgument(verb: "show", argument: "c"))
  }

  // MARK: - Option conventions

  @Test(arguments: [
    (["show", "t", "--bogus"], UsageError.unknownOption("--bogus", verb: "show")),
    (["show", "t", "--bogus=1"], .unknownOption("--bogus", verb: "show")),
    (["list", "-x"], .unknownOption("-x", verb: "list")),
    (["status", "--hold", "1"], .unknownOption("--hold", verb: "status")),
    (["--bogus", "status"], .unknownOption("--bogus", verb: nil)),
  ])
  func unknownOption_isUsageErrorNamingIt(words: [String], expected: UsageError) {
    #expect(throws: expected) { try CommandParser.parse(words) }
  }

  @Test(arguments: [
    (["show", "t", "--hold"], "--hold"),
    (["history", "-n"], "-n"),
    (["--socket"], "--socket"),
    (["--relay"], "--relay"),
    (["cancel", "--tag"], "--tag"),
  ])
  func optionWithoutItsValue_isUsageErrorNamingIt(words: [String], option: String) {
    #expect(throws: UsageError.missingValue(option: option)) { try CommandParser.parse(words) }
  }

  @Test func flagGivenAValue_isUsageError() {
    #expect(usageError("show", "t", "--wait=yes") == .unexpectedValue(option: "--wait"))
  }

  @Test(arguments: [
    ("--hold", "soon"), ("--hold", "-1"), ("--delay", "2d"), ("--fade-in", "1.5x"), ("--fade-out", ""),
  ])
  func badDuration_isUsageErrorNamingTheOption(option: String, value: String) throws {
    let error = try #require(usageError("show", "t", option, value))
    guard case .invalidValue(let named, let given, _) = error else {
      Issue.record("expected invalidValue, got \(error)")
      return
    }
    #expect(named == option)
    #expect(given == value)
  }

  @Test(arguments: [
    ("--urgency", "high"), ("--style", "frosted"), ("--ease-in", "bounce"), ("--ease-out", "ease-in"),
  ])
  func badEnumValue_isUsageErrorListingTheChoices(option: String, value: String) throws {
    let error = try #require(usageError("show", "t", option, value))
    guard case .invalidValue(option, value, let reason) = error else {
      Issue.record("expected invalidValue for \(option), got \(error)")
      return
    }
    #expect(reason.hasPrefix("one of "))
  }

  @Test func usageErrorDescription_isOneLineNamingTheOption() {
    let error = UsageError.invalidValue(
      option: "--hold", value: "soon", reason: "a duration (like 1.5, 1.5s, 300ms, 2m, 1h)")
    #expect(error.description == "--hold: 'soon' is not a duration (like 1.5, 1.5s, 300ms, 2m, 1h)")
  }

  // MARK: - progress, update, end

  @Test func progress_parsesValueTimeoutKeyAndTiming() throws {
    let parsed = try command(
      "progress", "Building", "step 1", "--value=40", "--timeout", "2m", "--key", "build", "--tag", "ci",
      "--app", "make", "--urgency", "normal", "--style", "clear", "--delay", "1", "--fade-in", "0",
      "--fade-out", "0.2")
    let expected = ProgressParameters(
      title: "Building", body: "step 1", app: "make", urgency: .normal, style: .clear, tag: "ci",
      key: "build",
      value: 40, timeout: 120, delay: 1, fadeIn: 0, fadeOut: 0.2)
    #expect(parsed == .progress(expected))
  }

  @Test func progress_doesNotTakeHold() {
    #expect(usageError("progress", "t", "--hold", "1") == .unknownOption("--hold", verb: "progress"))
  }

  @Test func update_parsesIdAndChanges() throws {
    #expect(
      try command("update", "12", "--body", "half way", "--value", "50")
        == .update(UpdateParameters(id: 12, body: "half way", value: 50)))
  }

  @Test func update_withNothingToChange_isUsageError() {
    #expect(
      usageError("update", "12")
        == .invalidCombination(verb: "update", reason: "nothing to change; give --title, --body or --value"))
  }

  @Test(arguments: ["abc", "0", "-3", "1.5"])
  func noticeId_thatIsNotAPositiveInteger_isUsageError(text: String) {
    #expect(
      usageError("get", "--", text)
        == .invalidValue(option: "ID", value: text, reason: "a notice id (a positive integer)"))
  }

  @Test func end_parsesMessageAndHold() throws {
    #expect(
      try command("end", "3", "All green", "--hold", "4s")
        == .end(EndParameters(id: 3, message: "All green", hold: 4)))
  }

  // MARK: - cancel, invoke, suspend

  @Test(arguments: [
    (["cancel", "3", "5"], Command.cancel(.ids([3, 5]), now: false)),
    (["cancel", "--tag", "backup", "--now"], .cancel(.tag("backup"), now: true)),
    (["cancel", "--all"], .cancel(.all, now: false)),
  ])
  func cancel_namesExactlyOneTarget(words: [String], expected: Command) throws {
    #expect(try CommandParser.parse(words).command == expected)
  }

  @Test(arguments: [
    ["cancel"], ["cancel", "--now"], ["cancel", "3", "--all"], ["cancel", "--tag", "t", "--all"],
  ])
  func cancel_withNoneOrSeveralTargets_isUsageError(words: [String]) throws {
    let error = try #require(usageError(words))
    guard case .invalidCombination(verb: "cancel", _) = error else {
      Issue.record("expected invalidCombination, got \(error)")
      return
    }
  }

  @Test(arguments: [
    (["invoke", "9", "open"], Command.invoke(id: 9, action: "open")),
    (["invoke", "9"], .invoke(id: 9, action: "default")),
    (["invoke", "open"], .invoke(id: nil, action: "open")),
    (["invoke"], .invoke(id: nil, action: "default")),
    (["dismiss"], .dismiss(.newest)),
    (["dismiss", "3", "4"], .dismiss(.ids([3, 4]))),
    (["dismiss", "--all"], .dismiss(.all)),
    (["dismiss", "--app", "slack*"], .dismiss(.app("slack*"))),
    (["menu"], .menu(id: nil, picker: nil)),
    (["reply", "4", "on my way"], .reply(ReplyParameters(id: 4, text: "on my way"))),
    (
      ["show", "Ada", "--reply", "Answer"], .show(ShowParameters(title: "Ada", reply: "Answer"), wait: false)
    ),
    (["menu", "7", "--picker", "rofi -dmenu -i"], .menu(id: 7, picker: "rofi -dmenu -i")),
  ])
  func invokeDismissAndMenu_actOnTheNewestVisibleNotice_withoutAnId(words: [String], expected: Command) throws
  {
    #expect(try CommandParser.parse(words).command == expected)
  }

  @Test(arguments: [
    ["invoke", "9", "open", "extra"], ["dismiss", "3", "--all"], ["dismiss", "--app", "x", "--all"],
    ["dismiss", "--app", ""], ["menu", "x"], ["menu", "--picker", " "], ["menu", "1", "2"], ["reply", "4"],
    ["reply", "x", "text"],
  ])
  func invokeDismissAndMenu_refuseWhatTheyCannotMean(words: [String]) throws {
    #expect(try usageError(words) != nil)
  }

  @Test(arguments: [
    (["read"], Command.read(ReadParameters(all: true))),
    (["read", "--all"], .read(ReadParameters(all: true))),
    (["read", "3", "4"], .read(ReadParameters(ids: [3, 4]))),
    (["restore"], .restore(RestoreParameters(last: 1))),
    (["restore", "--last", "5"], .restore(RestoreParameters(last: 5))),
    (["restore", "7"], .restore(RestoreParameters(ids: [7]))),
    (["forget", "2", "9"], .forget(ForgetParameters(ids: [2, 9]))),
    (["forget", "--app", "bank*"], .forget(ForgetParameters(app: "bank*"))),
    (["forget", "--all"], .forget(ForgetParameters(all: true))),
    (["history", "--unread"], .history(HistoryOptions(unread: true), json: false)),
  ])
  func readRestoreAndForget_nameFinishedNotices(words: [String], expected: Command) throws {
    #expect(try CommandParser.parse(words).command == expected)
  }

  @Test(arguments: [
    ["read", "3", "--all"], ["read", "x"], ["restore", "3", "--last", "2"], ["restore", "--last", "0"],
    ["forget"], ["forget", "3", "--all"], ["forget", "--app", ""], ["forget", "--app", "a", "--all"],
  ])
  func readRestoreAndForget_refuseWhatTheyCannotMean(words: [String]) throws {
    #expect(try usageError(words) != nil)
  }

  @Test(arguments: [
    (["suspend"], Command.suspend(SuspendParameters())),
    (["suspend", "--for", "1h"], .suspend(SuspendParameters(duration: 3600))),
    (["resume"], .resume),
    (["reload"], .reload),
  ])
  func suspendResumeReload_parse(words: [String], expected: Command) throws {
    #expect(try CommandParser.parse(words).command == expected)
  }

  @Test(arguments: [
    (["snooze", "10m"], Command.snooze(id: nil, until: .after(600))),
    (["snooze", "7", "1h"], .snooze(id: 7, until: .after(3600))),
    (["snooze", "7", "14:30"], .snooze(id: 7, until: .at(hour: 14, minute: 30, second: 0))),
    (["snooze", "tomorrow"], .snooze(id: nil, until: .tomorrow)),
    (["snooze", "--until", "9:05:30"], .snooze(id: nil, until: .at(hour: 9, minute: 5, second: 30))),
    (["snooze", "7", "--until", "1800000000"], .snooze(id: 7, until: .epoch(1_800_000_000))),
    (["unsnooze", "7"], .unsnooze(id: 7)),
    (["list", "--snoozed"], .list(held: false, snoozed: true, json: false)),
  ])
  func snooze_takesAnIdAndATime(words: [String], expected: Command) throws {
    #expect(try CommandParser.parse(words).command == expected)
  }

  @Test(arguments: [
    ["snooze"], ["snooze", "42"], ["snooze", "7", "soon"], ["snooze", "7", "0s"],
    ["snooze", "7", "1h", "2h"],
    ["snooze", "7", "--until", "25:00"], ["snooze", "7", "--until", "1h"],
    ["snooze", "7", "8", "--until", "9:00"],
    ["snooze", "x", "10m"], ["unsnooze"], ["unsnooze", "x"],
  ])
  func snooze_refusesWhatItCannotMean(words: [String]) throws {
    #expect(try usageError(words) != nil)
  }

  // MARK: - Queries

  @Test(arguments: [
    (["status"], Command.status(json: false)),
    (["status", "--json"], .status(json: true)),
    (["list", "--json"], .list(held: false, json: true)),
    (["list", "--held"], .list(held: true, json: false)),
    (["get", "4", "--json"], .get(id: 4, json: true)),
    (["wait", "4"], .wait(id: 4)),
    (["history"], .history(HistoryOptions(), json: false)),
  ])
  func queries_parseJsonFlag(words: [String], expected: Command) throws {
    #expect(try CommandParser.parse(words).command == expected)
  }

  @Test(arguments: [
    ["history", "-n", "5"], ["history", "-n5"], ["history", "--limit=5"], ["history", "--limit", "5"],
  ])
  func history_limit_acceptsShortAndLongForms(words: [String]) throws {
    #expect(try CommandParser.parse(words).command == .history(HistoryOptions(limit: 5), json: false))
  }

  @Test func history_filters_parseAppOutcomeAndSince() throws {
    let parsed = try command("history", "--app", "make", "--outcome", "timedOut", "--since", "2h", "--json")
    #expect(
      parsed == .history(HistoryOptions(app: "make", outcome: .timedOut, since: .ago(7200)), json: true))
  }

  @Test func history_sinceBareNumber_isAnEpochTimestamp() throws {
    let parsed = try command("history", "--since", "1700000000")
    #expect(parsed == .history(HistoryOptions(since: .epoch(1_700_000_000)), json: false))
    #expect(HistoryOptions(since: .ago(60)).parameters(now: 1000).since == 940)
  }

  // MARK: - watch

  @Test(arguments: [
    (["watch"], WatchOptions()),
    (["watch", "--json"], WatchOptions(format: .json)),
    (["watch", "--format", "waybar"], WatchOptions(format: .waybar)),
    (["watch", "--format=json", "--frames"], WatchOptions(format: .json, frames: true)),
    (["watch", "--fps", "10"], WatchOptions(frames: true, fps: 10)),
    (["watch", "--format", "i3bar"], WatchOptions(format: .i3bar)),
    (["watch", "--format", "lines"], WatchOptions(format: .lines)),
    (["watch", "--format", "auto", "--json"], WatchOptions(format: .json)),
  ])
  func watch_parsesFormatAndFrames(words: [String], expected: WatchOptions) throws {
    #expect(try CommandParser.parse(words).command == .watch(expected))
  }

  @Test(arguments: [
    ["watch", "--format", "xml"], ["watch", "--json", "--format", "waybar"], ["watch", "--fps", "0"],
    ["watch", "--json", "--format", "i3bar"],
  ])
  func watch_withBadFormatOrFps_isUsageError(words: [String]) {
    #expect(throws: UsageError.self) { try CommandParser.parse(words) }
  }

  // MARK: - run and call

  @Test func run_takesEverythingAfterDoubleDashAsTheCommand() throws {
    let parsed = try command("run", "--title", "Build", "--timeout=10m", "--", "make", "--jobs", "4")
    #expect(parsed == .run(RunOptions(title: "Build", timeout: 600, command: ["make", "--jobs", "4"])))
  }

  @Test func run_leavesOptionsAfterTheProgramToIt() throws {
    #expect(
      try command("run", "make", "-j4", "--title", "x")
        == .run(RunOptions(command: ["make", "-j4", "--title", "x"])))
  }

  @Test func run_withoutCommand_isUsageError() {
    #expect(usageError("run", "--title", "x") == .missingArgument(verb: "run", name: "COMMAND"))
  }

  @Test(arguments: [
    ("Status", "io.notifyd.Queue.Status"),
    ("org.varlink.service.GetInfo", "org.varlink.service.GetInfo"),
  ])
  func call_qualifiesShortMethodNames(method: String, expected: String) throws {
    #expect(try CommandParser.parse(["call", method]).command == .call(CallOptions(method: expected)))
  }

  @Test func call_parsesJsonParametersAndMore() throws {
    let parsed = try command("call", "Watch", #"{"frames": true}"#, "--more")
    #expect(
      parsed
        == .call(
          CallOptions(
            method: "io.notifyd.Queue.Watch", parameters: .object(["frames": .bool(true)]), more: true)))
  }

  @Test(arguments: ["{", "[1, 2]", "nope"])
  func call_withParametersThatAreNotAJsonObject_isUsageError(text: String) throws {
    let error = try #require(usageError("call", "Status", text))
    guard case .invalidValue(option: "JSON", value: text, _) = error else {
      Issue.record("expected invalidValue for JSON, got \(error)")
      return
    }
  }

  // MARK: - Global options

  @Test(arguments: [
    ["--socket", "/tmp/a.sock", "status"], ["--socket=/tmp/a.sock", "status"],
    ["status", "--socket", "/tmp/a.sock"],
    ["--socket", "/tmp/b.sock", "status", "--socket=/tmp/a.sock"],
  ])
  func socketOption_isReadBeforeOrAfterTheVerb(words: [String]) throws {
    #expect(
      try CommandParser.parse(words) == Invocation(socketPath: "/tmp/a.sock", command: .status(json: false)))
  }

  @Test(arguments: [
    ["--relay", "nats://a:4222", "show", "t", "--wait"], ["--relay=nats://a:4222", "show", "t", "--wait"],
  ])
  func relayOption_beforeShow_publishesThroughItsServers(words: [String]) throws {
    var parameters = ShowParameters(title: "t")
    parameters.actions = nil
    #expect(
      try CommandParser.parse(words)
        == Invocation(relay: ["nats://a:4222"], command: .show(parameters, wait: true)))
    #expect(
      try CommandParser.parse(["--relay", " nats://a:4222, tls://b:4222 ", "show", "t"]).relay == [
        "nats://a:4222", "tls://b:4222",
      ])
  }

  @Test(arguments: [
    (["--relay", "http://a", "show", "t"], "--relay"),
    (["--relay", "nats://", "show", "t"], "--relay"),
    (["--relay=", "show", "t"], "--relay"),
  ])
  func relayOption_withoutANatsURL_isUsageErrorNamingIt(words: [String], option: String) throws {
    let error = try #require(usageError(words))
    guard case .invalidValue(option: option, _, let reason) = error else {
      Issue.record("expected invalidValue for \(option), got \(error)")
      return
    }
    #expect(reason.contains("nats://"))
  }

  @Test(arguments: [["--relay", "nats://a", "list"], ["--relay", "nats://a", "show", "t", "--after", "2"]])
  func relayOption_withAnythingButAShowOfItsOwn_isUsageError(words: [String]) {
    guard case .invalidCombination? = usageError(words) else {
      Issue.record("expected invalidCombination for \(words), got \(String(describing: usageError(words)))")
      return
    }
  }

  @Test(arguments: [
    (["--version"], Command.version),
    (["--help"], .help(verb: nil)),
    (["-h"], .help(verb: nil)),
    (["help"], .help(verb: nil)),
    (["help", "show"], .help(verb: "show")),
    (["show", "--help"], .help(verb: "show")),
    (["cancel", "-h"], .help(verb: "cancel")),
  ])
  func versionAndHelp_parse(words: [String], expected: Command) throws {
    #expect(try CommandParser.parse(words).command == expected)
  }

  @Test(arguments: [
    ([String](), UsageError.missingCommand),
    (["frobnicate"], .unknownCommand("frobnicate")),
    (
      ["help", "frobnicate"],
      .invalidValue(option: "help", value: "frobnicate", reason: "a command (see 'notifyctl --help')")
    ),
  ])
  func missingOrUnknownCommand_isUsageError(words: [String], expected: UsageError) {
    #expect(throws: expected) { try CommandParser.parse(words) }
  }

  @Test func helpText_listsEveryVerbAndEachVerbsOptions() throws {
    let overview = HelpText.overview()
    for verb in Verb.all { #expect(overview.contains("  \(verb.name)")) }
    let show = HelpText.usage(of: try #require(Verb.named("show")))
    for option in ["--hold D", "--action KEY=LABEL", "--wait", "--socket PATH"] {
      #expect(show.contains(option))
    }
  }
}
