import CNotifyBus
import NotifyIcons

/// One value of a hint dictionary (`a{sv}`), as far as notifyd reads or sends it.
enum DBusHint: Sendable, Equatable {
  case string(String)
  /// `y`
  case byte(UInt8)
  /// `i`
  case int32(Int32)
  /// Any other integer type (`n`, `q`, `u`, `x`, `t`).
  case integer(Int64)
  case boolean(Bool)
  /// `(iiibiiay)`: raw pixels (`image-data`).
  case image(IconPixels)
  /// A type notifyd skips (arrays, dictionaries, …), with its signature.
  case other(String)

  /// The value of an integer hint of any width.
  var integerValue: Int64? {
    switch self {
    case .byte(let value): return Int64(value)
    case .int32(let value): return Int64(value)
    case .integer(let value): return value
    default: return nil
    }
  }

  /// The value of a string hint.
  var stringValue: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  /// The value of a boolean hint; an integer one (as some clients send) is true when not 0.
  var booleanValue: Bool? {
    if case .boolean(let value) = self { return value }
    return integerValue.map { $0 != 0 }
  }
}

/// A borrowed `sd_bus_message *`: reads and appends arguments through the non-variadic sd-bus
/// calls (`sd_bus_message_read/append` are variadic and cannot be called from Swift). Each method
/// names the C function it wraps.
///
/// - Important: valid only while its owner holds a reference, and only on the connection's queue.
struct DBusMessage {
  let pointer: OpaquePointer

  private static func type(_ character: Unicode.Scalar) -> CChar { CChar(UInt8(ascii: character)) }

  // MARK: - Lifetime

  /// Takes a reference, so that the message outlives the handler it came to (a reply sent later);
  /// wraps `sd_bus_message_ref(3)`.
  func retain() { sd_bus_message_ref(pointer) }

  /// Drops a reference taken with `retain()`; wraps `sd_bus_message_unref(3)`.
  func release() { sd_bus_message_unref(pointer) }

  // MARK: - Header

  /// The method or signal name; wraps `sd_bus_message_get_member(3)`.
  var member: String? { sd_bus_message_get_member(pointer).map { String(cString: $0) } }

  /// The interface of a method call or signal; wraps `sd_bus_message_get_interface(3)`.
  var interface: String? { sd_bus_message_get_interface(pointer).map { String(cString: $0) } }

  /// The object path it is sent to or from; wraps `sd_bus_message_get_path(3)`.
  var path: String? { sd_bus_message_get_path(pointer).map { String(cString: $0) } }

  /// The unique name of the sender; wraps `sd_bus_message_get_sender(3)`.
  var sender: String? { sd_bus_message_get_sender(pointer).map { String(cString: $0) } }

  /// The error an error reply carries; wraps `sd_bus_message_get_error(3)`.
  var error: DBusError? {
    guard let error = sd_bus_message_get_error(pointer), sd_bus_error_is_set(error) != 0 else { return nil }
    let name = error.pointee.name.map { String(cString: $0) } ?? DBusNames.ErrorName.failed
    return .remote(name: name, message: error.pointee.message.map { String(cString: $0) } ?? "")
  }

  // MARK: - Reading

  /// Reads a basic value into `value`; wraps `sd_bus_message_read_basic(3)`. Fails at the end of
  /// the enclosing container.
  private func readBasic<T>(_ type: Unicode.Scalar, into value: inout T) throws(DBusError) {
    let result = withUnsafeMutablePointer(to: &value) {
      sd_bus_message_read_basic(pointer, Self.type(type), $0)
    }
    try DBusError.check(result, "sd_bus_message_read_basic")
    guard result > 0 else { throw .malformed("expected '\(type)', found the end") }
  }

  /// Reads a string (`s`).
  func readString() throws(DBusError) -> String {
    var value: UnsafePointer<CChar>? = nil
    try readBasic("s", into: &value)
    return value.map { String(cString: $0) } ?? ""
  }

  /// Reads an unsigned 32-bit integer (`u`).
  func readUInt32() throws(DBusError) -> UInt32 {
    var value: UInt32 = 0
    try readBasic("u", into: &value)
    return value
  }

  /// Reads a signed 32-bit integer (`i`).
  func readInt32() throws(DBusError) -> Int32 {
    var value: Int32 = 0
    try readBasic("i", into: &value)
    return value
  }

  /// Reads a boolean (`b`).
  func readBool() throws(DBusError) -> Bool {
    var value: Int32 = 0
    try readBasic("b", into: &value)
    return value != 0
  }

  /// Reads a double (`d`).
  func readDouble() throws(DBusError) -> Double {
    var value = 0.0
    try readBasic("d", into: &value)
    return value
  }

  /// Reads an object reference, `(so)`: a bus name and an object path.
  func readReference() throws(DBusError) -> (name: String, path: String) {
    guard try enter("r", "so") else { throw .malformed("expected (so)") }
    let name = try readString()
    var path: UnsafePointer<CChar>? = nil
    try readBasic("o", into: &path)
    try exit()
    return (name, path.map { String(cString: $0) } ?? "")
  }

