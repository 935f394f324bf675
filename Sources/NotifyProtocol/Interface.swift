/// Names and the interface description of the Varlink service, in one place.
public enum Interface {
  /// The interface notifyd implements.
  public static let name = "io.notifyd.Queue"
  /// The Varlink service interface every service answers.
  public static let service = "org.varlink.service"

  /// The version reported by `GetInfo`, `Status` and `--version`.
  public static let version = "0.1.0"

  /// The methods of `io.notifyd.Queue`.
  public enum Method: String, CaseIterable, Sendable {
    case show = "Show"
    case progress = "Progress"
    case update = "Update"
    case end = "End"
    case cancel = "Cancel"
    case invoke = "Invoke"
    case suspend = "Suspend"
    case resume = "Resume"
    case get = "Get"
    case list = "List"
    case history = "History"
    case status = "Status"
    case wait = "Wait"
    case watch = "Watch"
    case reload = "Reload"
    case dismiss = "Dismiss"

    /// The fully qualified name, as sent on the wire.
    public var qualifiedName: String { "\(Interface.name).\(rawValue)" }
  }

  /// Fully qualified names of the errors the service replies with.
  public enum ErrorName {
    public static let noSuchNotice = "io.notifyd.Queue.NoSuchNotice"
    public static let invalidArgument = "io.notifyd.Queue.InvalidArgument"
    public static let queueFull = "io.notifyd.Queue.QueueFull"
    public static let storeFailed = "io.notifyd.Queue.StoreFailed"
    public static let interfaceNotFound = "org.varlink.service.InterfaceNotFound"
    public static let methodNotFound = "org.varlink.service.MethodNotFound"
    public static let methodNotImplemented = "org.varlink.service.MethodNotImplemented"
    public static let invalidParameter = "org.varlink.service.InvalidParameter"
    public static let expectedMore = "org.varlink.service.ExpectedMore"
  }

