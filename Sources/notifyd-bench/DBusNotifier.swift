import CSystemd

#if canImport(Glibc)
  import Glibc
#endif

/// A blocking client of `org.freedesktop.Notifications` on the peer's session bus, through sd-bus:
/// the D-Bus counterpart of `RawVarlinkConnection`, one connection per thread.
///
/// Swift cannot call sd-bus's variadic functions, so messages are built with
/// `sd_bus_message_append_basic` and `sd_bus_message_open_container`.
final class DBusNotifier {
  private var bus: OpaquePointer?

  /// Connects to the bus at `address` as a bus client; wraps `sd_bus_new`, `sd_bus_set_address`,
  /// `sd_bus_set_bus_client` and `sd_bus_start`.
  init(address: String) throws {
    var created: OpaquePointer?
    try Self.check(sd_bus_new(&created), "sd_bus_new")
    bus = created
    try Self.check(sd_bus_set_address(bus, address), "sd_bus_set_address")
    try Self.check(sd_bus_set_bus_client(bus, 1), "sd_bus_set_bus_client")
    try Self.check(sd_bus_start(bus), "sd_bus_start \(address)")
  }

  deinit { sd_bus_flush_close_unref(bus) }

  private static func check(_ result: Int32, _ call: String) throws {
    guard result >= 0 else { throw BenchError("\(call): \(String(cString: strerror(-result)))") }
  }

  /// A `Notify` call: app name, replaces_id 0, no icon, `summary`, `body`, no actions, no hints
  /// (or, with `hints`, libnotify's usual `urgency`, `category` and `desktop-entry`),
  /// expire_timeout -1 (the server's default). Wraps `sd_bus_message_new_method_call` and the
  /// append calls.
  private func makeNotify(summary: String, body: String, hints: Bool = false) throws -> OpaquePointer? {
    var message: OpaquePointer?
    try Self.check(
      sd_bus_message_new_method_call(
        bus, &message, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
        "org.freedesktop.Notifications", "Notify"), "sd_bus_message_new_method_call")
    func string(_ text: String) throws {
      try text.withCString {
        try Self.check(sd_bus_message_append_basic(message, Self.type("s"), $0), "append s")
      }
    }
    do {
      try string("notifyd-bench")
      var replaces: UInt32 = 0
      try Self.check(sd_bus_message_append_basic(message, Self.type("u"), &replaces), "append u")
      try string("")
      try string(summary)
      try string(body)
      try Self.check(sd_bus_message_open_container(message, Self.type("a"), "s"), "open as")
      try Self.check(sd_bus_message_close_container(message), "close as")
      try Self.check(sd_bus_message_open_container(message, Self.type("a"), "{sv}"), "open a{sv}")
      if hints {
        func hint(_ name: String, _ signature: String, _ append: () throws -> Void) throws {
          try Self.check(sd_bus_message_open_container(message, Self.type("e"), "sv"), "open {sv}")
          try string(name)
          try Self.check(sd_bus_message_open_container(message, Self.type("v"), signature), "open v")
          try append()
          try Self.check(sd_bus_message_close_container(message), "close v")
          try Self.check(sd_bus_message_close_container(message), "close {sv}")
        }
        var urgency: UInt8 = 1
        try hint("urgency", "y") {
          try Self.check(sd_bus_message_append_basic(message, Self.type("y"), &urgency), "append y")
        }
        try hint("category", "s") { try string("im.received") }
        try hint("desktop-entry", "s") { try string("org.example.Chat") }
      }
      try Self.check(sd_bus_message_close_container(message), "close a{sv}")
      var timeout: Int32 = -1
      try Self.check(sd_bus_message_append_basic(message, Self.type("i"), &timeout), "append i")
    } catch {
      sd_bus_message_unref(message)
      throw error
    }
    return message
  }

  private static func type(_ character: Unicode.Scalar) -> CChar { CChar(UInt8(ascii: character)) }

