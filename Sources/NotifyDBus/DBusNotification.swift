import Foundation
import NotifyCore
import NotifyIcons
import NotifyProtocol
import NotifySupport

/// The arguments of `org.freedesktop.Notifications.Notify` (`susssasa{sv}i`), read from a call
/// notifyd serves or written into a call notifyd forwards, with the translation to and from a
/// notice on each side.
struct DBusNotification: Equatable {
  var appName: String
  var replacesID: UInt32
  var appIcon: String
  var summary: String
  var body: String
  /// Action keys and labels, alternating: `[key, label, key, label, …]`.
  var actions: [String]
  var hints: [String: DBusHint]
  /// Milliseconds: -1 the server's default, 0 never.
  var expireTimeout: Int32

  init(
    appName: String, replacesID: UInt32 = 0, appIcon: String = "", summary: String, body: String = "",
    actions: [String] = [], hints: [String: DBusHint] = [:], expireTimeout: Int32 = -1
  ) {
    self.appName = appName
    self.replacesID = replacesID
    self.appIcon = appIcon
    self.summary = summary
    self.body = body
    self.actions = actions
    self.hints = hints
    self.expireTimeout = expireTimeout
  }

  /// Reads the arguments of a `Notify` call.
  init(reading message: DBusMessage) throws(DBusError) {
    appName = try message.readString()
    replacesID = try message.readUInt32()
    appIcon = try message.readString()
    summary = try message.readString()
    body = try message.readString()
    actions = try message.readStringArray()
    hints = try message.readHints()
    expireTimeout = try message.readInt32()
  }

  /// Writes the arguments of a `Notify` call, hints in key order.
  func append(to message: DBusMessage) throws(DBusError) {
    try message.append(appName)
    try message.append(replacesID)
    try message.append(appIcon)
    try message.append(summary)
    try message.append(body)
    try message.append(actions)
    try message.append(hints: hints.keys.sorted().map { ($0, hints[$0]!) })
    try message.append(expireTimeout)
  }

  // MARK: - Serving: a Notify call as a notice

  /// The `urgency` hint (0 low, 1 normal, 2 critical); `nil` when absent or out of range.
  var urgency: Urgency? {
    switch hints[DBusNames.Hint.urgency]?.integerValue {
    case 0: return .low
    case 1: return .normal
    case 2: return .critical
    default: return nil
    }
  }

  /// The `value` hint, clamped to 0…100: a notice with one is a progress indicator.
  var value: Int? {
    hints[DBusNames.Hint.value]?.integerValue.map { Int(min(max($0, 0), 100)) }
  }

  /// The stack tag (`x-dunst-stack-tag`, else `x-canonical-private-synchronous`): it becomes the
  /// notice's `key`, so that a notice with the same tag replaces it.
  var stackTag: String? {
    for name in [DBusNames.Hint.dunstStackTag, DBusNames.Hint.canonicalStackTag] {
      if let tag = hints[name]?.stringValue, !tag.isEmpty { return tag }
    }
    return nil
  }

  /// The hints notifyd keeps with the notice: `category`, `desktop-entry` (`.desktop` dropped),
  /// `transient`, `resident`, `sound-file` (a path or `file://` URI), `sound-name`,
  /// `suppress-sound`, `action-icons`. A hint of the wrong type is ignored, as an unknown one is.
  var desktopHints: Hints? {
    func string(_ name: String) -> String? {
      guard let value = hints[name]?.stringValue, !value.isEmpty else { return nil }
      return value
    }
    func flag(_ name: String) -> Bool? { hints[name]?.booleanValue == true ? true : nil }
    var entry = string(DBusNames.Hint.desktopEntry)
    if let name = entry, name.hasSuffix(".desktop") { entry = String(name.dropLast(".desktop".count)) }
    return Hints.nonEmpty(
      Hints(
        category: string(DBusNames.Hint.category), desktopEntry: entry,
        transient: flag(DBusNames.Hint.transient), resident: flag(DBusNames.Hint.resident),
        soundFile: string(DBusNames.Hint.soundFile).flatMap(Self.filePath),
        soundName: string(DBusNames.Hint.soundName), silent: flag(DBusNames.Hint.suppressSound),
        actionIcons: flag(DBusNames.Hint.actionIcons)))
  }

  /// The notice's icon, by the specification's order: `image-data` (kept as a PNG file in
  /// `icons`), else `image-path`, else `app_icon`, each a file (an absolute path or a `file://`
  /// URI) or an icon name `theme` has (kept as the name: the popups look it up for the size and
  /// scale they draw at). Pixels that do not describe an image throw, naming the hint; a cache
  /// that cannot be written is logged and the notice goes on without its icon.
  func icon(storingPixelsIn icons: (any IconStore)?, theme: IconTheme? = nil, log: Logger) throws(QueueError)
    -> String?
  {
    for name in DBusNames.Hint.imageData {
      guard case .image(let pixels)? = hints[name] else { continue }
      guard let icons else { break }
      do {
        return try icons.store(pixels)
      } catch .invalid(let problem) {
        throw .invalidArgument(field: "hints: \(name)", reason: problem.description)
      } catch {
        log.warning("dbus: an icon of \(appName.isEmpty ? "a client" : appName) is not kept: \(error)")
        break
      }
    }
    func file(_ icon: String) -> String? {
      if let path = Self.filePath(icon) { return path }
      return theme?.contains(icon) == true ? icon : nil
    }
    for name in DBusNames.Hint.imagePath {
      if let path = hints[name]?.stringValue.flatMap(file) { return path }
    }
    return file(appIcon)
  }

