import Dispatch
import Foundation
import NotifyCore
import NotifyProtocol
import NotifySupport

/// What a screen reader asks of a card through its objects' actions: carried out as a click would
/// be (`PopupDisplay`'s requests).
public enum AccessibleRequest: Equatable, Sendable {
  case invoke(id: Int, action: String)
  case dismiss(id: Int)
  /// Snoozed as its card's "Remind me" would.
  case snooze(id: Int)
  case reply(id: Int, text: String)
  /// The center's entry of notice `id`: as Enter on its row (`forget` false), or Delete.
  case centerEntry(id: Int, forget: Bool)
}

/// notifyd as an AT-SPI2 application (DESIGN §18): on the accessibility bus while the session's
/// `org.a11y.Status.IsEnabled` is true, following its changes, with the cards on the screen as
/// objects a screen reader reads (`AccessibleTree`), their buttons pressed through `onRequest`.
///
/// The accessibility bus's address comes from `AT_SPI_BUS_ADDRESS`, else from the bus launcher
/// (`org.a11y.Bus.GetAddress` on the session bus); the root is embedded in the registry
/// (`org.a11y.atspi.Socket.Embed`), again whenever the registry or the launcher comes back. While
/// `IsEnabled` is false nothing is connected to, and nothing sent. Both buses are connections of
/// their own (`BusLink`), on one serial queue.
///
/// - Important: everything mutable, and both connections, belong to `queue`.
public final class AccessibilityBridge: BusLinked, @unchecked Sendable {
  // @unchecked: every mutable property is touched only on `queue`.
  private let log: Logger
  private let environment: [String: String]
  private let version: String
  let queue = DispatchQueue(label: "notifyd.accessibility")
  private lazy var status = AccessibilityStatus(bridge: self, queue: queue, log: log)
  private lazy var link = BusLink(description: "notifyd-accessibility", queue: queue, client: self)
  private var tree = AccessibleTree()
  /// The bus joined, and its connection once the root is embedded.
  private var joined: String?
  private var embedded: DBusConnection?
  /// Whether an `Embed` is on its way: the registry it starts answers it.
  private var embedding = false
  /// The registry's desktop, the root's parent (from `Embed`).
  private var desktop = (name: "", path: AccessibleTree.Names.nullPath)
  /// `Application.Id`, as the registry set it.
  private var applicationID: Int32 = 0
  /// An event listener the registry knows of: whose it is, and the event it listens for (as the
  /// registry writes it: "Object:StateChanged:Showing").
  private struct Listener: Hashable {
    var bus: String
    var event: String
  }
  /// The listeners, as `GetRegisteredEvents` and the registry's signals say.
  private var listeners: Set<Listener> = []
  private var sweepTimer: (any DispatchSourceTimer)?
  private let listening = Locked(false)

  /// Told (on the bridge's queue) what a screen reader asked of a card. Set before `start()`.
  public var onRequest: (@Sendable (AccessibleRequest) -> Void)?

  public init(
    log: Logger, environment: [String: String] = ProcessInfo.processInfo.environment,
    version: String = Interface.version
  ) {
    self.log = log
    self.environment = environment
    self.version = version
  }

  /// Seconds on the monotonic clock.
  static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

  /// Whether a screen reader listens for cards showing (`object:state-changed:showing`): then it
  /// speaks them, and notifyd's own speech keeps quiet.
  public var screenReaderListens: Bool { listening.withLock { $0 } }

  /// Follows the session's accessibility status; returns at once.
  public func start() {
    queue.async { [self] in
      if let address = DBusBridge.sessionBusAddress(environment: environment) {
        status.follow(address)
      } else if let address = busAddressFromEnvironment {
        log.info("accessibility: no session bus; joining AT_SPI_BUS_ADDRESS")
        join(address)
      } else {
        log.info("accessibility: no session bus; screen readers cannot read the cards")
      }
    }
  }

  /// Leaves both buses; waits until it has.
  public func stop() {
    queue.sync {
      status.stop()
      leave()
      sweepTimer?.cancel()
      sweepTimer = nil
    }
  }

  /// The notices whose cards are on the screen, newest first: the tree follows, and tells.
  public func show(_ notices: [Notice]) {
    queue.async { [self] in
      let events = tree.show(notices, at: Self.now())
      tell(events)
      armSweep()
    }
  }

  /// The open center's rows and chosen row, or nil once it closes: the tree follows, and tells.
  public func showCenter(_ outline: CenterOutline?) {
    queue.async { [self] in
      tell(tree.showCenter(outline, at: Self.now()))
      armSweep()
    }
  }

  // MARK: - Joining and leaving

