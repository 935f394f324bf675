import NotifyProtocol

/// What `Show` and `Progress` share on the way in: the limits a request must respect, and the
/// notice built from a request once its timing is resolved.
enum Admission {
  /// The most bytes of UTF-8 in an app name, tag, key, action key or action label.
  static let maximumNameLength = 256
  /// The most actions a notice carries.
  static let maximumActions = 8
  /// The most bytes in a file's path, an icon's or a sound's (`PATH_MAX`).
  static let maximumIconPathLength = 4096

  /// Checks a `Show` request; answers the timing it asks for.
  static func validate(_ request: ShowParameters) throws(QueueError) -> TimingOverrides {
    let explicit = TimingOverrides(
      delay: request.delay, fadeIn: request.fadeIn, hold: request.hold, fadeOut: request.fadeOut,
      easeIn: request.easeIn, easeOut: request.easeOut)
    try validateCommon(
      title: request.title, body: request.body, timing: explicit, app: request.app, tag: request.tag,
      key: request.key, icon: request.icon, hints: request.hints)
    if let after = request.after, after <= 0 {
      throw .invalidArgument(field: "after", reason: "must be a positive notice id")
    }
    if let actions = request.actions { try validate(actions) }
    return explicit
  }

  /// Checks a `Progress` request; answers the timing it asks for.
  static func validate(_ request: ProgressParameters) throws(QueueError) -> TimingOverrides {
    let explicit = TimingOverrides(delay: request.delay, fadeIn: request.fadeIn, fadeOut: request.fadeOut)
    try validateCommon(
      title: request.title, body: request.body, timing: explicit, app: request.app, tag: request.tag,
      key: request.key, icon: request.icon, hints: request.hints)
    if let timeout = request.timeout { try validate(duration: timeout, field: "timeout") }
    return explicit
  }

  private static func validateCommon(
    title: String, body: String?, timing: TimingOverrides, app: String?, tag: String?, key: String?,
    icon: String?, hints: Hints?
  ) throws(QueueError) {
    try validate(title: title, body: body)
    for case (let field, let value?) in [
      ("delay", timing.delay), ("fadeIn", timing.fadeIn), ("hold", timing.hold), ("fadeOut", timing.fadeOut),
    ] {
      try validate(duration: value, field: field)
    }
    try validate(name: app, field: "app")
    try validate(name: tag, field: "tag")
    try validate(name: key, field: "key")
    try validate(path: icon, field: "icon", of: "an image file")
    if let hints { try validate(hints) }
  }

  private static func validate(_ hints: Hints) throws(QueueError) {
    try validate(name: hints.category, field: "hints.category")
    try validate(name: hints.desktopEntry, field: "hints.desktopEntry")
    try validate(name: hints.soundName, field: "hints.soundName")
    try validate(path: hints.soundFile, field: "hints.soundFile", of: "a sound file")
  }

  static func validate(title: String?, body: String?, field: String = "body") throws(QueueError) {
    if let title, title.utf8.count > 1024 {
      throw .invalidArgument(field: "title", reason: "longer than 1 KiB")
    }
    if let body, body.utf8.count > 16 * 1024 {
      throw .invalidArgument(field: field, reason: "longer than 16 KiB")
    }
  }

  static func validate(duration: Double, field: String) throws(QueueError) {
    guard duration.isFinite, duration >= 0, duration <= 86_400 else {
      throw .invalidArgument(field: field, reason: "must be a finite number of seconds from 0 to 86400")
    }
  }

  private static func validate(name: String?, field: String) throws(QueueError) {
    if let name, name.utf8.count > maximumNameLength {
      throw .invalidArgument(field: field, reason: "longer than \(maximumNameLength) bytes")
    }
  }

  /// A file's path a notice names (`what` it is, for the reason): absolute, at most
  /// `maximumIconPathLength` bytes, no NUL.
  private static func validate(path: String?, field: String, of what: String) throws(QueueError) {
    guard let path else { return }
    guard path.hasPrefix("/") else {
      throw .invalidArgument(field: field, reason: "must be an absolute path to \(what)")
    }
    guard path.utf8.count <= maximumIconPathLength, !path.utf8.contains(0) else {
      throw .invalidArgument(
        field: field, reason: "longer than \(maximumIconPathLength) bytes or holding a NUL byte")
    }
  }

  private static func validate(_ actions: [Action]) throws(QueueError) {
    if actions.count > maximumActions {
      throw .invalidArgument(field: "actions", reason: "more than \(maximumActions) actions")
    }
    for (index, action) in actions.enumerated() {
      if action.key.isEmpty {
        throw .invalidArgument(field: "actions.\(index).key", reason: "an action needs a non-empty key")
      }
      try validate(name: action.key, field: "actions.\(index).key")
      try validate(name: action.label, field: "actions.\(index).label")
    }
  }

  /// The notice a `Show` request becomes, with its timing resolved.
  static func notice(
    _ request: ShowParameters, id: Int, resolution: QueueSettings.Resolution, created: Double
  ) -> Notice {
    Notice(
      id: id, kind: .notice, title: request.title, body: request.body, app: request.app,
      urgency: resolution.urgency, style: request.style ?? .clear, icon: request.icon,
      hints: Hints.nonEmpty(request.hints), tag: request.tag, key: request.key, delay: resolution.delay,
      fadeIn: resolution.fadeIn, hold: resolution.hold,
      fadeOut: resolution.fadeOut, easeIn: resolution.easeIn, easeOut: resolution.easeOut,
      after: request.after, actions: request.actions, phase: .waiting, created: created)
  }

  /// The notice a `Progress` request becomes, with its timing resolved.
  static func notice(
    _ request: ProgressParameters, id: Int, resolution: QueueSettings.Resolution, timeout: Double,
    created: Double
  ) -> Notice {
    Notice(
      id: id, kind: .progress, title: request.title, body: request.body, app: request.app,
      urgency: resolution.urgency, style: request.style ?? .clear, icon: request.icon,
      hints: Hints.nonEmpty(request.hints), tag: request.tag, key: request.key, value: request.value,
      delay: resolution.delay, fadeIn: resolution.fadeIn, hold: 0,
      fadeOut: resolution.fadeOut, easeIn: resolution.easeIn, easeOut: resolution.easeOut, timeout: timeout,
      phase: .waiting, created: created)
  }

  /// The hold a notice gets once shown, `nil` until ended: its `hold` (0 = until ended); for a
  /// progress indicator its timeout (0 = none), or `EndHold` once ended with a message.
  static func hold(of notice: Notice, _ settings: QueueSettings) -> Double? {
    guard notice.kind == .progress else { return notice.hold > 0 ? notice.hold : nil }
    if notice.message != nil { return settings.endHold }
    let timeout = notice.timeout ?? settings.progressTimeout
    return timeout > 0 ? timeout : nil
  }
}
