import CNotifyBus
import Dispatch

#if canImport(Glibc)
  import Glibc
#endif

/// A connection to a message bus through sd-bus, driven by Dispatch sources on one serial queue: a
/// read source on `sd_bus_get_fd`, a write source while `sd_bus_get_events` asks for `POLLOUT`, and
/// a timer for `sd_bus_get_timeout`; every wakeup loops `sd_bus_process`.
///
/// - Important: sd-bus is not thread-safe. Every method must be called on `queue`, and every
///   handler runs there. With nothing to send and no reply pending no timer is armed: an idle
///   connection costs no wakeups. When the bus goes away, `onDisconnect` is called once.
final class DBusConnection: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on `queue`.

  /// A registration on the bus (a match rule, an object); `cancel()` removes it.
  final class Slot: @unchecked Sendable {
    // @unchecked: used only on the connection's queue.
    private var pointer: OpaquePointer?

    fileprivate init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// Removes the registration; wraps `sd_bus_slot_unref(3)`.
    func cancel() {
      if let pointer { sd_bus_slot_unref(pointer) }
      pointer = nil
    }
  }

  /// A Swift closure answering method calls, handed to sd-bus as `userdata`.
  private final class CallHandler {
    let body: (DBusMessage) -> Bool
    init(_ body: @escaping (DBusMessage) -> Bool) { self.body = body }
  }

  /// A Swift closure handed to sd-bus as `userdata`; the slot's destroy callback releases it.
  private final class MessageHandler {
    let body: (DBusMessage) -> Void
    init(_ body: @escaping (DBusMessage) -> Void) { self.body = body }
  }

  /// A pointer that crosses into a Dispatch block on the connection's own queue.
  private struct BusPointer: @unchecked Sendable {
    // @unchecked: used only on the connection's queue.
    let pointer: OpaquePointer
  }

  let queue: DispatchQueue
  /// The address connected to, for messages.
  let address: String
  /// Called once, on `queue`, when the bus goes away under the connection (never after `close()`).
  var onDisconnect: ((DBusError) -> Void)?
  private var bus: OpaquePointer?
  private var readSource: (any DispatchSourceRead)?
  private var writeSource: (any DispatchSourceWrite)?
  private var timer: (any DispatchSourceTimer)?
  /// Every source ever made; the bus is unreferenced only once all of them are cancelled, so that
  /// no source watches a closed descriptor.
  private let sources = DispatchGroup()
  private var processingScheduled = false

  private init(bus: OpaquePointer, address: String, queue: DispatchQueue) {
    self.bus = bus
    self.address = address
    self.queue = queue
  }

  /// Connects to the bus at `address` as a bus client; authentication and `Hello` finish as the
  /// queue runs. Wraps `sd_bus_new(3)`, `sd_bus_set_address(3)`, `sd_bus_set_bus_client(3)` and
  /// `sd_bus_start(3)`.
  static func open(address: String, description: String, queue: DispatchQueue) throws(DBusError)
    -> DBusConnection
  {
    var created: OpaquePointer?
    try DBusError.check(sd_bus_new(&created), "sd_bus_new")
    guard let bus = created else { throw .system(call: "sd_bus_new", errno: ENOMEM) }
    do throws(DBusError) {
      try DBusError.check(sd_bus_set_address(bus, address), "sd_bus_set_address")
      try DBusError.check(sd_bus_set_bus_client(bus, 1), "sd_bus_set_bus_client")
      try DBusError.check(sd_bus_set_description(bus, description), "sd_bus_set_description")
      try DBusError.check(sd_bus_start(bus), "sd_bus_start")
    } catch {
      sd_bus_unref(bus)
      throw error
    }
    return DBusConnection(bus: bus, address: address, queue: queue)
  }

  /// Starts watching the connection's descriptor and processes what is already there.
  func activate() {
    dispatchPrecondition(condition: .onQueue(queue))
    guard let bus, readSource == nil else { return }
    let fd = sd_bus_get_fd(bus)
    guard fd >= 0 else {
      disconnected(.system(call: "sd_bus_get_fd", errno: -fd))
      return
    }
    let read = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
    read.setEventHandler { [weak self] in self?.process() }
    track(read)
    readSource = read
    read.activate()
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.setEventHandler { [weak self] in self?.process() }
    timer.schedule(deadline: .distantFuture)
    track(timer)
    self.timer = timer
    timer.activate()
    process()
  }

  /// Whether the connection is still open.
  var isOpen: Bool { bus != nil }

  /// Closes the connection without calling `onDisconnect`. Registrations still held keep the
  /// sd-bus object alive until they are cancelled, but the socket closes. Wraps
  /// `sd_bus_close_unref(3)`.
  func close() {
    dispatchPrecondition(condition: .onQueue(queue))
    guard let bus else { return }
    self.bus = nil
    onDisconnect = nil
    readSource?.cancel()
    writeSource?.cancel()
    timer?.cancel()
    readSource = nil
    writeSource = nil
    timer = nil
    let closing = BusPointer(pointer: bus)
    sources.notify(queue: queue) { sd_bus_close_unref(closing.pointer) }
  }

  // MARK: - Driving sd-bus

  private func track(_ source: any DispatchSourceProtocol) {
    sources.enter()
    source.setCancelHandler { [sources] in sources.leave() }
  }

  /// Loops `sd_bus_process(3)` until it has nothing more to do, then re-arms the sources for what
  /// `sd_bus_get_events(3)` and `sd_bus_get_timeout(3)` ask for.
  private func process() {
    processingScheduled = false
    for _ in 0..<64 {
      guard let bus else { return }
      let result = sd_bus_process(bus, nil)
      // A handler may have closed the connection.
      guard self.bus != nil else { return }
      if result < 0 {
        disconnected(.system(call: "sd_bus_process", errno: -result))
        return
      }
      if result == 0 {
        rearm()
        return
      }
    }
    // Plenty more queued: let other work on the queue run first.
    scheduleProcessing()
  }

  /// Runs `process()` soon, once, after the work in hand: after a message was queued for sending
  /// (so that a full socket arms the write source) or a synchronous call read messages ahead.
  private func scheduleProcessing() {
    guard !processingScheduled, bus != nil else { return }
    processingScheduled = true
    queue.async { [weak self] in self?.process() }
  }

  private func rearm() {
    guard let bus else { return }
    if sd_bus_is_open(bus) <= 0 {
      disconnected(.system(call: "sd_bus_is_open", errno: ECONNRESET))
      return
    }
    let events = sd_bus_get_events(bus)
    guard events >= 0 else {
      disconnected(.system(call: "sd_bus_get_events", errno: -events))
      return
    }
    if events & Int32(POLLOUT) != 0 {
      if writeSource == nil, readSource != nil {
        let write = DispatchSource.makeWriteSource(fileDescriptor: sd_bus_get_fd(bus), queue: queue)
        write.setEventHandler { [weak self] in self?.process() }
        track(write)
        writeSource = write
        write.activate()
      }
    } else if let write = writeSource {
      write.cancel()
      writeSource = nil
    }
    var deadline: UInt64 = 0
    if sd_bus_get_timeout(bus, &deadline) > 0, deadline != UInt64.max {
      var now = timespec()
      clock_gettime(CLOCK_MONOTONIC, &now)
      let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
      let delay = deadline > nowMicroseconds ? deadline - nowMicroseconds : 0
      timer?.schedule(deadline: .now() + .microseconds(Int(min(delay, UInt64(Int32.max)))))
    } else {
      timer?.schedule(deadline: .distantFuture)
    }
  }

  private func disconnected(_ error: DBusError) {
    let handler = onDisconnect
    close()
    handler?(error)
  }

  private func requireBus() throws(DBusError) -> OpaquePointer {
    dispatchPrecondition(condition: .onQueue(queue))
    guard let bus else { throw .system(call: "sd_bus", errno: ENOTCONN) }
    return bus
  }

  // MARK: - Method calls

  /// A new method call; wraps `sd_bus_message_new_method_call(3)`.
  private func newMethodCall(
    _ bus: OpaquePointer, destination: String, path: String, interface: String, member: String
  ) throws(DBusError) -> OpaquePointer {
    var message: OpaquePointer?
    try DBusError.check(
      sd_bus_message_new_method_call(bus, &message, destination, path, interface, member),
      "sd_bus_message_new_method_call \(member)")
    guard let message else { throw .system(call: "sd_bus_message_new_method_call", errno: ENOMEM) }
    return message
  }

  /// Calls `member` and reads the reply with `read`, blocking the queue until the reply comes or
  /// `timeout` seconds pass. For start-up questions to the bus itself; wraps `sd_bus_call(3)`.
  func call<T>(
    destination: String, path: String, interface: String, member: String, timeout: Double = 5,
    build: (DBusMessage) throws(DBusError) -> Void = { _ in },
    read: (DBusMessage) throws(DBusError) -> T
  ) throws(DBusError) -> T {
    let bus = try requireBus()
    let message = try newMethodCall(
      bus, destination: destination, path: path, interface: interface, member: member)
    defer { sd_bus_message_unref(message) }
    try build(DBusMessage(pointer: message))
    var error = sd_bus_error()
    var reply: OpaquePointer?
    let result = sd_bus_call(bus, message, UInt64(timeout * 1_000_000), &error, &reply)
    defer {
      sd_bus_error_free(&error)
      if let reply { sd_bus_message_unref(reply) }
    }
    // sd_bus_call may have read other messages ahead: they wait in sd-bus, not on the socket.
    scheduleProcessing()
    guard result >= 0, let reply else {
      if sd_bus_error_is_set(&error) != 0 {
        throw .remote(
          name: error.name.map { String(cString: $0) } ?? DBusNames.ErrorName.failed,
          message: error.message.map { String(cString: $0) } ?? "")
      }
      throw .system(call: "sd_bus_call \(member)", errno: -result)
    }
    return try read(DBusMessage(pointer: reply))
  }

  /// Calls `member` without waiting; `reply` runs on the queue with the reply or the error (a
  /// timeout after `timeout` seconds, 0 for sd-bus's 25 s). Without `activation` the bus does not
  /// start a server to answer. Wraps `sd_bus_call_async(3)`.
  func callAsync(
    destination: String, path: String, interface: String, member: String, activation: Bool = true,
    timeout: Double = 0, build: (DBusMessage) throws(DBusError) -> Void,
    reply: @escaping (Result<DBusMessage, DBusError>) -> Void
  ) throws(DBusError) {
    let bus = try requireBus()
    let message = try newMethodCall(
      bus, destination: destination, path: path, interface: interface, member: member)
    defer { sd_bus_message_unref(message) }
    if !activation { sd_bus_message_set_auto_start(message, 0) }
    try build(DBusMessage(pointer: message))
    let handler = Unmanaged.passRetained(
      MessageHandler { message in
        if let error = message.error { reply(.failure(error)) } else { reply(.success(message)) }
      })
    var slot: OpaquePointer?
    let result = sd_bus_call_async(
      bus, &slot, message, Self.messageTrampoline, handler.toOpaque(), UInt64(timeout * 1_000_000))
    guard result >= 0, let slot else {
      handler.release()
      throw .system(call: "sd_bus_call_async \(member)", errno: result < 0 ? -result : ENOMEM)
    }
    sd_bus_slot_set_destroy_callback(slot, Self.releaseHandler)
    // A floating slot belongs to the bus: it is freed when the reply has been handled.
    sd_bus_slot_set_floating(slot, 1)
    sd_bus_slot_unref(slot)
    scheduleProcessing()
  }

  // MARK: - Signals, names, objects

  /// Calls `handler` for every message matching `rule`; the match is installed without waiting.
  /// Wraps `sd_bus_add_match_async(3)`.
  func addMatch(_ rule: String, handler: @escaping (DBusMessage) -> Void) throws(DBusError) -> Slot {
    let bus = try requireBus()
    let box = Unmanaged.passRetained(MessageHandler(handler))
    var slot: OpaquePointer?
    let result = sd_bus_add_match_async(bus, &slot, rule, Self.messageTrampoline, nil, box.toOpaque())
    guard result >= 0, let slot else {
      box.release()
      throw .system(call: "sd_bus_add_match_async", errno: result < 0 ? -result : ENOMEM)
    }
    sd_bus_slot_set_destroy_callback(slot, Self.releaseHandler)
    scheduleProcessing()
    return Slot(slot)
  }

  /// Emits signal `member`; wraps `sd_bus_message_new_signal(3)` and `sd_bus_send(3)`.
  func emitSignal(
    path: String, interface: String, member: String, build: (DBusMessage) throws(DBusError) -> Void
  ) throws(DBusError) {
    let bus = try requireBus()
    var message: OpaquePointer?
    try DBusError.check(
      sd_bus_message_new_signal(bus, &message, path, interface, member), "sd_bus_message_new_signal")
    guard let message else { throw .system(call: "sd_bus_message_new_signal", errno: ENOMEM) }
    defer { sd_bus_message_unref(message) }
    try build(DBusMessage(pointer: message))
    try DBusError.check(sd_bus_send(bus, message, nil), "sd_bus_send \(member)")
    scheduleProcessing()
  }

  /// Asks for `name` without queueing for it: fails with `EEXIST` when another connection owns
  /// it. Blocks the queue until the bus answers; wraps `sd_bus_request_name(3)`.
  func requestName(_ name: String) throws(DBusError) {
    let bus = try requireBus()
    let result = sd_bus_request_name(bus, name, 0)
    scheduleProcessing()
    try DBusError.check(result, "sd_bus_request_name \(name)")
  }

  /// Answers method calls to `prefix` and every path under it: `handler` answers whether it took
  /// the call (and replied); sd-bus answers the others (an unknown object or method). Wraps
  /// `sd_bus_add_fallback(3)`.
  func addFallback(_ prefix: String, handler: @escaping (DBusMessage) -> Bool) throws(DBusError) -> Slot {
    let bus = try requireBus()
    let box = Unmanaged.passRetained(CallHandler(handler))
    var slot: OpaquePointer?
    let result = sd_bus_add_fallback(bus, &slot, prefix, Self.callTrampoline, box.toOpaque())
    guard result >= 0, let slot else {
      box.release()
      throw .system(call: "sd_bus_add_fallback", errno: result < 0 ? -result : ENOMEM)
    }
    sd_bus_slot_set_destroy_callback(slot, Self.releaseCallHandler)
    return Slot(slot)
  }

  /// The connection's unique name on the bus (`:1.42`); wraps `sd_bus_get_unique_name(3)`.
  var uniqueName: String? {
    guard let bus else { return nil }
    var name: UnsafePointer<CChar>?
    guard sd_bus_get_unique_name(bus, &name) >= 0, let name else { return nil }
    return String(cString: name)
  }

  /// Puts the `org.freedesktop.Notifications` object on the bus; wraps
  /// `notify_bus_add_server_object` (and so `sd_bus_add_object_vtable(3)`).
  func addNotificationsObject(_ handlers: notify_bus_server_handlers) throws(DBusError) -> Slot {
    let bus = try requireBus()
    var slot: OpaquePointer?
    var copy = handlers
    let result = notify_bus_add_server_object(bus, &slot, &copy)
    guard result >= 0, let slot else {
      throw .system(call: "sd_bus_add_object_vtable", errno: result < 0 ? -result : ENOMEM)
    }
    return Slot(slot)
  }

  // MARK: - Replies

  /// Replies to method call `call`; wraps `sd_bus_message_new_method_return(3)` and `sd_bus_send(3)`.
  func reply(to call: DBusMessage, build: (DBusMessage) throws(DBusError) -> Void) throws(DBusError) {
    _ = try requireBus()
    var message: OpaquePointer?
    try DBusError.check(
      sd_bus_message_new_method_return(call.pointer, &message), "sd_bus_message_new_method_return")
    guard let message else { throw .system(call: "sd_bus_message_new_method_return", errno: ENOMEM) }
    defer { sd_bus_message_unref(message) }
    try build(DBusMessage(pointer: message))
    try DBusError.check(sd_bus_send(nil, message, nil), "sd_bus_send")
    scheduleProcessing()
  }

  /// Replies to method call `call` with error `name`; wraps `sd_bus_reply_method_error(3)`.
  func replyError(to call: DBusMessage, name: String, message: String) throws(DBusError) {
    _ = try requireBus()
    var error = sd_bus_error()
    defer { sd_bus_error_free(&error) }
    sd_bus_error_set(&error, name, message)
    try DBusError.check(sd_bus_reply_method_error(call.pointer, &error), "sd_bus_reply_method_error")
    scheduleProcessing()
  }

  // MARK: - Trampolines

  /// Calls the `MessageHandler` passed as `userdata`.
  private static var messageTrampoline: sd_bus_message_handler_t {
    { message, userdata, _ in
      guard let message, let userdata else { return 0 }
      Unmanaged<MessageHandler>.fromOpaque(userdata).takeUnretainedValue().body(DBusMessage(pointer: message))
      return 0
    }
  }

  /// Calls the `CallHandler` passed as `userdata`: 1 when it took the call.
  private static var callTrampoline: sd_bus_message_handler_t {
    { message, userdata, _ in
      guard let message, let userdata else { return 0 }
      return Unmanaged<CallHandler>.fromOpaque(userdata).takeUnretainedValue().body(
        DBusMessage(pointer: message))
        ? 1 : 0
    }
  }

  /// Releases the `CallHandler` passed as `userdata` when its slot goes.
  private static var releaseCallHandler: sd_bus_destroy_t {
    { userdata in
      guard let userdata else { return }
      Unmanaged<CallHandler>.fromOpaque(userdata).release()
    }
  }

  /// Releases the `MessageHandler` passed as `userdata` when its slot goes.
  private static var releaseHandler: sd_bus_destroy_t {
    { userdata in
      guard let userdata else { return }
      Unmanaged<MessageHandler>.fromOpaque(userdata).release()
    }
  }
}
