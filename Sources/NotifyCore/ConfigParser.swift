import Foundation
import NotifyProtocol

/// Turns the entries of a config file into a `Config`, refusing anything it does not know.
public enum ConfigParser {
  /// The timing keys, allowed in `[Timing]`, `[Urgency:X]` and `[Rule:NAME]`.
  static let timingKeys: Set<String> = ["Delay", "FadeIn", "Hold", "FadeOut", "EaseIn", "EaseOut"]

  /// Parses `entries` read from `file`, in file order.
  public static func parse(_ entries: [ConfigEntry], file: String) throws(ConfigError) -> Config {
    var config = Config()
    var rules: [String: Int] = [:]
    for entry in entries {
      func invalid(_ reason: String) -> ConfigError {
        .invalidValue(file: file, line: entry.line, key: entry.key, reason: reason)
      }
      let section = entry.section
      switch section {
      case "Queue":
        switch entry.key {
        case "MaxVisible": config.queue.maxVisible = try integer(entry, in: 1...1000, invalid)
        case "MaxSticky": config.queue.maxSticky = try integer(entry, in: 0...1000, invalid)
        case "Capacity": config.queue.capacity = try integer(entry, in: 1...10_000_000, invalid)
        case "HistorySize": config.queue.historySize = try integer(entry, in: 0...10_000_000, invalid)
        case "FrameRate": config.queue.frameRate = try integer(entry, in: 1...240, invalid)
        case "StackDuplicates": config.queue.stackDuplicates = try boolean(entry.value, invalid)
        default: throw invalid("unknown key in [Queue]")
        }
      case "DoNotDisturb":
        switch entry.key {
        case "Allow": config.queue.doNotDisturb.allow = try choice(entry.value, invalid)
        case "Summary": config.queue.doNotDisturb.summary = try boolean(entry.value, invalid)
        case "Schedule":
          // Each line adds its windows (several separated by ';'); an empty value clears them.
          if entry.value.isEmpty { config.queue.doNotDisturb.quietHours.windows = [] }
          for text in entry.value.split(separator: ";") {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard let window = QuietWindow(trimmed) else {
              throw invalid(
                "'\(trimmed)' is not a window of quiet hours (e.g. 22:00-07:00, Mon-Fri 22:00-07:00)")
            }
            config.queue.doNotDisturb.quietHours.windows.append(window)
          }
        default: throw invalid("unknown key in [DoNotDisturb]")
        }
      case "Limits":
        guard entry.key == "PerApp" else { throw invalid("unknown key in [Limits]") }
        if ["", "off", "no"].contains(entry.value) {
          config.queue.perApp = nil
        } else {
          guard let limit = FloodLimit(entry.value) else {
            throw invalid("'\(entry.value)' is not a rate (a count per duration, e.g. 20/1m), or off")
          }
          config.queue.perApp = limit
        }
      case "Idle":
        guard entry.key == "After" else { throw invalid("unknown key in [Idle]") }
        if ["", "off", "no"].contains(entry.value) {
          config.display.idleAfter = nil
        } else {
          let seconds = try duration(entry.value, invalid)
          guard seconds >= 1 else {
            throw invalid("'\(entry.value)' is under a second; use 1s or more, or off")
          }
          config.display.idleAfter = seconds
        }
      case "Timing":
        try applyTiming(entry, to: &config.queue.timing, invalid)
      case "Progress":
        switch entry.key {
        case "MaxVisible": config.queue.progressMaxVisible = try integer(entry, in: 1...1000, invalid)
        case "Timeout": config.queue.progressTimeout = try duration(entry.value, invalid)
        case "EndHold": config.queue.endHold = try duration(entry.value, invalid)
        default: throw invalid("unknown key in [Progress]")
        }
      case "Socket":
        guard entry.key == "Path" else { throw invalid("unknown key in [Socket]") }
        config.socketPath = try path(entry.value, invalid)
      case "Store":
        switch entry.key {
        case "Path": config.storePath = try path(entry.value, invalid)
        case "Sync": config.storeSync = try choice(entry.value, invalid)
        default: throw invalid("unknown key in [Store]")
        }
      case "DBus":
        switch entry.key {
        case "Mode": config.dbusMode = try choice(entry.value, invalid)
        case "IgnoreClose": config.dbusIgnoreClose = try duration(entry.value, invalid)
        default: throw invalid("unknown key in [DBus]")
        }
      case "Sound":
        switch entry.key {
        case "Enabled": config.sound.enabled = try boolean(entry.value, invalid)
        case "Default": config.sound.defaultName = entry.value.isEmpty ? nil : entry.value
        default: throw invalid("unknown key in [Sound]")
        }
      case "Hooks":
        let command = entry.value.isEmpty ? nil : entry.value
        switch entry.key {
        case "OnShow": config.hooks.onShow = command
        case "OnFinish": config.hooks.onFinish = command
        case "OnComplete": config.hooks.onComplete = command
        default: throw invalid("unknown key in [Hooks]")
        }
      case "Relay":
        try applyRelay(entry, to: &config.relay, invalid)
      case "Display":
        try applyDisplay(entry, to: &config.display, invalid)
      default:
        if section.hasPrefix("Display:") {
          guard let urgency = Urgency(rawValue: String(section.dropFirst("Display:".count))) else {
            throw invalid("unknown urgency in [\(section)]; use low, normal or critical")
          }
          var colours = config.display.colours(for: urgency)
          try applyColour(entry, to: &colours, invalid)
          config.display.colours[urgency] = colours
        } else if section.hasPrefix("Urgency:") {
          guard let urgency = Urgency(rawValue: String(section.dropFirst("Urgency:".count))) else {
            throw invalid("unknown urgency in [\(section)]; use low, normal or critical")
          }
          var timing = config.queue.urgencyTiming[urgency] ?? TimingOverrides()
          try applyTiming(entry, to: &timing, invalid)
          config.queue.urgencyTiming[urgency] = timing
        } else if section.hasPrefix("Rule:") {
          let name = String(section.dropFirst("Rule:".count))
          guard !name.isEmpty else { throw invalid("a rule needs a name: [Rule:NAME]") }
          let index: Int
          if let existing = rules[name] {
            index = existing
          } else {
            index = config.queue.rules.count
            rules[name] = index
            config.queue.rules.append(Rule(name: name))
          }
          try applyRule(entry, to: &config.queue.rules[index], invalid)
        } else {
          throw invalid("unknown section [\(section)]")
        }
      }
    }
    try checkRelay(config.relay, entries: entries, file: file)
    return config
  }

