import FoundationEssentials

// The types of interface io.notifyd.Queue, spelled as in the IDL (`Interface.description`).

/// How urgent a notice is; critical notices hold until ended and jump the queue.
public enum Urgency: String, Codable, Sendable, CaseIterable, Comparable {
  case low, normal, critical

  public static func < (lhs: Urgency, rhs: Urgency) -> Bool {
    allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
  }
}

/// A toast that holds for a while, or a progress indicator that holds until ended.
public enum Kind: String, Codable, Sendable, CaseIterable {
  case notice, progress
}

/// How a renderer draws the notice's background.
public enum Style: String, Codable, Sendable, CaseIterable {
  case clear, blur
}

/// The curve that maps a fade's linear progress to its eased progress.
public enum Easing: String, Codable, Sendable, CaseIterable {
  case linear, easeIn, easeOut, easeInOut
}

/// Where a notice is in its life.
public enum Phase: String, Codable, Sendable, CaseIterable {
  case waiting, queued, fadingIn, holding, fadingOut, finished

  /// Whether a notice in this phase is on screen.
  public var isVisible: Bool {
    self == .fadingIn || self == .holding || self == .fadingOut
  }

  /// Whether a notice in this phase changes its opacity from frame to frame.
  public var isFading: Bool { self == .fadingIn || self == .fadingOut }
}

/// How a notice ended.
public enum Outcome: String, Codable, Sendable, CaseIterable {
  case completed, cancelled, timedOut, replaced, dismissed
  /// Not shown by itself: folded into a summary notice (`foldedInto`), by flood control or by the
  /// summary of what do-not-disturb held back.
  case folded
  /// A relayed notice older than `[Relay] MaxAge=` when it arrived: kept in history, never shown.
  case missed
}

/// What do-not-disturb still lets through (`Suspend(allow)`, `[DoNotDisturb] Allow=`): nothing, or
/// critical notices (and those of a rule with `BypassDoNotDisturb=yes`).
public enum DoNotDisturbAllow: String, Codable, Sendable, CaseIterable {
  case nothing = "none"
  case critical
}

/// Why the queue is suspended: by hand until resumed, by hand for a duration, or by the quiet
/// hours of `[DoNotDisturb] Schedule=`.
public enum SuspendReason: String, Codable, Sendable, CaseIterable {
  case hand, duration, schedule
}

/// Do-not-disturb in force: why, what still passes, and until when (seconds since the epoch;
/// `nil` until resumed).
public struct DoNotDisturb: Codable, Sendable, Equatable {
  public var reason: SuspendReason
  public var allow: DoNotDisturbAllow
  public var until: Double?

  public init(reason: SuspendReason, allow: DoNotDisturbAllow, until: Double? = nil) {
    self.reason = reason
    self.allow = allow
    self.until = until
  }
}

/// Whether the person is away from the screen (`[Idle] After=`), and what says so: the Wayland
/// compositor's `ext-idle-notify-v1` or `org_kde_kwin_idle`, X11's screensaver extension, or
/// logind's `IdleHint`; or nothing can, and why. While idle, shown notices' holds stand still.
public struct IdleState: Codable, Sendable, Equatable {
  public var idle: Bool
  /// What tells; `nil` when nothing can.
  public var source: String?
  /// Why nothing can tell, when `source` is `nil`.
  public var reason: String?

  public init(idle: Bool, source: String) {
    self.idle = idle
    self.source = source
  }

  /// No source can tell, for `reason`: the person counts as present.
  public init(noSourceBecause reason: String) {
    idle = false
    self.reason = reason
  }
}

/// Which display backend draws popups (`wayland`, `x11`) and on what; a backend not connected now
/// and why; or no backend, and why none.
public struct DisplayState: Codable, Sendable, Equatable {
  public var backend: String?
  /// Whether the backend is connected and draws.
  public var drawing: Bool
  /// What it draws on ("Wayland (HEADLESS-1)"), or why it does not.
  public var detail: String

