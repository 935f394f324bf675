import CNotifyBus

#if canImport(Glibc)
  import Glibc
#endif

/// Why a D-Bus operation failed: an sd-bus call with its errno, an error reply from the peer, or
/// a message of the wrong shape.
enum DBusError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Neither `DBUS_SESSION_BUS_ADDRESS` nor `XDG_RUNTIME_DIR` says where the session bus is.
  case noAddress
  /// The sd-bus function `call` failed with `errno`.
  case system(call: String, errno: Int32)
  /// The peer replied with D-Bus error `name`.
  case remote(name: String, message: String)
  /// A message did not carry what was expected.
  case malformed(String)

  var description: String {
    switch self {
    case .noAddress: return "DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR are unset"
    case .system(let call, let errno): return "\(call): \(String(cString: strerror(errno)))"
    case .remote(let name, let message): return message.isEmpty ? name : "\(name): \(message)"
    case .malformed(let what): return "malformed message: \(what)"
    }
  }

  /// Fills a method handler's error out-parameter with D-Bus error `name` and answers the negative
  /// errno the handler returns, so that sd-bus replies with the error; wraps `sd_bus_error_set(3)`.
  static func reply(_ error: UnsafeMutablePointer<sd_bus_error>?, name: String, message: String) -> Int32 {
    sd_bus_error_set(error, name, message)
  }

  /// Fails with `call` and the errno when `result` (an sd-bus return value) is negative.
  @discardableResult
  static func check(_ result: Int32, _ call: String) throws(DBusError) -> Int32 {
    guard result >= 0 else { throw .system(call: call, errno: -result) }
    return result
  }
}