  private static func applyRelay(
    _ entry: ConfigEntry, to relay: inout RelaySettings, _ invalid: (String) -> ConfigError
  ) throws(ConfigError) {
    func file(_ text: String) throws(ConfigError) -> String? { text.isEmpty ? nil : try path(text, invalid) }
    switch entry.key {
    case "URL":
      let urls: [String]
      do {
        urls = try RelayStream.servers(entry.value)
      } catch {
        throw invalid("'\(error.field)' is \(error.reason)")
      }
      relay.urls = urls
    case "Credentials": relay.credentials = try file(entry.value)
    case "User": relay.user = entry.value.isEmpty ? nil : entry.value
    case "PasswordFile": relay.passwordFile = try file(entry.value)
    case "TokenFile": relay.tokenFile = try file(entry.value)
    case "TLSCA": relay.tlsCA = try file(entry.value)
    case "Subject":
      guard entry.value.isEmpty || RelaySubjects.isValidBase(entry.value) else {
        throw invalid("'\(entry.value)' is not a NATS subject (dot-separated names, no * or >)")
      }
      relay.subject = entry.value.isEmpty ? nil : entry.value
    case "Publish": relay.publish = try boolean(entry.value, invalid)
    case "Subscribe": relay.subscribe = try boolean(entry.value, invalid)
    case "Host":
      guard !entry.value.contains(where: { $0 == "*" || $0 == ">" || $0 == "/" || $0.isWhitespace }) else {
        throw invalid("'\(entry.value)' may not hold '*', '>', '/' or spaces")
      }
      relay.host = entry.value.isEmpty ? nil : entry.value
    case "MaxAge":
      if entry.value == "off" || entry.value.isEmpty {
        relay.maxAge = nil
        return
      }
      guard let seconds = DurationParser.seconds(entry.value), seconds > 0 else {
        throw invalid("'\(entry.value)' is not a duration > 0 (e.g. 30m, 12h)")
      }
      guard seconds <= RelaySettings.streamMaxAge else {
        throw invalid("'\(entry.value)' is longer than the stream keeps notices (7 days)")
      }
      relay.maxAge = seconds
    default: throw invalid("unknown key in [Relay]")
    }
  }

