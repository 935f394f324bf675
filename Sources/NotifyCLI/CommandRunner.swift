import FoundationEssentials
import Glibc
import NotifyPaths
import NotifyProtocol

/// Carries out a `Command` against the daemon at `socketPath`, printing results to `console`.
public struct CommandRunner {
  /// The daemon's socket.
  public var socketPath: String
  /// Where results and complaints go.
  public var console: any Console
  /// The current time in seconds since the epoch, for `history --since` and for printing dates.
  public var now: () -> Double = { Date().timeIntervalSince1970 }
  /// Looks up environment variables: `TERM`, and the colours of `watch`'s live view
  /// (`NO_COLOR`, `COLORTERM`, `NOTIFYD_WATCH_BACKGROUND`, `COLORFGBG`).
  public var environment: (String) -> String? = { name in getenv(name).map { String(cString: $0) } }

  public init(socketPath: String, console: any Console) {
    self.socketPath = socketPath
    self.console = console
  }

  /// Runs `command` and returns the status to exit with.
  ///
  /// - Throws: `ClientError` when the daemon cannot be reached, `VarlinkError` for an error reply.
  public func run(_ command: Command) throws -> Int32 {
    switch command {
    case .show(let parameters, let wait):
      let client = try connect()
      let id = try client.call(.show, parameters, returning: ShowReply.self).id
      guard wait else {
        console.print("\(id)")
        return ExitStatus.success.rawValue
      }
      return try waitForNotice(id, on: client).rawValue

    case .progress(let parameters):
      console.print("\(try connect().call(.progress, parameters, returning: ProgressReply.self).id)")

    case .update(let parameters):
      _ = try connect().call(.update, parameters, returning: NoticeReply.self)

    case .end(let parameters):
      _ = try connect().call(.end, parameters, returning: NoticeReply.self)

    case .cancel(let target, let now):
      return try cancel(target, now: now).rawValue
    case .dismiss(let target):
      return try dismiss(target).rawValue

    case .invoke(let id, let action):
      let client = try connect()
      guard let id = try id ?? newestVisible(on: client)?.id else { return ExitStatus.failure.rawValue }
      _ = try client.call(.invoke, InvokeParameters(id: id, action: action), returning: NoticeReply.self)

    case .snooze(let id, let time):
      let client = try connect()
      guard let id = try id ?? newestVisible(on: client)?.id else { return ExitStatus.failure.rawValue }
      let notice = try client.call(.snooze, time.request(for: id, now: now()), returning: NoticeReply.self)
        .notice
      console.print(NoticeFormatter.snoozedLine(notice, now: now()))

    case .unsnooze(let id):
      _ = try connect().call(.unsnooze, IDParameters(id: id), returning: NoticeReply.self)

    case .reply(let parameters):
      _ = try connect().call(.reply, parameters, returning: NoticeReply.self)

    case .menu(let id, let picker):
      return try menu(id, picker: picker).rawValue

    case .read(let parameters):
      try connect().call(.read, parameters, returning: ReadReply.self).read.forEach { console.print("\($0)") }

    case .restore(let parameters):
      try connect().call(.restore, parameters, returning: RestoreReply.self).restored.forEach {
        console.print("\($0)")
      }

    case .forget(let parameters):
      try connect().call(.forget, parameters, returning: ForgetReply.self).forgotten.forEach {
        console.print("\($0)")
      }

    case .center(let action):
      _ = try connect().call(.center, CenterParameters(action: action), returning: CenterReply.self)

    case .suspend(let parameters):
      _ = try connect().call(.suspend, parameters, returning: SuspendReply.self)

    case .resume:
      _ = try connect().call(.resume, returning: SuspendReply.self)

    case .reload:
      _ = try connect().call(.reload, returning: NoParameters.self)

    case .status(let json):
      try query(.status, NoParameters(), json: json) { (status: StatusReply) in
        NoticeFormatter.statusLines(status, now: now())
      }

    case .list(let held, let snoozed, let json):
      let parameters = ListParameters(held: held ? true : nil, snoozed: snoozed ? true : nil)
      try query(.list, parameters, json: json) { (reply: NoticesReply) in
        NoticeFormatter.listLines(reply.notices, now: now())
      }

    case .history(let options, let json):
      let now = now()
      try query(.history, options.parameters(now: now), json: json) { (reply: NoticesReply) in
        NoticeFormatter.historyLines(reply.notices, now: now)
      }

    case .get(let id, let json):
      try query(.get, IDParameters(id: id), json: json) { (reply: NoticeReply) in
        NoticeFormatter.detailLines(reply.notice, now: now())
      }

    case .wait(let id):
      return try waitForNotice(id, on: connect()).rawValue

    case .watch(let options):
      return try watch(options)

    case .run(let options):
      return run(options)

    case .call(let options):
      try call(options)

    case .version:
      console.print("notifyctl \(Interface.version)")

    case .help(let name):
      console.print(name.flatMap(Verb.named).map(HelpText.usage(of:)) ?? HelpText.overview())
    }
    return ExitStatus.success.rawValue
  }

