/// What `Show` and `Progress` both take: the notice's text, where it comes from, how it looks, how
/// it is found again, and the timing both have. Each request adds options of its own (`ShowOptions`,
/// `ProgressOptions`); on the wire the two are one flat object.
public struct NoticeContent: Codable, Sendable, Equatable {
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
  public var fadeOut: Double?

  public init(
    title: String, body: String? = nil, app: String? = nil, urgency: Urgency? = nil, style: Style? = nil,
    icon: String? = nil, hints: Hints? = nil, tag: String? = nil, key: String? = nil, delay: Double? = nil,
    fadeIn: Double? = nil, fadeOut: Double? = nil
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
    self.fadeOut = fadeOut
  }
}

/// A request that adds a notice: the content `Show` and `Progress` share and the options of its
/// own, written and read as one flat object, each member reachable by name (`request.title`,
/// `request.hold`).
@dynamicMemberLookup
public protocol NoticeRequest: Codable {
  associatedtype Options: Codable
  var content: NoticeContent { get set }
  var options: Options { get set }
  init(content: NoticeContent, options: Options)
}

extension NoticeRequest {
  public subscript<T>(dynamicMember path: WritableKeyPath<NoticeContent, T>) -> T {
    get { content[keyPath: path] }
    set { content[keyPath: path] = newValue }
  }

  public subscript<T>(dynamicMember path: WritableKeyPath<Options, T>) -> T {
    get { options[keyPath: path] }
    set { options[keyPath: path] = newValue }
  }

  public func encode(to encoder: any Encoder) throws {
    try content.encode(to: encoder)
    try options.encode(to: encoder)
  }

  public init(from decoder: any Decoder) throws {
    self.init(content: try NoticeContent(from: decoder), options: try Options(from: decoder))
  }
}

/// What only `Show` takes: the hold and the curves, the notice it waits for, its actions.
public struct ShowOptions: Codable, Sendable, Equatable {
  public var hold: Double?
  public var easeIn: Easing?
  public var easeOut: Easing?
  public var after: Int?
  public var actions: [Action]?
}

/// What only `Progress` takes: the value and how long it lives without news.
public struct ProgressOptions: Codable, Sendable, Equatable {
  public var value: Int?
  public var timeout: Double?
}