  public init(backend: String?, drawing: Bool, detail: String) {
    self.backend = backend
    self.drawing = drawing
    self.detail = detail
  }
}

/// Where a relayed notice came from (DESIGN §10): the host that accepted it, that host's store
/// identity, its id there, and when that host accepted it (seconds since the epoch).
public struct NoticeOrigin: Codable, Sendable, Equatable, Hashable {
  public var host: String
  public var store: String
  public var id: Int
  public var sent: Double

  public init(host: String, store: String, id: Int, sent: Double) {
    self.host = host
    self.store = store
    self.id = id
    self.sent = sent
  }

  /// Its origin store, `host/store`: what a desk keeps a mark of what came under (`RelayMark`), and
  /// the front of the message id.
  public var markKey: String { "\(host)/\(store)" }
}

/// The relay's connection to NATS, as `Status` reports it.
public enum RelayConnection: String, Codable, Sendable, CaseIterable {
  case connecting, connected, reconnecting, failed
}

/// The relay (`[Relay]`, DESIGN §10): its connection, what is wrong or where it is connected in one
/// line, the notices waiting to be published, and the messages dropped as not notices.
public struct RelayState: Codable, Sendable, Equatable {
  public var state: RelayConnection
  public var detail: String
  public var outbox: Int
  public var dropped: Int

  public init(state: RelayConnection, detail: String, outbox: Int = 0, dropped: Int = 0) {
    self.state = state
    self.detail = detail
    self.outbox = outbox
    self.dropped = dropped
  }
}

/// What a `Watch` event reports.
public enum EventKind: String, Codable, Sendable, CaseIterable {
  case snapshot, added, phase, frame, updated, invoked, finished, suspended, resumed
}

/// A button on a notice: `key` is what `Invoke` names, `label` what a person reads.
public struct Action: Codable, Sendable, Equatable {
  public var key: String
  public var label: String

  public init(key: String, label: String) {
    self.key = key
    self.label = label
  }
}

/// A notice as the daemon reports it: what was asked for, with every default resolved, and where it is now.
public struct Notice: Codable, Sendable, Equatable {
  public var id: Int
  public var kind: Kind
  public var title: String
  public var body: String?
  public var app: String?
  public var urgency: Urgency
  public var style: Style
  /// An image file (PNG, an absolute path) the popups draw beside the text.
  public var icon: String?
  /// What a desktop client said about it beyond the text (freedesktop hints); nil when nothing.
  public var hints: Hints?
  public var tag: String?
  public var key: String?
  public var value: Int?
  public var delay: Double
  public var fadeIn: Double
  public var hold: Double
  public var fadeOut: Double
  public var easeIn: Easing
  public var easeOut: Easing
  public var timeout: Double?
  public var after: Int?
  public var actions: [Action]?
  public var invoked: String?
  /// How many equal notices (app, title, body) were merged into this visible one; nil for one.
  public var count: Int?
  /// For a folded notice: the summary notice it was folded into.
  public var foldedInto: Int?
  /// For a relayed notice: the host it came from and its id there.
  public var origin: NoticeOrigin?
  public var phase: Phase
  public var opacity: Double
  public var outcome: Outcome?
  public var message: String?
  public var created: Double
  public var shown: Double?
  public var finished: Double?

