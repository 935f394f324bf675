import CInih
import Foundation
import NotifyCore
import NotifyPaths
import NotifyProtocol

/// Finds and reads `notifyd.conf` with libinih, systemd style: `[Section]`, `Key=Value`, `#` and
/// `;` comments at the start of a line, no inline comments, lines of any length.
public enum ConfigLoader {
  /// The file to read: `explicit` (from `--config`), else `$XDG_CONFIG_HOME/notifyd/notifyd.conf`
  /// (default `~/.config`), else the first that exists in each dir of `$XDG_CONFIG_DIRS` (default
  /// `/etc/xdg`); `nil` when none exists, meaning built-in defaults.
  public static func locate(explicit: String?, environment: [String: String]) -> String? {
    ConfigLocation.locate(explicit: explicit, environment: { environment[$0] })
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
    // A NUL after the text: fmemopen needs a buffer even for an empty text, and the buffer must
    // outlive the stream, so the stream is used only inside this closure.
    var bytes = Array(text.utf8) + [0]
    let result = bytes.withUnsafeMutableBytes { buffer -> Result<[ConfigEntry], ConfigError> in
      guard let file = fmemopen(buffer.baseAddress, buffer.count - 1, "r") else {
        return .failure(.unreadable(file: name, reason: "cannot open the text"))
      }
      defer { fclose(file) }
      return Result { () throws(ConfigError) in try entries(reading: file, name: name) }
    }
    return try result.get()
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
          guard let buffer, size > 1 else { return nil }
          // fgets(3) by hand, so that a NUL inside a line (which hides the rest of it from strlen)
          // cannot make the reader miss where the line ends.
          var count = 0
          var character: Int32 = 0
          while count < Int(size) - 1 {
            character = getc(context.file)
            if character == EOF { break }
            buffer[count] = CChar(truncatingIfNeeded: character)
            count += 1
            if character == 10 { break }
          }
          guard count > 0 else { return nil }
          buffer[count] = 0
          if context.atLineStart { context.line += 1 }
          context.atLineStart = character == 10
          return buffer
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
      // libinih stops at the first error, so the reader's line is that line; libinih's own count
      // (`status`) is off after a line with a NUL in it.
      throw .syntax(file: name, line: context.line, reason: "not a [Section], Key=Value or comment line")
    }
    if status < 0 {
      throw .unreadable(file: name, reason: "libinih could not read it (error \(status))")
    }
    return context.entries
  }
}
