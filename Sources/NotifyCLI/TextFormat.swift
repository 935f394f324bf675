import Glibc
import NotifyProtocol

/// Small formatting helpers that full Foundation would otherwise provide.
enum TextFormat {
  /// `value` with exactly `digits` decimals, rounded: `fixed(0.456, digits: 2)` is `"0.46"`.
  static func fixed(_ value: Double, digits: Int) -> String {
    guard value.isFinite else { return "\(value)" }
    var scale = 1
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int((abs(value) * Double(scale)).rounded())
    let sign = value < 0 && scaled != 0 ? "-" : ""
    guard digits > 0 else { return "\(sign)\(scaled)" }
    let fraction = String(scaled % scale)
    let padding = String(repeating: "0", count: digits - fraction.count)
    return "\(sign)\(scaled / scale).\(padding)\(fraction)"
  }

  /// A body (or closing message) as a terminal shows it: its markup flattened to text (a link as
  /// its text, entities decoded, what is not the subset as written), then `sanitized`.
  static func bodyText(_ body: String) -> String {
    sanitized(BodyMarkup.plainText(body))
  }

  /// `text` made safe for a terminal on one line: line breaks and tabs become spaces, other
  /// control characters (which could move the cursor or change colours: ESC, CSI, BEL, DEL…)
  /// become U+FFFD, and so do the bidirectional embeddings, overrides and isolates, which would
  /// let a title reorder what is drawn after it on terminals that lay out right-to-left text.
  static func sanitized(_ text: String) -> String {
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      switch scalar.value {
      case 0x09, 0x0A, 0x0D, 0x2028, 0x2029: result.append(" ")
      case 0x00..<0x20, 0x7F..<0xA0, 0x202A...0x202E, 0x2066...0x2069: result.append("\u{FFFD}")
      default: result.append(scalar)
      }
    }
    return String(result)
  }

  /// A timestamp in local time, formatted by `strftime(3)` (wraps `localtime_r(3)`).
  static func localTime(_ epoch: Double, _ format: String) -> String {
    var seconds = time_t(epoch.rounded(.down))
    var parts = tm()
    guard localtime_r(&seconds, &parts) != nil else { return fixed(epoch, digits: 3) }
    var buffer = [CChar](repeating: 0, count: 64)
    let count = strftime(&buffer, buffer.count, format, &parts)
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// A timestamp as a wall clock with milliseconds, `14:05:09.123`, for event lines.
  static func clockTime(_ epoch: Double) -> String {
    let milliseconds = Int((epoch - epoch.rounded(.down)) * 1000)
    let digits = String(milliseconds)
    return localTime(epoch, "%H:%M:%S") + "." + String(repeating: "0", count: 3 - digits.count) + digits
  }

  /// A timestamp for a person: the time alone when it is today, else the date too.
  static func dateTime(_ epoch: Double, now: Double) -> String {
    localTime(epoch, "%Y-%m-%d") == localTime(now, "%Y-%m-%d")
      ? localTime(epoch, "%H:%M:%S") : localTime(epoch, "%Y-%m-%d %H:%M:%S")
  }

  /// A length of time in whole units: `12 s`, `2 min 5 s`, `1 h 2 min`.
  static func elapsed(_ seconds: Double) -> String {
    let total = Int(seconds.rounded())
    if total < 60 { return "\(total) s" }
    if total < 3600 {
      return total % 60 == 0 ? "\(total / 60) min" : "\(total / 60) min \(total % 60) s"
    }
    let minutes = (total % 3600) / 60
    return minutes == 0 ? "\(total / 3600) h" : "\(total / 3600) h \(minutes) min"
  }

  /// A duration as configured: `5 s`, `0.25 s`, up to three decimals, no trailing zeros.
  static func seconds(_ value: Double) -> String {
    var text = fixed(value, digits: 3)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text + " s"
  }
}