  /// The file an icon string names: an absolute path, or a `file://` URI (percent-decoded); nil
  /// for an icon name or anything else.
  static func filePath(_ icon: String) -> String? {
    if icon.hasPrefix("/") { return icon }
    guard icon.hasPrefix("file:///") else { return nil }
    return String(icon.dropFirst("file://".count)).removingPercentEncoding
  }

  /// The actions as pairs; a trailing key without a label, empty keys, and `inline-reply` (a field,
  /// not a button: `replyPlaceholder`) are dropped.
  var actionPairs: [Action] {
    keysAndLabels.filter { !$0.key.isEmpty && $0.key != DBusNames.inlineReply }
  }

  /// The `actions` array read as key and label pairs; a trailing key without a label is dropped.
  private var keysAndLabels: [Action] {
    stride(from: 0, to: actions.count - 1, by: 2).map { Action(key: actions[$0], label: actions[$0 + 1]) }
  }

  /// With an `inline-reply` action, the reply field's placeholder: the
  /// `x-kde-reply-placeholder-text` hint, else the action's label, else "Reply"; `nil` without.
  var replyPlaceholder: String? {
    guard let field = keysAndLabels.first(where: { $0.key == DBusNames.inlineReply }) else { return nil }
    if let hint = hints[DBusNames.Hint.replyPlaceholder]?.stringValue, !hint.isEmpty { return hint }
    return field.label.isEmpty ? "Reply" : field.label
  }

  /// The hold `expireTimeout` asks for: `nil` (the configured default) for -1, 0 (until ended)
  /// for 0, else the milliseconds in seconds, at most a day.
  var hold: Double? {
    guard expireTimeout >= 0 else { return nil }
    return min(Double(expireTimeout) / 1000, 86_400)
  }

  // MARK: - Forwarding: a notice as a Notify call

  /// The `Notify` call that shows `notice` on another server: summary = title; body = the closing
  /// message after `End`, else the body — as well-formed markup of the subset for a server that
  /// reads markup (what notifyd's own popups would show: `a & b` stays `a & b` there), flattened to
  /// text for one that does not; the icon, the `urgency` and `value` hints and the
  /// notice's own hints (category, desktop entry, transient, resident, sound) passed through;
  /// actions; `expireTimeout` covering what is left of the notice's life.
  init(forwarding notice: Notice, replacesID: UInt32, firstShowing: Bool, serverReadsMarkup: Bool) {
    let text = notice.message ?? notice.body ?? ""
    let urgency: UInt8 =
      switch notice.urgency {
      case .low: 0
      case .normal: 1
      case .critical: 2
      }
    var hints: [String: DBusHint] = [DBusNames.Hint.urgency: .byte(urgency)]
    if let value = notice.value { hints[DBusNames.Hint.value] = .int32(Int32(clamping: value)) }
    if let icon = notice.icon { hints[DBusNames.Hint.imagePath[0]] = .string(icon) }
    if let kept = notice.hints {
      let strings = [
        (DBusNames.Hint.category, kept.category), (DBusNames.Hint.desktopEntry, kept.desktopEntry),
        (DBusNames.Hint.soundFile, kept.soundFile), (DBusNames.Hint.soundName, kept.soundName),
      ]
      for case (let name, let value?) in strings { hints[name] = .string(value) }
      let flags = [
        (DBusNames.Hint.transient, kept.isTransient), (DBusNames.Hint.resident, kept.isResident),
        (DBusNames.Hint.suppressSound, kept.isSilent), (DBusNames.Hint.actionIcons, kept.hasActionIcons),
      ]
      for (name, set) in flags where set { hints[name] = .boolean(true) }
    }
    self.init(
      appName: notice.app ?? "notifyd", replacesID: replacesID, summary: notice.title,
      body: serverReadsMarkup ? BodyMarkup.normalized(text) : BodyMarkup.plainText(text),
      actions: (notice.actions ?? []).flatMap { [$0.key, $0.label] }, hints: hints,
      expireTimeout: Self.expireTimeout(for: notice, firstShowing: firstShowing))
  }

  /// Milliseconds until `notice` has faded out: fade-in (when it is first shown) + hold +
  /// fade-out; 0 when it holds until ended, and 0 after `End` (the hold it was given then is not
  /// in the notice; notifyd closes the popup itself when the notice finishes).
  static func expireTimeout(for notice: Notice, firstShowing: Bool) -> Int32 {
    guard notice.message == nil else { return 0 }
    let hold = notice.kind == .progress ? (notice.timeout ?? 0) : notice.hold
    guard hold > 0 else { return 0 }
    let seconds = (firstShowing ? notice.fadeIn : 0) + hold + notice.fadeOut
    return Int32(clamping: Int64((seconds * 1000).rounded(.up)))
  }
}
