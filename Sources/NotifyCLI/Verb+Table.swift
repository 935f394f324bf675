// The verbs table: the single place that lists what notifyctl can do. Help text and parsing
// both read it, so they cannot drift apart.

extension Verb {
  /// Every verb, in the order the help lists them.
  static let all: [Verb] = [
    Verb(
      name: "show", synopsis: "TITLE [BODY]", summary: "queue a notice and print its id",
      options: appearanceOptions + timingOptions + [
        .value("hold", "D", "stay fully visible for D (0: until ended)"),
        .value("ease-in", "CURVE", "fade-in curve: linear, easeIn, easeOut, easeInOut"),
        .value("ease-out", "CURVE", "fade-out curve: linear, easeIn, easeOut, easeInOut"),
        .value("after", "ID", "wait until notice ID has finished"),
        .value("action", "KEY=LABEL", "add a button (repeatable)"),
        .value("reply", "PLACEHOLDER", "offer a reply field, showing PLACEHOLDER until typed in"),
        .flag("wait", "wait until the notice finishes; print the invoked action's key, or the reply"),
      ],
      build: CommandParser.show),
    Verb(
      name: "progress", synopsis: "TITLE [BODY]", summary: "start a progress indicator and print its id",
      options: appearanceOptions + timingOptions + [
        .value("value", "N", "progress so far, in percent"),
        .value("timeout", "D", "time out when not ended within D (0: never)"),
      ],
      build: CommandParser.progress),
    Verb(
      name: "update", synopsis: "ID", summary: "change a notice's title, body or value",
      options: [
        .value("title", "T", "new title"),
        .value("body", "B", "new body"),
        .value("value", "N", "new progress value, in percent"),
      ],
      build: CommandParser.update),
    Verb(
      name: "end", synopsis: "ID [MESSAGE]", summary: "finish a notice, with an optional closing message",
      options: [.value("hold", "D", "hold the closing message for D")],
      build: CommandParser.end),
    Verb(
      name: "cancel", synopsis: "ID... | --tag T | --all", summary: "cancel notices and print their ids",
      options: [
        .value("tag", "T", "cancel every notice tagged T"),
        .flag("all", "cancel every unfinished notice"),
        .flag("now", "vanish at once instead of fading out"),
      ],
      build: CommandParser.cancel),
    Verb(
      name: "dismiss", synopsis: "[ID...] | --app GLOB | --all",
      summary:
        "close notices as a person would (outcome dismissed) and print their ids; no ID: the newest visible",
      options: [
        .flag("all", "dismiss every visible notice"),
        .value("app", "GLOB", "dismiss every unfinished notice of the apps GLOB matches"),
      ],
      build: CommandParser.dismiss),
    Verb(
      name: "invoke", synopsis: "[ID] [ACTION]",
      summary: "choose one of a visible notice's actions (no ID: the newest visible; no ACTION: default)",
      options: [], build: CommandParser.invoke),
    Verb(
      name: "snooze", synopsis: "[ID] DURATION | [ID] --until TIME",
      summary:
        "put a notice off: it leaves, and comes back as it was, with its buttons (no ID: the newest visible)",
      options: [
        .value("until", "TIME", "until TIME: H:MM (the next one), tomorrow (9:00) or epoch seconds")
      ],
      build: CommandParser.snooze),
    Verb(
      name: "unsnooze", synopsis: "ID", summary: "bring a snoozed notice back now",
      options: [], build: CommandParser.unsnooze),
    Verb(
      name: "reply", synopsis: "ID TEXT", summary: "answer a visible notice's reply field with TEXT",
      options: [], build: CommandParser.reply),
    Verb(
      name: "menu", synopsis: "[ID]",
      summary: "hand a notice's actions to a picker and invoke the chosen one (no ID: the newest visible)",
      options: [.value("picker", "CMD", "the picker: reads labels, one a line, and prints the chosen one")],
      build: CommandParser.menu),
    Verb(
      name: "read", synopsis: "[ID...] | --all",
      summary: "mark finished notices read and print the ids that were unread; no ID: all of them",
      options: [.flag("all", "mark every finished notice read")],
      build: CommandParser.read),
    Verb(
      name: "restore", synopsis: "[ID...] | --last N",
      summary: "show finished notices again, as new notices, and print their ids; no ID: the last one",
      options: [.value("last", "N", "the N notices that finished last")],
      build: CommandParser.restore),
    Verb(
      name: "forget", synopsis: "ID... | --app GLOB | --all",
      summary: "remove finished notices from history and the store and print their ids",
      options: [
        .value("app", "GLOB", "forget every finished notice of the apps GLOB matches"),
        .flag("all", "forget the whole history"),
      ],
      build: CommandParser.forget),
    Verb(
      name: "center", synopsis: "[open|close|toggle]",
      summary: "open or close the notification center notifyd draws (no argument: toggle)",
      options: [], build: CommandParser.center),
    Verb(
      name: "suspend", synopsis: "", summary: "hold back new notices (do not disturb)",
      options: [
        .value("for", "D", "resume by itself after D"),
        .value("allow", "WHAT", "what still shows: critical (the default, [DoNotDisturb] Allow=) or none"),
      ],
      build: CommandParser.suspend),
    Verb(
      name: "resume", synopsis: "", summary: "show held-back notices again",
      options: [], build: CommandParser.resume),
    Verb(
      name: "reload", synopsis: "", summary: "make the daemon re-read its config",
      options: [], build: CommandParser.reload),
    Verb(
      name: "status", synopsis: "", summary: "show whether the queue is suspended, and its counts",
      options: [jsonOption], build: CommandParser.status),
    Verb(
      name: "list", synopsis: "", summary: "list unfinished notices",
      options: [
        jsonOption, .flag("held", "only those do-not-disturb holds back"),
        .flag("snoozed", "only snoozed ones, with when each comes back"),
      ],
      build: CommandParser.list),
    Verb(
      name: "history", synopsis: "", summary: "list finished notices, newest first",
      options: [
        jsonOption,
        .value("limit", "N", short: "n", "show at most N notices"),
        .value("app", "NAME", "only notices from app NAME"),
        .value("outcome", "O", "only notices that ended so: completed, cancelled, timedOut, ..."),
        .value("since", "WHEN", "only notices finished since WHEN: a duration ago (2h) or epoch seconds"),
        .value("folded-into", "ID", "only notices folded into summary notice ID"),
        .flag("unread", "only notices nobody saw (expired while away, held back, folded, drawn nowhere)"),
      ],
      build: CommandParser.history),
    Verb(
      name: "get", synopsis: "ID", summary: "show one notice",
      options: [jsonOption], build: CommandParser.get),
    Verb(
      name: "wait", synopsis: "ID", summary: "wait until a notice finishes; exit by its outcome",
      options: [], build: CommandParser.wait),
    Verb(
      name: "watch", synopsis: "",
      summary: "show notices as they fade in and out, or follow the queue's events",
      options: [
        .flag("json", "print each event as one JSON object per line"),
        .value(
          "format", "FORMAT",
          "auto (a live view on a terminal, else lines), lines, json, waybar or i3bar (one status per change)"
        ),
        .flag("frames", "also report fades frame by frame"),
        .value("fps", "N", "frames per second (implies --frames; on a terminal, the view's frame rate)"),
      ],
      build: CommandParser.watch),
    Verb(
      name: "run", synopsis: "[OPTIONS] [--] COMMAND [ARG...]",
      summary: "run a command under a progress indicator; exit with its status",
      options: [
        .value("title", "T", "indicator title (default: the command line)"),
        .value("timeout", "D", "time the indicator out D after its last update (default: the daemon's)"),
      ],
      stopsAtFirstPositional: true,
      build: CommandParser.run),
    Verb(
      name: "call", synopsis: "METHOD [JSON]",
      summary: "call a Varlink method (Status or org.varlink.service.GetInfo) and print the replies",
      options: [.flag("more", "ask for several replies, as Watch needs")],
      build: CommandParser.call),
    Verb(
      name: "help", synopsis: "[COMMAND]", summary: "show help, for everything or for one command",
      options: [], build: CommandParser.help),
  ]

  private static let jsonOption = OptionSpec.flag("json", "print the reply as JSON")

  private static let appearanceOptions: [OptionSpec] = [
    .value("urgency", "U", "low, normal or critical"),
    .value("style", "S", "clear or blur"),
    .value("icon", "ICON", "an image file (PNG, SVG) or an icon name the popup shows beside the text"),
    .value("app", "NAME", "the application the notice is from"),
    .value("tag", "T", "a tag, for cancel --tag"),
    .value("key", "K", "replace the unfinished notice with the same key"),
  ]

  private static let timingOptions: [OptionSpec] = [
    .value("delay", "D", "become due after D"),
    .value("fade-in", "D", "fade in over D"),
    .value("fade-out", "D", "fade out over D"),
  ]
}