  // MARK: - Commands

  /// Waits for notice `id` to finish, prints the key of the action that was invoked, if any, and
  /// returns the status its outcome maps to.
  private func waitForNotice(_ id: Int, on client: VarlinkClient) throws -> ExitStatus {
    let notice = try client.call(.wait, IDParameters(id: id), returning: NoticeReply.self).notice
    if let text = notice.replied {
      console.print(TextFormat.sanitized(text))
    } else if let action = notice.invoked {
      console.print(TextFormat.sanitized(action))
    }
    return ExitStatus(outcome: notice.outcome)
  }

  /// Dismisses the target and prints the ids dismissed; with several ids, goes on past an id that
  /// fails, and fails at the end.
  private func dismiss(_ target: DismissTarget) throws -> ExitStatus {
    let client = try connect()
    let requests: [DismissParameters]
    switch target {
    case .all: requests = [DismissParameters(all: true)]
    case .ids(let ids): requests = ids.map { DismissParameters(id: $0) }
    case .newest:
      guard let id = try newestVisible(on: client)?.id else { return .failure }
      requests = [DismissParameters(id: id)]
    case .app(let pattern):
      // Every unfinished notice of the apps it matches: those still queued would show next.
      let notices = try client.call(.list, ListParameters(), returning: NoticesReply.self).notices
      requests = notices.filter { fnmatch(pattern, $0.app ?? "", 0) == 0 }.map {
        DismissParameters(id: $0.id)
      }
    }
    var status = ExitStatus.success
    for request in requests {
      do {
        let reply = try client.call(.dismiss, request, returning: DismissReply.self)
        reply.dismissed.forEach { console.print("\($0)") }
      } catch let error as VarlinkError {
        console.printError("notifyctl: \(error)")
        status = .failure
      }
    }
    return status
  }

  /// Cancels the target and prints the ids cancelled; with several ids, goes on past an id that
  /// fails, and fails at the end.
  private func cancel(_ target: CancelTarget, now: Bool) throws -> ExitStatus {
    let client = try connect()
    let flag: Bool? = now ? true : nil
    switch target {
    case .tag(let tag):
      let reply = try client.call(.cancel, CancelParameters(tag: tag, now: flag), returning: CancelReply.self)
      reply.cancelled.forEach { console.print("\($0)") }
    case .all:
      let reply = try client.call(
        .cancel, CancelParameters(all: true, now: flag), returning: CancelReply.self)
      reply.cancelled.forEach { console.print("\($0)") }
    case .ids(let ids):
      var status = ExitStatus.success
      for id in ids {
        do {
          let reply = try client.call(
            .cancel, CancelParameters(id: id, now: flag), returning: CancelReply.self)
          reply.cancelled.forEach { console.print("\($0)") }
        } catch let error as VarlinkError {
          console.printError("notifyctl: \(error)")
          status = .failure
        }
      }
      return status
    }
    return .success
  }

