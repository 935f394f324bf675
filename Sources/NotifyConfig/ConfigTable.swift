import Foundation
import NotifyCore
import NotifyProtocol

/// Every section and key of notifyd.conf, in the order `--check-config` shows them: what the parser
/// reads, what `rendered()` writes, and what the tests hold notifyd.conf(5) and the example config
/// to. A key's built-in default is what it shows of `Config()`.
public enum ConfigTable {
  /// The sections, in the order `--check-config` shows them.
  public static let sections: [ConfigSection] = [
    queue, doNotDisturb, limits, idle, timing, urgency, progress, rules, socket, store, dbus, sound, display,
    displayLooks, center, speech, hooks, relay,
  ]

  /// The section a header (`Queue`, `Urgency:low`, `Rule:backups`) belongs to, with what follows the
  /// colon; `nil` when no section has that name and form.
  public static func section(for header: String) -> (section: ConfigSection, suffix: String?)? {
    guard let colon = header.firstIndex(of: ":") else {
      return sections.first { $0.name == header && $0.form == .single }.map { ($0, nil) }
    }
    let name = String(header[..<colon])
    let suffix = String(header[header.index(after: colon)...])
    return sections.first { $0.name == name && $0.form != .single }.map { ($0, suffix) }
  }

  /// The timing keys: `[Timing]`, `[Urgency:X]` and `[Rule:NAME]` each have them.
  static let timingFields: [Field<TimingOverrides>] = [
    .duration("Delay", \.delay, doc: "How long after being accepted a notice becomes due."),
    .duration("FadeIn", \.fadeIn, doc: "How long the opacity takes to go from 0 to 1."),
    .duration("Hold", \.hold, doc: "How long a notice stays fully visible; 0 holds it until ended."),
    .duration("FadeOut", \.fadeOut, doc: "How long the opacity takes to go from 1 to 0."),
    .choice("EaseIn", \.easeIn, doc: "The curve of the fade-in."),
    .choice("EaseOut", \.easeOut, doc: "The curve of the fade-out."),
  ]

  /// The look keys: `[Display]`, `[Display:URGENCY]` and `[Rule:NAME]` each have them.
  static let lookFields: [Field<LookOverrides>] = [
    .colour("Background", \.background, doc: "The card."),
    .colour("Foreground", \.foreground, doc: "The text."),
    .colour("Border", \.border, doc: "The border."),
    .colour("Progress", \.progress, doc: "The progress bar."),
    .integer("BorderWidth", \.borderWidth, in: 0...20, doc: "Pixels, the border's width; 0 draws none."),
    .integer("Width", \.width, in: 100...4_000, doc: "Pixels, the card's width."),
    Field(
      name: "Font", values: "font", doc: "A pango font description: the body's; the title is its bold.",
      read: { look, text throws(ConfigProblem) in
        guard !text.isEmpty else { throw ConfigProblem("a font is needed, e.g. Sans 10") }
        look.font = text
      },
      show: { $0.font }),
    .number(
      "FontScale", \.fontScale, in: 0.5...4,
      doc: "What the size of every text on the card is multiplied by: 1.5 for text half as large again."),
    .integer("IconSize", \.iconSize, in: 16...256, doc: "Pixels, the edge of the icon's square."),
    .integer("CornerRadius", \.cornerRadius, in: 0...100, doc: "Pixels, the radius of the card's corners."),
    .integer("Padding", \.padding, in: 0...100, doc: "Pixels inside the border, around what the card shows."),
    .integer("MaxLines", \.maxLines, in: 1...50, doc: "Lines of the body (or of Format=) at most."),
    Field(
      name: "Format", values: "format",
      doc: "The card's text: %a app, %s title, %b body, %h host, %p progress.",
      read: { look, text throws(ConfigProblem) in look.format = text.isEmpty ? nil : try CardFormat(text) },
      show: { $0.format?.description }),
    .choice("Layer", \.layer, doc: "Wayland: top is under fullscreen windows, overlay above them."),
    Field(
      name: "Output", values: "focused|all|name", doc: "The focused output, every output, or one by name.",
      read: { look, text throws(ConfigProblem) in look.output = text.isEmpty ? nil : CardOutput(text) },
      show: { $0.output?.description }),
    .choice(
      "Fullscreen", \.fullscreen,
      doc: "Under a fullscreen window: show; delay until it leaves; pushback shown ones too."),
    .choice(
      "Animation", \.animation,
      doc:
        "fade: cards fade in and out; none: they appear and go at once, and nothing moves (reduced motion)."),
    Field(
      name: "SnoozeButton", values: "boolean",
      doc: "A Remind me button on the card: snoozes it for the first of [Display] Snooze=.",
      read: { look, text throws(ConfigProblem) in look.snoozeButton = try Value.boolean(text) },
      show: { $0.snoozeButton.map(Value.yesNo) }),
  ]

