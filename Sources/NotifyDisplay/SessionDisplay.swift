/// Where the graphical session draws, as its environment says: `WAYLAND_DISPLAY`, `DISPLAY` and
/// `XAUTHORITY`. A daemon started before the session learns them from the user manager's
/// environment once the session exports them (`systemctl --user import-environment`,
/// `dbus-update-activation-environment --systemd`); the backends connect to what it names rather
/// than to what the process was started with.
public struct SessionDisplay: Equatable, Sendable, CustomStringConvertible {
  /// Each variable that says where the session draws, and the property that keeps it.
  static var fields: [(name: String, value: WritableKeyPath<SessionDisplay, String?>)] {
    [("WAYLAND_DISPLAY", \.wayland), ("DISPLAY", \.x11), ("XAUTHORITY", \.xauthority)]
  }

  /// The variables that say where the session draws.
  public static var variables: [String] { fields.map(\.name) }

  /// The Wayland compositor's socket: a name in `XDG_RUNTIME_DIR`, or a path; nil when unset.
  public var wayland: String?
  /// The X server (`:0`, `unix:1`, `host:0.0`); nil when unset.
  public var x11: String?
  /// The file with the X server's cookie; nil for the default (`~/.Xauthority`).
  public var xauthority: String?

  public init(wayland: String? = nil, x11: String? = nil, xauthority: String? = nil) {
    self.wayland = wayland
    self.x11 = x11
    self.xauthority = xauthority
  }

  /// What `environment` says; an empty value is unset.
  public init(environment: [String: String]) {
    for field in Self.fields {
      self[keyPath: field.value] = environment[field.name].flatMap { $0.isEmpty ? nil : $0 }
    }
  }

  /// What a list of `KEY=value` assignments says (the user manager's `Environment` property);
  /// a later assignment of a key wins.
  public init(assignments: [String]) {
    var environment: [String: String] = [:]
    for assignment in assignments {
      guard let equals = assignment.firstIndex(of: "=") else { continue }
      let key = String(assignment[..<equals])
      guard Self.variables.contains(key) else { continue }
      environment[key] = String(assignment[assignment.index(after: equals)...])
    }
    self.init(environment: environment)
  }

  /// `environment` with these variables in place of its own (unset ones removed).
  public func applied(to environment: [String: String]) -> [String: String] {
    var result = environment
    for field in Self.fields { result[field.name] = self[keyPath: field.value] }
    return result
  }

  /// Whether any display is named.
  public var namesADisplay: Bool { wayland != nil || x11 != nil }

  /// The path of the Wayland socket: `wayland` itself when absolute, else in `runtimeDirectory`.
  public func waylandSocket(runtimeDirectory: String?) -> String? {
    guard let wayland else { return nil }
    if wayland.hasPrefix("/") { return wayland }
    return runtimeDirectory.map { "\($0)/\(wayland)" }
  }

  /// The X server's local socket (`/tmp/.X11-unix/X0` for `:0`, `:0.1` or `unix:0`); nil for a
  /// server over TCP or a name that is not a display.
  public var x11Socket: String? {
    x11.flatMap(Self.x11DisplayNumber).map { "\(Self.x11SocketDirectory)/X\($0)" }
  }

  /// Where X servers put their local sockets.
  public static let x11SocketDirectory = "/tmp/.X11-unix"

  /// The display number of a local X display name (`:0.1` → 0, `unix:2` → 2); nil otherwise.
  public static func x11DisplayNumber(_ name: String) -> Int? {
    guard let colon = name.lastIndex(of: ":") else { return nil }
    let host = name[..<colon]
    guard host.isEmpty || host == "unix" else { return nil }
    let rest = name[name.index(after: colon)...]
    let digits = rest.prefix { $0.isASCII && $0.isNumber }
    guard !digits.isEmpty, rest.dropFirst(digits.count).allSatisfy({ $0 == "." || $0.isNumber }) else {
      return nil
    }
    return Int(digits)
  }

  public var description: String {
    let parts = Self.fields.compactMap { field in self[keyPath: field.value].map { "\(field.name)=\($0)" } }
    return parts.isEmpty ? "no display" : parts.joined(separator: " ")
  }
}

/// The session a daemon follows: where it was started (its own environment) and what the user's
/// service manager says since. A variable the manager has is taken from it (and one it unsets is
/// unset); one it never had keeps the process's value, so that a unit's own `Environment=` (or a
/// daemon started in a terminal of the session) is not undone by a manager that never heard of it.
public struct FollowedSession: Equatable, Sendable {
  /// Where the process was started.
  public let started: SessionDisplay
  /// Where the session draws now.
  public private(set) var current: SessionDisplay
  /// The variables the manager has had at some time since the daemon started.
  private var exported: Set<String> = []

  public init(started: SessionDisplay) {
    self.started = started
    current = started
  }

  /// The manager's environment read anew: answers whether where the session draws changed.
  public mutating func managerSays(_ assignments: [String]) -> Bool {
    let manager = SessionDisplay(assignments: assignments)
    var next = started
    for field in SessionDisplay.fields {
      if manager[keyPath: field.value] != nil { exported.insert(field.name) }
      if exported.contains(field.name) { next[keyPath: field.value] = manager[keyPath: field.value] }
    }
    guard next != current else { return false }
    current = next
    return true
  }
}