  /// `AT_SPI_BUS_ADDRESS`, when set.
  var busAddressFromEnvironment: String? {
    environment["AT_SPI_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
  }

  /// Joins the accessibility bus at `address` (nothing when joined to it already).
  func join(_ address: String) {
    dispatchPrecondition(condition: .onQueue(queue))
    guard joined != address else { return }
    if joined != nil { link.close() }
    joined = address
    link.connect(to: address)
  }

  /// Leaves the accessibility bus: nothing is sent until it is joined again.
  func leave() {
    dispatchPrecondition(condition: .onQueue(queue))
    guard joined != nil else { return }
    joined = nil
    link.close()
    log.info("accessibility: left the accessibility bus")
  }

  func linked(_ connection: DBusConnection) throws(DBusError) {
    link.keep(
      try connection.addFallback(AccessibleTree.Names.objects) { [weak self] call in
        self?.answer(call, on: connection) ?? false
      })
    let registry = AccessibleTree.Names.registry
    let owner = DBusNames.signalMatch(
      sender: DBusNames.Bus.name, path: DBusNames.Bus.path, interface: DBusNames.Bus.interface,
      member: DBusNames.Bus.nameOwnerChanged, arg0: registry)
    link.keep(
      try connection.addMatch(owner) { [weak self] message in
        // The registry came back: embedded again in the new one (not in the one the first
        // `Embed` started, nor again in the one embedded in).
        guard let self, (try? message.readString()) != nil, (try? message.readString()) != nil,
          let new = try? message.readString(), !new.isEmpty
        else { return }
        queue.async {
          guard !self.embedding, self.desktop.name != new else { return }
          self.embed(on: connection)
        }
      })
    // A listener's connection gone (a screen reader quit or crashed): its events are no longer
    // listened for, whether or not the registry says so.
    let gone =
      "type='signal',sender='\(DBusNames.Bus.name)',member='\(DBusNames.Bus.nameOwnerChanged)',arg2=''"
    link.keep(
      try connection.addMatch(gone) { [weak self] message in
        guard let self, let name = try? message.readString(), listeners.contains(where: { $0.bus == name })
        else {
          return
        }
        listeners = listeners.filter { $0.bus != name }
        listenersChanged()
      })
    for (member, added) in [("EventListenerRegistered", true), ("EventListenerDeregistered", false)] {
      let rule =
        "type='signal',interface='\(AccessibleTree.Names.registryInterface)',member='\(member)'"
      link.keep(
        try connection.addMatch(rule) { [weak self] message in
          guard let self, let bus = try? message.readString(), let event = try? message.readString() else {
            return
          }
          let listener = Listener(bus: bus, event: event)
          if added { listeners.insert(listener) } else { listeners.remove(listener) }
          listenersChanged()
        })
    }
    embed(on: connection)
  }

  func busUnreachable(at address: String, _ error: DBusError, retrying: Bool) {
    log.notice("accessibility: the accessibility bus at \(address) cannot be reached: \(error)")
  }

  func busLost(at address: String, _ error: DBusError) {
    log.notice("accessibility: the accessibility bus went away (\(error)); joining it again")
  }

  func unlinking() {
    embedded = nil
    embedding = false
    desktop = ("", AccessibleTree.Names.nullPath)
    listeners = []
    listenersChanged()
  }

  /// Embeds the root in the registry (which the bus starts if it is not running), then asks which
  /// events are listened for.
  private func embed(on connection: DBusConnection) {
    guard link.isCurrent(connection), let unique = connection.uniqueName else { return }
    embedding = true
    do {
      try connection.callAsync(
        destination: AccessibleTree.Names.registry, path: AccessibleTree.rootPath,
        interface: AccessibleTree.Names.socketInterface, member: "Embed",
        build: { message throws(DBusError) in try message.append(reference: unique, AccessibleTree.rootPath) }
      ) { [weak self] result in
        guard let self, link.isCurrent(connection) else { return }
        embedding = false
        switch result {
        case .success(let reply):
          if let parent = try? reply.readReference() { desktop = parent }
          let first = embedded == nil
          embedded = connection
          if first { log.info("accessibility: the cards are readable on the accessibility bus (\(unique))") }
          askListeners(on: connection)
        case .failure(let error):
          log.notice("accessibility: the registry did not take notifyd's root: \(error)")
        }
      }
    } catch {
      link.lost(error)
    }
  }

  private func askListeners(on connection: DBusConnection) {
    link.call(
      destination: AccessibleTree.Names.registry, path: AccessibleTree.Names.registryPath,
      interface: AccessibleTree.Names.registryInterface, member: "GetRegisteredEvents"
    ) { [weak self] result in
      guard let self, case .success(let reply) = result, let pairs = try? reply.readStringPairs() else {
        return
      }
      listeners = Set(pairs.map { Listener(bus: $0.0, event: $0.1) })
      listenersChanged()
    }
  }

  private func listenersChanged() {
    let now = listeners.contains { Self.hearsShowing($0.event) }
    let before = listening.withLock { value in
      defer { value = now }
      return value
    }
    if before != now {
      log.info(
        now ? "accessibility: a screen reader listens for cards" : "accessibility: no screen reader listens")
    }
  }

  /// Whether a listener for `event` (as the registry writes it, "Object:StateChanged:Showing",
  /// an empty part matching anything) hears a card showing.
  static func hearsShowing(_ event: String) -> Bool {
    let parts = event.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    let wanted = ["Object", "StateChanged", "Showing"]
    for (index, part) in parts.prefix(3).enumerated() where !part.isEmpty && part != wanted[index] {
      return false
    }
    return true
  }

  // MARK: - Telling

  private func tell(_ events: [AccessibleEvent]) {
    guard let connection = embedded, link.isCurrent(connection), let unique = connection.uniqueName else {
      return
    }
    do {
      for event in events {
        switch event {
        case .childrenChanged(let parent, let added, let index, let child):
          try emit(on: connection, path: parent, "ChildrenChanged", added ? "add" : "remove", Int32(index)) {
            message throws(DBusError) in
            try message.append(container: "v", "(so)") { () throws(DBusError) in
              try message.append(reference: unique, child)
            }
          }
        case .stateChanged(let path, let state, let on):
          try emit(on: connection, path: path, "StateChanged", state, on ? 1 : 0) {
            message throws(DBusError) in
            try message.append(container: "v", "i") { () throws(DBusError) in try message.append(Int32(0)) }
          }
        case .propertyChanged(let path, let property, let value):
          try emit(on: connection, path: path, "PropertyChange", property, 0) { message throws(DBusError) in
            try message.append(container: "v", "s") { () throws(DBusError) in try message.append(value) }
          }
        case .valueChanged(let path):
          try emit(on: connection, path: path, "PropertyChange", "accessible-value", 0) {
            message throws(DBusError) in
            try message.append(container: "v", "i") { () throws(DBusError) in try message.append(Int32(0)) }
          }
        case .focused(let path):
          try emit(on: connection, path: path, interface: AccessibleTree.Names.focusEvents, "Focus", "", 0) {
            message throws(DBusError) in
            try message.append(container: "v", "i") { () throws(DBusError) in try message.append(Int32(0)) }
          }
        case .window(let path, let member):
          try emit(on: connection, path: path, interface: AccessibleTree.Names.windowEvents, member, "", 0) {
            message throws(DBusError) in
            try message.append(container: "v", "s") { () throws(DBusError) in
              try message.append(AccessibleTree.centerName)
            }
          }
        }
      }
    } catch {
      link.lost(error)
    }
  }

  /// Emits `<interface>.<member>(detail, detail1, 0, any, {})` from `path`: an
  /// `org.a11y.atspi.Event.Object` event unless another interface is given.
  private func emit(
    on connection: DBusConnection, path: String, interface: String = AccessibleTree.Names.objectEvents,
    _ member: String, _ detail: String, _ detail1: Int32, any: (DBusMessage) throws(DBusError) -> Void
  ) throws(DBusError) {
    try connection.emitSignal(path: path, interface: interface, member: member) {
      message throws(DBusError) in
      try message.append(detail)
      try message.append(detail1)
      try message.append(Int32(0))
      try any(message)
      try message.append(hints: [])
    }
  }

  /// Lets lingering objects go when their time is up: a timer only while some linger.
  private func armSweep() {
    sweepTimer?.cancel()
    sweepTimer = nil
    guard let next = tree.nextSweep else { return }
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(deadline: .now() + max(next - Self.now(), 0) + 0.01)
    timer.setEventHandler { [weak self] in
      guard let self else { return }
      tree.sweep(at: Self.now())
      armSweep()
    }
    timer.resume()
    sweepTimer = timer
  }

  // MARK: - Answering

  /// Answers a call to one of the objects; false for one sd-bus should refuse (an unknown method).
  private func answer(_ call: DBusMessage, on connection: DBusConnection) -> Bool {
    guard link.isCurrent(connection), let path = call.path, let interface = call.interface,
      let member = call.member, let unique = connection.uniqueName
    else { return false }
    var objects = AccessibleObjects(
      tree: tree, unique: unique, desktop: desktop, applicationID: applicationID)
    objects.version = version
    let answer: AccessibleObjects.Answer
    do {
      answer = try objects.answer(path: path, interface: interface, member: member, call: call)
    } catch {
      answer = .error(AccessibleTree.Names.invalidArgs, "\(error)")
    }
    applicationID = objects.applicationID
    do {
      switch answer {
      case .unknown:
        return false
      case .error(let name, let message):
        try connection.replyError(to: call, name: name, message: message)
      case .reply(let build):
        try connection.reply(to: call, build: build)
      case .deed(let deed, let node, let build):
        try connection.reply(to: call, build: build)
        carryOut(deed, of: node, at: path)
      case .typed(let text):
        let taken = tree.setText(text, at: path)
        try connection.reply(to: call) { message throws(DBusError) in try message.append(taken) }
      }
    } catch {
      link.lost(error)
    }
    return true
  }

  private func carryOut(_ deed: AccessibleDeed, of node: AccessibleNode, at path: String) {
    guard let id = node.notice, !node.states.contains(.defunct) else { return }
    switch deed {
    case .invoke(let key): onRequest?(.invoke(id: id, action: key))
    case .dismiss: onRequest?(.dismiss(id: id))
    case .snooze: onRequest?(.snooze(id: id))
    case .openEntry: onRequest?(.centerEntry(id: id, forget: false))
    case .forgetEntry: onRequest?(.centerEntry(id: id, forget: true))
    case .reply:
      guard let text = node.text, !text.isEmpty else { return }
      onRequest?(.reply(id: id, text: text))
    }
  }
}

/// Follows `org.a11y.Status.IsEnabled` on the session bus: the bridge joins the accessibility bus
/// while it is true (the launcher's address, or `AT_SPI_BUS_ADDRESS`), and leaves it once false.
final class AccessibilityStatus: BusLinked {
  private unowned let bridge: AccessibilityBridge
  private let queue: DispatchQueue
  private let log: Logger
  private lazy var link = BusLink(description: "notifyd-accessibility-status", queue: queue, client: self)
  /// What was said last of why the cards are not readable, so that it is said once.
  private var said: String?