  // MARK: - The engine's sections

  static let queue = ConfigSection.single(
    "Queue", \.queue, doc: "The notice lane's slots, the queue's bounds and history.",
    [
      .integer(
        "MaxVisible", \.maxVisible, in: 1...1000, doc: "Notices visible at once, besides sticky ones."),
      .integer(
        "MaxSticky", \.maxSticky, in: 0...1000,
        doc: "Notices held until ended that may keep showing out of a slot once they hold."),
      .integer(
        "Capacity", \.capacity, in: 1...10_000_000, doc: "Unfinished notices at most; past it, QueueFull."),
      .integer("HistorySize", \.historySize, in: 0...10_000_000, doc: "Finished notices kept for History."),
      .integer(
        "FrameRate", \.frameRate, in: 1...240, doc: "Frames per second for watchers that do not say how many."
      ),
      .boolean(
        "StackDuplicates", \.stackDuplicates,
        doc: "A notice equal to a visible one merges into it with a count."),
    ])

  static let doNotDisturb = ConfigSection.single(
    "DoNotDisturb", \.queue.doNotDisturb,
    doc: "What passes while suspended, quiet hours, the summary on resume.",
    [
      .choice("Allow", \.allow, doc: "What still shows while suspended: none, or critical notices."),
      Field(
        name: "Schedule", values: "windows",
        doc: "Quiet hours, local time: 22:00-07:00; Sat,Sun 13:00-15:00.",
        read: { settings, text throws(ConfigProblem) in
          // Each line adds its windows (several separated by ';'); an empty value clears them.
          if text.isEmpty { settings.quietHours.windows = [] }
          for part in text.split(separator: ";") {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard let window = QuietWindow(trimmed) else {
              throw ConfigProblem(
                "'\(trimmed)' is not a window of quiet hours (e.g. 22:00-07:00, Mon-Fri 22:00-07:00)")
            }
            settings.quietHours.windows.append(window)
          }
        },
        show: { $0.quietHours.windows.map(\.description).joined(separator: "; ") }),
      .boolean("Summary", \.summary, doc: "On resume, fold what was held into one notice."),
    ])

  static let limits = ConfigSection.single(
    "Limits", \.queue, doc: "Flood control.",
    [
      Field(
        name: "PerApp", values: "count/duration|off", doc: "A token bucket per app; past it, notices fold.",
        read: { queue, text throws(ConfigProblem) in
          if Value.isOff(text) {
            queue.perApp = nil
            return
          }
          guard let limit = FloodLimit(text) else {
            throw ConfigProblem("'\(text)' is not a rate (a count per duration, e.g. 20/1m), or off")
          }
          queue.perApp = limit
        },
        show: { $0.perApp.map(\.description) ?? "off" })
    ])

  static let idle = ConfigSection.single(
    "Idle", \.display, doc: "What happens while the person is away.",
    [
      Field(
        name: "After", values: "duration|off",
        doc: "Input-free time after which shown notices' holds stand still.",
        read: { display, text throws(ConfigProblem) in
          if Value.isOff(text) {
            display.idleAfter = nil
            return
          }
          let seconds = try Value.duration(text)
          guard seconds >= 1 else {
            throw ConfigProblem("'\(text)' is under a second; use 1s or more, or off")
          }
          display.idleAfter = seconds
        },
        show: { $0.idleAfter.map(Value.seconds) ?? "off" })
    ])

  static let timing = ConfigSection.single(
    "Timing", \.queue.timing, view: { $0.queue.timing.over(QueueSettings.builtInTiming(for: .normal)) },
    doc: "The timing of every notice.", timingFields)

  static let urgency = ConfigSection.perUrgency(
    "Urgency",
    modify: { config, urgency, body throws(ConfigProblem) in
      try body(&config.queue.urgencyTiming[urgency, default: TimingOverrides()])
    },
    view: { config, urgency in
      let layered = config.queue.urgencyTiming[urgency] ?? TimingOverrides()
      let builtIn = QueueSettings.builtInTiming(for: urgency)
      // The built-in critical hold is a layer of its own (see QueueSettings.resolve).
      let differs = builtIn != QueueSettings.builtInTiming(for: .normal)
      return differs ? layered.over(TimingOverrides(hold: builtIn.hold)) : layered
    },
    doc: "The timing of the notices of one urgency.", timingFields)

