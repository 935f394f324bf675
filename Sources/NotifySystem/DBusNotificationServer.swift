import CNotifyBus
import Dispatch
import NotifyCore
import NotifyDisplay
import NotifyProtocol

/// `[DBus] Mode=server`: serves `org.freedesktop.Notifications` (spec 1.2) on the queue, so that
/// `notify-send` and every libnotify program feed it.
///
/// `Notify` becomes a notice (a progress indicator with a `value` hint) and answers its id once the
/// store has committed it; `replaces_id` changes a visible notice in place (same id), or replaces
/// one not yet shown by a new notice; a stack tag becomes the notice's `key`. `CloseNotification`
/// cancels. `NotificationClosed` and `ActionInvoked` are emitted for the notices that came through
/// `Notify`.
///
/// - Important: lives on the connection's queue; queue events must be handed to `handle(_:)`
///   there. `stop()` must be called before the connection goes, to take the object off the bus.
final class DBusNotificationServer: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on the connection's queue.
  private let connection: DBusConnection
  private let queue: NoticeQueue
  private let store: NoticeStore?
  private let icons: IconCache?
  private let log: Logger
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

  init(connection: DBusConnection, queue: NoticeQueue, store: NoticeStore?, icons: IconCache?, log: Logger) {
    self.connection = connection
    self.queue = queue
    self.store = store
    self.icons = icons
    self.log = log
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

  /// `Notify(susssasa{sv}i) → u`.
  private func notify(_ call: DBusMessage, failure: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    let request: DBusNotification
    do {
      request = try DBusNotification(reading: call)
    } catch {
      return DBusError.reply(failure, name: DBusNames.ErrorName.invalidArgs, message: "\(error)")
    }
    let id: Int
    do {
      id = try submit(request)
    } catch {
      switch error {
      case .invalidArgument(let field, let reason):
        return DBusError.reply(
          failure, name: DBusNames.ErrorName.invalidArgs,
          message: "\(Self.argument(forField: field)): \(reason)")
      case .queueFull(let capacity):
        return DBusError.reply(
          failure, name: DBusNames.ErrorName.queueFull, message: "the queue is full (\(capacity) notices)")
      case .noSuchNotice(let id):
        return DBusError.reply(failure, name: DBusNames.ErrorName.failed, message: "no notice \(id)")
      }
    }
    fromBus.insert(id)
    unanswered[id, default: (0, [])].calls += 1
    replyDurably(to: call, id: id)
    return 1
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

  /// The `Notify` for `id` was answered: sends the signals held back for it.
  private func answered(_ id: Int) {
    guard var entry = unanswered[id] else { return }
    entry.calls -= 1
    guard entry.calls == 0 else {
      unanswered[id] = entry
      return
    }
    unanswered[id] = nil
    for signal in entry.signals { signal() }
  }

  /// Turns a `Notify` into a notice, or into a change of the notice it replaces; answers the id.
  private func submit(_ request: DBusNotification) throws(QueueError) -> Int {
    let replacedID = Int(request.replacesID)
    if replacedID != 0, let replaced = try? queue.get(replacedID), replaced.phase != .finished {
      if replaced.phase.isVisible,
        let changed = try? queue.update(
          UpdateParameters(id: replacedID, title: request.summary, body: request.body, value: request.value))
      {
        return changed.id
      }
      let id = try submitNew(request)
      if id != replacedID { try? queue.dismiss(replacedID, outcome: .replaced) }
      return id
    }
    return try submitNew(request)
  }

  private func submitNew(_ request: DBusNotification) throws(QueueError) -> Int {
    let body = request.body.isEmpty ? nil : request.body
    let app = request.appName.isEmpty ? nil : request.appName
    let icon = try request.icon(storingPixelsIn: icons, log: log)
    if let value = request.value {
      // A D-Bus client cannot End an indicator: -1 means the hold a notice would get, not the
      // 30 s an indicator waits for news.
      let timeout =
        request.hold
        ?? queue.settings.resolve(
          app: app, tag: nil, title: request.summary, urgency: request.urgency, explicit: TimingOverrides()
        ).hold
      return try queue.progress(
        ProgressParameters(
          title: request.summary, body: body, app: app, urgency: request.urgency, icon: icon,
          key: request.stackTag, value: value, timeout: timeout)
      ).id
    }
    let actions = request.actionPairs
    return try queue.show(
      ShowParameters(
        title: request.summary, body: body, app: app, urgency: request.urgency, icon: icon,
        key: request.stackTag, hold: request.hold, actions: actions.isEmpty ? nil : actions))
  }

  /// Answers `Notify` with `id` once the store has committed the notice; a notice the store could
  /// not keep is withdrawn and the caller told.
  private func replyDurably(to call: DBusMessage, id: Int) {
    let reply: @Sendable (HeldCall) -> Void = { [weak self, connection] held in
      try? connection.reply(to: held.message) { message throws(DBusError) in
        try message.append(UInt32(clamping: id))
      }
      self?.answered(id)
    }
    let refuse: @Sendable (HeldCall, any Error) -> Void = { [weak self, connection, queue] held, error in
      _ = try? queue.cancel(CancelParameters(id: id, now: true))
      try? connection.replyError(
        to: held.message, name: DBusNames.ErrorName.storeFailed, message: "the store failed: \(error)")
      self?.answered(id)
    }
    guard let store else {
      reply(HeldCall(message: call))
      return
    }
    call.retain()
    let held = HeldCall(message: call)
    store.sync { [connection] error in
      connection.queue.async {
        defer { held.message.release() }
        if let error { refuse(held, error) } else { reply(held) }
      }
    }
  }

  /// `CloseNotification(u)`: an unfinished notice fades out and finishes (reason 3); one whose
  /// action was chosen keeps fading out to `completed`. Closing one that has finished, or never
  /// was, does nothing, as dunst and GNOME Shell do.
  private func closeNotification(_ call: DBusMessage, failure: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    let id: Int
    do {
      id = Int(try call.readUInt32())
    } catch {
      return DBusError.reply(failure, name: DBusNames.ErrorName.invalidArgs, message: "\(error)")
    }
    if let notice = try? queue.get(id), notice.phase != .finished {
      closedByCall.insert(id)
      // libnotify closes a notice after its action was chosen: it is ending as `completed` already.
      if notice.invoked == nil { _ = try? queue.cancel(CancelParameters(id: id)) }
    }
    try? connection.reply(to: call) { _ throws(DBusError) in }
    return 1
  }

  /// `GetCapabilities() → as`.
  private func getCapabilities(_ call: DBusMessage, failure: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    do {
      try connection.reply(to: call) { message throws(DBusError) in try message.append(DBusNames.capabilities)
      }
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
      emit(DBusNames.Signal.actionInvoked, id: id) { message throws(DBusError) in try message.append(key) }
    case .finished:
      guard let notice = event.notice, fromBus.remove(notice.id) != nil else { return }
      let reason = closedByCall.remove(notice.id) != nil ? .closedByCall : Self.closeReason(notice.outcome)
      emit(DBusNames.Signal.notificationClosed, id: notice.id) { message throws(DBusError) in
        try message.append(reason.rawValue)
      }
    default:
      return
    }
  }

  /// The reason `NotificationClosed` gives for a notice that finished with `outcome`.
  static func closeReason(_ outcome: Outcome?) -> DBusCloseReason {
    switch outcome {
    case .completed, .timedOut: return .expired
    case .dismissed: return .dismissed
    case .cancelled, .replaced, nil: return .undefined
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
