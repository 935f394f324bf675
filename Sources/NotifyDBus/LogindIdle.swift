import Dispatch
import Foundation
import NotifyCore
import NotifyProtocol
import NotifyService
import NotifySupport

/// logind's `IdleHint` for this user: the idle source while the display cannot tell (DESIGN §11),
/// because notifyd draws no popups, the display server has no idle protocol, or it is not
/// connected now.
///
/// The user's object on the system bus (`/org/freedesktop/login1/user/_UID`) has `IdleHint` true
/// when every session of the user is idle, as the desktop says with `SetIdleHint` (GNOME, or
/// swayidle's `idlehint`). Its value is read once started and followed by `PropertiesChanged`; the
/// user logging in or out (`UserNew`, `UserRemoved`) and logind starting again make it read again.
/// `[Idle] After=` sets no delay of its own here: the desktop's idle delay decides when the hint
/// is set. A system bus lost while in use is connected again with a backoff from 0.25 s to 30 s
/// (one not there when started is not tried again); once stopped, the connection is closed.
///
/// - Important: everything mutable, and the connection, belongs to one serial queue.
public final class LogindIdle: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on `busQueue`.
  private let service: NoticeService
  private let log: Logger
  private let environment: [String: String]
  private let userPath: String
  private let uid: UInt32
  private let busQueue = DispatchQueue(label: "notifyd.logind")

  private var active = false
  /// Why the display cannot tell, for `Status` when logind cannot either.
  private var displayReason = ""
  /// Why logind cannot tell either, when it cannot.
  private var problem: String?
  private lazy var link = BusLink(description: "notifyd-idle", queue: busQueue, client: self)
  /// What was last told to the engine.
  private var told: IdleState?

  /// What `Status` names as the source.
  static let source = "logind IdleHint"

  public init(
    service: NoticeService, log: Logger, environment: [String: String] = ProcessInfo.processInfo.environment,
    uid: UInt32 = getuid()
  ) {
    self.service = service
    self.log = log
    self.environment = environment
    self.uid = uid
    userPath = "\(DBusNames.Login.userPathPrefix)\(uid)"
  }

  /// The system bus: `DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket (as
  /// `sd_bus_open_system(3)` looks it up).
  static func systemBusAddress(environment: [String: String]) -> String {
    if let address = environment["DBUS_SYSTEM_BUS_ADDRESS"], !address.isEmpty { return address }
    return "unix:path=/run/dbus/system_bus_socket"
  }

  public func start(because reason: String) {
    busQueue.async { [self] in
      displayReason = reason
      guard !active else {
        if let problem { cannotTell(problem, detail: nil) }
        return
      }
      active = true
      told = nil
      problem = nil
      link.connect(to: Self.systemBusAddress(environment: environment))
    }
  }

  public func stop() {
    busQueue.sync {
      active = false
      link.close()
    }
  }

  /// Matches the user's `PropertiesChanged`, logind's users coming and going, and logind's name
  /// changing owner.
  private func follow(on connection: DBusConnection) throws(DBusError) {
    let changed = DBusNames.signalMatch(
      sender: DBusNames.Login.name, path: userPath, interface: DBusNames.Properties.interface,
      member: DBusNames.Properties.propertiesChanged, arg0: DBusNames.Login.userInterface)
    link.keep(try connection.addMatch(changed) { [weak self] message in self?.propertiesChanged(message) })
    for member in [DBusNames.Login.userNew, DBusNames.Login.userRemoved] {
      let rule = DBusNames.signalMatch(
        sender: DBusNames.Login.name, path: DBusNames.Login.path, interface: DBusNames.Login.managerInterface,
        member: member)
      link.keep(
        try connection.addMatch(rule) { [weak self] message in
          guard let self, (try? message.readUInt32()) == uid else { return }
          busQueue.async { self.readAgain() }
        })
    }
    let owner = DBusNames.signalMatch(
      sender: DBusNames.Bus.name, path: DBusNames.Bus.path, interface: DBusNames.Bus.interface,
      member: DBusNames.Bus.nameOwnerChanged, arg0: DBusNames.Login.name)
    link.keep(
      try connection.addMatch(owner) { [weak self] _ in
        guard let self else { return }
        busQueue.async { self.readAgain() }
      })
  }

  /// Asks for the user's `IdleHint`; the answer (or why there is none) is told when it comes.
  private func readIdleHint() {
    link.getProperty(
      destination: DBusNames.Login.name, path: userPath, interface: DBusNames.Login.userInterface,
      name: DBusNames.Login.idleHint
    ) { [weak self] result in
      guard let self else { return }
      switch result {
      case .success(let reply):
        guard let idle = (try? reply.readVariant())?.booleanValue else {
          cannotTell("logind's IdleHint is not a boolean", detail: nil)
          return
        }
        tell(IdleState(idle: idle, source: Self.source))
      case .failure(.remote(let name, let message)):
        switch name {
        case DBusNames.Login.unknownObject:
          cannotTell("logind has no session of yours", detail: nil)
        case DBusNames.Login.serviceUnknown, DBusNames.Login.nameHasNoOwner:
          cannotTell("logind is not running", detail: nil)
        default:
          cannotTell("logind did not answer", detail: message.isEmpty ? name : message)
        }
      case .failure(let error):
        cannotTell("logind did not answer", detail: "\(error)")
      }
    }
  }

  private func readAgain() {
    guard active else { return }
    readIdleHint()
  }

  /// `PropertiesChanged` on the user (`s a{sv} as`): a new `IdleHint` is told; one invalidated is
  /// read again.
  private func propertiesChanged(_ message: DBusMessage) {
    guard (try? message.readString()) == DBusNames.Login.userInterface,
      let changed = try? message.readHints()
    else { return }
    if let idle = changed[DBusNames.Login.idleHint]?.booleanValue {
      tell(IdleState(idle: idle, source: Self.source))
    } else if (try? message.readStringArray())?.contains(DBusNames.Login.idleHint) == true {
      busQueue.async { [weak self] in self?.readAgain() }
    }
  }

  // MARK: - Telling the engine

  private func tell(_ state: IdleState) {
    guard active, state != told else { return }
    let wasAway = told?.idle == true
    told = state
    problem = nil
    if state.idle {
      log.info("idle: you are away (\(Self.source)); holds stand still")
    } else if wasAway {
      log.info("idle: you are back (\(Self.source))")
    } else if let source = state.source {
      log.info("idle: \(source) tells whether you are away (\(displayReason))")
    }
    service.setIdle(state)
  }

  /// logind cannot tell, for `problem` (with `detail` for the log): nothing does.
  private func cannotTell(_ problem: String, detail: String?) {
    let state = IdleState(noSourceBecause: "\(displayReason); \(problem)")
    guard active, state != told else { return }
    if self.problem != problem {
      log.info("idle: \(problem)\(detail.map { " (\($0))" } ?? ""); holds run on while you are away")
    }
    self.problem = problem
    told = state
    service.setIdle(state)
  }
}

extension LogindIdle: BusLinked {
  func linked(_ connection: DBusConnection) throws(DBusError) {
    try follow(on: connection)
    readIdleHint()
  }

  func busUnreachable(at address: String, _ error: DBusError, retrying: Bool) {
    cannotTell("no system bus at \(address)", detail: "\(error)")
  }

  func busLost(at address: String, _ error: DBusError) {
    cannotTell("lost the system bus at \(address)", detail: "\(error)")
  }

  func unlinking() {}
}