  /// The description `GetInterfaceDescription` returns for `io.notifyd.Queue`.
  public static let description = """
    # Timed notices on a queue: each waits out its delay, fades in, holds and fades out.
    interface io.notifyd.Queue

    type Urgency (low, normal, critical)
    type Kind (notice, progress)
    type Style (clear, blur)
    type Easing (linear, easeIn, easeOut, easeInOut)
    type Phase (waiting, queued, fadingIn, holding, fadingOut, finished)
    type Outcome (completed, cancelled, timedOut, replaced, dismissed, folded, missed)
    type EventKind (snapshot, added, phase, frame, updated, invoked, finished, suspended, resumed)

    type Action (key: string, label: string)

    # What do-not-disturb still lets through: nothing, or critical notices (and a rule's
    # BypassDoNotDisturb=yes).
    type Allow (none, critical)
    # Why the queue is suspended: by hand until resumed, by hand for a duration, or by the
    # quiet hours of [DoNotDisturb] Schedule=.
    type SuspendReason (hand, duration, schedule)
    type DoNotDisturb (reason: SuspendReason, allow: Allow, until: ?float)
    # With [Idle] After=: whether the person is away (holds stand still), and what says so;
    # without a source, why none.
    type Idle (idle: bool, source: ?string, reason: ?string)
    # The popups' backend (wayland, x11), whether it draws now, and on what or why not; with
    # no backend, why none.
    type Display (backend: ?string, drawing: bool, detail: string)
    # A relayed notice's origin: the host, its store's identity, the id there, when it was sent.
    type Origin (host: string, store: string, id: int, sent: float)
    # With [Relay]: the connection to NATS, in one line, what waits to be published, and the
    # messages dropped as not notices.
    type RelayConnection (connecting, connected, reconnecting, failed)
    type Relay (state: RelayConnection, detail: string, outbox: int, dropped: int)

    # What a desktop client says beyond the text (the freedesktop hints): transient ones are not
    # kept in history, resident ones stay when an action is chosen; a sound plays as it shows.
    type Hints (
      category: ?string, desktopEntry: ?string, transient: ?bool, resident: ?bool,
      soundFile: ?string, soundName: ?string, silent: ?bool
    )

    type Notice (
      id: int, kind: Kind, title: string, body: ?string, app: ?string,
      urgency: Urgency, style: Style, icon: ?string, hints: ?Hints, tag: ?string, key: ?string,
      value: ?int, delay: float, fadeIn: float, hold: float, fadeOut: float,
      easeIn: Easing, easeOut: Easing, timeout: ?float, after: ?int,
      actions: ?[]Action, invoked: ?string, count: ?int, foldedInto: ?int, origin: ?Origin,
      phase: Phase, opacity: float, outcome: ?Outcome, message: ?string,
      created: float, shown: ?float, finished: ?float
    )

    type Event (
      kind: EventKind, at: float, id: ?int, notice: ?Notice, phase: ?Phase,
      opacity: ?float, notices: ?[]Notice, suspended: ?bool, doNotDisturb: ?DoNotDisturb,
      activationToken: ?string
    )

    method Show(
      title: string, body: ?string, app: ?string, urgency: ?Urgency, style: ?Style,
      icon: ?string, hints: ?Hints, tag: ?string, key: ?string, delay: ?float, fadeIn: ?float,
      hold: ?float, fadeOut: ?float, easeIn: ?Easing, easeOut: ?Easing, after: ?int,
      actions: ?[]Action
    ) -> (id: int)

    method Progress(
      title: string, body: ?string, app: ?string, urgency: ?Urgency, style: ?Style,
      icon: ?string, hints: ?Hints, tag: ?string, key: ?string, value: ?int, timeout: ?float,
      delay: ?float, fadeIn: ?float, fadeOut: ?float
    ) -> (id: int, existing: bool)

    method Update(id: int, title: ?string, body: ?string, value: ?int) -> (notice: Notice)
    method End(id: int, message: ?string, hold: ?float) -> (notice: Notice)
    method Cancel(id: ?int, tag: ?string, all: ?bool, now: ?bool) -> (cancelled: []int)
    # Chooses one of a visible notice's actions; the notice then fades out (outcome completed).
    method Invoke(id: int, action: string, activationToken: ?string) -> (notice: Notice)
    # Holds back notices not yet visible but what allow lets through (default
    # [DoNotDisturb] Allow=), until Resume or for duration seconds.
    method Suspend(duration: ?float, allow: ?Allow) -> (suspended: bool)
    # Inside quiet hours, lasts until they end.
    method Resume() -> (suspended: bool)
    method Get(id: int) -> (notice: Notice)
    # Unfinished notices, oldest first; held: only those do-not-disturb holds back.
    method List(held: ?bool) -> (notices: []Notice)
    # Finished notices, newest first; app, outcome, since and foldedInto filter them.
    method History(
      limit: ?int, app: ?string, outcome: ?Outcome, since: ?float, foldedInto: ?int
    ) -> (notices: []Notice)
    method Status() -> (
      version: string, suspended: bool, suspendedUntil: ?float, doNotDisturb: ?DoNotDisturb,
      resumedUntil: ?float, idle: ?Idle, display: ?Display, relay: ?Relay, waiting: int,
      queued: int, visible: int, finished: int
    )
    # Replies once the notice has finished, with its outcome.
    method Wait(id: int) -> (notice: Notice)
    # Needs "more": the first reply is a snapshot, then one reply per event.
    method Watch(frames: ?bool, fps: ?int) -> (event: Event)
    # Re-reads the config; replies once the new config is in force (or the old one kept).
    method Reload() -> ()
    # A person closed it, or every visible notice (all): each finishes at once, outcome dismissed.
    method Dismiss(id: ?int, all: ?bool) -> (dismissed: []int)

    error NoSuchNotice (id: int)
    error InvalidArgument (field: string, reason: string)
    error QueueFull (capacity: int)
    # The store could not commit the change (a full disk, say): it was not acknowledged.
    error StoreFailed (reason: string)

    """

  /// The description of `org.varlink.service`, which every Varlink service implements.
  public static let serviceDescription = """
    # The Varlink Service Interface is provided by every varlink service. It
    # describes the service and the interfaces it implements.
    interface org.varlink.service

    # Get a list of all the interfaces a service provides and information
    # about the implementation.
    method GetInfo() -> (
      vendor: string,
      product: string,
      version: string,
      url: string,
      interfaces: []string
    )

    # Get the description of an interface that is implemented by this service.
    method GetInterfaceDescription(interface: string) -> (description: string)

    # The requested interface was not found.
    error InterfaceNotFound (interface: string)

    # The requested method was not found
    error MethodNotFound (method: string)

    # The interface defines the requested method, but the service does not
    # implement it.
    error MethodNotImplemented (method: string)

    # One of the passed parameters is invalid.
    error InvalidParameter (parameter: string)

    # Client is denied access
    error PermissionDenied ()

    # Method is expected to be called with 'more' set to true, but wasn't
    error ExpectedMore ()

    """
}