  /// Follows `Watch`: on a terminal, the live view until the user quits; otherwise until the
  /// daemon closes the stream, printing lines, JSON, or a status-bar object per change.
  private func watch(_ options: WatchOptions) throws -> Int32 {
    if options.format == .auto, console.isTerminal, environment("TERM") != "dumb" {
      return try TerminalWatch(socketPath: socketPath, options: options, environment: environment, now: now)
        .run()
    }
    let client = try connect()
    let parameters = WatchParameters(frames: options.frames ? true : nil, fps: options.fps)
    try client.send(Interface.Method.watch.qualifiedName, parameters, more: true)
    var tracker = NoticeTracker()
    var shownWaybar: WaybarStatus?
    var shownI3bar: I3barStatus?
    let palette = WatchPalette.detect(environment: environment)
    if options.format == .i3bar {
      console.print(I3barStatus.header)
      console.print(I3barStatus.opening)
    }
    while true {
      let reply: (reply: JSONValue, continues: Bool)
      do {
        reply = try client.receive(JSONValue.self)
      } catch ClientError.connectionClosed {
        switch options.format {
        case .waybar: console.print(JSONText.encode(WaybarStatus.disconnected, pretty: false))
        case .i3bar: console.print(I3barStatus.disconnected.line(first: shownI3bar == nil))
        default: break
        }
        return ExitStatus.success.rawValue
      }
      let eventValue = reply.reply["event"] ?? .null
      if options.format == .json {
        console.print(JSONText.encode(eventValue, pretty: false))
      } else {
        let event: Event
        do {
          event = try eventValue.decode(Event.self)
        } catch {
          throw ClientError.malformedReply(path: socketPath, reason: "\(error)")
        }
        let id = event.id ?? event.notice?.id
        let before = id.flatMap { tracker[$0] }
        tracker.apply(event)
        switch options.format {
        case .auto, .lines:
          // After the event where it still exists, so that a phase event without an opacity
          // prints the one it implies; before it for a notice the event removed.
          let known = id.flatMap { tracker[$0] } ?? before
          NoticeFormatter.eventLines(event, known: known).forEach(console.print)
        case .waybar:
          let status = WaybarStatus(tracker)
          if status != shownWaybar {
            console.print(JSONText.encode(status, pretty: false))
            shownWaybar = status
          }
        case .i3bar:
          let status = I3barStatus(tracker, palette: palette)
          if status != shownI3bar {
            console.print(status.line(first: shownI3bar == nil))
            shownI3bar = status
          }
        case .json:
          break
        }
      }
      if !reply.continues { return ExitStatus.success.rawValue }
    }
  }

  /// Runs a command under a progress indicator and returns the command's own status.
  private func run(_ options: RunOptions) -> Int32 {
    let commandLine = options.command.map(Self.shellQuoted).joined(separator: " ")
    // The daemon restarts the timeout on every Update, so the default one only runs out when
    // notifyctl is gone without ending the indicator (killed by SIGKILL, say).
    let parameters = ProgressParameters(
      title: options.title ?? Self.truncated(commandLine, to: 200), timeout: options.timeout)
    let indicator = RunIndicator.start(socketPath: socketPath, parameters: parameters, console: console)

    let clock = ContinuousClock()
    let start = clock.now
    let child: ChildProcess
    do {
      child = try ChildProcess(arguments: options.command)
    } catch {
      console.printError("notifyctl: \(error)")
      indicator?.end(message: "could not start: \(String(cString: strerror(error.errno)))")
      return error.exitStatus
    }
    let termination = child.waitForExit(tickEvery: .seconds(1)) { elapsed in
      indicator?.update(body: "running for \(TextFormat.elapsed(Self.seconds(elapsed)))")
    }
    let elapsed = Self.seconds(clock.now - start)
    // Interrupted: killed by the SIGINT, or ended by it some other way than success (a shell
    // script exits 130, many programs 1), as Ctrl-C does to most commands.
    if termination == .killed(signal: SIGINT) || (child.wasInterrupted && termination != .exited(0)) {
      indicator?.update(body: "cancelled after \(TextFormat.elapsed(elapsed))")
      indicator?.cancel()
    } else {
      indicator?.end(message: termination.summary(after: elapsed))
    }
    return termination.exitStatus
  }

  /// Makes a raw call and prints the parameters of every reply.
  private func call(_ options: CallOptions) throws {
    let client = try connect()
    try client.send(options.method, options.parameters, more: options.more)
    while true {
      let reply: (reply: JSONValue, continues: Bool)
      do {
        reply = try client.receive(JSONValue.self)
      } catch ClientError.connectionClosed where options.more {
        return
      }
      console.print(JSONText.encode(reply.reply, pretty: true))
      if !reply.continues { return }
    }
  }

