import NotifyProtocol

/// Plain, readable text for notices, the queue's status and events; every title and body passes
/// through `TextFormat.sanitized`, so no control character reaches the terminal.
enum NoticeFormatter {
  // MARK: - Lists

  /// One line per unfinished notice: id, phase, urgency, title; a snoozed one says until when.
  static func listLines(_ notices: [Notice], now: Double) -> [String] {
    let width = idWidth(notices)
    return notices.map { notice in
      var phase = notice.phase.rawValue
      if notice.phase.isVisible, notice.phase != .holding {
        phase += " " + TextFormat.fixed(notice.opacity, digits: 2)
      }
      var line = [
        pad("#\(notice.id)", width), pad(phase, 14), pad(notice.urgency.rawValue, 8), titleWithValue(notice),
      ]
      .joined(separator: "  ")
      if let until = notice.snoozedUntil { line += "  (snoozed until \(clock(until, now: now)))" }
      return line
    }
  }

  /// What `snooze` prints: the notice and when it comes back.
  static func snoozedLine(_ notice: Notice, now: Double) -> String {
    "#\(notice.id) snoozed until \(notice.snoozedUntil.map { clock($0, now: now) } ?? "?")"
  }

  /// A time to come: `14:30` (with `seconds`, `14:30:05`) today, else with its date.
  private static func clock(_ time: Double, now: Double, seconds: Bool = true) -> String {
    TextFormat.localTime(time, "%Y-%m-%d") == TextFormat.localTime(now, "%Y-%m-%d")
      ? TextFormat.localTime(time, seconds ? "%H:%M:%S" : "%H:%M")
      : TextFormat.localTime(time, "%Y-%m-%d %H:%M")
  }

  /// One line per finished notice: id (`*` after it when unread), outcome, urgency, when it
  /// finished, title.
  static func historyLines(_ notices: [Notice], now: Double) -> [String] {
    let width = idWidth(notices) + 1
    return notices.map { notice in
      let finished = notice.finished.map { TextFormat.dateTime($0, now: now) } ?? "-"
      return [
        pad("#\(notice.id)\(notice.unread == true ? "*" : "")", width),
        pad(notice.outcome?.rawValue ?? notice.phase.rawValue, 9), pad(notice.urgency.rawValue, 8), finished,
        titleWithValue(notice),
      ].joined(separator: "  ")
    }
  }

  // MARK: - One notice

  /// Every field of a notice that has a value, one `label: value` line each, labels aligned.
  static func detailLines(_ notice: Notice, now: Double) -> [String] {
    var fields: [(String, String?)] = [
      ("id", "\(notice.id)"),
      ("kind", notice.kind.rawValue),
      ("title", TextFormat.sanitized(notice.title)),
      ("body", notice.body.map(TextFormat.bodyText)),
      ("app", notice.app.map(TextFormat.sanitized)),
      ("urgency", notice.urgency.rawValue),
      ("style", notice.style.rawValue),
      ("icon", notice.icon.map(TextFormat.sanitized)),
      ("tag", notice.tag.map(TextFormat.sanitized)),
      ("key", notice.key.map(TextFormat.sanitized)),
      ("value", notice.value.map { "\($0)%" }),
      ("phase", "\(notice.phase.rawValue) (opacity \(TextFormat.fixed(notice.opacity, digits: 2)))"),
      ("outcome", notice.outcome?.rawValue),
      ("message", notice.message.map(TextFormat.bodyText)),
      ("invoked", notice.invoked.map(TextFormat.sanitized)),
      ("reply", notice.reply.map { "a field (\(TextFormat.sanitized($0)))" }),
      ("replied", notice.replied.map(TextFormat.sanitized)),
      ("count", notice.count.map { "×\($0) (equal notices merged into it)" }),
      ("folded into", notice.foldedInto.map { "#\($0)" }),
      ("unread", notice.unread == true ? "yes (nobody saw it)" : nil),
      ("restored from", notice.restoredFrom.map { "#\($0)" }),
      ("snoozed until", notice.snoozedUntil.map { TextFormat.dateTime($0, now: now) }),
    ]
    let actions = (notice.actions ?? []).map {
      "\(TextFormat.sanitized($0.key))=\(TextFormat.sanitized($0.label))"
    }
    fields += [
      ("actions", actions.isEmpty ? nil : actions.joined(separator: ", ")),
      (
        "timing",
        "delay \(TextFormat.seconds(notice.delay)), fade in \(TextFormat.seconds(notice.fadeIn)) "
          + "(\(notice.easeIn.rawValue)), hold \(notice.hold == 0 ? "until ended" : TextFormat.seconds(notice.hold)), "
          + "fade out \(TextFormat.seconds(notice.fadeOut)) (\(notice.easeOut.rawValue))"
      ),
      ("timeout", notice.timeout.map { $0 == 0 ? "none" : TextFormat.seconds($0) }),
      ("after", notice.after.map { "#\($0)" }),
      ("created", TextFormat.dateTime(notice.created, now: now)),
      ("shown", notice.shown.map { TextFormat.dateTime($0, now: now) }),
      ("finished", notice.finished.map { TextFormat.dateTime($0, now: now) }),
    ]
    let present = fields.compactMap { label, value in value.map { (label, $0) } }
    let width = present.map { $0.0.count }.max() ?? 0
    return present.map { label, value in pad(label + ":", width + 1) + " " + value }
  }

