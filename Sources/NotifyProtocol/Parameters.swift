import FoundationEssentials

// The parameters and replies of each method of io.notifyd.Queue. Optional fields left out take the
// daemon's configured defaults.

/// The parameters of `Show`.
public struct ShowParameters: Codable, Sendable, Equatable {
  public var title: String
  public var body: String?
  public var app: String?
  public var urgency: Urgency?
  public var style: Style?
  /// An image file (PNG, an absolute path) the popups draw beside the text.
  public var icon: String?
  /// Freedesktop hints: category, desktop entry, transient, resident, sound.
  public var hints: Hints?
  public var tag: String?
  public var key: String?
  public var delay: Double?
  public var fadeIn: Double?
  public var hold: Double?
  public var fadeOut: Double?
  public var easeIn: Easing?
  public var easeOut: Easing?
  public var after: Int?
  public var actions: [Action]?

  public init(
    title: String, body: String? = nil, app: String? = nil, urgency: Urgency? = nil,
    style: Style? = nil, icon: String? = nil, hints: Hints? = nil, tag: String? = nil, key: String? = nil,
    delay: Double? = nil, fadeIn: Double? = nil, hold: Double? = nil, fadeOut: Double? = nil,
    easeIn: Easing? = nil,
    easeOut: Easing? = nil, after: Int? = nil, actions: [Action]? = nil
  ) {
    self.title = title
    self.body = body
    self.app = app
    self.urgency = urgency
    self.style = style
    self.icon = icon
    self.hints = hints
    self.tag = tag
    self.key = key
    self.delay = delay
    self.fadeIn = fadeIn
    self.hold = hold
    self.fadeOut = fadeOut
    self.easeIn = easeIn
    self.easeOut = easeOut
    self.after = after
    self.actions = actions
  }
}

/// The parameters of `Progress`.
public struct ProgressParameters: Codable, Sendable, Equatable {
  public var title: String
  public var body: String?
  public var app: String?
  public var urgency: Urgency?
  public var style: Style?
  /// An image file (PNG, an absolute path) the popups draw beside the text.
  public var icon: String?
  /// Freedesktop hints: category, desktop entry, transient, resident, sound.
  public var hints: Hints?
  public var tag: String?
  public var key: String?
  public var value: Int?
  public var timeout: Double?
  public var delay: Double?
  public var fadeIn: Double?
  public var fadeOut: Double?

  public init(
    title: String, body: String? = nil, app: String? = nil, urgency: Urgency? = nil,
    style: Style? = nil, icon: String? = nil, hints: Hints? = nil, tag: String? = nil, key: String? = nil,
    value: Int? = nil,
    timeout: Double? = nil, delay: Double? = nil, fadeIn: Double? = nil, fadeOut: Double? = nil
  ) {
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
    self.timeout = timeout
    self.delay = delay
    self.fadeIn = fadeIn
    self.fadeOut = fadeOut
  }
}

/// The parameters of `Update`.
public struct UpdateParameters: Codable, Sendable, Equatable {
  public var id: Int
  public var title: String?
  public var body: String?
  public var value: Int?

  public init(id: Int, title: String? = nil, body: String? = nil, value: Int? = nil) {
    self.id = id
    self.title = title
    self.body = body
    self.value = value
  }
}

/// The parameters of `End`.
public struct EndParameters: Codable, Sendable, Equatable {
  public var id: Int
  public var message: String?
  public var hold: Double?

  public init(id: Int, message: String? = nil, hold: Double? = nil) {
    self.id = id
    self.message = message
    self.hold = hold
  }
}

/// The parameters of `Cancel`: exactly one of `id`, `tag` and `all`.
public struct CancelParameters: Codable, Sendable, Equatable {
  public var id: Int?
  public var tag: String?
  public var all: Bool?
  public var now: Bool?

  public init(id: Int? = nil, tag: String? = nil, all: Bool? = nil, now: Bool? = nil) {
    self.id = id
    self.tag = tag
    self.all = all
    self.now = now
  }
}

/// The parameters of `Dismiss`: exactly one of `id` and `all` (every visible notice).
public struct DismissParameters: Codable, Sendable, Equatable {
  public var id: Int?
  public var all: Bool?

  public init(id: Int? = nil, all: Bool? = nil) {
    self.id = id
    self.all = all
  }
}

/// The parameters of `Invoke`.
public struct InvokeParameters: Codable, Sendable, Equatable {
  public var id: Int
  public var action: String
  /// An xdg-activation token for the program the action starts (a click on a Wayland popup gets
  /// one): the `invoked` event carries it, and D-Bus sends it as `ActivationToken`.
  public var activationToken: String?

  public init(id: Int, action: String, activationToken: String? = nil) {
    self.id = id
    self.action = action
    self.activationToken = activationToken
  }
}

/// The parameters of `Suspend`.
public struct SuspendParameters: Codable, Sendable, Equatable {
  public var duration: Double?
  /// What still passes; nil takes `[DoNotDisturb] Allow=`.
  public var allow: DoNotDisturbAllow?

  public init(duration: Double? = nil, allow: DoNotDisturbAllow? = nil) {
    self.duration = duration
    self.allow = allow
  }
}

