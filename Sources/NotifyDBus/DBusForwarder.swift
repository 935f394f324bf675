import NotifyCore
import NotifyProtocol
import NotifyService
import NotifySupport

/// `[DBus] Mode=forward` (and `auto` while a server is on the bus): shows each notice on the
/// desktop's `org.freedesktop.Notifications` server while it is visible.
///
/// A notice that starts fading in is sent with `Notify`; a change of its text, value or actions
/// (an update, a replace in place, a closing message after `End`) goes out with `replaces_id`,
/// so the desktop keeps one popup; when the notice finishes (at the end of its fade-out, or of a
/// cancel's) the popup is closed with `CloseNotification`. A popup the person closed
/// (`NotificationClosed` reason 2) finishes the notice as `dismissed`; `ActionInvoked` invokes the
/// action on the notice.
///
/// - Important: lives on the connection's queue; queue events must be handed to `handle(_:)`
///   there. `stop()` must be called before the connection goes.
final class DBusForwarder: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on the connection's queue.

  /// What the server shows for one notice.
  private struct Popup {
    /// The server's id; `nil` until the first `Notify` is answered.
    var serverID: UInt32?
    /// A `Notify` for this popup is on its way; changes wait in `pending`.
    var inFlight = false
    /// What was sent last.
    var sent: DBusNotification?
    /// The notice as it stands, to send once the call in flight is answered.
    var pending: Notice?
    /// The notice finished while a `Notify` was in flight: close once the id is known.
    var finished = false
    /// The server reported an action: its next close is the action's, not a dismissal.
    var invokedOnServer = false
  }

  private let connection: DBusConnection
  private let service: NoticeService
  private let log: Logger
  /// Whether a `Notify` may start a server through D-Bus activation.
  private let activation: Bool
  private var matches: [DBusConnection.Slot] = []
  private var serverReadsMarkup = false
  private var popups: [Int: Popup] = [:]
  private var noticeIDs: [UInt32: Int] = [:]

  init(connection: DBusConnection, service: NoticeService, log: Logger, activation: Bool) {
    self.connection = connection
    self.service = service
    self.log = log
    self.activation = activation
  }

  /// Listens for the server's signals, asks whether it reads markup, and shows the notices that
  /// are visible now.
  func start() throws(DBusError) {
    for member in [DBusNames.Signal.notificationClosed, DBusNames.Signal.actionInvoked] {
      let rule = DBusNames.signalMatch(
        sender: DBusNames.notifications, path: DBusNames.notificationsPath,
        interface: DBusNames.notificationsInterface, member: member)
      matches.append(
        try connection.addMatch(rule) { [weak self] message in
          if member == DBusNames.Signal.notificationClosed {
            self?.serverClosed(message)
          } else {
            self?.serverInvoked(message)
          }
        })
    }
    do {
      let capabilities = try connection.call(
        destination: DBusNames.notifications, path: DBusNames.notificationsPath,
        interface: DBusNames.notificationsInterface, member: DBusNames.Method.getCapabilities, timeout: 2
      ) { message throws(DBusError) in try message.readStringArray() }
      serverReadsMarkup = capabilities.contains(DBusNames.bodyMarkupCapability)
    } catch {
      log.debug("dbus: GetCapabilities failed: \(error); sending bodies flattened to text")
    }
    for notice in service.notices.list() where notice.phase.isVisible { show(notice) }
  }

  /// Stops listening and forgets every popup (the server's ids mean nothing to its successor).
  func stop() {
    for match in matches { match.cancel() }
    matches = []
    popups = [:]
    noticeIDs = [:]
  }

  /// Feeds one queue event.
  func handle(_ event: Event) {
    switch event.kind {
    case .snapshot:
      // The subscription may begin after `start` listed the queue: a notice that began fading in
      // between shows up only here.
      for notice in event.notices ?? [] where notice.phase.isVisible { show(notice) }
    case .phase where event.phase == .waiting:
      // Snoozed: it left the screen, so its popup there goes; it comes back as a new one.
      if let id = event.id { finish(id) }
    case .phase:
      // A notice without a fade-in goes straight to holding.
      guard event.phase == .fadingIn || event.phase == .holding, let id = event.id, popups[id] == nil,
        let notice = try? service.notices.get(id), notice.phase.isVisible
      else { return }
      show(notice)
    case .updated:
      if let notice = event.notice { change(notice) }
    case .finished:
      if let id = event.id { finish(id) }
    default:
      return
    }
  }

  // MARK: - Notices to popups

  private func show(_ notice: Notice) {
    guard popups[notice.id] == nil else { return }
    popups[notice.id] = Popup()
    send(notice, firstShowing: true)
  }

  private func change(_ notice: Notice) {
    guard var popup = popups[notice.id], !popup.finished else { return }
    if popup.inFlight {
      popup.pending = notice
      popups[notice.id] = popup
      return
    }
    let next = DBusNotification(
      forwarding: notice, replacesID: 0, firstShowing: false, serverReadsMarkup: serverReadsMarkup)
    if let sent = popup.sent, Self.sameContent(sent, next) { return }
    send(notice, firstShowing: false)
  }

  private func finish(_ id: Int) {
    guard var popup = popups[id] else { return }
    if popup.inFlight {
      popup.finished = true
      popups[id] = popup
      return
    }
    popups[id] = nil
    if let serverID = popup.serverID {
      noticeIDs[serverID] = nil
      closePopup(serverID)
    }
  }

  /// Whether two calls show the same thing (ids and timeouts aside).
  private static func sameContent(_ a: DBusNotification, _ b: DBusNotification) -> Bool {
    a.appName == b.appName && a.summary == b.summary && a.body == b.body && a.actions == b.actions
      && a.hints == b.hints
  }

  private func send(_ notice: Notice, firstShowing: Bool) {
    guard var popup = popups[notice.id] else { return }
    let request = DBusNotification(
      forwarding: notice, replacesID: popup.serverID ?? 0, firstShowing: firstShowing,
      serverReadsMarkup: serverReadsMarkup)
    popup.inFlight = true
    popup.sent = request
    popups[notice.id] = popup
    let id = notice.id
    do {
      try connection.callAsync(
        destination: DBusNames.notifications, path: DBusNames.notificationsPath,
        interface: DBusNames.notificationsInterface, member: DBusNames.Method.notify, activation: activation,
        build: request.append(to:)
      ) { [weak self] result in self?.notified(id, result) }
    } catch {
      log.warning("dbus: Notify for notice \(id) could not be sent: \(error), ignoring")
      popups[id] = nil
      if let serverID = popup.serverID { noticeIDs[serverID] = nil }
    }
  }

  /// The server answered a `Notify`: remember its id, then close or send what came meanwhile.
  private func notified(_ id: Int, _ result: Result<DBusMessage, DBusError>) {
    guard var popup = popups[id] else { return }
    let serverID: UInt32
    do {
      serverID = try result.get().readUInt32()
    } catch {
      log.warning("dbus: Notify for notice \(id) failed: \(error), ignoring")
      popups[id] = nil
      if let old = popup.serverID { noticeIDs[old] = nil }
      return
    }
    if let old = popup.serverID, old != serverID { noticeIDs[old] = nil }
    popup.serverID = serverID
    popup.inFlight = false
    noticeIDs[serverID] = id
    if popup.finished {
      popups[id] = nil
      noticeIDs[serverID] = nil
      closePopup(serverID)
      return
    }
    let pending = popup.pending
    popup.pending = nil
    popups[id] = popup
    if let pending { change(pending) }
  }

  private func closePopup(_ serverID: UInt32) {
    do {
      try connection.callAsync(
        destination: DBusNames.notifications, path: DBusNames.notificationsPath,
        interface: DBusNames.notificationsInterface, member: DBusNames.Method.closeNotification,
        activation: false,
        build: { message throws(DBusError) in try message.append(serverID) }
      ) { [log] result in
        if case .failure(let error) = result {
          log.debug("dbus: CloseNotification(\(serverID)) failed: \(error), ignoring")
        }
      }
    } catch {
      log.debug("dbus: CloseNotification(\(serverID)) could not be sent: \(error), ignoring")
    }
  }

  // MARK: - Signals from the server

  /// `NotificationClosed(u id, u reason)`: reason 2 (the person closed it) finishes the notice as
  /// `dismissed`; any other reason only forgets the popup.
  private func serverClosed(_ message: DBusMessage) {
    guard let serverID = try? message.readUInt32(), let reason = try? message.readUInt32(),
      let id = noticeIDs.removeValue(forKey: serverID)
    else { return }
    let popup = popups.removeValue(forKey: id)
    guard reason == DBusCloseReason.dismissed.rawValue, popup?.invokedOnServer != true else { return }
    service.dismiss(
      DismissParameters(id: id),
      done: logFailure(of: "dbus: notice \(id) closed on the desktop", to: log, refused: .debug) {
        [log] dismissed in
        guard !dismissed.isEmpty else { return }
        log.info(
          "notice \(id) dismissed on the desktop", fields: ["NOTICE_ID": "\(id)", "OUTCOME": "dismissed"])
      })
  }

  /// `ActionInvoked(u id, s action_key)`: invokes the action on the notice.
  private func serverInvoked(_ message: DBusMessage) {
    guard let serverID = try? message.readUInt32(), let key = try? message.readString(),
      let id = noticeIDs[serverID]
    else { return }
    popups[id]?.invokedOnServer = true
    service.invoke(
      InvokeParameters(id: id, action: key),
      done: logFailure(
        of: "dbus: action '\(key)' of notice \(id) chosen on the desktop", to: log, refused: .debug
      ) {
        [log] _ in
        log.info("notice \(id): action '\(key)' chosen on the desktop", fields: ["NOTICE_ID": "\(id)"])
      })
  }
}
