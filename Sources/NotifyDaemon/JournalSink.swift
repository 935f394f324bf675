import CSystemd
import NotifyCore
import NotifyPosix
import NotifySupport

#if canImport(Glibc)
  import Glibc
#endif

/// Log entries in the systemd journal, each with `MESSAGE=`, `PRIORITY=`, `SYSLOG_IDENTIFIER=`
/// and the caller's structured fields (`NOTICE_ID=`, `OUTCOME=`, …).
///
/// - Important: `sd_journal_sendv` silently drops entries when no journald listens; choose this
///   sink through `LogTarget`, which falls back to stderr then, so `--log=journal` on a machine
///   without a journal loses nothing.
public struct JournalSink: LogSink {
  /// The `SYSLOG_IDENTIFIER=` of every entry: what `journalctl -t` selects on.
  public let identifier: String
  private let fallback = StandardErrorSink()

  public init(identifier: String = "notifyd") {
    self.identifier = identifier
  }

  public func write(_ level: LogLevel, _ message: String, fields: [String: String]) {
    var entry = ["MESSAGE=\(message)", "PRIORITY=\(level.rawValue)", "SYSLOG_IDENTIFIER=\(identifier)"]
    for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
      guard let field = Self.fieldName(name), !Self.reservedFields.contains(field) else { continue }
      entry.append("\(field)=\(value)")
    }
    if Self.send(entry) < 0 {
      fallback.write(level, message, fields: fields)
    }
  }

  /// The socket journald reads native entries on; `sd_journal_sendv` sends to this path.
  static let socketPath = "/run/systemd/journal/socket"

  /// Whether a journald listens on this machine (its socket exists).
  public static func isAvailable() -> Bool {
    var info = stat()
    return stat(socketPath, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
  }

  /// The fields this sink sets itself; a caller's field of the same name is dropped.
  static let reservedFields: Set<String> = ["MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER"]

  /// `name` as a journal field name: upper-case letters, digits and `_`, not starting with `_`
  /// (those are trusted fields journald sets) or a digit, at most 64 characters; `nil` when
  /// nothing is left.
  static func fieldName(_ name: String) -> String? {
    var field = String(
      name.uppercased().unicodeScalars.map { scalar -> Character in
        switch scalar {
        case "A"..."Z", "0"..."9": Character(scalar)
        default: "_"
        }
      })
    while let first = field.first, first == "_" || first.isNumber { field.removeFirst() }
    field = String(field.prefix(64))
    return field.isEmpty ? nil : field
  }

  /// Sends one entry, each element a `FIELD=value` (values may hold newlines and any bytes);
  /// wraps `sd_journal_sendv(3)`. Answers its result: a negative errno on failure, but 0 when
  /// no journald listens (the entry is then dropped).
  static func send(_ entry: [String]) -> Int32 {
    // One buffer for all fields, so every iovec points into memory that lives for the call.
    var bytes: [UInt8] = []
    var spans: [(offset: Int, count: Int)] = []
    for field in entry {
      spans.append((bytes.count, field.utf8.count))
      bytes.append(contentsOf: field.utf8)
    }
    return bytes.withUnsafeMutableBytes { buffer in
      let vectors = spans.map { span in
        iovec(iov_base: buffer.baseAddress.map { $0 + span.offset }, iov_len: span.count)
      }
      return sd_journal_sendv(vectors, Int32(vectors.count))
    }
  }
}

/// Where log lines go: `--log=journal`, `--log=stderr`, or `--log=auto` (the default), which
/// picks the journal when stderr is already connected to it, as under a systemd unit.
public enum LogTarget: String, Sendable, CaseIterable {
  case auto, journal, stderr

  /// `journal` when `JOURNAL_STREAM` names stderr's `device:inode` (systemd sets it for a unit
  /// whose stderr goes to the journal; a child whose stderr was redirected no longer matches),
  /// else `stderr`.
  public static func automatic(environment: [String: String]) -> LogTarget {
    guard let stream = environment["JOURNAL_STREAM"], let (device, inode) = standardErrorIdentity() else {
      return .stderr
    }
    return streamNames(stream, device: device, inode: inode) ? .journal : .stderr
  }

  /// Whether a `JOURNAL_STREAM` value (`DEVICE:INODE`, both decimal) names this device and inode.
  static func streamNames(_ stream: String, device: UInt64, inode: UInt64) -> Bool {
    let parts = stream.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, let streamDevice = UInt64(parts[0]), let streamInode = UInt64(parts[1]) else {
      return false
    }
    return streamDevice == device && streamInode == inode
  }

  /// stderr's device and inode; wraps `fstat(2)` on descriptor 2. `nil` when stderr is closed.
  static func standardErrorIdentity() -> (device: UInt64, inode: UInt64)? {
    var info = stat()
    guard fstat(2, &info) == 0 else { return nil }
    return (UInt64(info.st_dev), UInt64(info.st_ino))
  }

  /// The sink this target writes to; `auto` is resolved against `environment` now, and
  /// `journal` means stderr when no journald listens.
  public func makeSink(environment: [String: String]) -> any LogSink {
    switch self == .auto ? Self.automatic(environment: environment) : self {
    case .journal where JournalSink.isAvailable(): JournalSink()
    case .journal, .auto, .stderr: StandardErrorSink()
    }
  }
}

/// Plain lines on stderr: `notifyd: message`.
public struct StandardErrorSink: LogSink {
  public init() {}

  public func write(_ level: LogLevel, _ message: String, fields: [String: String]) {
    let line = Array("notifyd: \(message)\n".utf8)
    line.withUnsafeBytes { try? Posix.writeAll(2, $0) }
  }
}
