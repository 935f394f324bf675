import NotifyPosix

#if canImport(Glibc)
  import Glibc
#endif

/// Where the daemon's socket is: one rule for `notifyd` and `notifyctl`.
public enum SocketPath {
  /// The file name of the socket in the runtime directory.
  public static let fileName = "notifyd.sock"

  /// The socket path: `--socket`, else `NOTIFYD_SOCKET`, else the config's `[Socket] Path=`, else
  /// `$XDG_RUNTIME_DIR/notifyd.sock`, else `/run/user/<uid>/notifyd.sock`. Empty values (an empty
  /// `--socket`, an empty variable) count as unset; `~/` in the configured path is the home directory.
  ///
  /// - Parameters:
  ///   - option: the value of `--socket`, if given.
  ///   - environment: looks up an environment variable.
  ///   - configured: `[Socket] Path=` of the config in force, if set.
  ///   - uid: the real user id, for the last fallback.
  public static func resolve(
    option: String?, environment: (String) -> String?, configured: String? = nil, uid: UInt32
  ) -> String {
    if let option, !option.isEmpty { return option }
    if let path = environment("NOTIFYD_SOCKET"), !path.isEmpty { return path }
    if let configured, !configured.isEmpty { return expandingHome(configured, environment: environment) }
    return runtimeDefault(environment: environment, uid: uid)
  }

  /// `$XDG_RUNTIME_DIR/notifyd.sock`, else `/run/user/<uid>/notifyd.sock`.
  public static func runtimeDefault(environment: (String) -> String?, uid: UInt32) -> String {
    if let runtime = environment("XDG_RUNTIME_DIR"), !runtime.isEmpty {
      return runtime.hasSuffix("/") ? runtime + fileName : "\(runtime)/\(fileName)"
    }
    return "/run/user/\(uid)/\(fileName)"
  }

  /// `~/x` with the home directory in front; any other path as it is.
  public static func expandingHome(_ path: String, environment: (String) -> String?) -> String {
    guard path.hasPrefix("~/") else { return path }
    return ConfigLocation.home(environment: environment) + path.dropFirst()
  }
}

/// Where the config file is, for the daemon and for `notifyctl` (which reads only `[Socket] Path=`).
public enum ConfigLocation {
  /// `--config`, else the first of `$XDG_CONFIG_HOME/notifyd/notifyd.conf` (default
  /// `~/.config/…`) and `notifyd/notifyd.conf` in each dir of `$XDG_CONFIG_DIRS` (default
  /// `/etc/xdg`) that exists; `nil` for the built-in defaults.
  public static func locate(explicit: String?, environment: (String) -> String?) -> String? {
    if let explicit { return explicit }
    let configHome =
      environment("XDG_CONFIG_HOME").flatMap { $0.isEmpty ? nil : $0 } ?? home(environment: environment)
      + "/.config"
    var candidates = [configHome + "/notifyd/notifyd.conf"]
    let dirs = environment("XDG_CONFIG_DIRS").flatMap { $0.isEmpty ? nil : $0 } ?? "/etc/xdg"
    candidates += dirs.split(separator: ":").map { "\($0)/notifyd/notifyd.conf" }
    return candidates.first { Posix.exists($0) }
  }

  /// Where shared data is looked for (the XDG base directories), most personal first:
  /// `$XDG_DATA_HOME` (default `~/.local/share`), then each of `$XDG_DATA_DIRS` (default
  /// `/usr/local/share:/usr/share`); relative entries are ignored, as the specification says.
  public static func dataDirectories(environment: [String: String]) -> [String] {
    let home =
      environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
      ?? self.home(environment: { environment[$0] }) + "/.local/share"
    let shared =
      (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
      .split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
    return [home] + shared
  }

  /// Where notifyd keeps its state (the store; `notifyctl --relay`'s origin):
  /// `$XDG_STATE_HOME/notifyd`, else `~/.local/state/notifyd`.
  public static func stateDirectory(environment: (String) -> String?) -> String {
    let state =
      environment("XDG_STATE_HOME").flatMap { $0.isEmpty ? nil : $0 } ?? home(environment: environment)
      + "/.local/state"
    return state + "/notifyd"
  }

  /// `$HOME`, else the password database's home of the real user.
  public static func home(environment: (String) -> String?) -> String {
    if let home = environment("HOME"), !home.isEmpty { return home }
    guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return "/" }
    return String(cString: directory)
  }

  /// `[Socket] Path=` of the config text; `notifyd` reads the whole file with libinih, `notifyctl`
  /// needs only this key (and `[Relay]`'s for `--relay`), and stays free of it.
  public static func socketPath(inConfig text: String) -> String? {
    values(inSection: "Socket", ofConfig: text)["Path"].flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The keys of `section` in the config text, as systemd-style INI reads it: the last assignment
  /// of a key wins; comments (`#`, `;`) and other sections are skipped.
  public static func values(inSection wanted: String, ofConfig text: String) -> [String: String] {
    var section = ""
    var values: [String: String] = [:]
    for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" })
    {
      let line = rawLine.trimmingSpaces
      if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
      if line.hasPrefix("["), line.hasSuffix("]") {
        section = String(line.dropFirst().dropLast()).trimmingSpaces
        continue
      }
      guard section == wanted, let equals = line.firstIndex(of: "=") else { continue }
      values[line[..<equals].trimmingSpaces] = line[line.index(after: equals)...].trimmingSpaces
    }
    return values
  }

  /// The keys of `section` in the config file `notifyd` would read (`locate`); empty when there is
  /// none, or it cannot be read.
  public static func configuredValues(
    inSection section: String, explicit: String? = nil, environment: (String) -> String?
  ) -> [String: String] {
    // A config file is small; `readFile`'s cap keeps a mistaken path (a device) from being read for ever.
    guard let file = locate(explicit: explicit, environment: environment), let bytes = Posix.readFile(file)
    else { return [:] }
    return values(inSection: section, ofConfig: String(decoding: bytes, as: UTF8.self))
  }

  /// `[Socket] Path=` of the config file `notifyd` would read, for `notifyctl`; `nil` when there is
  /// no such file or key (or it cannot be read).
  public static func configuredSocketPath(explicit: String? = nil, environment: (String) -> String?)
    -> String?
  {
    configuredValues(inSection: "Socket", explicit: explicit, environment: environment)["Path"].flatMap {
      $0.isEmpty ? nil : $0
    }
  }
}