  static let progress = ConfigSection.single(
    "Progress", \.queue, doc: "The progress indicators' lane.",
    [
      .integer("MaxVisible", \.progressMaxVisible, in: 1...1000, doc: "Progress indicators visible at once."),
      .duration("Timeout", \.progressTimeout, doc: "An indicator with no news this long times out; 0 never."),
      .duration("EndHold", \.endHold, doc: "How long the closing message of End holds."),
    ])

  static let rules = ConfigSection.rules(
    doc: "A rule changes the notices it matches.",
    [
      .glob("MatchApp", \.matchApp, doc: "The notice's application."),
      .glob("MatchTag", \.matchTag, doc: "The notice's tag."),
      .glob("MatchTitle", \.matchTitle, doc: "The notice's title."),
      .choice("MatchUrgency", \.matchUrgency, doc: "The urgency the client asked for."),
      .glob("MatchDesktopEntry", \.matchDesktopEntry, doc: "The sender's desktop file, without .desktop."),
      .glob("MatchCategory", \.matchCategory, doc: "The notice's category (email.arrived)."),
    ]
      + timingFields.map { $0.within(\Rule.timing) }
      + [
        .choice("Urgency", \.urgency, doc: "The notice's urgency, over the one the client gave."),
        Field(
          name: "Suppress", values: "boolean", doc: "Drop the notice: it finishes at once, cancelled.",
          read: { rule, text throws(ConfigProblem) in rule.suppress = try Value.boolean(text) },
          show: { $0.suppress ? "yes" : nil }),
        Field(
          name: "BypassDoNotDisturb", values: "boolean",
          doc: "yes shows through do-not-disturb; no holds back.",
          read: { rule, text throws(ConfigProblem) in rule.bypassDoNotDisturb = try Value.boolean(text) },
          show: { $0.bypassDoNotDisturb.map(Value.yesNo) }),
        .duration("IgnoreClose", \.ignoreClose, doc: "Overrides [DBus] IgnoreClose= for what it matches."),
        .choice("LeftClick", \.leftClick, doc: "Overrides [Display] LeftClick= for what it matches."),
        .choice("MiddleClick", \.middleClick, doc: "Overrides [Display] MiddleClick= for what it matches."),
        .choice("RightClick", \.rightClick, doc: "Overrides [Display] RightClick= for what it matches."),
        .choice("Speak", \.speak, doc: "Overrides [Speech] Speak= for what it matches."),
      ], looks: lookFields)

  // MARK: - The adapters' sections

  static let socket = ConfigSection.single(
    "Socket", \.self, doc: "Where the daemon serves Varlink.",
    [
      .path(
        "Path", \.socketPath, optional: false, unset: "$XDG_RUNTIME_DIR/notifyd.sock",
        doc: "The socket the daemon creates.")
    ])

  static let store = ConfigSection.single(
    "Store", \.self, doc: "The SQLite store.",
    [
      .path(
        "Path", \.storePath, optional: false, unset: "$XDG_STATE_HOME/notifyd/notifyd.db",
        doc: "The SQLite database."),
      .choice("Sync", \.storeSync, doc: "full syncs every commit to disk; normal survives a killed daemon."),
    ])

  static let dbus = ConfigSection.single(
    "DBus", \.self, doc: "How notifyd meets org.freedesktop.Notifications.",
    [
      .choice("Mode", \.dbusMode, doc: "auto, forward to another server, be the server, or off."),
      .duration(
        "IgnoreClose", \.dbusIgnoreClose, doc: "A CloseNotification this soon after Notify is ignored."),
    ])

  static let sound = ConfigSection.single(
    "Sound", \.sound, doc: "Sounds as notices show.",
    [
      .boolean("Enabled", \.enabled, doc: "Play a notice's sound-file or sound-name as it shows."),
      .text("Default", \.defaultName, doc: "A sound-theme name for notices that name none."),
    ])