  /// One way to sign in at most, and a user with a password file.
  private static func checkRelay(_ relay: RelaySettings, entries: [ConfigEntry], file: String)
    throws(ConfigError)
  {
    func line(_ key: String) -> Int { entries.last { $0.section == "Relay" && $0.key == key }?.line ?? 0 }
    let ways = [relay.credentials != nil, relay.user != nil, relay.tokenFile != nil].filter { $0 }.count
    if ways > 1 {
      throw .invalidValue(
        file: file, line: line(relay.tokenFile != nil ? "TokenFile" : "User"), key: "Credentials",
        reason: "give one of Credentials=, User= with PasswordFile=, or TokenFile=")
    }
    if (relay.user == nil) != (relay.passwordFile == nil) {
      throw .invalidValue(
        file: file, line: line(relay.user == nil ? "PasswordFile" : "User"),
        key: relay.user == nil ? "PasswordFile" : "User", reason: "User= and PasswordFile= go together")
    }
  }

  // MARK: - Values

  private static func applyTiming(
    _ entry: ConfigEntry, to timing: inout TimingOverrides, _ invalid: (String) -> ConfigError
  ) throws(ConfigError) {
    switch entry.key {
    case "Delay": timing.delay = try duration(entry.value, invalid)
    case "FadeIn": timing.fadeIn = try duration(entry.value, invalid)
    case "Hold": timing.hold = try duration(entry.value, invalid)
    case "FadeOut": timing.fadeOut = try duration(entry.value, invalid)
    case "EaseIn": timing.easeIn = try choice(entry.value, invalid)
    case "EaseOut": timing.easeOut = try choice(entry.value, invalid)
    default: throw invalid("unknown key in [\(entry.section)]")
    }
  }

  private static func applyDisplay(
    _ entry: ConfigEntry, to display: inout DisplaySettings, _ invalid: (String) -> ConfigError
  ) throws(ConfigError) {
    switch entry.key {
    case "Mode": display.mode = try choice(entry.value, invalid)
    case "Anchor": display.anchor = try choice(entry.value, invalid)
    case "Margin": display.margin = try integer(entry, in: 0...10_000, invalid)
    case "Width": display.width = try integer(entry, in: 100...4_000, invalid)
    case "Gap": display.gap = try integer(entry, in: 0...1_000, invalid)
    case "Output": display.output = entry.value.isEmpty ? nil : entry.value
    case "FollowFocus": display.followFocus = try choice(entry.value, invalid)
    case "Font":
      guard !entry.value.isEmpty else { throw invalid("a font is needed, e.g. Sans 10") }
      display.font = entry.value
    case "CornerRadius": display.cornerRadius = try integer(entry, in: 0...100, invalid)
    case "IconTheme":
      guard !entry.value.isEmpty, !entry.value.contains("/") else {
        throw invalid("a theme's name is needed, e.g. Adwaita")
      }
      display.iconTheme = entry.value
    default: throw invalid("unknown key in [Display]")
    }
  }