  /// Reads an array of string pairs (`a(ss)`).
  func readStringPairs() throws(DBusError) -> [(String, String)] {
    guard try enter("a", "(ss)") else { throw .malformed("expected an array of string pairs") }
    var pairs: [(String, String)] = []
    while try enter("r", "ss") {
      pairs.append((try readString(), try readString()))
      try exit()
    }
    try exit()
    return pairs
  }

  /// Enters a container of `type` holding `contents`; answers `false` at the end of the
  /// enclosing array. Wraps `sd_bus_message_enter_container(3)`.
  private func enter(_ type: Unicode.Scalar, _ contents: String) throws(DBusError) -> Bool {
    let result = sd_bus_message_enter_container(pointer, Self.type(type), contents)
    try DBusError.check(result, "sd_bus_message_enter_container \(type)\(contents)")
    return result > 0
  }

  /// Leaves the container entered last; wraps `sd_bus_message_exit_container(3)`.
  private func exit() throws(DBusError) {
    try DBusError.check(sd_bus_message_exit_container(pointer), "sd_bus_message_exit_container")
  }

  /// Reads an array of strings (`as`).
  func readStringArray() throws(DBusError) -> [String] {
    guard try enter("a", "s") else { throw .malformed("expected an array of strings") }
    var strings: [String] = []
    while true {
      var value: UnsafePointer<CChar>? = nil
      let result = sd_bus_message_read_basic(pointer, Self.type("s"), &value)
      try DBusError.check(result, "sd_bus_message_read_basic")
      guard result > 0 else { break }
      strings.append(value.map { String(cString: $0) } ?? "")
    }
    try exit()
    return strings
  }

  /// Reads a variant holding an array of strings (`v` of `as`), as a property's `Get` answers.
  func readStringArrayVariant() throws(DBusError) -> [String] {
    guard try enter("v", "as") else { throw .malformed("expected a variant of an array of strings") }
    let strings = try readStringArray()
    try exit()
    return strings
  }

  /// Reads a hint dictionary (`a{sv}`): basic values are kept, anything else is skipped.
  func readHints() throws(DBusError) -> [String: DBusHint] {
    guard try enter("a", "{sv}") else { throw .malformed("expected a dictionary of hints") }
    var hints: [String: DBusHint] = [:]
    while try enter("e", "sv") {
      let key = try readString()
      hints[key] = try readVariant()
      try exit()
    }
    try exit()
    return hints
  }

  /// Reads a variant (`v`) holding a basic value; skips any other. Wraps
  /// `sd_bus_message_peek_type(3)` and `sd_bus_message_skip(3)`.
  func readVariant() throws(DBusError) -> DBusHint {
    var type: CChar = 0
    var contents: UnsafePointer<CChar>? = nil
    try DBusError.check(sd_bus_message_peek_type(pointer, &type, &contents), "sd_bus_message_peek_type")
    let signature = contents.map { String(cString: $0) } ?? ""
    if type == Self.type("v"), signature == "(iiibiiay)" { return .image(try readImage()) }
    guard type == Self.type("v"), signature.utf8.count == 1, let scalar = signature.unicodeScalars.first,
      "synqiuxtb".unicodeScalars.contains(scalar)
    else {
      try DBusError.check(sd_bus_message_skip(pointer, "v"), "sd_bus_message_skip")
      return .other(signature)
    }
    _ = try enter("v", signature)
    defer { _ = try? exit() }
    switch scalar {
    case "s": return .string(try readString())
    case "b": return .boolean(try readBool())
    case "y":
      var value: UInt8 = 0
      try readBasic("y", into: &value)
      return .byte(value)
    case "i": return .int32(try readInt32())
    case "n":
      var value: Int16 = 0
      try readBasic("n", into: &value)
      return .integer(Int64(value))
    case "q":
      var value: UInt16 = 0
      try readBasic("q", into: &value)
      return .integer(Int64(value))
    case "u": return .integer(Int64(try readUInt32()))
    case "x":
      var value: Int64 = 0
      try readBasic("x", into: &value)
      return .integer(value)
    default:
      var value: UInt64 = 0
      try readBasic("t", into: &value)
      return .integer(Int64(clamping: value))
    }
  }

