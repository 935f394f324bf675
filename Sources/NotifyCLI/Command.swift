import NotifyProtocol

/// A parsed command line: where the daemon is, and what to ask of it.
public struct Invocation: Sendable, Equatable {
  /// The socket path given with `--socket`, if any; see `SocketPath.resolve`.
  public var socketPath: String?
  /// What to do.
  public var command: Command

  public init(socketPath: String? = nil, command: Command) {
    self.socketPath = socketPath
    self.command = command
  }
}

/// One thing `notifyctl` can do, with every argument read and checked.
///
/// Where a verb maps onto one method, its case carries that method's parameters, ready to send.
public enum Command: Sendable, Equatable {
  /// `show`: queues a notice and prints its id, or with `wait` waits for it to finish.
  case show(ShowParameters, wait: Bool)
  /// `progress`: starts (or, by key, finds) a progress indicator and prints its id.
  case progress(ProgressParameters)
  /// `update`: changes a notice's text or value.
  case update(UpdateParameters)
  /// `end`: finishes a notice normally, with an optional closing message.
  case end(EndParameters)
  /// `cancel`: cancels notices by id, by tag or all of them.
  case cancel(CancelTarget, now: Bool)
  /// `invoke`: chooses one of a notice's actions.
  case invoke(InvokeParameters)
  /// `suspend`: holds back new notices, for a while or until `resume`.
  case suspend(SuspendParameters)
  /// `resume`: lets held notices through again.
  case resume
  /// `reload`: makes the daemon re-read its config.
  case reload
  /// `status`: the queue's state and counts.
  case status(json: Bool)
  /// `list`: the unfinished notices.
  case list(json: Bool)
  /// `history`: finished notices, newest first.
  case history(HistoryOptions, json: Bool)
  /// `get`: one notice.
  case get(id: Int, json: Bool)
  /// `wait`: waits for a notice to finish and exits by its outcome.
  case wait(id: Int)
  /// `watch`: follows the queue's events.
  case watch(WatchOptions)
  /// `run`: runs a command under a progress indicator.
  case run(RunOptions)
  /// `call`: a raw Varlink call.
  case call(CallOptions)
  /// `--version`.
  case version
  /// `--help` or `help VERB`: usage, of everything or of one verb.
  case help(verb: String?)
}

/// Which notices `cancel` names: exactly one of these.
public enum CancelTarget: Sendable, Equatable {
  case ids([Int])
  case tag(String)
  case all
}

/// A point in time given as a distance into the past or as seconds since the Unix epoch.
public enum TimeReference: Sendable, Equatable {
  /// So many seconds before now.
  case ago(Double)
  /// Seconds since the Unix epoch.
  case epoch(Double)

  /// The point in seconds since the epoch, with `now` as the reference for `ago`.
  public func seconds(now: Double) -> Double {
    switch self {
    case .ago(let seconds): return now - seconds
    case .epoch(let seconds): return seconds
    }
  }
}

/// The options of `history`.
public struct HistoryOptions: Sendable, Equatable {
  public var limit: Int?
  public var app: String?
  public var outcome: Outcome?
  public var since: TimeReference?

  public init(limit: Int? = nil, app: String? = nil, outcome: Outcome? = nil, since: TimeReference? = nil) {
    self.limit = limit
    self.app = app
    self.outcome = outcome
    self.since = since
  }

  /// The parameters of `History`, with `since` resolved against `now`.
  public func parameters(now: Double) -> HistoryParameters {
    HistoryParameters(limit: limit, app: app, outcome: outcome, since: since?.seconds(now: now))
  }
}

/// The options of `watch`.
public struct WatchOptions: Sendable, Equatable {
  /// How `watch` prints what it sees.
  public enum Format: String, Sendable, Equatable, CaseIterable {
    /// One readable line per event.
    case lines
    /// One `Event` as JSON per line.
    case json
    /// One Waybar custom-module object per change.
    case waybar
  }

  public var format: Format
  public var frames: Bool
  public var fps: Int?

  public init(format: Format = .lines, frames: Bool = false, fps: Int? = nil) {
    self.format = format
    self.frames = frames
    self.fps = fps
  }
}

/// The options of `run`.
public struct RunOptions: Sendable, Equatable {
  /// The indicator's title; the command line when `nil`.
  public var title: String?
  /// The indicator's timeout; `nil` means none, as the indicator lasts as long as the command.
  public var timeout: Double?
  /// The command and its arguments; never empty.
  public var command: [String]

  public init(title: String? = nil, timeout: Double? = nil, command: [String]) {
    self.title = title
    self.timeout = timeout
    self.command = command
  }
}

/// The options of `call`.
public struct CallOptions: Sendable, Equatable {
  /// The fully qualified method name.
  public var method: String
  /// The parameters, a JSON object.
  public var parameters: JSONValue
  /// Whether to ask for, and print, several replies.
  public var more: Bool

  public init(method: String, parameters: JSONValue = .object([:]), more: Bool = false) {
    self.method = method
    self.parameters = parameters
    self.more = more
  }

  /// The fully qualified name of `method`: a name without a dot is a method of `io.notifyd.Queue`.
  public static func qualifiedName(_ method: String) -> String {
    method.contains(".") ? method : "\(Interface.name).\(method)"
  }
}
