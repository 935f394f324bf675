import CNotifyBus
import Dispatch
import NotifyCore
import NotifyIcons
import NotifyProtocol
import NotifyService
import NotifySupport

/// `[DBus] Mode=server`: serves `org.freedesktop.Notifications` (spec 1.2) on the queue, so that
/// `notify-send` and every libnotify program feed it.
///
/// `Notify` becomes a notice (a progress indicator with a `value` hint) and answers its id once the
/// store has committed it; `replaces_id` replaces the whole notice, a visible one in place (same
/// id), one not yet shown (or of the other kind) by a new notice; a stack tag becomes the notice's
/// `key`. `CloseNotification`
/// cancels. `NotificationClosed` and `ActionInvoked` are emitted for the notices that came through
/// `Notify`.
///
/// - Important: lives on the connection's queue; queue events must be handed to `handle(_:)`
///   there. `stop()` must be called before the connection goes, to take the object off the bus.
final class DBusNotificationServer: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on the connection's queue.
  private let connection: DBusConnection
  private let service: NoticeService
  private var notices: any NoticeReading { service.notices }
  private let icons: (any IconStore)?
  private let log: Logger
  /// The config in force: `IgnoreClose=`, whether sounds play.
  private let settings: @Sendable () -> DBusServerSettings
  /// Whether popups are drawn now: icons are shown only then.
  private let popupsDrawn: () -> Bool
  /// Where icon names are looked up.
  private let iconTheme: () -> IconTheme?
  private var object: DBusConnection.Slot?
  /// Unfinished notices that came through `Notify`: only they get signals.
  private var fromBus: Set<Int> = []
  /// Notices `CloseNotification` closed: their `NotificationClosed` says reason 3.
  private var closedByCall: Set<Int> = []
  /// Notices whose `Notify` is not answered yet (how many calls), with the signals held back for
  /// them: a client that does not know the id yet would drop them.
  private var unanswered: [Int: (calls: Int, signals: [() -> Void])] = [:]

  /// A method call held until the store has committed, then answered and released on the
  /// connection's queue.
  private struct HeldCall: @unchecked Sendable {
    // @unchecked: referenced, answered and released only on the connection's queue.
    let message: DBusMessage
  }

  init(
    connection: DBusConnection, service: NoticeService, icons: (any IconStore)?, log: Logger,
    settings: @escaping @Sendable () -> DBusServerSettings = { DBusServerSettings() },
    popupsDrawn: @escaping () -> Bool = { false }, iconTheme: @escaping () -> IconTheme? = { nil }
  ) {
    self.connection = connection
    self.service = service
    self.icons = icons
    self.log = log
    self.settings = settings
    self.popupsDrawn = popupsDrawn
    self.iconTheme = iconTheme
  }

  /// Puts the object on the bus and takes the name; fails with `EEXIST` when another server
  /// holds it (and then leaves nothing behind).
  func start() throws(DBusError) {
    var handlers = notify_bus_server_handlers()
    let context = Unmanaged.passRetained(self)
    handlers.context = context.toOpaque()
    handlers.notify = { context, call, error in
      DBusNotificationServer.from(context).notify(DBusMessage(pointer: call!), failure: error)
    }
    handlers.close_notification = { context, call, error in
      DBusNotificationServer.from(context).closeNotification(DBusMessage(pointer: call!), failure: error)
    }
    handlers.get_capabilities = { context, call, error in
      DBusNotificationServer.from(context).getCapabilities(DBusMessage(pointer: call!), failure: error)
    }
    handlers.get_server_information = { context, call, error in
      DBusNotificationServer.from(context).getServerInformation(DBusMessage(pointer: call!), failure: error)
    }
    handlers.release = { context in
      if let context { Unmanaged<DBusNotificationServer>.fromOpaque(context).release() }
    }
    do {
      object = try connection.addNotificationsObject(handlers)
    } catch {
      context.release()
      throw error
    }
    do {
      try connection.requestName(DBusNames.notifications)
    } catch {
      stop()
      throw error
    }
  }

  /// Takes the object off the bus (the name goes with the connection).
  func stop() {
    object?.cancel()
    object = nil
  }

  private static func from(_ context: UnsafeMutableRawPointer?) -> DBusNotificationServer {
    Unmanaged<DBusNotificationServer>.fromOpaque(context!).takeUnretainedValue()
  }

  // MARK: - Methods

  /// `Notify(susssasa{sv}i) → u`: answered once the notice is committed.
  private func notify(_ call: DBusMessage, failure: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    let request: DBusNotification
    let icon: String?
    do {
      request = try DBusNotification(reading: call)
      icon = try request.icon(storingPixelsIn: icons, theme: iconTheme(), log: log)
    } catch let error as QueueError {
      return Self.reply(failure, error)
    } catch {
      return DBusError.reply(failure, name: DBusNames.ErrorName.invalidArgs, message: "\(error)")
    }
    call.retain()
    let held = HeldCall(message: call)
    // The id the engine gave, set below on this queue; the answer reads it there too.
    let notice = NoticeNumber()
    let answer: @Sendable (Result<Int, ServiceError>) -> Void = { [weak self, connection] result in
      let server = self
      connection.queue.async {
        defer { held.message.release() }
        server?.answer(held.message, with: result, id: notice.id)
      }
    }
    let id: Int?
    let replacing = request.replacesID == 0 ? nil : Int(request.replacesID)
    let body = request.body.isEmpty ? nil : request.body
    let app = request.appName.isEmpty ? nil : request.appName
    let hints = request.desktopHints
    if let value = request.value {
      // A D-Bus client cannot End an indicator: -1 means the hold a notice would get, not the
      // 30 s an indicator waits for news.
      let timeout =
        request.hold
        ?? notices.settings.resolve(
          app: app, tag: nil, title: request.summary, urgency: request.urgency, hints: hints,
          explicit: TimingOverrides()
        ).hold
      let parameters = ProgressParameters(
        title: request.summary, body: body, app: app, urgency: request.urgency, icon: icon, hints: hints,
        key: request.stackTag, value: value, timeout: timeout)
      id = service.progress(parameters, replacing: replacing, wholly: true) { answer($0.map(\.id)) }?.id
    } else {
      let actions = request.actionPairs
      let parameters = ShowParameters(
        title: request.summary, body: body, app: app, urgency: request.urgency, icon: icon, hints: hints,
        key: request.stackTag, hold: request.hold, actions: actions.isEmpty ? nil : actions,
        reply: request.replyPlaceholder)
      id = service.show(parameters, replacing: replacing, done: answer)
    }
    // The engine's events reach this queue after this handler returns: from here on they are
    // recognized as this notice's, and held until the call is answered.
    if let id {
      notice.id = id
      fromBus.insert(id)
      unanswered[id, default: (0, [])].calls += 1
    }
    return 1
  }

  /// Whether a `CloseNotification` of `notice` comes too soon after its `Notify` to be heeded:
  /// within the last matching rule's `IgnoreClose=`, else `[DBus] IgnoreClose=`, of its creation.
  /// Asked only when a close comes, so a `Notify` pays nothing for it.
  private func ignoresClose(of notice: Notice) -> Bool {
    let rules = notices.settings.matchingRules(
      app: notice.app, tag: notice.tag, title: notice.title, urgency: notice.urgency, hints: notice.hints)
    let window = rules.compactMap(\.ignoreClose).last ?? settings().ignoreClose
    let age = notices.wallTime - notice.created
    return window > 0 && (0..<window).contains(age)
  }

  /// The id a `Notify` got, for its answer on the connection's queue.
  private final class NoticeNumber: @unchecked Sendable {
    // @unchecked: set and read only on the connection's queue.
    var id: Int?
  }

  /// Answers a held `Notify` for notice `id` with its id, or with the error that kept it.
  private func answer(_ call: DBusMessage, with result: Result<Int, ServiceError>, id: Int?) {
    switch result {
    case .success(let id):
      try? connection.reply(to: call) { message throws(DBusError) in
        try message.append(UInt32(clamping: id))
      }
      answered(id)
    case .failure(.queue(let error)):
      let (name, message) = Self.describe(error)
      try? connection.replyError(to: call, name: name, message: message)
    case .failure(.storeFailed(let reason)):
      try? connection.replyError(
        to: call, name: DBusNames.ErrorName.storeFailed, message: "the store failed: \(reason)")
      // The notice was withdrawn: what was held for it goes out, as it would have.
      if let id { answered(id) }
    }
  }

  /// The D-Bus error for a refusal of the engine's.
  private static func describe(_ error: QueueError) -> (name: String, message: String) {
    switch error {
    case .invalidArgument(let field, let reason):
      return (DBusNames.ErrorName.invalidArgs, "\(argument(forField: field)): \(reason)")
    case .queueFull(let capacity):
      return (DBusNames.ErrorName.queueFull, "the queue is full (\(capacity) notices)")
    case .noSuchNotice(let id):
      return (DBusNames.ErrorName.failed, "no notice \(id)")
    }
  }

  private static func reply(_ failure: UnsafeMutablePointer<sd_bus_error>?, _ error: QueueError) -> Int32 {
    let (name, message) = describe(error)
    return DBusError.reply(failure, name: name, message: message)
  }

  /// The `Notify` argument a queue field came from, so that an error names what the client sent:
  /// `app_name`, `summary`, `actions` (pairs: `actions.1.key` is the third string), the stack tag hint.
  static func argument(forField field: String) -> String {
    switch field {
    case "title": return "summary"
    case "app": return "app_name"
    case "key": return "hints: \(DBusNames.Hint.dunstStackTag)"
    default:
      let parts = field.split(separator: ".")
      if parts.count == 3, parts[0] == "actions", let pair = Int(parts[1]) {
        return "actions[\(pair * 2 + (parts[2] == "key" ? 0 : 1))]"
      }
      return field
    }
  }

  /// A `Notify` for `id` was answered: once every one is, the signals held back for it go out.
  private func answered(_ id: Int) {
    guard var entry = unanswered[id] else { return }
    entry.calls -= 1
    guard entry.calls == 0 else {
      unanswered[id] = entry
      return
    }
    unanswered[id] = nil
    unanswered.releaseSpareCapacity()
    for signal in entry.signals { signal() }
  }

  /// `CloseNotification(u)`: an unfinished notice fades out and finishes (reason 3); one whose
  /// action was chosen keeps fading out to `completed` (reason 2). Closing one that has finished, or never
  /// was, does nothing, as dunst and GNOME Shell do.
  private func closeNotification(_ call: DBusMessage, failure: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    let id: Int
    do {
      id = Int(try call.readUInt32())
    } catch {
      return DBusError.reply(failure, name: DBusNames.ErrorName.invalidArgs, message: "\(error)")
    }
    if let notice = try? notices.get(id), notice.phase != .finished {
      if fromBus.contains(id) && ignoresClose(of: notice) {
        // An app that closes its own notices at once (`IgnoreClose=`): the notice stays.
        log.debug("dbus: CloseNotification of notice \(id) right after its Notify, ignored (IgnoreClose=)")
      } else {
        // libnotify closes a notice after its action was chosen: it is ending already, closed by
        // the person who chose (reason 2), not by this call.
        if notice.invoked == nil && notice.replied == nil {
          closedByCall.insert(id)
          service.cancel(
            CancelParameters(id: id), done: logFailure(of: "dbus: CloseNotification of notice \(id)", to: log)
          )
        }
      }
    }
    try? connection.reply(to: call) { _ throws(DBusError) in }
    return 1
  }

  /// `GetCapabilities() → as`.
  private func getCapabilities(_ call: DBusMessage, failure: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    do {
      let capabilities = DBusNames.capabilities(popups: popupsDrawn(), sound: settings().soundEnabled)
      try connection.reply(to: call) { message throws(DBusError) in try message.append(capabilities) }
    } catch {
      return DBusError.reply(failure, name: DBusNames.ErrorName.failed, message: "\(error)")
    }
    return 1
  }

  /// `GetServerInformation() → ssss`: name, vendor, version, spec version.
  private func getServerInformation(_ call: DBusMessage, failure: UnsafeMutablePointer<sd_bus_error>?)
    -> Int32
  {
    do {
      try connection.reply(to: call) { message throws(DBusError) in
        try message.append(DBusNames.ServerInformation.name)
        try message.append(DBusNames.ServerInformation.vendor)
        try message.append(DBusNames.ServerInformation.version)
        try message.append(DBusNames.ServerInformation.specVersion)
      }
    } catch {
      return DBusError.reply(failure, name: DBusNames.ErrorName.failed, message: "\(error)")
    }
    return 1
  }

  // MARK: - Signals

  /// Emits `ActionInvoked` when an action of a notice from the bus is chosen, and
  /// `NotificationClosed` when such a notice finishes.
  func handle(_ event: Event) {
    switch event.kind {
    case .invoked:
      guard let id = event.id, fromBus.contains(id), let key = event.notice?.invoked else { return }
      if let token = event.activationToken {
        emit(DBusNames.Signal.activationToken, id: id) { message throws(DBusError) in
          try message.append(token)
        }
      }
      emit(DBusNames.Signal.actionInvoked, id: id) { message throws(DBusError) in try message.append(key) }
    case .replied:
      guard let id = event.id, fromBus.contains(id), let text = event.notice?.replied else { return }
      emit(DBusNames.Signal.notificationReplied, id: id) { message throws(DBusError) in
        try message.append(text)
      }
    case .finished:
      guard let notice = event.notice, fromBus.remove(notice.id) != nil else { return }
      let reason = closedByCall.remove(notice.id) != nil ? .closedByCall : Self.closeReason(notice)
      fromBus.releaseSpareCapacity()
      closedByCall.releaseSpareCapacity()
      emit(DBusNames.Signal.notificationClosed, id: notice.id) { message throws(DBusError) in
        try message.append(reason.rawValue)
      }
    default:
      return
    }
  }

  /// The reason `NotificationClosed` gives for a finished notice: dismissed (2) when a person
  /// closed it or chose one of its actions, expired (1) when its time ran out.
  static func closeReason(_ notice: Notice) -> DBusCloseReason {
    switch notice.outcome {
    case .completed where notice.invoked != nil || notice.replied != nil: return .dismissed
    case .completed, .timedOut: return .expired
    case .dismissed: return .dismissed
    case .cancelled, .replaced, .folded, .missed, nil: return .undefined
    }
  }

  private func emit(_ signal: String, id: Int, rest: @escaping (DBusMessage) throws(DBusError) -> Void) {
    if unanswered[id] != nil {
      unanswered[id]?.signals.append { [weak self] in self?.emit(signal, id: id, rest: rest) }
      return
    }
    do {
      try connection.emitSignal(
        path: DBusNames.notificationsPath, interface: DBusNames.notificationsInterface, member: signal
      ) { message throws(DBusError) in
        try message.append(UInt32(clamping: id))
        try rest(message)
      }
    } catch {
      log.debug("dbus: \(signal) for notice \(id) not sent: \(error), ignoring")
    }
  }
}
