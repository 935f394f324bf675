import Dispatch
import NotifySupport

/// What a client of a bus does as its `BusLink` connects and loses the bus; called on the link's
/// queue.
protocol BusLinked: AnyObject {
  /// Sets up what the client does on a new connection: matches, first calls, a server. Any step
  /// may find the bus gone (the link has then torn down); a step after one that may have lost it
  /// asks `isCurrent` first.
  func linked(_ connection: DBusConnection) throws(DBusError)
  /// The bus could not be reached at `address`; `retrying`: it answered before, and the link
  /// tries again.
  func busUnreachable(at address: String, _ error: DBusError, retrying: Bool)
  /// The bus went away under the client: what it held is released (`unlinking`), and the link
  /// tries again.
  func busLost(at address: String, _ error: DBusError)
  /// Releases what the client holds on the connection (a server, a forwarder), before the link
  /// cancels the client's matches and closes it.
  func unlinking()
}

/// A client's connection to one bus, kept up: the steps every client of a bus takes, written once.
/// It opens the connection, hears of the bus going away, starts reading, and lets the client set
/// up; when the bus goes away it tears down and connects again with a backoff from 0.25 s to 30 s
/// (`RetryTimer`), but only to a bus that answered since the link was made or last closed: one
/// never reached (a host or a container without it) is not tried again.
///
/// - Important: used only on `queue`, the client's serial queue, which owns the connection.
final class BusLink {
  private let description: String
  private let queue: DispatchQueue
  private unowned let client: any BusLinked
  private lazy var retry = RetryTimer(queue: queue)
  private var address: String?
  private var everConnected = false
  /// The connection the client is set up on, or being set up on.
  private var connection: DBusConnection?
  /// The client's matches on `connection`, cancelled as it goes.
  private var matches: [DBusConnection.Slot] = []

  /// A link for `client` (which owns it), naming its connection `description` on the bus.
  init(description: String, queue: DispatchQueue, client: any BusLinked) {
    self.description = description
    self.queue = queue
    self.client = client
  }

  /// The connection, while it is open.
  var open: DBusConnection? { connection?.isOpen == true ? connection : nil }

  /// Whether `connection` is the current one: what comes from an older one is ignored.
  func isCurrent(_ connection: DBusConnection) -> Bool { self.connection === connection }

  /// Connects to the bus at `address` and sets the client up on it.
  func connect(to address: String) {
    dispatchPrecondition(condition: .onQueue(queue))
    retry.cancel()
    self.address = address
    let connection: DBusConnection
    do {
      connection = try DBusConnection.open(address: address, description: description, queue: queue)
    } catch {
      client.busUnreachable(at: address, error, retrying: everConnected)
      if everConnected { scheduleReconnect() }
      return
    }
    everConnected = true
    connection.onDisconnect = { [weak self] error in self?.lost(error) }
    self.connection = connection
    connection.activate()
    guard isCurrent(connection) else { return }
    do {
      try client.linked(connection)
    } catch {
      if isCurrent(connection) { lost(error) }
      return
    }
    if isCurrent(connection) { retry.reset() }
  }

  /// Calls a method of `destination` on the open connection (nothing while there is none), without
  /// activating it: `reply` hears the answer only while that connection is still the current one,
  /// and a call the bus refuses at once loses the connection (`lost`).
  func call(
    destination: String, path: String, interface: String, member: String,
    build: (DBusMessage) throws(DBusError) -> Void = { _ in },
    reply: @escaping (Result<DBusMessage, DBusError>) -> Void
  ) {
    guard let connection = open else { return }
    do {
      try connection.callAsync(
        destination: destination, path: path, interface: interface, member: member, activation: false,
        build: build
      ) { [weak self] result in
        guard let self, isCurrent(connection) else { return }
        reply(result)
      }
    } catch {
      lost(error)
    }
  }

  /// Reads property `name` of `interface` on `path` of `destination` (`Properties.Get`), as `call`
  /// does: `reply` has the variant to read.
  func getProperty(
    destination: String, path: String, interface: String, name: String,
    reply: @escaping (Result<DBusMessage, DBusError>) -> Void
  ) {
    call(
      destination: destination, path: path, interface: DBusNames.Properties.interface,
      member: DBusNames.Properties.get,
      build: { message throws(DBusError) in
        try message.append(interface)
        try message.append(name)
      }, reply: reply)
  }

  /// Keeps a match of the client's until the connection goes.
  func keep(_ slot: DBusConnection.Slot) {
    matches.append(slot)
  }

  /// The bus went away, or failed the client (a call, or setting up): torn down, and connected
  /// again.
  func lost(_ error: DBusError) {
    guard connection != nil, let address else { return }
    tearDown()
    client.busLost(at: address, error)
    scheduleReconnect()
  }

  /// Closes the connection for good: no attempt follows, and the next `connect` starts over (a bus
  /// it does not reach then is not tried again).
  func close() {
    retry.cancel()
    retry.reset()
    everConnected = false
    tearDown()
  }

  private func tearDown() {
    client.unlinking()
    for slot in matches { slot.cancel() }
    matches = []
    connection?.close()
    connection = nil
  }

  private func scheduleReconnect() {
    retry.schedule { [weak self] in
      guard let self, let address else { return }
      connect(to: address)
    }
  }
}
