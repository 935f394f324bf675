/// Where the daemon's socket is, by default: one rule for `notifyd` and `notifyctl`.
public enum SocketPath {
  /// The file name of the socket in the runtime directory.
  public static let fileName = "notifyd.sock"

  /// The socket path: `--socket`, else `NOTIFYD_SOCKET`, else `$XDG_RUNTIME_DIR/notifyd.sock`,
  /// else `/run/user/<uid>/notifyd.sock`. Empty variables count as unset.
  ///
  /// - Parameters:
  ///   - option: the value of `--socket`, if given.
  ///   - environment: looks up an environment variable.
  ///   - uid: the real user id, for the last fallback.
  public static func resolve(option: String?, environment: (String) -> String?, uid: UInt32) -> String {
    if let option, !option.isEmpty { return option }
    if let path = environment("NOTIFYD_SOCKET"), !path.isEmpty { return path }
    return runtimeDefault(environment: environment, uid: uid)
  }

  /// `$XDG_RUNTIME_DIR/notifyd.sock`, else `/run/user/<uid>/notifyd.sock`.
  public static func runtimeDefault(environment: (String) -> String?, uid: UInt32) -> String {
    if let runtime = environment("XDG_RUNTIME_DIR"), !runtime.isEmpty {
      return runtime.hasSuffix("/") ? runtime + fileName : "\(runtime)/\(fileName)"
    }
    return "/run/user/\(uid)/\(fileName)"
  }
}