  public init(
    id: Int, kind: Kind, title: String, body: String? = nil, app: String? = nil,
    urgency: Urgency = .normal, style: Style = .clear, icon: String? = nil, hints: Hints? = nil,
    tag: String? = nil, key: String? = nil, value: Int? = nil, delay: Double = 0, fadeIn: Double = 1,
    hold: Double = 5,
    fadeOut: Double = 1,
    easeIn: Easing = .easeOut, easeOut: Easing = .easeIn, timeout: Double? = nil, after: Int? = nil,
    actions: [Action]? = nil, invoked: String? = nil, count: Int? = nil, foldedInto: Int? = nil,
    origin: NoticeOrigin? = nil, phase: Phase = .waiting, opacity: Double = 0,
    outcome: Outcome? = nil, message: String? = nil, created: Double = 0, shown: Double? = nil,
    finished: Double? = nil
  ) {
    self.id = id
    self.kind = kind
    self.title = title
    self.body = body
    self.app = app
    self.urgency = urgency
    self.style = style
    self.icon = icon
    self.hints = hints
    self.tag = tag
    self.key = key
    self.value = value
    self.delay = delay
    self.fadeIn = fadeIn
    self.hold = hold
    self.fadeOut = fadeOut
    self.easeIn = easeIn
    self.easeOut = easeOut
    self.timeout = timeout
    self.after = after
    self.actions = actions
    self.invoked = invoked
    self.count = count
    self.foldedInto = foldedInto
    self.origin = origin
    self.phase = phase
    self.opacity = opacity
    self.outcome = outcome
    self.message = message
    self.created = created
    self.shown = shown
    self.finished = finished
  }
}

extension Notice {
  /// The title as a person reads it: with `×3` when equal notices were merged into it.
  public var displayTitle: String {
    guard let count, count > 1 else { return title }
    return "\(title) ×\(count)"
  }
}

/// What a desktop client can say about a notice beyond its text, from the freedesktop hints; a
/// Varlink client may say the same in `Show` and `Progress`.
public struct Hints: Codable, Sendable, Equatable {
  /// The kind of event, as the specification names them (`email.arrived`, `device.added`).
  public var category: String?
  /// The desktop file of the program that sent it, without `.desktop`: rules can match it.
  public var desktopEntry: String?
  /// Not kept in history once finished (it still waits, shows and fades as any other).
  public var transient: Bool?
  /// Choosing an action does not close it.
  public var resident: Bool?
  /// A sound to play as it shows: a file, or a name from the sound theme.
  public var soundFile: String?
  public var soundName: String?
  /// No sound for it at all, not even `[Sound] Default=`.
  public var silent: Bool?

  public init(
    category: String? = nil, desktopEntry: String? = nil, transient: Bool? = nil, resident: Bool? = nil,
    soundFile: String? = nil, soundName: String? = nil, silent: Bool? = nil
  ) {
    self.category = category
    self.desktopEntry = desktopEntry
    self.transient = transient
    self.resident = resident
    self.soundFile = soundFile
    self.soundName = soundName
    self.silent = silent
  }

  /// Whether it says nothing: such hints are left out (`nil`).
  public var isEmpty: Bool { self == Hints() }

  /// `hints`, or nil when it says nothing.
  public static func nonEmpty(_ hints: Hints?) -> Hints? {
    guard let hints, !hints.isEmpty else { return nil }
    return hints
  }

  public var isTransient: Bool { transient ?? false }
  public var isResident: Bool { resident ?? false }
  public var isSilent: Bool { silent ?? false }
}

/// One thing that happened on the queue, as `Watch` streams it.
public struct Event: Codable, Sendable, Equatable {
  public var kind: EventKind
  public var at: Double
  public var id: Int?
  public var notice: Notice?
  public var phase: Phase?
  public var opacity: Double?
  public var notices: [Notice]?
  public var suspended: Bool?
  /// For `snapshot` and `suspended`: the do-not-disturb in force (why, what passes, until when).
  public var doNotDisturb: DoNotDisturb?
  /// For `invoked`: the xdg-activation token the click that chose the action got, if any.
  public var activationToken: String?

  public init(
    kind: EventKind, at: Double, id: Int? = nil, notice: Notice? = nil, phase: Phase? = nil,
    opacity: Double? = nil, notices: [Notice]? = nil, suspended: Bool? = nil,
    doNotDisturb: DoNotDisturb? = nil, activationToken: String? = nil
  ) {
    self.kind = kind
    self.at = at
    self.id = id
    self.notice = notice
    self.phase = phase
    self.opacity = opacity
    self.notices = notices
    self.suspended = suspended
    self.doNotDisturb = doNotDisturb
    self.activationToken = activationToken
  }
}