  init(bridge: AccessibilityBridge, queue: DispatchQueue, log: Logger) {
    self.bridge = bridge
    self.queue = queue
    self.log = log
  }

  func follow(_ address: String) { link.connect(to: address) }

  func stop() { link.close() }

  func linked(_ connection: DBusConnection) throws(DBusError) {
    let names = AccessibleTree.Names.self
    let changed = DBusNames.signalMatch(
      sender: names.launcher, path: names.launcherPath, interface: DBusNames.Properties.interface,
      member: DBusNames.Properties.propertiesChanged, arg0: names.statusInterface)
    link.keep(try connection.addMatch(changed) { [weak self] _ in self?.read() })
    let owner = DBusNames.signalMatch(
      sender: DBusNames.Bus.name, path: DBusNames.Bus.path, interface: DBusNames.Bus.interface,
      member: DBusNames.Bus.nameOwnerChanged, arg0: names.launcher)
    link.keep(try connection.addMatch(owner) { [weak self] _ in self?.read() })
    read()
  }

  func busUnreachable(at address: String, _ error: DBusError, retrying: Bool) {
    if let address = bridge.busAddressFromEnvironment {
      bridge.join(address)
    } else {
      say("the session bus cannot be reached (\(error)); screen readers cannot read the cards")
    }
  }

