import NotifyProtocol

/// What shows a visible notice to a person (DESIGN §13): notifyd's popups, drawn, or another
/// notification server that notices are forwarded to.
public enum Presenter: Hashable, Sendable {
  case popups
  case forwarded
}

// What a person missed, and getting it back (DESIGN §13): a notice that finished without being
// shown to a person is unread; `Read`, `Restore` and `Forget` act on history.
extension QueueMachine {
  /// Whether a shown notice is seen now: something shows it, and the person is not away.
  var presenting: Bool { !presenters.isEmpty && idle?.idle != true }

  /// `presenter` shows visible notices to a person from now on (`on`), or no longer: what is
  /// visible while one does, and the person is not away, is seen.
  public mutating func setPresenter(_ presenter: Presenter, _ on: Bool, at instant: Instant) {
    advance(to: instant)
    defer { settle(at: instant) }
    if on { presenters.insert(presenter) } else { presenters.remove(presenter) }
    markShownSeen()
  }

  /// Every shown notice is seen, while something shows it and the person is not away, but for
  /// those a fullscreen window pushed off the screen.
  mutating func markShownSeen() {
    guard presenting else { return }
    for record in notices.records where record.isShown && !record.seen {
      if pushesBack(record.gates) { continue }
      notices.modify(record.notice.id) { $0.seen = true }
    }
  }

  /// Whether a notice that finishes with `outcome` went unread: nobody saw it, nobody acted on it,
  /// and its sender did not take it back (`cancelled`, `replaced`) nor a rule suppress it.
  static func isUnread(_ record: NoticeRecord, finishing outcome: Outcome) -> Bool {
    guard !record.seen, record.notice.invoked == nil, record.notice.replied == nil else { return false }
    switch outcome {
    case .completed, .timedOut, .folded, .missed: return true
    case .cancelled, .replaced, .dismissed: return false
    }
  }

  /// How many finished notices in history are unread.
  public var unreadCount: Int { history.unreadCount }

  // MARK: - Read

  /// Marks finished notices read: `ids` (each must be in history), or `all`. Answers those that
  /// were unread, in the order given (all: newest first).
  public mutating func read(_ request: ReadParameters, at instant: Instant) throws(QueueError) -> [Int] {
    let ids = try chosenFinished(ids: request.ids, all: request.all)
    advance(to: instant)
    defer { settle(at: instant) }
    return ids.filter { markRead($0, at: instant) }
  }

  /// Marks notice `id` read if it is unread: journals and publishes it (`read`).
  @discardableResult
  mutating func markRead(_ id: Int, at instant: Instant) -> Bool {
    guard let notice = history.markRead(id) else { return false }
    effects.append(.journal(.finished(notice)))
    effects.append(
      .publish(Event(kind: .read, at: instant.wall, id: id, notice: notice, unread: history.unreadCount)))
    return true
  }

  // MARK: - Restore

  /// Shows finished notices again: `ids`, or the `last` ones to finish (newest first). Each comes
  /// back as a new notice with the same content and a new timeline, `restoredFrom` naming the
  /// original, which is read. A person asked for it: rules' `Suppress=`, flood control and
  /// duplicates do not stop it, and it passes do-not-disturb as critical notices do. Answers the
  /// new ids.
  public mutating func restore(_ request: RestoreParameters, at instant: Instant) throws(QueueError) -> [Int]
  {
    guard (request.ids != nil) != (request.last != nil) else {
      throw .invalidArgument(field: "ids", reason: "give exactly one of ids and last")
    }
    let originals: [Int]
    if let last = request.last {
      guard last > 0 else { throw .invalidArgument(field: "last", reason: "must be at least 1") }
      originals = history.newestFirst.prefix(last).map(\.id)
    } else {
      originals = try chosenFinished(ids: request.ids, all: nil)
    }
    guard notices.count + originals.count <= settings.capacity else {
      throw .queueFull(capacity: settings.capacity)
    }
    advance(to: instant)
    defer { settle(at: instant) }
    var restored: [Int] = []
    for id in originals {
      guard let original = history[id] else { continue }
      let notice = Self.restoring(original, id: nextID, settings: settings, at: instant)
      markRead(id, at: instant)
      accept(notice, gates: NoticeRecord.Gates(passesDoNotDisturb: true, fullscreen: .show), at: instant)
      restored.append(notice.id)
    }
    return restored
  }

  /// Finished notice `original` as a new notice `id`: its content (an indicator's last words as a
  /// plain notice), its timing but no delay, no key, no wait for another; nothing of how it ended.
  static func restoring(_ original: Notice, id: Int, settings: QueueSettings, at instant: Instant) -> Notice {
    var notice = original
    notice.id = id
    notice.restoredFrom = original.id
    notice.phase = .waiting
    notice.opacity = 0
    notice.outcome = nil
    notice.invoked = nil
    notice.replied = nil
    notice.unread = nil
    notice.created = instant.wall
    notice.shown = nil
    notice.finished = nil
    notice.delay = 0
    notice.after = nil
    notice.key = nil
    notice.count = nil
    notice.foldedInto = nil
    // The desk that sent it has its own answer: the copy answers nobody there.
    notice.origin = nil
    if notice.kind == .progress {
      notice.kind = .notice
      notice.body = original.message ?? original.body
      notice.value = nil
      notice.timeout = nil
      notice.hold =
        settings.resolve(
          app: original.app, tag: original.tag, title: original.title, urgency: original.urgency,
          hints: original.hints, explicit: TimingOverrides()
        ).hold
    }
    notice.message = nil
    return notice
  }

  // MARK: - Forget

  /// Removes finished notices from history and the store: `ids` (each must be in history), those
  /// of an `app` (a glob), or `all`. Answers the ids removed.
  public mutating func forget(_ request: ForgetParameters, at instant: Instant) throws(QueueError) -> [Int] {
    let chosen = [request.ids != nil, request.app != nil, request.all == true].filter { $0 }.count
    guard chosen == 1 else {
      throw .invalidArgument(field: "ids", reason: "give exactly one of ids, app and all")
    }
    let ids: [Int]
    if let app = request.app {
      guard let glob = Glob(app) else { throw .invalidArgument(field: "app", reason: "not a valid glob") }
      ids = history.newestFirst.filter { glob.matches($0.app ?? "") }.map(\.id)
    } else {
      ids = try chosenFinished(ids: request.ids, all: request.all)
    }
    advance(to: instant)
    defer { settle(at: instant) }
    for id in ids {
      _ = history.remove(id)  // every id chosen is in history
      effects.append(.journal(.forgotten(id: id)))
      effects.append(.publish(Event(kind: .forgotten, at: instant.wall, id: id, unread: history.unreadCount)))
    }
    return ids
  }

  /// The finished notices `ids` names (each must be in history, at most
  /// `RequestLimits.maximumIDs`), or with `all` every one, newest first.
  private func chosenFinished(ids: [Int]?, all: Bool?) throws(QueueError) -> [Int] {
    guard (ids != nil) != (all == true) else {
      throw .invalidArgument(field: "ids", reason: "give exactly one of ids and all")
    }
    guard let ids else { return history.newestFirst.map(\.id) }
    guard ids.count <= RequestLimits.maximumIDs else {
      throw .invalidArgument(field: "ids", reason: "more than \(RequestLimits.maximumIDs) ids")
    }
    for id in ids where history[id] == nil {
      if notices.contains(id) {
        throw .invalidArgument(field: "ids", reason: "notice \(id) has not finished")
      }
      throw .noSuchNotice(id: id)
    }
    var seen = Set<Int>()
    return ids.filter { seen.insert($0).inserted }
  }
}
