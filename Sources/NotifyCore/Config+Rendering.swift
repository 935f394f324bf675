import NotifyProtocol

extension Config {
  /// The effective configuration as a config file, every key with its value in force.
  public func rendered() -> String {
    var lines: [String] = []
    func section(_ name: String, _ pairs: [(String, String?)]) {
      let present = pairs.compactMap { key, value in value.map { "\(key)=\($0)" } }
      guard !present.isEmpty else { return }
      if !lines.isEmpty { lines.append("") }
      lines.append("[\(name)]")
      lines.append(contentsOf: present)
    }
    func seconds(_ value: Double?) -> String? {
      value.map { $0 == $0.rounded() ? "\(Int($0))s" : "\($0)s" }
    }
    func timing(_ timing: TimingOverrides) -> [(String, String?)] {
      [
        ("Delay", seconds(timing.delay)), ("FadeIn", seconds(timing.fadeIn)), ("Hold", seconds(timing.hold)),
        ("FadeOut", seconds(timing.fadeOut)), ("EaseIn", timing.easeIn?.rawValue),
        ("EaseOut", timing.easeOut?.rawValue),
      ]
    }
    section(
      "Queue",
      [
        ("MaxVisible", "\(queue.maxVisible)"), ("MaxSticky", "\(queue.maxSticky)"),
        ("Capacity", "\(queue.capacity)"),
        ("HistorySize", "\(queue.historySize)"), ("FrameRate", "\(queue.frameRate)"),
        ("StackDuplicates", queue.stackDuplicates ? "yes" : "no"),
      ])
    section(
      "DoNotDisturb",
      [
        ("Allow", queue.doNotDisturb.allow.rawValue),
        ("Schedule", queue.doNotDisturb.quietHours.windows.map(\.description).joined(separator: "; ")),
        ("Summary", queue.doNotDisturb.summary ? "yes" : "no"),
      ])
    section("Limits", [("PerApp", queue.perApp.map(\.description) ?? "off")])
    section("Idle", [("After", seconds(display.idleAfter) ?? "off")])
    section("Timing", timing(queue.timing.over(QueueSettings.builtInTiming(for: .normal))))
    for urgency in Urgency.allCases {
      let layered = queue.urgencyTiming[urgency] ?? TimingOverrides()
      let builtIn = QueueSettings.builtInTiming(for: urgency)
      let differs = builtIn != QueueSettings.builtInTiming(for: .normal)
      section(
        "Urgency:\(urgency.rawValue)",
        timing(differs ? layered.over(TimingOverrides(hold: builtIn.hold)) : layered))
    }
    section(
      "Progress",
      [
        ("MaxVisible", "\(queue.progressMaxVisible)"), ("Timeout", seconds(queue.progressTimeout)),
        ("EndHold", seconds(queue.endHold)),
      ])
    for rule in queue.rules {
      var pairs: [(String, String?)] = [
        ("MatchApp", rule.matchApp?.pattern), ("MatchTag", rule.matchTag?.pattern),
        ("MatchTitle", rule.matchTitle?.pattern), ("MatchUrgency", rule.matchUrgency?.rawValue),
        ("MatchDesktopEntry", rule.matchDesktopEntry?.pattern),
        ("MatchCategory", rule.matchCategory?.pattern),
      ]
      pairs += timing(rule.timing)
      pairs += [
        ("Urgency", rule.urgency?.rawValue), ("Suppress", rule.suppress ? "yes" : nil),
        ("BypassDoNotDisturb", rule.bypassDoNotDisturb.map { $0 ? "yes" : "no" }),
        ("IgnoreClose", seconds(rule.ignoreClose)),
      ]
      if pairs.allSatisfy({ $0.1 == nil }) {
        pairs.append(("# matches every notice and changes nothing", ""))
      }
      section("Rule:\(rule.name)", pairs)
    }
    section("Socket", [("Path", socketPath ?? "$XDG_RUNTIME_DIR/notifyd.sock")])
    section(
      "Store", [("Path", storePath ?? "$XDG_STATE_HOME/notifyd/notifyd.db"), ("Sync", storeSync.rawValue)])
    section("DBus", [("Mode", dbusMode.rawValue), ("IgnoreClose", seconds(dbusIgnoreClose))])
    section(
      "Sound", [("Enabled", sound.enabled ? "yes" : "no"), ("Default", sound.defaultName ?? "")])
    section(
      "Display",
      [
        ("Mode", display.mode.rawValue), ("Anchor", display.anchor.rawValue), ("Margin", "\(display.margin)"),
        ("Width", "\(display.width)"), ("Gap", "\(display.gap)"), ("Output", display.output ?? ""),
        ("FollowFocus", display.followFocus.rawValue),
        ("Font", display.font), ("CornerRadius", "\(display.cornerRadius)"), ("IconTheme", display.iconTheme),
      ])
    for urgency in Urgency.allCases {
      let colours = display.colours(for: urgency)
      section(
        "Display:\(urgency.rawValue)",
        [
          ("Background", "\(colours.background)"), ("Foreground", "\(colours.foreground)"),
          ("Border", "\(colours.border)"), ("Progress", "\(colours.progress)"),
        ])
    }
    section(
      "Hooks",
      [
        ("OnShow", hooks.onShow ?? ""), ("OnFinish", hooks.onFinish ?? ""),
        ("OnComplete", hooks.onComplete ?? ""),
      ])
    section(
      "Relay",
      [
        ("URL", relay.urls.joined(separator: ",")), ("Credentials", relay.credentials),
        ("User", relay.user), ("PasswordFile", relay.passwordFile), ("TokenFile", relay.tokenFile),
        ("TLSCA", relay.tlsCA), ("Subject", relay.subject ?? "notifyd.$USER"),
        ("Publish", relay.publish ? "yes" : "no"), ("Subscribe", relay.subscribe ? "yes" : "no"),
        ("Host", relay.host ?? "$(hostname)"), ("MaxAge", seconds(relay.maxAge) ?? "off"),
      ])
    return lines.joined(separator: "\n") + "\n"
  }
}
