import Dispatch
import Foundation
import NotifyConfig
import NotifyCore
import NotifyIcons
import NotifyProtocol
import NotifyService
import NotifySupport

/// What of the config the notification server reads as it serves, kept current across reloads.
public struct DBusServerSettings: Sendable, Equatable {
  /// `[DBus] IgnoreClose=`: a `CloseNotification` this soon after its `Notify` is ignored.
  public var ignoreClose: Double
  /// `[Sound] Enabled=`: `GetCapabilities` then lists `sound`.
  public var soundEnabled: Bool
  /// `[Display] IconTheme=`: where icon names are looked up.
  public var iconTheme: String

  public init(ignoreClose: Double = 0, soundEnabled: Bool = false, iconTheme: String = "Adwaita") {
    self.ignoreClose = ignoreClose
    self.soundEnabled = soundEnabled
    self.iconTheme = iconTheme
  }

  public init(config: Config) {
    self.init(
      ignoreClose: config.dbusIgnoreClose, soundEnabled: config.sound.enabled,
      iconTheme: config.display.iconTheme)
  }
}

/// The desktop bridge (`[DBus] Mode=`): connects to the session bus and runs the forwarder or the
/// notification server on it.
///
/// - `forward`: forwards visible notices to the server that owns `org.freedesktop.Notifications`
///   (or that D-Bus activation starts); a new owner gets the visible notices again.
/// - `auto`: forwards while a server owns the name (checked with `NameHasOwner`, then followed
///   through `NameOwnerChanged`), never activating one; with no other server, serves the name
///   itself while notifyd draws popups (`setPopupsDrawable`); else does nothing.
/// - `server`: owns the name itself; when another connection holds it, logs who and runs on
///   without D-Bus.
/// - `off`: never connects.
///
/// No session bus at start is logged once and the daemon runs on without D-Bus. A bus lost later
/// (dbus-daemon restarted) is logged, and the bridge reconnects with a backoff from 0.25 s up to
/// 30 s.
///
/// - Important: everything mutable, and the sd-bus connection, is owned by one serial queue.
public final class DBusBridge: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on `busQueue`.
  private let mode: DBusMode
  /// What the server answers and ignores, as the config in force says: readable from any thread.
  private let settings: Locked<DBusServerSettings>
  private let service: NoticeService
  private var notices: any NoticeReading { service.notices }
  private let log: Logger
  private let environment: [String: String]
  /// Where the server keeps icons that come as pixels: the popups' cache, handed in by the daemon.
  private let icons: any IconStore

  /// A thread of its own (not `daemonSerial`): a call to a peer that hangs blocks it for seconds.
  private let busQueue = DispatchQueue(label: "notifyd.dbus")
  private lazy var link = BusLink(description: "notifyd", queue: busQueue, client: self)
  private var forwarder: DBusForwarder?
  private var server: DBusNotificationServer?
  private var subscription: NoticeQueue.Subscription?
  /// The bus was lost, and has not been reached again since.
  private var reconnecting = false

  /// Told (on the bus's queue) whether notices are being forwarded to another server: popups in
  /// `[Display] Mode=auto` stand aside meanwhile. Set before `start()`.
  public var onForwardingChanged: (@Sendable (Bool) -> Void)?
  /// Whether popups are drawn: `auto` then serves the name itself when no other server holds it
  /// (DESIGN §7).
  private var popupsDrawable = false
  private var forwarding = false

  /// A bridge in `mode` for `service`'s queue; `Notify` calls are answered once committed.
  public init(
    mode: DBusMode, settings: DBusServerSettings = DBusServerSettings(), service: NoticeService,
    icons: any IconStore, log: Logger, environment: [String: String] = ProcessInfo.processInfo.environment
  ) {
    self.mode = mode
    self.icons = icons
    self.settings = Locked(settings)
    self.service = service
    self.log = log
    self.environment = environment
  }

  /// Puts a reloaded config's `[DBus] IgnoreClose=` and `[Sound]` in force.
  public func update(_ settings: DBusServerSettings) {
    self.settings.withLock { $0 = settings }
  }

  /// Connects in the background; returns at once.
  public func start() {
    guard mode != .off else {
      log.debug("dbus: [DBus] Mode=off, not connecting")
      return
    }
    busQueue.async { [self] in connect() }
  }

  /// Popups can be drawn now (or no longer): in `auto`, with no other server on the bus, notifyd
  /// becomes the desktop's notification server, so that `notify-send` reaches its popups.
  public func setPopupsDrawable(_ drawable: Bool) {
    busQueue.async { [self] in
      popupsDrawable = drawable
      guard mode == .auto, drawable, forwarder == nil, server == nil, let connection = link.open else {
        return
      }
      serveForPopups(on: connection)
    }
  }

  /// `auto` with popups and no other server: serve the name ourselves.
  private func serveForPopups(on connection: DBusConnection) {
    do {
      try startServer(on: connection)
    } catch {
      log.warning("dbus: cannot serve \(DBusNames.notifications): \(error)")
    }
  }

  /// Tells `onForwardingChanged` again whether notices are being forwarded, for popups started anew.
  public func reportForwarding() {
    busQueue.async { [self] in onForwardingChanged?(forwarding) }
  }

  private func forwardingChanged() {
    let now = forwarder != nil
    guard now != forwarding else { return }
    forwarding = now
    onForwardingChanged?(now)
  }

  /// The session bus: `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus` (as
  /// `sd_bus_open_user(3)` looks it up).
  static func sessionBusAddress(environment: [String: String]) -> String? {
    if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
    if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return "unix:path=\(runtime)/bus" }
    return nil
  }

  // MARK: - Connecting

  private func connect() {
    guard let address = Self.sessionBusAddress(environment: environment) else {
      log.info("dbus: no session bus (\(DBusError.noAddress)); running without D-Bus")
      return
    }
    link.connect(to: address)
  }

  private func startServer(on connection: DBusConnection) throws(DBusError) {
    let settings = settings
    let server = DBusNotificationServer(
      connection: connection, service: service, icons: icons, log: log,
      settings: { settings.withLock { $0 } },
      popupsDrawn: { [unowned self] in popupsDrawable },
      // The theme the popups look names up in too, read when the first name comes.
      iconTheme: { [unowned self] in
        IconTheme.named(settings.withLock { $0.iconTheme }, environment: environment)
      })
    do {
      try server.start()
    } catch .system(_, let errno) where errno == EEXIST {
      log.warning(
        "dbus: \(DBusNames.notifications) is held by \(describeOwner(of: DBusNames.notifications, on: connection)); serving the socket without D-Bus"
      )
      giveUp()
      return
    }
    self.server = server
    log.info("dbus: serving \(DBusNames.notifications) on \(connection.address)")
  }

  private func startForwarding(on connection: DBusConnection) throws(DBusError) {
    let rule = DBusNames.signalMatch(
      sender: DBusNames.Bus.name, path: DBusNames.Bus.path, interface: DBusNames.Bus.interface,
      member: DBusNames.Bus.nameOwnerChanged, arg0: DBusNames.notifications)
    let ownerWatch = try connection.addMatch(rule) { [weak self] message in
      _ = try? message.readString()
      _ = try? message.readString()
      let owner = (try? message.readString()) ?? ""
      // Out of sd_bus_process: starting the forwarder makes a synchronous call.
      guard let self else { return }
      busQueue.async { self.serverChanged(owner: owner) }
    }
    link.keep(ownerWatch)
    let owned = try connection.call(
      destination: DBusNames.Bus.name, path: DBusNames.Bus.path, interface: DBusNames.Bus.interface,
      member: DBusNames.Bus.nameHasOwner,
      build: { message throws(DBusError) in try message.append(DBusNames.notifications) }
    ) { message throws(DBusError) in
      try message.readBool()
    }
    if owned || mode == .forward {
      try startForwarder(on: connection, ownerPresent: owned)
    } else if popupsDrawable {
      try startServer(on: connection)
    } else {
      log.info("dbus: no notification server on the session bus; forwarding starts when one appears")
    }
  }

  private func startForwarder(on connection: DBusConnection, ownerPresent: Bool) throws(DBusError) {
    let forwarder = DBusForwarder(
      connection: connection, service: service, log: log, activation: mode == .forward)
    try forwarder.start()
    self.forwarder = forwarder
    forwardingChanged()
    if ownerPresent {
      log.info(
        "dbus: forwarding notices to \(DBusNames.notifications), held by \(describeOwner(of: DBusNames.notifications, on: connection))"
      )
    } else {
      log.info("dbus: forwarding notices to \(DBusNames.notifications) (no server on the bus yet)")
    }
  }

  /// `NameOwnerChanged` for `org.freedesktop.Notifications`: a new server gets the visible notices;
  /// without one, `auto` stops forwarding.
  private func serverChanged(owner: String) {
    guard let connection = link.open, server == nil else { return }
    forwarder?.stop()
    forwarder = nil
    forwardingChanged()
    if owner.isEmpty {
      log.info("dbus: the notification server left the session bus")
      if mode == .auto && popupsDrawable {
        serveForPopups(on: connection)
        return
      }
      guard mode == .forward else { return }
    }
    do {
      try startForwarder(on: connection, ownerPresent: !owner.isEmpty)
    } catch {
      log.warning("dbus: cannot forward to the new notification server: \(error), ignoring")
    }
  }

  /// Who holds `name`: its unique name, pid and command, from `GetNameOwner`,
  /// `GetConnectionUnixProcessID` and `/proc/PID/comm`.
  private func describeOwner(of name: String, on connection: DBusConnection) -> String {
    func ask<T>(_ member: String, _ argument: String, _ read: (DBusMessage) throws(DBusError) -> T) -> T? {
      try? connection.call(
        destination: DBusNames.Bus.name, path: DBusNames.Bus.path, interface: DBusNames.Bus.interface,
        member: member, build: { message throws(DBusError) in try message.append(argument) }, read: read)
    }
    guard
      let unique = ask(
        DBusNames.Bus.getNameOwner, name, { message throws(DBusError) in try message.readString() })
    else { return "another connection" }
    guard
      let pid = ask(
        DBusNames.Bus.getConnectionUnixProcessID, unique,
        { message throws(DBusError) in try message.readUInt32() })
    else { return unique }
    let command = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
      .trimmingCharacters(in: .whitespacesAndNewlines)
    return "\(unique) (pid \(pid)\(command.map { ", \($0)" } ?? ""))"
  }

  /// The engine's events, to whichever of the forwarder and the server runs.
  private func route(_ event: Event) {
    forwarder?.handle(event)
    server?.handle(event)
  }
}

