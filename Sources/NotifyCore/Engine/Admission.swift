import NotifyProtocol

/// What `Show` and `Progress` share on the way in: the limits a request must respect, and the
/// notice built from a request once its timing is resolved.
enum Admission {
  static let maximumNameLength = RequestLimits.maximumNameLength
  static let maximumActions = RequestLimits.maximumActions
  static let maximumIconPathLength = RequestLimits.maximumIconPathLength

  /// Checks a `Show` request (`RequestLimits`); answers the timing it asks for.
  static func validate(_ request: ShowParameters) throws(QueueError) -> TimingOverrides {
    try checked { () throws(InvalidField) in try RequestLimits.check(request) }
    return TimingOverrides(
      delay: request.delay, fadeIn: request.fadeIn, hold: request.hold, fadeOut: request.fadeOut,
      easeIn: request.easeIn, easeOut: request.easeOut)
  }

  /// Checks a `Progress` request (`RequestLimits`); answers the timing it asks for.
  static func validate(_ request: ProgressParameters) throws(QueueError) -> TimingOverrides {
    try checked { () throws(InvalidField) in try RequestLimits.check(request) }
    return TimingOverrides(delay: request.delay, fadeIn: request.fadeIn, fadeOut: request.fadeOut)
  }

  static func validate(title: String?, body: String?, field: String = "body") throws(QueueError) {
    try checked { () throws(InvalidField) in try RequestLimits.check(title: title, body: body, field: field) }
  }

  static func validate(reply text: String) throws(QueueError) {
    try checked { () throws(InvalidField) in try RequestLimits.check(reply: text) }
  }

  static func validate(duration: Double, field: String) throws(QueueError) {
    try checked { () throws(InvalidField) in try RequestLimits.check(duration: duration, field: field) }
  }

  /// A limit's complaint as the engine's error.
  private static func checked(_ check: () throws(InvalidField) -> Void) throws(QueueError) {
    do {
      try check()
    } catch {
      throw .invalidArgument(field: error.field, reason: error.reason)
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
      after: request.after, actions: request.actions, phase: .waiting, created: created, reply: request.reply)
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