  private static func applyColour(
    _ entry: ConfigEntry, to colours: inout CardColours, _ invalid: (String) -> ConfigError
  ) throws(ConfigError) {
    guard let colour = RGBA(hex: entry.value) else {
      throw invalid("'\(entry.value)' is not a colour (#rrggbb or #rrggbbaa)")
    }
    switch entry.key {
    case "Background": colours.background = colour
    case "Foreground": colours.foreground = colour
    case "Border": colours.border = colour
    case "Progress": colours.progress = colour
    default: throw invalid("unknown key in [\(entry.section)]")
    }
  }

  private static func applyRule(
    _ entry: ConfigEntry, to rule: inout Rule, _ invalid: (String) -> ConfigError
  ) throws(ConfigError) {
    switch entry.key {
    case "MatchApp": rule.matchApp = try glob(entry.value, invalid)
    case "MatchTag": rule.matchTag = try glob(entry.value, invalid)
    case "MatchTitle": rule.matchTitle = try glob(entry.value, invalid)
    case "MatchUrgency": rule.matchUrgency = try choice(entry.value, invalid)
    case "MatchDesktopEntry": rule.matchDesktopEntry = try glob(entry.value, invalid)
    case "MatchCategory": rule.matchCategory = try glob(entry.value, invalid)
    case "IgnoreClose": rule.ignoreClose = try duration(entry.value, invalid)
    case "Urgency": rule.urgency = try choice(entry.value, invalid)
    case "Suppress": rule.suppress = try boolean(entry.value, invalid)
    case "BypassDoNotDisturb": rule.bypassDoNotDisturb = try boolean(entry.value, invalid)
    case _ where timingKeys.contains(entry.key): try applyTiming(entry, to: &rule.timing, invalid)
    default: throw invalid("unknown key in [\(entry.section)]")
    }
  }

  static func integer(
    _ entry: ConfigEntry, in range: ClosedRange<Int>, _ invalid: (String) -> ConfigError
  ) throws(ConfigError) -> Int {
    guard let value = Int(entry.value) else { throw invalid("'\(entry.value)' is not a whole number") }
    guard range.contains(value) else {
      throw invalid("\(value) is out of range (\(range.lowerBound)…\(range.upperBound))")
    }
    return value
  }

  static func duration(_ text: String, _ invalid: (String) -> ConfigError) throws(ConfigError) -> Double {
    guard let seconds = DurationParser.seconds(text) else {
      throw invalid("'\(text)' is not a duration ≥ 0 (e.g. 1.5, 300ms, 2s, 1m)")
    }
    guard seconds <= 86_400 else { throw invalid("'\(text)' is longer than a day") }
    return seconds
  }

  static func choice<T: RawRepresentable & CaseIterable>(
    _ text: String, _ invalid: (String) -> ConfigError
  ) throws(ConfigError) -> T where T.RawValue == String {
    guard let value = T(rawValue: text) else {
      let choices = T.allCases.map(\.rawValue).joined(separator: ", ")
      throw invalid("'\(text)' is not one of \(choices)")
    }
    return value
  }

  static func boolean(_ text: String, _ invalid: (String) -> ConfigError) throws(ConfigError) -> Bool {
    switch text.lowercased() {
    case "yes", "true", "on", "1": return true
    case "no", "false", "off", "0": return false
    default: throw invalid("'\(text)' is not a boolean (yes or no)")
    }
  }

  static func glob(_ text: String, _ invalid: (String) -> ConfigError) throws(ConfigError) -> Glob {
    guard let glob = Glob(text) else {
      throw invalid("'\(text)' is not a valid glob (an unclosed [ or a trailing \\)")
    }
    return glob
  }

  static func path(_ text: String, _ invalid: (String) -> ConfigError) throws(ConfigError) -> String {
    guard text.hasPrefix("/") || text.hasPrefix("~/") else {
      throw invalid("'\(text)' is not an absolute path")
    }
    return text
  }
}
