import CInih
import Foundation
import NotifyCore

/// Finds and reads `notifyd.conf` with libinih, systemd style: `[Section]`, `Key=Value`, `#` and
/// `;` comments at the start of a line, no inline comments, lines of any length.
public enum ConfigLoader {
  /// The file to read: `explicit` (from `--config`), else `$XDG_CONFIG_HOME/notifyd/notifyd.conf`
  /// (default `~/.config`), else the first that exists in each dir of `$XDG_CONFIG_DIRS` (default
  /// `/etc/xdg`); `nil` when none exists, meaning built-in defaults.
  public static func locate(explicit: String?, environment: [String: String]) -> String? {
    if let explicit { return explicit }
    let home = environment["HOME"] ?? NSHomeDirectory()
    let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
    var candidates = [configHome + "/notifyd/notifyd.conf"]
    let dirs = environment["XDG_CONFIG_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/etc/xdg"
    candidates += dirs.split(separator: ":").map { "\($0)/notifyd/notifyd.conf" }
    return candidates.first { FileManager.default.fileExists(atPath: $0) }
  }

  /// Reads and parses `path`; `nil` gives the built-in defaults.
  public static func load(_ path: String?) throws(ConfigError) -> Config {
    guard let path else { return Config() }
    return try ConfigParser.parse(try entries(of: path), file: path)
  }

  /// The `Key=Value` entries of the file at `path`, with their line numbers.
  public static func entries(of path: String) throws(ConfigError) -> [ConfigEntry] {
    guard let file = fopen(path, "r") else {
      throw .unreadable(file: path, reason: String(cString: strerror(errno)))
    }
    defer { fclose(file) }
    return try entries(reading: file, name: path)
  }

  /// The entries of an in-memory config text, for tests and fuzzing.
  public static func entries(text: String, name: String = "<text>") throws(ConfigError) -> [ConfigEntry] {
    var bytes = Array(text.utf8)
    guard let file = bytes.withUnsafeMutableBytes({ fmemopen($0.baseAddress, $0.count, "r") }) else {
      throw .unreadable(file: name, reason: "cannot open the text")
    }
    defer { fclose(file) }
    return try entries(reading: file, name: name)
  }

  private final class Context {
    let file: UnsafeMutablePointer<FILE>
    var line = 0
    /// Whether the last read ended a line; libinih reads a long line in several pieces.
    var atLineStart = true
    var entries: [ConfigEntry] = []
    var problem: (line: Int, reason: String)?

    init(file: UnsafeMutablePointer<FILE>) { self.file = file }
  }

  /// Serialises parses: libinih's options are process-wide globals.
  private static let lock = NSLock()

  private static func entries(reading file: UnsafeMutablePointer<FILE>, name: String) throws(ConfigError)
    -> [ConfigEntry]
  {
    let context = Context(file: file)
    let status: Int32 = lock.withLock {
      notifyd_ini_configure()
      let unmanaged = Unmanaged.passUnretained(context).toOpaque()
      // ini_parse_stream with our own reader, so that every handler call knows its line number.
      return ini_parse_stream(
        { buffer, size, stream in
          let context = Unmanaged<Context>.fromOpaque(stream!).takeUnretainedValue()
          guard let line = fgets(buffer, size, context.file) else { return nil }
          if context.atLineStart { context.line += 1 }
          let length = strlen(line)
          context.atLineStart = length > 0 && line[length - 1] == 10
          return line
        }, unmanaged,
        { user, section, key, value in
          let context = Unmanaged<Context>.fromOpaque(user!).takeUnretainedValue()
          guard let section, let key, let value else { return 1 }
          guard let sectionText = String(validatingCString: section),
            let keyText = String(validatingCString: key),
            let valueText = String(validatingCString: value)
          else {
            context.problem = (context.line, "not valid UTF-8")
            return 0
          }
          if sectionText.isEmpty {
            context.problem = (context.line, "\(keyText)= stands before any [Section]")
            return 0
          }
          context.entries.append(
            ConfigEntry(section: sectionText, key: keyText, value: valueText, line: context.line))
          return 1
        }, unmanaged)
    }
    if let problem = context.problem {
      throw .syntax(file: name, line: problem.line, reason: problem.reason)
    }
    if status > 0 {
      throw .syntax(file: name, line: Int(status), reason: "not a [Section], Key=Value or comment line")
    }
    if status < 0 {
      throw .unreadable(file: name, reason: "libinih could not read it (error \(status))")
    }
    return context.entries
  }
}
