/// Writes JSON straight into a byte buffer: the daemon's replies and events, whose shapes are
/// fixed, without a general-purpose encoder's type-erased containers.
///
/// Members are written with `key(_:)` between `beginObject()` and `endObject()`; the writer puts
/// the commas. Numbers that are whole and not huge are written without a fraction (`5`, as a
/// person would), others in Swift's shortest round-trip form.
public struct JSONWriter {
  public var bytes: [UInt8]
  /// One bit per open container, lowest the innermost: set once it holds a member or element.
  private var nonEmpty: UInt64 = 0

  public init(capacity: Int = 256) {
    bytes = []
    bytes.reserveCapacity(capacity)
  }

  // MARK: - Containers

  public mutating func beginObject() { open(UInt8(ascii: "{")) }
  public mutating func endObject() { close(UInt8(ascii: "}")) }
  public mutating func beginArray() { open(UInt8(ascii: "[")) }
  public mutating func endArray() { close(UInt8(ascii: "]")) }

  private mutating func open(_ bracket: UInt8) {
    separate()
    bytes.append(bracket)
    nonEmpty <<= 1
  }

  private mutating func close(_ bracket: UInt8) {
    bytes.append(bracket)
    nonEmpty >>= 1
  }

  /// A member's name; its value comes next.
  public mutating func key(_ name: StaticString) {
    separate()
    bytes.append(UInt8(ascii: "\""))
    name.withUTF8Buffer { bytes.append(contentsOf: $0) }
    bytes.append(UInt8(ascii: "\""))
    bytes.append(UInt8(ascii: ":"))
    // The value that follows takes no comma of its own.
    pendingValue = true
  }

  /// A member's name that is not known in advance (a `JSONValue` object's).
  public mutating func dynamicKey(_ name: String) {
    string(name)
    bytes.append(UInt8(ascii: ":"))
    pendingValue = true
  }

  /// Whether a member's name was just written, so that its value takes no comma.
  private var pendingValue = false

  /// Puts a comma before an element or member that is not the first of its container.
  private mutating func separate() {
    if pendingValue {
      pendingValue = false
      return
    }
    if nonEmpty & 1 != 0 { bytes.append(UInt8(ascii: ",")) }
    nonEmpty |= 1
  }

  // MARK: - Values

  public mutating func null() {
    separate()
    literal("null")
  }

  public mutating func bool(_ value: Bool) {
    separate()
    literal(value ? "true" : "false")
  }

  public mutating func integer(_ value: Int) {
    separate()
    appendDigits(value)
  }

  public mutating func number(_ value: Double) {
    separate()
    guard value.isFinite else {
      literal("null")
      return
    }
    if value.rounded() == value && abs(value) < 1e15 {
      appendDigits(Int(value))
    } else {
      bytes.append(contentsOf: value.description.utf8)
    }
  }

  public mutating func string(_ text: String) {
    separate()
    bytes.append(UInt8(ascii: "\""))
    var text = text
    text.withUTF8 { utf8 in
      var runStart = 0
      for index in 0..<utf8.count {
        let byte = utf8[index]
        guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
        runStart = index + 1
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x0a: bytes.append(UInt8(ascii: "n"))
        case 0x0d: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0c: bytes.append(UInt8(ascii: "f"))
        default:
          literal("u00")
          bytes.append(Self.hexDigit(byte >> 4))
          bytes.append(Self.hexDigit(byte & 0xf))
        }
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// A string member if `value` is present; nothing otherwise.
  public mutating func key(_ name: StaticString, _ value: String?) {
    guard let value else { return }
    key(name)
    string(value)
  }

  private static func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
  }

  private mutating func literal(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  private mutating func appendDigits(_ value: Int) {
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = 20
      repeat {
        start -= 1
        digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
      } while magnitude > 0
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
    }
  }
}