  /// Calls `Notify` and waits for the id; wraps `sd_bus_call`.
  @discardableResult
  func notify(summary: String, body: String, hints: Bool = false) throws -> UInt32 {
    let message = try makeNotify(summary: summary, body: body, hints: hints)
    defer { sd_bus_message_unref(message) }
    var error = sd_bus_error()
    var reply: OpaquePointer?
    let result = sd_bus_call(bus, message, 0, &error, &reply)
    defer {
      sd_bus_error_free(&error)
      sd_bus_message_unref(reply)
    }
    guard result >= 0 else {
      let name = error.name.map { String(cString: $0) } ?? String(cString: strerror(-result))
      throw BenchError("Notify: \(name)")
    }
    var id: UInt32 = 0
    _ = sd_bus_message_read_basic(reply, Self.type("u"), &id)
    return id
  }

  /// Calls a method of the bus itself (`org.freedesktop.DBus`) with a name and, optionally, a
  /// `u` argument, and reads a `u` or `b` reply; wraps `sd_bus_call`.
  func callBus(_ member: String, name: String, flags: UInt32? = nil, replyType: Unicode.Scalar = "u") throws
    -> UInt32
  {
    var message: OpaquePointer?
    try Self.check(
      sd_bus_message_new_method_call(
        bus, &message, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", member),
      "sd_bus_message_new_method_call")
    defer { sd_bus_message_unref(message) }
    try name.withCString {
      try Self.check(sd_bus_message_append_basic(message, Self.type("s"), $0), "append s")
    }
    if var flags { try Self.check(sd_bus_message_append_basic(message, Self.type("u"), &flags), "append u") }
    var error = sd_bus_error()
    var reply: OpaquePointer?
    let result = sd_bus_call(bus, message, 0, &error, &reply)
    defer {
      sd_bus_error_free(&error)
      sd_bus_message_unref(reply)
    }
    guard result >= 0 else {
      throw BenchError(
        "\(member): \(error.name.map { String(cString: $0) } ?? String(cString: strerror(-result)))")
    }
    if replyType == "b" {
      var value: Int32 = 0
      _ = sd_bus_message_read_basic(reply, Self.type("b"), &value)
      return UInt32(value)
    }
    var value: UInt32 = 0
    _ = sd_bus_message_read_basic(reply, Self.type("u"), &value)
    return value
  }

  /// Sends `count` `Notify` calls without waiting, then waits for every reply; answers the
  /// monotonic nanoseconds at which each reply was taken in. Wraps `sd_bus_call_async`,
  /// `sd_bus_process` and `sd_bus_wait`.
  func notifyPipelined(count: Int, summary: String, body: String, hints: Bool = false) throws -> [UInt64] {
    let tally = ReplyTally()
    let unmanaged = Unmanaged.passRetained(tally)
    defer { unmanaged.release() }
    for _ in 0..<count {
      let message = try makeNotify(summary: summary, body: body, hints: hints)
      defer { sd_bus_message_unref(message) }
      // A floating slot (nil): the callback lives as long as the call is outstanding.
      try Self.check(
        sd_bus_call_async(
          bus, nil, message,
          { reply, userdata, _ in
            let tally = Unmanaged<ReplyTally>.fromOpaque(userdata!).takeUnretainedValue()
            tally.arrivals.append(Clock.nanoseconds())
            if sd_bus_message_is_method_error(reply, nil) != 0 { tally.errors += 1 }
            return 1
          }, unmanaged.toOpaque(), 0), "sd_bus_call_async")
    }
    while tally.arrivals.count < count {
      let processed = sd_bus_process(bus, nil)
      try Self.check(processed, "sd_bus_process")
      if processed == 0 { try Self.check(sd_bus_wait(bus, UInt64.max), "sd_bus_wait") }
    }
    if tally.errors > 0 { throw BenchError("Notify: \(tally.errors) error replies") }
    return tally.arrivals
  }
}

/// Replies counted by `notifyPipelined`'s callback.
private final class ReplyTally {
  var arrivals: [UInt64] = []
  var errors = 0
}