  static let display = ConfigSection.single(
    "Display", \.display,
    view: { config in
      // Beside the keys it sets, the built-in look's; its colours and layer only when set (each
      // urgency has its own, shown under [Display:URGENCY]).
      var display = config.display
      display.look.fill(from: CardLook.builtIn(for: .normal), urgencyKeys: false, rest: true)
      return display
    },
    doc: "The popups notifyd draws itself.",
    [
      .choice("Mode", \.mode, doc: "Where popups are drawn: auto, wayland, x11 or off."),
      .choice("Anchor", \.anchor, doc: "Where the cards stack from."),
      .integer("Margin", \.margin, in: 0...10_000, doc: "Pixels from the output's edges to the stack."),
      .integer("Gap", \.gap, in: 0...1_000, doc: "Pixels between two cards."),
      .choice(
        "FollowFocus", \.followFocus,
        doc: "X11, Output=focused: the monitor under the pointer, or the active window's."),
      Field(
        name: "Scale", values: "auto|0.5–4",
        doc: "X11: device pixels per logical pixel; auto: Xft.dpi / 96. Wayland: each output's own.",
        read: { display, text throws(ConfigProblem) in
          if text.isEmpty || text == "auto" {
            display.scale = nil
            return
          }
          guard let scale = Double(text), scale.isFinite, (0.5...4).contains(scale) else {
            throw ConfigProblem("auto, or a number from 0.5 to 4 (e.g. 2 or 1.5)")
          }
          display.scale = scale
        },
        show: { $0.scale.map { String(format: "%g", $0) } ?? "auto" }),
    ] + lookFields.map { $0.within(\DisplaySettings.look) }
      + [
        Field(
          name: "IconTheme", values: "name", doc: "The icon theme names given as icons are looked up in.",
          read: { display, text throws(ConfigProblem) in
            guard !text.isEmpty, !text.contains("/") else {
              throw ConfigProblem("a theme's name is needed, e.g. Adwaita")
            }
            display.iconTheme = text
          },
          show: { $0.iconTheme }),
        .integer(
          "MaxButtons", \.maxButtons, in: 0...8, doc: "Action buttons on a card at most; … opens the picker."),
        .boolean("HoverHolds", \.hoverHolds, doc: "The pointer over a card stops its hold."),
        .choice("LeftClick", \.leftClick, doc: "A left click on a card, away from its buttons."),
        .choice("MiddleClick", \.middleClick, doc: "A middle click on a card."),
        .choice("RightClick", \.rightClick, doc: "A right click on a card."),
        .text("Picker", \.picker, doc: "Shows action labels, one a line, and prints the chosen one."),
        Field(
          name: "Snooze", values: "times",
          doc: "Snooze choices, the first for Remind me: 10m, 1h, a time of day (14:30), tomorrow.",
          read: { display, text throws(ConfigProblem) in
            guard let choices = SnoozeTime.choices(text) else {
              throw ConfigProblem(
                "1 to \(SnoozeTime.maximumChoices) times separated by commas, each a while up to a week (10m, 1h), "
                  + "a time of day (14:30) or tomorrow")
            }
            display.snooze = choices
          },
          show: { $0.snooze.map(\.configText).joined(separator: ",") }),
      ])

  static let center = ConfigSection.single(
    "Center", \.display.center, doc: "The notification center: `notifyctl center` opens it.",
    [
      .choice("Anchor", \.anchor, doc: "The output's edge it opens on: left or right."),
      .integer("Width", \.width, in: 200...4_000, doc: "Pixels, its width; it is the output's full height."),
    ])

  static let speech = ConfigSection.single(
    "Speech", \.display.speech, doc: "Notices spoken through speech-dispatcher as their cards show.",
    [
      .choice(
        "Speak", \.speak,
        doc:
          "no; yes: the app, title and body; title: the app and title. Not while a screen reader reads them."),
      .path(
        "Socket", \.socket, optional: true, unset: "",
        doc:
          "speech-dispatcher's socket; empty: SPEECHD_ADDRESS, else $XDG_RUNTIME_DIR/speech-dispatcher/speechd.sock."
      ),
    ])

  static let displayLooks = ConfigSection.perUrgency(
    "Display",
    modify: { config, urgency, body throws(ConfigProblem) in
      try body(&config.display.urgencyLooks[urgency, default: LookOverrides()])
    },
    view: { config, urgency in
      // Beside the keys it sets, the colours and layer in force for the urgency.
      var layer = config.display.urgencyLooks[urgency] ?? LookOverrides()
      layer.fill(from: config.display.look(for: urgency), urgencyKeys: true, rest: false)
      return layer
    },
    doc: "The look of the cards of one urgency, over [Display]'s.", lookFields)

