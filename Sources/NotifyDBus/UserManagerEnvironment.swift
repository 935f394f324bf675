import Dispatch
import Foundation
import NotifySupport

/// The environment of the user's service manager (`systemd --user`), which a graphical session
/// exports `WAYLAND_DISPLAY` and `DISPLAY` to (`systemctl --user import-environment`,
/// `dbus-update-activation-environment --systemd`): a daemon the manager started before the
/// session learns from it where to draw.
///
/// systemd sends no signal when its `Environment` changes (it is not marked as emitting one), so
/// the property is read when something says the session may have changed: once connected, on the
/// manager's signals (`Subscribe`d: a job done, such as a session's `graphical-session.target`
/// starting or stopping, and a reload), on the manager's name changing owner, and when the caller
/// asks (`readAgain()`: a display's socket appeared). One read is in flight at a time; asks that
/// come meanwhile make one more. `changed` hears every answer that differs from the one before.
/// A bus lost while in use is connected again with a backoff from 0.25 s to 30 s; one not there
/// when started is not tried again.
///
/// - Important: everything mutable, and the connection, belongs to one serial queue.
public final class UserManagerEnvironment: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on `busQueue`.
  private let log: Logger
  private let address: String?
  private let changed: @Sendable ([String]) -> Void
  private let busQueue = DispatchQueue(label: "notifyd.session")

  private var active = false
  private lazy var link = BusLink(description: "notifyd-session", queue: busQueue, client: self)
  /// A read is in flight; `again` makes one more once it is answered.
  private var reading = false
  private var again = false
  /// The manager's environment as last read.
  private var last: [String]?
  /// Why the manager could not be read, said once until it can.
  private var problem: String?

  /// Reads the manager on the session bus `environment` names (`DBUS_SESSION_BUS_ADDRESS`, else
  /// `$XDG_RUNTIME_DIR/bus`); `changed` runs on the watch's queue.
  public init(
    log: Logger, environment: [String: String] = ProcessInfo.processInfo.environment,
    changed: @escaping @Sendable ([String]) -> Void
  ) {
    self.log = log
    self.changed = changed
    address = DBusBridge.sessionBusAddress(environment: environment)
  }

  /// Connects in the background and reads the environment; returns at once.
  public func start() {
    busQueue.async { [self] in
      guard !active else { return }
      active = true
      guard let address else {
        report("no session bus (neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set)")
        return
      }
      link.connect(to: address)
    }
  }

  /// Reads the manager's environment again (a display socket appeared, and the session may
  /// export it any moment).
  public func readAgain() {
    busQueue.async { [self] in read() }
  }

  /// Closes the connection; waits until it is done.
  public func stop() {
    busQueue.sync {
      active = false
      link.close()
    }
  }

  /// Matches the manager's signals and its name changing owner, and subscribes to the signals.
  private func follow(on connection: DBusConnection) throws(DBusError) {
    let names = DBusNames.UserManager.self
    for member in [names.jobRemoved, names.reloading] {
      let rule = DBusNames.signalMatch(
        sender: names.name, path: names.path, interface: names.interface, member: member)
      link.keep(try connection.addMatch(rule) { [weak self] _ in self?.readSoon() })
    }
    let owner = DBusNames.signalMatch(
      sender: DBusNames.Bus.name, path: DBusNames.Bus.path, interface: DBusNames.Bus.interface,
      member: DBusNames.Bus.nameOwnerChanged, arg0: names.name)
    link.keep(
      try connection.addMatch(owner) { [weak self] message in
        _ = try? message.readString()
        _ = try? message.readString()
        // A manager that came back (after `daemon-reexec`) sends to subscribers only.
        guard let self, let owner = try? message.readString(), !owner.isEmpty else { return }
        busQueue.async { self.subscribe() }
      })
    subscribe()
  }

  /// Asks the manager to send its signals; then reads the environment.
  private func subscribe() {
    guard active else { return }
    let names = DBusNames.UserManager.self
    link.call(destination: names.name, path: names.path, interface: names.interface, member: names.subscribe)
    {
      [weak self] result in
      guard let self else { return }
      if case .failure(let error) = result {
        report("the user's service manager does not answer on the session bus (\(error))")
      }
      read()
    }
  }

  /// From a signal's handler, inside sd-bus's processing: read once it has returned.
  private func readSoon() {
    busQueue.async { [weak self] in self?.read() }
  }

  private func read() {
    guard active, link.open != nil else { return }
    guard !reading else {
      again = true
      return
    }
    reading = true
    again = false
    let names = DBusNames.UserManager.self
    // A call the bus refuses at once loses the connection, and `unlinking` ends the reading.
    link.getProperty(
      destination: names.name, path: names.path, interface: names.interface, name: names.environment
    ) { [weak self] result in
      guard let self else { return }
      reading = false
      switch result {
      case .success(let reply):
        if let assignments = try? reply.readStringArrayVariant() {
          problem = nil
          if assignments != last {
            last = assignments
            changed(assignments)
          }
        } else {
          report("the user's service manager's Environment is not an array of strings")
        }
      case .failure(let error):
        report("cannot read the user's service manager's environment (\(error))")
      }
      if again { read() }
    }
  }

  private func report(_ problem: String) {
    guard problem != self.problem else { return }
    self.problem = problem
    log.info("session: \(problem); drawing where notifyd was started")
  }
}

extension UserManagerEnvironment: BusLinked {
  func linked(_ connection: DBusConnection) throws(DBusError) {
    try follow(on: connection)
    read()
  }

  func busUnreachable(at address: String, _ error: DBusError, retrying: Bool) {
    report("no session bus at \(address) (\(error))")
  }

  func busLost(at address: String, _ error: DBusError) {
    report("lost the session bus (\(error))")
  }

  func unlinking() {
    reading = false
  }
}