// MARK: - Connecting and losing the bus

extension DBusBridge: BusLinked {
  func linked(_ connection: DBusConnection) throws(DBusError) {
    switch mode {
    case .server: try startServer(on: connection)
    case .forward, .auto: try startForwarding(on: connection)
    case .off: return
    }
    // Each step may find the bus gone, or give up on it (the name is held).
    guard link.isCurrent(connection) else { return }
    if reconnecting { log.notice("dbus: reconnected to the session bus at \(connection.address)") }
    reconnecting = false
    if subscription == nil {
      subscription = try? notices.watch { [weak self] event in
        guard let self else { return }
        busQueue.async { self.route(event) }
      }
    }
  }

  func busUnreachable(at address: String, _ error: DBusError, retrying: Bool) {
    if retrying {
      log.debug("dbus: reconnecting to \(address) failed: \(error)")
    } else {
      log.info("dbus: no session bus at \(address) (\(error)); running without D-Bus")
    }
  }

  func busLost(at address: String, _ error: DBusError) {
    if !reconnecting {
      log.warning(
        "dbus: lost the session bus at \(address) (\(error)); the socket is still served, reconnecting")
    }
    reconnecting = true
  }

  func unlinking() {
    forwarder?.stop()
    forwarder = nil
    forwardingChanged()
    server?.stop()
    server = nil
  }

  /// Runs on without D-Bus for good.
  private func giveUp() {
    link.close()
    subscription?.cancel()
    subscription = nil
  }
}