  static let hooks = ConfigSection.single(
    "Hooks", \.hooks, doc: "Commands run through sh -c as notices show and finish.",
    [
      .text("OnShow", \.onShow, doc: "Runs when a notice first becomes visible."),
      .text("OnFinish", \.onFinish, doc: "Runs when a notice finishes."),
      .text("OnComplete", \.onComplete, doc: "Runs when a notice finishes with outcome completed."),
    ])

  static let relay = ConfigSection.single(
    "Relay", \.relay, doc: "Notices to and from the user's other machines through NATS JetStream.",
    [
      Field(
        name: "URL", values: "url[,url...]", doc: "nats:// or tls:// servers, comma-separated for a cluster.",
        read: { relay, text throws(ConfigProblem) in
          do throws(InvalidField) {
            relay.urls = try RelayStream.servers(text)
          } catch {
            throw ConfigProblem("'\(error.field)' is \(error.reason)")
          }
        },
        show: { $0.urls.joined(separator: ",") }),
      .path("Credentials", \.credentials, optional: true, unset: nil, doc: "A .creds file to sign in with."),
      .text("User", \.user, unset: nil, doc: "A user to sign in as, with PasswordFile=."),
      .path(
        "PasswordFile", \.passwordFile, optional: true, unset: nil,
        doc: "A file whose first line is the password."),
      .path(
        "TokenFile", \.tokenFile, optional: true, unset: nil, doc: "A file whose first line is the token."),
      .path(
        "TLSCA", \.tlsCA, optional: true, unset: nil, doc: "The CA a tls:// server's certificate chains to."),
      Field(
        name: "Subject", values: "subject", doc: "Every subject the relay uses is under it.",
        read: { relay, text throws(ConfigProblem) in
          guard text.isEmpty || RelaySubjects.isValidBase(text) else {
            throw ConfigProblem("'\(text)' is not a NATS subject (dot-separated names, no * or >)")
          }
          relay.subject = text.isEmpty ? nil : text
        },
        show: { $0.subject ?? "notifyd.$USER" }),
      .boolean("Publish", \.publish, doc: "Publish this host's notices."),
      .boolean("Subscribe", \.subscribe, doc: "Show the notices other hosts published."),
      Field(
        name: "Host", values: "name", doc: "The name this host goes by.",
        read: { relay, text throws(ConfigProblem) in
          guard !text.contains(where: { $0 == "*" || $0 == ">" || $0 == "/" || $0.isWhitespace }) else {
            throw ConfigProblem("'\(text)' may not hold '*', '>', '/' or spaces")
          }
          relay.host = text.isEmpty ? nil : text
        },
        show: { $0.host ?? "$(hostname)" }),
      Field(
        name: "MaxAge", values: "duration|off",
        doc: "A relayed notice older than this goes to history, missed.",
        read: { relay, text throws(ConfigProblem) in
          if text == "off" || text.isEmpty {
            relay.maxAge = nil
            return
          }
          guard let seconds = DurationParser.seconds(text), seconds > 0 else {
            throw ConfigProblem("'\(text)' is not a duration > 0 (e.g. 30m, 12h)")
          }
          guard seconds <= RelaySettings.streamMaxAge else {
            throw ConfigProblem("'\(text)' is longer than the stream keeps notices (7 days)")
          }
          relay.maxAge = seconds
        },
        show: { $0.maxAge.map(Value.seconds) ?? "off" }),
    ],
    check: { config in
      // One way to sign in at most, and a user with a password file.
      let relay = config.relay
      let ways = [relay.credentials != nil, relay.user != nil, relay.tokenFile != nil].filter { $0 }.count
      if ways > 1 {
        return .init(
          key: "Credentials", lineOf: relay.tokenFile != nil ? "TokenFile" : "User",
          reason: "give one of Credentials=, User= with PasswordFile=, or TokenFile=")
      }
      if (relay.user == nil) != (relay.passwordFile == nil) {
        let key = relay.user == nil ? "PasswordFile" : "User"
        return .init(key: key, lineOf: key, reason: "User= and PasswordFile= go together")
      }
      return nil
    })
}

extension Field {
  /// This key, written against the part of a larger `Outer` at `path`.
  func within<Outer>(_ path: WritableKeyPath<Outer, Target> & Sendable) -> Field<Outer> {
    let read = read
    let show = show
    return Field<Outer>(
      name: name, values: values, doc: doc,
      read: { outer, text throws(ConfigProblem) in try read(&outer[keyPath: path], text) },
      show: { show($0[keyPath: path]) })
  }
}
