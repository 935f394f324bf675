import NotifyProtocol

/// A notice's row: a column per field (`notices`), written and read by name.
enum NoticeColumn: Int32, TableColumn {
  case id, kind, title, body, app, urgency, style, icon, tag, key, value
  case delay, fadeIn, hold, fadeOut, easeIn, easeOut, timeout, after
  case actions, invoked, outcome, message, created, shown, finishedAt
  case hints, count, foldedInto, origin, reply, replied, unread, restoredFrom
  /// The place among finished notices: kept once taken (see `upsert`).
  case finishedOrder
  case snoozedUntil

  /// Writes a notice's row, every column bound in order; a notice finished before (noted again
  /// when read) keeps the order it finished in, whatever `finishedOrder` is bound.
  static var upsert: String {
    let values = allCases.map { column in
      column == .finishedOrder
        ? "COALESCE((SELECT finished_order FROM notices WHERE id = ?\(Self.id.parameter)), ?\(column.parameter))"
        : "?\(column.parameter)"
    }
    return "INSERT OR REPLACE INTO notices (\(list)) VALUES (\(values.joined(separator: ", ")))"
  }

  /// Binds `notice` to an `upsert`: `finishedOrder` is the order it finished in, kept only if it
  /// has none yet.
  static func bind(_ notice: Notice, finishedOrder: Int? = nil, to row: SQLiteDatabase.Statement) {
    row.reset()
    row.bind(Self.id, notice.id)
    row.bind(Self.kind, notice.kind.rawValue)
    row.bind(Self.title, notice.title)
    row.bind(Self.body, notice.body)
    row.bind(Self.app, notice.app)
    row.bind(Self.urgency, notice.urgency.rawValue)
    row.bind(Self.style, notice.style.rawValue)
    row.bind(Self.icon, notice.icon)
    row.bind(Self.tag, notice.tag)
    row.bind(Self.key, notice.key)
    row.bind(Self.value, notice.value)
    row.bind(Self.delay, notice.delay)
    row.bind(Self.fadeIn, notice.fadeIn)
    row.bind(Self.hold, notice.hold)
    row.bind(Self.fadeOut, notice.fadeOut)
    row.bind(Self.easeIn, notice.easeIn.rawValue)
    row.bind(Self.easeOut, notice.easeOut.rawValue)
    row.bind(Self.timeout, notice.timeout)
    row.bind(Self.after, notice.after)
    row.bind(Self.actions, notice.actions.map(encode))
    row.bind(Self.invoked, notice.invoked)
    row.bind(Self.outcome, notice.outcome?.rawValue)
    row.bind(Self.message, notice.message)
    row.bind(Self.created, notice.created)
    row.bind(Self.shown, notice.shown)
    row.bind(Self.finishedAt, notice.outcome == nil ? nil : notice.finished)
    row.bind(Self.hints, notice.hints.map(encode))
    row.bind(Self.count, notice.count)
    row.bind(Self.foldedInto, notice.foldedInto)
    row.bind(Self.origin, notice.origin.map(encode))
    row.bind(Self.reply, notice.reply)
    row.bind(Self.replied, notice.replied)
    row.bind(Self.unread, notice.unread == true ? 1 : nil)
    row.bind(Self.restoredFrom, notice.restoredFrom)
    row.bind(Self.finishedOrder, finishedOrder)
    row.bind(Self.snoozedUntil, notice.snoozedUntil)
  }

  /// A notice from a row read with `SELECT list`; `nil` for a row no release could have written.
  static func notice(from row: SQLiteDatabase.Statement) -> Notice? {
    guard let kind = row.text(Self.kind).flatMap(Kind.init(rawValue:)), let title = row.text(Self.title),
      let urgency = row.text(Self.urgency).flatMap(Urgency.init(rawValue:)),
      let style = row.text(Self.style).flatMap(Style.init(rawValue:)),
      let easeIn = row.text(Self.easeIn).flatMap(Easing.init(rawValue:)),
      let easeOut = row.text(Self.easeOut).flatMap(Easing.init(rawValue:))
    else { return nil }
    let outcome = row.text(Self.outcome).flatMap(Outcome.init(rawValue:))
    return Notice(
      id: row.integer(Self.id), kind: kind, title: title, body: row.text(Self.body), app: row.text(Self.app),
      urgency: urgency, style: style, icon: row.text(Self.icon),
      hints: row.text(Self.hints).flatMap(decodeHints),
      tag: row.text(Self.tag), key: row.text(Self.key), value: row.optionalInteger(Self.value),
      delay: row.real(Self.delay), fadeIn: row.real(Self.fadeIn), hold: row.real(Self.hold),
      fadeOut: row.real(Self.fadeOut), easeIn: easeIn, easeOut: easeOut,
      timeout: row.optionalReal(Self.timeout),
      after: row.optionalInteger(Self.after), actions: row.text(Self.actions).flatMap(decodeActions),
      invoked: row.text(Self.invoked), count: row.optionalInteger(Self.count),
      foldedInto: row.optionalInteger(Self.foldedInto), origin: row.text(Self.origin).flatMap(decodeOrigin),
      phase: outcome == nil ? .waiting : .finished, opacity: 0, outcome: outcome,
      message: row.text(Self.message),
      created: row.real(Self.created), shown: row.optionalReal(Self.shown),
      finished: row.optionalReal(Self.finishedAt), reply: row.text(Self.reply),
      replied: row.text(Self.replied),
      unread: row.optionalInteger(Self.unread) == 1 ? true : nil,
      restoredFrom: row.optionalInteger(Self.restoredFrom),
      snoozedUntil: row.optionalReal(Self.snoozedUntil))
  }

  /// The `actions` column: a JSON array of `{"key":…,"label":…}`, as the IDL spells them.
  static func encode(_ actions: [Action]) -> String {
    var writer = JSONWriter()
    writer.write(actions)
    return String(decoding: writer.bytes, as: UTF8.self)
  }

  /// The `hints` column: the `Hints` object as the IDL spells it.
  static func encode(_ hints: Hints) -> String {
    var writer = JSONWriter()
    hints.write(to: &writer)
    return String(decoding: writer.bytes, as: UTF8.self)
  }

  /// The `origin` column: `{"host","store","id","sent"}`.
  static func encode(_ origin: NoticeOrigin) -> String {
    var writer = JSONWriter()
    origin.write(to: &writer)
    return String(decoding: writer.bytes, as: UTF8.self)
  }

  static func decodeOrigin(_ text: String) -> NoticeOrigin? {
    Array(text.utf8).withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      return try? NoticeOrigin(reading: &reader)
    }
  }

  static func decodeHints(_ text: String) -> Hints? {
    Array(text.utf8).withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      return try? Hints(reading: &reader)
    }
  }

  static func decodeActions(_ text: String) -> [Action]? {
    Array(text.utf8).withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      var actions: [Action] = []
      do {
        try reader.readArray { reader, _ throws(JSONReadError) in actions.append(try Action(reading: &reader))
        }
      } catch {
        return nil
      }
      return actions
    }
  }
}