  // MARK: - Helpers

  /// The newest notice on screen, by when it was shown: fading in or holding (one fading out is
  /// going); `nil`, said on standard error, when none is.
  private func newestVisible(on client: VarlinkClient) throws -> Notice? {
    let notices = try client.call(.list, ListParameters(), returning: NoticesReply.self).notices
    let visible = notices.filter { $0.phase == .fadingIn || $0.phase == .holding }
    guard let newest = visible.max(by: { ($0.shown ?? 0, $0.id) < ($1.shown ?? 0, $1.id) }) else {
      console.printError("notifyctl: no notice is visible")
      return nil
    }
    return newest
  }

  /// `menu`: the notice's actions to the picker, then "Remind me …" for each of `[Display] Snooze=`'s
  /// choices; the chosen action invoked, or the notice snoozed. Exits 9 when nothing was chosen, 1
  /// when there is nothing to offer or no picker can be found or started.
  private func menu(_ id: Int?, picker: String?) throws -> ExitStatus {
    let client = try connect()
    let chosen = try id.map {
      try client.call(.get, IDParameters(id: $0), returning: NoticeReply.self).notice
    }
    guard let notice = try chosen ?? newestVisible(on: client) else { return .failure }
    let id = notice.id
    let actions = notice.actions ?? []
    let display = ConfigLocation.configuredValues(inSection: "Display", environment: environment)
    let snoozes = ActionPicker.snoozeChoices(display["Snooze"])
    guard !actions.isEmpty || !snoozes.isEmpty else {
      console.printError("notifyctl: notice \(id) has no actions")
      return .failure
    }
    let command = picker ?? display["Picker"].flatMap { $0.isEmpty ? nil : $0 }
    let found = command.map(ActionPicker.init) ?? ActionPicker.firstFound(environment: environment)
    guard let chosenPicker = found else {
      console.printError("notifyctl: no picker found: install fuzzel, wofi, rofi or dmenu, or give --picker")
      return .failure
    }
    let answer: String?
    do {
      answer = try chosenPicker.choose(
        from: ActionPicker.lines(for: actions) + snoozes.map(ActionPicker.snoozeLine))
    } catch {
      console.printError("notifyctl: \(error)")
      return .failure
    }
    if let answer, let time = snoozes.first(where: { ActionPicker.snoozeLine($0) == answer }) {
      let snoozed = try client.call(.snooze, time.request(for: id, now: now()), returning: NoticeReply.self)
      console.print(NoticeFormatter.snoozedLine(snoozed.notice, now: now()))
      return .success
    }
    guard let answer, let key = ActionPicker.chosenKey(answer, of: actions) else { return .nothingChosen }
    _ = try client.call(.invoke, InvokeParameters(id: id, action: key), returning: NoticeReply.self)
    console.print(TextFormat.sanitized(key))
    return .success
  }

  private func connect() throws(ClientError) -> VarlinkClient {
    try VarlinkClient(path: socketPath)
  }

  /// Calls `method` and prints the reply: its JSON with `json`, else the lines `format` makes of it.
  private func query<Reply: Decodable>(
    _ method: Interface.Method, _ parameters: some Encodable, json: Bool, format: (Reply) -> [String]
  ) throws {
    let client = try connect()
    if json {
      console.print(
        JSONText.encode(try client.call(method, parameters, returning: JSONValue.self), pretty: true))
    } else {
      format(try client.call(method, parameters, returning: Reply.self)).forEach(console.print)
    }
  }

  private static func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }

  /// An argument as a shell would need it typed: bare when it is plain, else in single quotes.
  static func shellQuoted(_ argument: String) -> String {
    let plain =
      !argument.isEmpty
      && argument.unicodeScalars.allSatisfy { scalar in
        scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
          || "-_./=:,+@%".unicodeScalars.contains(scalar)
      }
    return plain ? argument : "'" + argument.replacing("'", with: "'\\''") + "'"
  }

  private static func truncated(_ text: String, to length: Int) -> String {
    text.count <= length ? text : String(text.prefix(length - 1)) + "…"
  }
}
