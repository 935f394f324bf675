import NotifyProtocol

/// A message waiting to be published (`relay_outbox`), one a notice, by the notice's id.
enum OutboxColumn: Int32, TableColumn {
  case id, subject, messageID, payload
}

/// Per origin store, what has been committed here from it (`relay_marks`, `RelayMark`).
enum MarkColumn: Int32, TableColumn {
  case origin, last, missing
}

/// The relay's outbox and marks, written in the transaction of the notices they follow.
extension NoticeStore {
  /// Queues `outgoing`; answers whether it was queued (`false`: its notice's message waits still).
  func queue(_ outgoing: OutgoingMessage) throws(SQLiteError) -> Bool {
    queueOutgoing.reset()
    queueOutgoing.bind(OutboxColumn.id, outgoing.id)
    queueOutgoing.bind(OutboxColumn.subject, outgoing.subject)
    queueOutgoing.bind(OutboxColumn.messageID, outgoing.messageID)
    queueOutgoing.bind(OutboxColumn.payload, outgoing.payload)
    try queueOutgoing.run()
    return database.changes > 0
  }

  /// The message of notice `id` was published (or given up): it leaves the outbox.
  func unqueue(_ id: Int) throws(SQLiteError) {
    unqueueOutgoing.reset()
    unqueueOutgoing.bind(OutboxColumn.id, id)
    try unqueueOutgoing.run()
  }

  /// Takes `origin`'s place into its store's mark, written in this transaction if it changed.
  func raise(_ origin: NoticeOrigin, in marks: inout [String: RelayMark]?) throws(SQLiteError) {
    let key = origin.markKey
    var mark = marks?[key] ?? RelayMark()
    let before = mark
    mark.take(origin.position)
    guard mark != before else { return }
    marks?[key] = mark
    raiseMark.reset()
    raiseMark.bind(MarkColumn.origin, key)
    raiseMark.bind(MarkColumn.last, mark.last)
    raiseMark.bind(MarkColumn.missing, mark.missingText)
    try raiseMark.run()
  }

  /// From now on, each commit asks `queueing` what to publish for each notice it writes (whether it
  /// is new to the store, whether it finished), and queues the answer in the same transaction, one
  /// message a notice at a time (another for a notice whose message waits still is dropped);
  /// `onQueued` hears of what was queued after that commit, on the committer's thread. The rules
  /// are the relay's (`RelayPublishing`); the store only keeps what it is given, with its notice,
  /// and the publishing sequence as the commit left it. Answers what is queued already, oldest
  /// first. Call before the first commit.
  public func relay(
    queueing: @escaping Queueing,
    onQueued: @escaping @Sendable ([OutgoingMessage]) -> Void
  ) throws(SQLiteError) -> [OutgoingMessage] {
    relaying = (queueing, onQueued)
    let rows = try database.prepare("SELECT \(OutboxColumn.list) FROM relay_outbox ORDER BY id")
    var outgoing: [OutgoingMessage] = []
    while try rows.step() {
      outgoing.append(
        OutgoingMessage(
          id: rows.integer(OutboxColumn.id), subject: rows.text(OutboxColumn.subject) ?? "",
          messageID: rows.text(OutboxColumn.messageID) ?? "", payload: rows.text(OutboxColumn.payload) ?? ""))
    }
    return outgoing
  }

  /// Per origin store (`host/store`), what has been committed here from it (`RelayMark`).
  public func relayMarks() throws(SQLiteError) -> [String: RelayMark] {
    if let marks { return marks }
    let rows = try database.prepare("SELECT \(MarkColumn.list) FROM relay_marks")
    var read: [String: RelayMark] = [:]
    while try rows.step() {
      if let origin = rows.text(MarkColumn.origin) {
        read[origin] = RelayMark(
          last: rows.integer(MarkColumn.last), missingText: rows.text(MarkColumn.missing) ?? "")
      }
    }
    marks = read
    return read
  }
}
