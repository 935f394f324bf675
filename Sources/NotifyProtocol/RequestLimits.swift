/// A field of a request that is not acceptable, and why (`Show`'s `InvalidArgument` error).
public struct InvalidField: Error, Sendable, Equatable, CustomStringConvertible {
  public var field: String
  public var reason: String

  public init(field: String, reason: String) {
    self.field = field
    self.reason = reason
  }

  public var description: String { "\(field): \(reason)" }
}

/// The limits a `Show` or `Progress` request must respect: the same wherever it is checked, by the
/// daemon that takes it or by `notifyctl --relay` before it publishes one.
public enum RequestLimits {
  /// The most bytes of UTF-8 in an app name, tag, key, action key or action label.
  public static let maximumNameLength = 256
  /// The most actions a notice carries.
  public static let maximumActions = 8
  /// The most bytes in a file's path, an icon's or a sound's (`PATH_MAX`).
  public static let maximumIconPathLength = 4096

  /// The most bytes in an icon's name (`dialog-information`, `mail-unread-symbolic`).
  public static let maximumIconNameLength = 255

  /// Whether `icon` is an icon theme's name rather than a file: not empty, no `/`, not hidden (no
  /// leading `.`), no control character, at most `maximumIconNameLength` bytes. Anything else an
  /// icon may be is an absolute path.
  public static func isIconName(_ icon: String) -> Bool {
    !icon.isEmpty && icon.utf8.count <= maximumIconNameLength && !icon.hasPrefix(".")
      && !icon.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 < 0x20 || $0 == 0x7F })
  }

  public static func check(_ request: ShowParameters) throws(InvalidField) {
    try checkCommon(
      title: request.title, body: request.body,
      timing: [
        ("delay", request.delay), ("fadeIn", request.fadeIn), ("hold", request.hold),
        ("fadeOut", request.fadeOut),
      ],
      app: request.app, tag: request.tag, key: request.key, icon: request.icon, hints: request.hints)
    if let after = request.after, after <= 0 {
      throw InvalidField(field: "after", reason: "must be a positive notice id")
    }
    if let actions = request.actions { try check(actions) }
    try check(name: request.reply, field: "reply")
  }

  /// The most ids one `Read`, `Restore` or `Forget` names.
  public static let maximumIDs = 10_000

  /// The most bytes of UTF-8 in a reply typed or sent to a notice (`Reply`).
  public static let maximumReplyLength = 4096

  /// Checks the text of a `Reply`: valid, at most `maximumReplyLength` bytes.
  public static func check(reply text: String) throws(InvalidField) {
    guard text.utf8.count <= maximumReplyLength else {
      throw InvalidField(field: "text", reason: "longer than \(maximumReplyLength) bytes")
    }
  }

  public static func check(_ request: ProgressParameters) throws(InvalidField) {
    try checkCommon(
      title: request.title, body: request.body,
      timing: [("delay", request.delay), ("fadeIn", request.fadeIn), ("fadeOut", request.fadeOut)],
      app: request.app, tag: request.tag, key: request.key, icon: request.icon, hints: request.hints)
    if let timeout = request.timeout { try check(duration: timeout, field: "timeout") }
  }

  private static func checkCommon(
    title: String, body: String?, timing: [(String, Double?)], app: String?, tag: String?, key: String?,
    icon: String?, hints: Hints?
  ) throws(InvalidField) {
    try check(title: title, body: body)
    for case (let field, let value?) in timing { try check(duration: value, field: field) }
    try check(name: app, field: "app")
    try check(name: tag, field: "tag")
    try check(name: key, field: "key")
    if let icon, !isIconName(icon) {
      try check(path: icon, field: "icon", of: "an image file or an icon name")
    }
    if let hints {
      try check(name: hints.category, field: "hints.category")
      try check(name: hints.desktopEntry, field: "hints.desktopEntry")
      try check(name: hints.soundName, field: "hints.soundName")
      try check(path: hints.soundFile, field: "hints.soundFile", of: "a sound file")
    }
  }

  public static func check(title: String?, body: String?, field: String = "body") throws(InvalidField) {
    if let title, title.utf8.count > 1024 {
      throw InvalidField(field: "title", reason: "longer than 1 KiB")
    }
    if let body, body.utf8.count > 16 * 1024 {
      throw InvalidField(field: field, reason: "longer than 16 KiB")
    }
  }

  public static func check(duration: Double, field: String) throws(InvalidField) {
    guard duration.isFinite, duration >= 0, duration <= 86_400 else {
      throw InvalidField(field: field, reason: "must be a finite number of seconds from 0 to 86400")
    }
  }

  private static func check(name: String?, field: String) throws(InvalidField) {
    if let name, name.utf8.count > maximumNameLength {
      throw InvalidField(field: field, reason: "longer than \(maximumNameLength) bytes")
    }
  }

  /// A file's path a notice names (`what` it is, for the reason): absolute, at most
  /// `maximumIconPathLength` bytes, no NUL.
  private static func check(path: String?, field: String, of what: String) throws(InvalidField) {
    guard let path else { return }
    guard path.hasPrefix("/") else {
      throw InvalidField(field: field, reason: "must be an absolute path to \(what)")
    }
    guard path.utf8.count <= maximumIconPathLength, !path.utf8.contains(0) else {
      throw InvalidField(
        field: field, reason: "longer than \(maximumIconPathLength) bytes or holding a NUL byte")
    }
  }

  private static func check(_ actions: [Action]) throws(InvalidField) {
    if actions.count > maximumActions {
      throw InvalidField(field: "actions", reason: "more than \(maximumActions) actions")
    }
    for (index, action) in actions.enumerated() {
      if action.key.isEmpty {
        throw InvalidField(field: "actions.\(index).key", reason: "an action needs a non-empty key")
      }
      try check(name: action.key, field: "actions.\(index).key")
      try check(name: action.label, field: "actions.\(index).label")
    }
  }
}