  // MARK: - Status

  /// The queue's state, counts and version.
  static func statusLines(_ status: StatusReply, now: Double) -> [String] {
    func clock(_ until: Double) -> String { Self.clock(until, now: now, seconds: false) }
    var state = "running"
    if let dnd = status.doNotDisturb {
      switch dnd.reason {
      case .hand: state = "suspended by hand, until resumed"
      case .duration: state = "suspended until \(dnd.until.map(clock) ?? "?")"
      case .schedule: state = "suspended by quiet hours until \(dnd.until.map(clock) ?? "?")"
      }
      state += dnd.allow == .nothing ? ", nothing passes" : ", critical notices pass"
    } else if status.suspended {
      state = "suspended" + (status.suspendedUntil.map { " until \(clock($0))" } ?? "")
    } else if let until = status.resumedUntil {
      state += " (resumed by hand in quiet hours, until \(clock(until)))"
    }
    var lines = [
      "State:    \(state)",
      "Notices:  \(status.waiting) waiting, \(status.queued) queued, \(status.visible) visible, "
        + "\(status.finished) finished" + (status.unread > 0 ? " (\(status.unread) unread)" : ""),
    ]
    if status.snoozed > 0 {
      let next = status.snoozeEnds.map { ", the next back at \(clock($0))" } ?? ""
      lines.append("Snoozed:  \(status.snoozed)\(next)")
    }
    if let display = status.display {
      let drawn =
        switch (display.backend, display.drawing) {
        case (nil, _): "none: \(display.detail)"
        case (_, true): "drawn on \(display.detail)"
        case (let backend?, false): "\(backend), not drawing: \(display.detail)"
        }
      lines.append("Popups:   \(drawn)")
    }
    if let fullscreen = status.fullscreen {
      var text =
        "a fullscreen window has the keyboard: \(fullscreen.delayed) waiting for it to leave fullscreen"
      if fullscreen.pushedBack > 0 { text += ", \(fullscreen.pushedBack) pushed off the screen" }
      lines.append("Screen:   \(text)")
    }
    if let idle = status.idle {
      if let source = idle.source {
        lines.append("Idle:     " + (idle.idle ? "away, holds stand still" : "present") + " (\(source))")
      } else {
        lines.append("Idle:     no source: \(idle.reason ?? "none") (holds run on)")
      }
    }
    if let relay = status.relay {
      var text = relay.state == .connected ? relay.detail : "\(relay.state.rawValue): \(relay.detail)"
      if relay.outbox > 0 { text += "; \(relay.outbox) to publish" }
      if relay.dropped > 0 { text += "; \(relay.dropped) dropped as not notices" }
      lines.append("Relay:    \(text)")
    }
    lines.append("Version:  \(status.version)")
    return lines
  }

  // MARK: - Events