  /// Reads the variant of an image hint, `(iiibiiay)`: width, height, rowstride, has_alpha,
  /// bits_per_sample, channels, data. The bytes are copied out of the message (wraps
  /// `sd_bus_message_read_array(3)`), and checked by the icon cache.
  private func readImage() throws(DBusError) -> IconPixels {
    _ = try enter("v", "(iiibiiay)")
    _ = try enter("r", "iiibiiay")
    let width = try readInt32()
    let height = try readInt32()
    let rowStride = try readInt32()
    let hasAlpha = try readBool()
    let bitsPerSample = try readInt32()
    let channels = try readInt32()
    var bytes: UnsafeRawPointer? = nil
    var size = 0
    try DBusError.check(
      sd_bus_message_read_array(pointer, Self.type("y"), &bytes, &size), "sd_bus_message_read_array")
    let data = bytes.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
    try exit()
    try exit()
    return IconPixels(
      width: Int(width), height: Int(height), rowStride: Int(rowStride), hasAlpha: hasAlpha,
      bitsPerSample: Int(bitsPerSample), channels: Int(channels), data: data)
  }

  // MARK: - Appending

  /// Appends a basic value; wraps `sd_bus_message_append_basic(3)`.
  private func appendBasic<T>(_ type: Unicode.Scalar, _ value: T) throws(DBusError) {
    var copy = value
    let result = withUnsafePointer(to: &copy) { sd_bus_message_append_basic(pointer, Self.type(type), $0) }
    try DBusError.check(result, "sd_bus_message_append_basic")
  }

  /// Appends a string (`s`).
  func append(_ string: String) throws(DBusError) {
    // For string types sd-bus takes the characters themselves, not a pointer to them.
    let result = string.withCString { sd_bus_message_append_basic(pointer, Self.type("s"), $0) }
    try DBusError.check(result, "sd_bus_message_append_basic")
  }

  /// Appends an object path (`o`).
  func append(objectPath: String) throws(DBusError) {
    let result = objectPath.withCString { sd_bus_message_append_basic(pointer, Self.type("o"), $0) }
    try DBusError.check(result, "sd_bus_message_append_basic")
  }

  /// Appends an object reference, `(so)`.
  func append(reference name: String, _ path: String) throws(DBusError) {
    try open("r", "so")
    try append(name)
    try append(objectPath: path)
    try close()
  }

  /// Appends a boolean (`b`).
  func append(_ value: Bool) throws(DBusError) { try appendBasic("b", Int32(value ? 1 : 0)) }

  /// Appends a double (`d`).
  func append(_ value: Double) throws(DBusError) { try appendBasic("d", value) }

  /// Appends a container of `type` holding `contents`, its members appended by `body`.
  func append(
    container type: Unicode.Scalar, _ contents: String, _ body: () throws(DBusError) -> Void
  ) throws(DBusError) {
    try open(type, contents)
    try body()
    try close()
  }

  /// Appends an unsigned 32-bit integer (`u`).
  func append(_ value: UInt32) throws(DBusError) { try appendBasic("u", value) }

  /// Appends a signed 32-bit integer (`i`).
  func append(_ value: Int32) throws(DBusError) { try appendBasic("i", value) }

  /// Opens a container; wraps `sd_bus_message_open_container(3)`.
  private func open(_ type: Unicode.Scalar, _ contents: String) throws(DBusError) {
    try DBusError.check(
      sd_bus_message_open_container(pointer, Self.type(type), contents), "sd_bus_message_open_container")
  }

  /// Closes the container opened last; wraps `sd_bus_message_close_container(3)`.
  private func close() throws(DBusError) {
    try DBusError.check(sd_bus_message_close_container(pointer), "sd_bus_message_close_container")
  }

  /// Appends an array of strings (`as`).
  func append(_ strings: [String]) throws(DBusError) {
    try open("a", "s")
    for string in strings { try append(string) }
    try close()
  }

  /// Appends a hint dictionary (`a{sv}`) of strings, bytes, 32-bit integers and booleans, in order.
  func append(hints: [(key: String, value: DBusHint)]) throws(DBusError) {
    try open("a", "{sv}")
    for (key, value) in hints {
      try open("e", "sv")
      try append(key)
      switch value {
      case .string(let string):
        try open("v", "s")
        try append(string)
      case .byte(let byte):
        try open("v", "y")
        try appendBasic("y", byte)
      case .int32(let integer):
        try open("v", "i")
        try append(integer)
      case .integer(let integer):
        try open("v", "x")
        try appendBasic("x", integer)
      case .boolean(let boolean):
        try open("v", "b")
        try appendBasic("b", Int32(boolean ? 1 : 0))
      case .image(let pixels):
        try open("v", "(iiibiiay)")
        try open("r", "iiibiiay")
        for field in [pixels.width, pixels.height, pixels.rowStride] { try append(Int32(clamping: field)) }
        try appendBasic("b", Int32(pixels.hasAlpha ? 1 : 0))
        for field in [pixels.bitsPerSample, pixels.channels] { try append(Int32(clamping: field)) }
        let result = pixels.data.withUnsafeBytes {
          sd_bus_message_append_array(pointer, Self.type("y"), $0.baseAddress, $0.count)
        }
        try DBusError.check(result, "sd_bus_message_append_array")
        try close()
      case .other(let signature):
        throw .malformed("cannot send a hint of type \(signature)")
      }
      try close()
      try close()
    }
    try close()
  }
}
