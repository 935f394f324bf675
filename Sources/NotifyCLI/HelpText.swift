import NotifyProtocol

/// The help `notifyctl` prints, built from the verbs table.
enum HelpText {
  /// The overview: every verb with its summary, the global options, durations and exit statuses.
  static func overview() -> String {
    let rows = Verb.all.map { verb in
      (verb.synopsis.isEmpty ? verb.name : "\(verb.name) \(verb.synopsis)", verb.summary)
    }
    return """
      notifyctl — queue timed notices on notifyd

      Usage: notifyctl [--socket PATH] COMMAND [ARGUMENT...] [OPTION...]
             notifyctl --relay URL show TITLE [BODY] [OPTION...]

      Commands:
      \(table(rows))

      Options:
      \(table([
        ("--socket PATH", "talk to the daemon at PATH (default: $NOTIFYD_SOCKET, else $XDG_RUNTIME_DIR/notifyd.sock)"),
        ("--relay URL", "publish the notice through NATS (nats:// or tls://, comma-separated for a cluster), no daemon needed; sign-in and Subject= from the config's [Relay]"),
        ("--version", "print the version"),
        ("-h, --help", "show this help"),
      ]))

      Run 'notifyctl help COMMAND' for a command's options.
      Durations: 1.5, 1.5s, 300ms, 2m, 1h (at most a day).
      Exit status: 0 done, 1 failure, 2 usage, and for wait and show --wait:
      3 cancelled, 4 timed out, 5 replaced, 6 dismissed, 7 folded, 8 missed.
      """
  }

  /// The usage of one verb, with its options.
  static func usage(of verb: Verb) -> String {
    let arguments = verb.synopsis.isEmpty ? "" : " \(verb.synopsis)"
    let options = verb.options + Verb.commonOptions
    let optionsLine = verb.synopsis.contains("OPTIONS") ? "" : " [OPTION...]"
    return """
      Usage: notifyctl \(verb.name)\(arguments)\(optionsLine)

      \(verb.summary.prefix(1).uppercased() + verb.summary.dropFirst()).

      Options:
      \(table(options.map { ($0.synopsis, $0.help) }))
      """
  }

  /// Two aligned columns, indented by two spaces.
  private static func table(_ rows: [(String, String)]) -> String {
    let width = rows.map { $0.0.count }.max() ?? 0
    return rows.map { left, right in
      "  " + left + String(repeating: " ", count: width - left.count) + "  " + right
    }.joined(separator: "\n")
  }
}