  /// The lines `watch` prints for an event: `<time> <kind> #id phase/opacity title`.
  ///
  /// - Parameter known: the event's notice as the watcher knows it with the event applied (or, for
  ///   one the event removed, from before), for events that carry only an id.
  static func eventLines(_ event: Event, known: Notice?) -> [String] {
    let time = TextFormat.clockTime(event.at)
    let prefix = "\(time) \(event.kind.rawValue)"
    let notice = event.notice ?? known
    let id = event.id ?? notice?.id
    let title = notice.map { TextFormat.sanitized($0.title) } ?? ""

    switch event.kind {
    case .snapshot:
      let notices = event.notices ?? []
      var summary = "\(prefix) \(notices.count) notice\(notices.count == 1 ? "" : "s")"
      if event.suspended == true { summary += ", suspended" }
      return [summary] + notices.map { "\(prefix) \(describe($0, phase: nil, opacity: nil))" }
    case .suspended:
      guard let dnd = event.doNotDisturb else { return [prefix] }
      let until = dnd.until.map { " until " + TextFormat.clockTime($0) } ?? ""
      return ["\(prefix) by \(dnd.reason.rawValue)\(until), allow \(dnd.allow.rawValue)"]
    case .resumed:
      return [prefix]
    case .read, .forgotten:
      let unread = event.unread.map { ", \($0) unread" } ?? ""
      return ["\(prefix) #\(id.map(String.init) ?? "?")\(title.isEmpty ? "" : " " + title)\(unread)"]
    case .finished:
      let outcome = notice?.outcome?.rawValue ?? "finished"
      return ["\(prefix) #\(id.map(String.init) ?? "?") \(outcome) \(title)"]
    case .invoked:
      let action = notice?.invoked.map { " " + TextFormat.sanitized($0) } ?? ""
      return ["\(prefix) #\(id.map(String.init) ?? "?")\(action) \(title)"]
    case .replied:
      let text = notice?.replied.map { ": " + TextFormat.sanitized($0) } ?? ""
      return ["\(prefix) #\(id.map(String.init) ?? "?") \(title)\(text)"]
    case .snoozed:
      let until = notice?.snoozedUntil.map { " until " + TextFormat.clockTime($0) } ?? " back"
      return ["\(prefix) #\(id.map(String.init) ?? "?")\(until) \(title)"]
    case .updated:
      guard let notice else { return ["\(prefix) #\(id.map(String.init) ?? "?")"] }
      // An update is about the text: show what it now says.
      let text = (notice.message ?? notice.body).map { ": " + TextFormat.bodyText($0) } ?? ""
      return ["\(prefix) \(describe(notice, phase: event.phase, opacity: event.opacity))\(text)"]
    case .added, .phase, .frame:
      guard let notice else {
        let phase = event.phase?.rawValue ?? "?"
        let opacity = event.opacity.map { TextFormat.fixed($0, digits: 2) } ?? "?"
        return ["\(prefix) #\(id.map(String.init) ?? "?") \(phase)/\(opacity)"]
      }
      return ["\(prefix) \(describe(notice, phase: event.phase, opacity: event.opacity))"]
    }
  }

  /// `#id phase/opacity title`, with the event's phase and opacity where it has them.
  private static func describe(_ notice: Notice, phase: Phase?, opacity: Double?) -> String {
    let phase = phase ?? notice.phase
    let opacity = opacity ?? notice.opacity
    return "#\(notice.id) \(phase.rawValue)/\(TextFormat.fixed(opacity, digits: 2)) \(titleWithValue(notice))"
  }

  // MARK: - Helpers

  /// The sanitized title, with a progress indicator's value: `Building (42%)`.
  private static func titleWithValue(_ notice: Notice) -> String {
    var title = TextFormat.sanitized(notice.displayTitle)
    if let summary = notice.foldedInto { title += " (folded into #\(summary))" }
    guard notice.kind == .progress, let value = notice.value else { return title }
    return "\(title) (\(value)%)"
  }

  private static func idWidth(_ notices: [Notice]) -> Int {
    notices.map { "#\($0.id)".count }.max() ?? 0
  }

  private static func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
  }
}