/// The parameters of `List`.
public struct ListParameters: Codable, Sendable, Equatable {
  /// Only the notices do-not-disturb holds back now.
  public var held: Bool?

  public init(held: Bool? = nil) { self.held = held }
}

/// The parameters of `Get` and `Wait`.
public struct IDParameters: Codable, Sendable, Equatable {
  public var id: Int

  public init(id: Int) { self.id = id }
}

/// The parameters of `History`.
public struct HistoryParameters: Codable, Sendable, Equatable {
  public var limit: Int?
  public var app: String?
  public var outcome: Outcome?
  public var since: Double?
  /// Only the notices folded into this summary notice.
  public var foldedInto: Int?

  public init(
    limit: Int? = nil, app: String? = nil, outcome: Outcome? = nil, since: Double? = nil,
    foldedInto: Int? = nil
  ) {
    self.limit = limit
    self.app = app
    self.outcome = outcome
    self.since = since
    self.foldedInto = foldedInto
  }
}

/// The parameters of `Watch`.
public struct WatchParameters: Codable, Sendable, Equatable {
  public var frames: Bool?
  public var fps: Int?

  public init(frames: Bool? = nil, fps: Int? = nil) {
    self.frames = frames
    self.fps = fps
  }
}

/// Parameters for methods that take none.
public struct NoParameters: Codable, Sendable, Equatable {
  public init() {}
}

/// The reply of `Show`.
public struct ShowReply: Codable, Sendable, Equatable {
  public var id: Int
  public init(id: Int) { self.id = id }
}

/// The reply of `Progress`.
public struct ProgressReply: Codable, Sendable, Equatable {
  public var id: Int
  public var existing: Bool
  public init(id: Int, existing: Bool) {
    self.id = id
    self.existing = existing
  }
}

/// The reply of `Update`, `End`, `Invoke`, `Get` and `Wait`.
public struct NoticeReply: Codable, Sendable, Equatable {
  public var notice: Notice
  public init(notice: Notice) { self.notice = notice }
}

/// The reply of `List` and `History`.
public struct NoticesReply: Codable, Sendable, Equatable {
  public var notices: [Notice]
  public init(notices: [Notice]) { self.notices = notices }
}

/// The reply of `Cancel`.
public struct CancelReply: Codable, Sendable, Equatable {
  public var cancelled: [Int]
  public init(cancelled: [Int]) { self.cancelled = cancelled }
}

/// The reply of `Dismiss`.
public struct DismissReply: Codable, Sendable, Equatable {
  public var dismissed: [Int]
  public init(dismissed: [Int]) { self.dismissed = dismissed }
}

/// The reply of `Suspend` and `Resume`.
public struct SuspendReply: Codable, Sendable, Equatable {
  public var suspended: Bool
  public init(suspended: Bool) { self.suspended = suspended }
}

/// The reply of `Status`.
public struct StatusReply: Codable, Sendable, Equatable {
  public var version: String
  public var suspended: Bool
  public var suspendedUntil: Double?
  /// While suspended: why, what still passes, and until when.
  public var doNotDisturb: DoNotDisturb?
  /// After a resume by hand inside quiet hours: the end of those hours, when they stop counting.
  public var resumedUntil: Double?
  /// With `[Idle] After=` and a source that tells: whether the person is away, and the source.
  public var idle: IdleState?
  /// Which display backend draws popups, or none and why.
  public var display: DisplayState?
  /// With `[Relay]`: the relay's connection and what waits to be published.
  public var relay: RelayState?
  public var waiting: Int
  public var queued: Int
  public var visible: Int
  public var finished: Int

  public init(
    version: String, suspended: Bool, suspendedUntil: Double?, doNotDisturb: DoNotDisturb? = nil,
    resumedUntil: Double? = nil, idle: IdleState? = nil, display: DisplayState? = nil,
    relay: RelayState? = nil, waiting: Int,
    queued: Int, visible: Int, finished: Int
  ) {
    self.version = version
    self.suspended = suspended
    self.suspendedUntil = suspendedUntil
    self.doNotDisturb = doNotDisturb
    self.resumedUntil = resumedUntil
    self.idle = idle
    self.display = display
    self.relay = relay
    self.waiting = waiting
    self.queued = queued
    self.visible = visible
    self.finished = finished
  }
}

/// One reply of `Watch`.
public struct EventReply: Codable, Sendable, Equatable {
  public var event: Event
  public init(event: Event) { self.event = event }
}

/// The reply of `org.varlink.service.GetInfo`.
public struct ServiceInfo: Codable, Sendable, Equatable {
  public var vendor: String
  public var product: String
  public var version: String
  public var url: String
  public var interfaces: [String]

  public init(vendor: String, product: String, version: String, url: String, interfaces: [String]) {
    self.vendor = vendor
    self.product = product
    self.version = version
    self.url = url
    self.interfaces = interfaces
  }
}

/// The parameters of `org.varlink.service.GetInterfaceDescription`.
public struct InterfaceDescriptionParameters: Codable, Sendable, Equatable {
  public var interface: String
  public init(interface: String) { self.interface = interface }
}

/// The reply of `org.varlink.service.GetInterfaceDescription`.
public struct InterfaceDescriptionReply: Codable, Sendable, Equatable {
  public var description: String
  public init(description: String) { self.description = description }
}