  func busLost(at address: String, _ error: DBusError) {}

  func unlinking() {}

  /// Reads `IsEnabled`; joins or leaves as it says.
  private func read() {
    let names = AccessibleTree.Names.self
    link.getProperty(
      destination: names.launcher, path: names.launcherPath, interface: names.statusInterface,
      name: "IsEnabled"
    ) { [weak self] result in
      guard let self else { return }
      switch result {
      case .success(let reply):
        guard (try? reply.readVariant())?.booleanValue == true else {
          say("accessibility is off (org.a11y.Status.IsEnabled): not on the accessibility bus")
          bridge.leave()
          return
        }
        address()
      case .failure(let error):
        if let address = bridge.busAddressFromEnvironment {
          bridge.join(address)
        } else {
          say("no accessibility bus launcher answers (\(error)); screen readers cannot read the cards")
          bridge.leave()
        }
      }
    }
  }

  /// The accessibility bus's address: `AT_SPI_BUS_ADDRESS`, else the launcher's.
  private func address() {
    if let address = bridge.busAddressFromEnvironment {
      said = nil
      bridge.join(address)
      return
    }
    let names = AccessibleTree.Names.self
    link.call(
      destination: names.launcher, path: names.launcherPath, interface: names.launcher, member: "GetAddress"
    ) { [weak self] result in
      guard let self else { return }
      switch result {
      case .success(let reply):
        guard let address = try? reply.readString(), !address.isEmpty else { return }
        said = nil
        bridge.join(address)
      case .failure(let error):
        say("the accessibility bus launcher gave no address (\(error))")
        bridge.leave()
      }
    }
  }

  private func say(_ why: String) {
    guard said != why else { return }
    said = why
    log.info("accessibility: \(why)")
  }
}
