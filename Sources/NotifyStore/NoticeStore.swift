import CSQLite
import Foundation
import NotifyConfig
import NotifyCore
import NotifyPosix
import NotifyProtocol
import NotifySupport

/// Why the store could not be opened.
public enum StoreError: Error, Sendable, CustomStringConvertible {
  case cannotOpen(path: String, reason: String)

  public var description: String {
    switch self {
    case .cannotOpen(let path, let reason): return "cannot open the store at \(path): \(reason)"
    }
  }
}

/// What one `commitPending()` did.
public enum CommitOutcome: Sendable, Equatable {
  /// Nothing was waiting.
  case idle
  /// Everything noted was committed, and its callers told.
  case committed
  /// The commit failed (a full disk): its callers were told, the changes are kept, and the next
  /// attempt waits `retryIn` seconds.
  case failed(retryIn: Double)
  /// A failed commit is being waited out; the next attempt is due in `retryIn` seconds.
  case waiting(retryIn: Double)
}

/// The durable store: SQLite in WAL mode, one row per notice with a column per field, and a `meta`
/// table for the next id and the suspended state.
///
/// Changes are noted in memory, under the engine's lock, from any thread; the event loop commits
/// them at the end of its turn (`commitPending`), so that what one turn accepted shares one commit
/// and the replies waiting for it go out in the same turn. `onPending` tells the loop when a change
/// arrives from another thread with nothing pending yet.
///
/// - Important: the connection is used only by whoever calls `commitPending` (the loop's thread).
public final class NoticeStore: NoticeJournal, @unchecked Sendable {
  // @unchecked: `database`, its statements and `retryAt` are used only by the committer; the rest is
  // in `pending`, under its lock.
  public let path: String
  let database: SQLiteDatabase
  private let upsert: SQLiteDatabase.Statement
  private let forget: SQLiteDatabase.Statement
  private let setMeta: SQLiteDatabase.Statement
  private let queueOutgoing: SQLiteDatabase.Statement
  private let unqueueOutgoing: SQLiteDatabase.Statement
  private let raiseMark: SQLiteDatabase.Statement
  /// This store's identity (`meta.store_id`): with the host name, it makes a notice's relay message
  /// id unique, and a new store (a fresh one after a damaged one) starts new ids.
  public private(set) var identity = ""
  /// The highest notice id committed: a notice above it is new.
  private var highestCommitted = 0
  /// The `finished_order` the last notice to finish took.
  private var lastFinishedOrder = 0
  /// What `relay_marks` holds, read when first needed (by the committer).
  private var marks: [String: RelayMark]?
  /// The place of the last notice this store published (`meta.relay_sequence`): a store from
  /// before the sequence starts above every id it has given, so that a desk's mark, which counted
  /// those ids, takes what follows as new.
  private var relaySequence = 0
  /// What the relay queues for a notice a commit writes (whether the notice is new to the store,
  /// whether it finished in this commit), or nothing; a notice it publishes takes the next place
  /// in the store's publishing sequence (`RelayPublishing`).
  public typealias Queueing =
    @Sendable (Notice, _ isNew: Bool, _ finished: Bool, _ sequence: inout Int) -> OutgoingMessage?
  /// With `[Relay]`: what the relay queues for a notice a commit writes, and who is told of the
  /// messages queued, after their commit (see `relay(queueing:onQueued:)`).
  private var relaying: (queueing: Queueing, onQueued: @Sendable ([OutgoingMessage]) -> Void)?
  private let log: Logger
  /// Called once a change is noted with none pending before it: the committer should run soon.
  private let onPending: @Sendable () -> Void
  /// When the next attempt after a failed commit is due (monotonic), and how long the wait was.
  private var retry: (at: Double, delay: Double)?
  /// How many commits ran, for tests of group commit.
  public private(set) var commitCount = 0

  /// The first wait after a failed commit; each failure doubles it, up to `maximumRetryDelay`.
  static let firstRetryDelay = 0.05
  /// The longest wait between attempts while commits fail (a full disk): a `Show` meanwhile is
  /// answered `StoreFailed` within it, and the store recovers within it once there is room.
  static let maximumRetryDelay = 1.0

  private struct Batch {
    var unfinished: [Int: Notice] = [:]
    var finished: [Int: Notice] = [:]
    /// The ids of `finished` in the order they finished (one noted again, read, keeps its place).
    var finishOrder: [Int] = []
    var forgotten: Set<Int> = []
    /// The hand's do-not-disturb choice to write (`.some(nil)`: none counts any more).
    var hand: HandChoice??
    var nextID: Int?
    /// Relay messages JetStream acknowledged (or that were given up): their outbox rows go.
    var published: Set<Int> = []
    var completions: [@Sendable ((any Error)?) -> Void] = []
    var isEmpty: Bool {
      unfinished.isEmpty && finished.isEmpty && forgotten.isEmpty && hand == nil && nextID == nil
        && published.isEmpty && completions.isEmpty
    }

    /// Folds an older batch that failed to commit under this newer one.
    mutating func absorb(older: Batch) {
      for (id, notice) in older.unfinished where unfinished[id] == nil && finished[id] == nil {
        unfinished[id] = notice
      }
      for (id, notice) in older.finished where finished[id] == nil && !forgotten.contains(id) {
        finished[id] = notice
      }
      finishOrder = older.finishOrder + finishOrder
      forgotten.formUnion(older.forgotten)
      if hand == nil { hand = older.hand }
      if nextID == nil { nextID = older.nextID }
      published.formUnion(older.published)
    }
  }

  private let pending = Locked(Batch())

  /// The schema, one migration per version; `PRAGMA user_version` says how many have run.
  static let migrations: [String] = [
    // 1: a JSON document per notice, beside the columns history was filtered by.
    """
    CREATE TABLE notices (
      id INTEGER PRIMARY KEY,
      finished INTEGER NOT NULL DEFAULT 0,
      finished_at REAL,
      app TEXT,
      outcome TEXT,
      data TEXT NOT NULL
    );
    CREATE INDEX notices_history ON notices (finished, finished_at);
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    // 2: a column per field; history is kept by the engine, so no index beside the key.
    """
    CREATE TABLE notices_v2 (
      id INTEGER PRIMARY KEY,
      kind TEXT NOT NULL, title TEXT NOT NULL, body TEXT, app TEXT, urgency TEXT NOT NULL,
      style TEXT NOT NULL, icon TEXT, tag TEXT, key TEXT, value INTEGER,
      delay REAL NOT NULL, fade_in REAL NOT NULL, hold REAL NOT NULL, fade_out REAL NOT NULL,
      ease_in TEXT NOT NULL, ease_out TEXT NOT NULL, timeout REAL, after INTEGER, actions TEXT,
      invoked TEXT, outcome TEXT, message TEXT, created REAL NOT NULL, shown REAL, finished_at REAL
    );
    INSERT INTO notices_v2 SELECT
      id, json_extract(data, '$.kind'), json_extract(data, '$.title'), json_extract(data, '$.body'),
      json_extract(data, '$.app'), json_extract(data, '$.urgency'), json_extract(data, '$.style'),
      json_extract(data, '$.icon'), json_extract(data, '$.tag'), json_extract(data, '$.key'),
      json_extract(data, '$.value'), json_extract(data, '$.delay'), json_extract(data, '$.fadeIn'),
      json_extract(data, '$.hold'), json_extract(data, '$.fadeOut'), json_extract(data, '$.easeIn'),
      json_extract(data, '$.easeOut'), json_extract(data, '$.timeout'), json_extract(data, '$.after'),
      json_extract(data, '$.actions'), json_extract(data, '$.invoked'),
      CASE WHEN finished = 1 THEN json_extract(data, '$.outcome') END, json_extract(data, '$.message'),
      json_extract(data, '$.created'), json_extract(data, '$.shown'),
      CASE WHEN finished = 1 THEN json_extract(data, '$.finished') END
    FROM notices;
    DROP TABLE notices;
    ALTER TABLE notices_v2 RENAME TO notices;
    """,
    // 3: the freedesktop hints (category, desktop entry, transient, resident, sound), as JSON.
    """
    ALTER TABLE notices ADD COLUMN hints TEXT;
    """,
    // 4: duplicates merged into a notice, and the summary a folded notice went into.
    """
    ALTER TABLE notices ADD COLUMN count INTEGER;
    ALTER TABLE notices ADD COLUMN folded_into INTEGER;
    """,
    // 5: the relay (DESIGN §10): a relayed notice's origin; the store's identity, which makes its
    // notices' message ids unique across hosts; the notices waiting to be published, in order; and
    // per origin store the highest origin id committed here, so that a redelivery is a duplicate.
    """
    ALTER TABLE notices ADD COLUMN origin TEXT;
    CREATE TABLE relay_outbox (
      id INTEGER PRIMARY KEY, subject TEXT NOT NULL, message_id TEXT NOT NULL, payload TEXT NOT NULL
    );
    CREATE TABLE relay_marks (origin TEXT PRIMARY KEY, last INTEGER NOT NULL);
    INSERT OR IGNORE INTO meta (key, value) VALUES ('store_id', lower(hex(randomblob(8))));
    """,
    // 6: the relay publishes a window at a time: per origin store, the ids below the highest that
    // have not come yet (`RelayMark`).
    """
    ALTER TABLE relay_marks ADD COLUMN missing TEXT NOT NULL DEFAULT '';
    """,
    // 7: a reply field's placeholder, and the reply a notice got (issue 32).
    """
    ALTER TABLE notices ADD COLUMN reply TEXT;
    ALTER TABLE notices ADD COLUMN replied TEXT;
    """,
    // 8: whether a finished notice went unread, and the notice a restored one came from (issue 33).
    """
    ALTER TABLE notices ADD COLUMN unread INTEGER;
    ALTER TABLE notices ADD COLUMN restored_from INTEGER;
    """,
    // 9: the order notices finished in, which history keeps across a restart: the wall clock can
    // go back, and a notice finished then is not older than the ones before it. Rows already
    // finished take the order of their times.
    """
    ALTER TABLE notices ADD COLUMN finished_order INTEGER;
    UPDATE notices SET finished_order = ranked.position
      FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY finished_at, id) AS position
            FROM notices WHERE outcome IS NOT NULL) AS ranked
      WHERE notices.id = ranked.id;
    """,
  ]

  /// The columns of a notice's row, in the order `upsert` binds and `load` reads them.
  static let columns =
    "id, kind, title, body, app, urgency, style, icon, tag, key, value, delay, fade_in, hold, fade_out, "
    + "ease_in, ease_out, timeout, after, actions, invoked, outcome, message, created, shown, finished_at, "
    + "hints, count, folded_into, origin, reply, replied, unread, restored_from, finished_order"

  private init(path: String, database: SQLiteDatabase, log: Logger, onPending: @escaping @Sendable () -> Void)
    throws(SQLiteError)
  {
    self.path = path
    self.database = database
    self.log = log
    self.onPending = onPending
    // A notice finished before (noted again when read) keeps the order it finished in.
    let placeholders =
      (1...34).map { "?\($0)" }.joined(separator: ", ")
      + ", COALESCE((SELECT finished_order FROM notices WHERE id = ?1), ?35)"
    upsert = try database.prepare("INSERT OR REPLACE INTO notices (\(Self.columns)) VALUES (\(placeholders))")
    forget = try database.prepare("DELETE FROM notices WHERE id = ?1")
    setMeta = try database.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)")
    queueOutgoing = try database.prepare(
      "INSERT OR IGNORE INTO relay_outbox (id, subject, message_id, payload) VALUES (?1, ?2, ?3, ?4)")
    unqueueOutgoing = try database.prepare("DELETE FROM relay_outbox WHERE id = ?1")
    raiseMark = try database.prepare(
      "INSERT OR REPLACE INTO relay_marks (origin, last, missing) VALUES (?1, ?2, ?3)")
  }

  /// Opens the store at `path`, creating it and its directory, and migrating a store an older
  /// release wrote. A file that is not a database, or is damaged, is moved aside as
  /// `notifyd.db.corrupt-<timestamp>` (never deleted), logged loudly, and a fresh store started.
  /// `onPending` is called, from any thread, when a change arrives with nothing pending before it.
  public static func open(
    path: String, sync: StoreSync, log: Logger, onPending: @escaping @Sendable () -> Void = {}
  ) throws(StoreError) -> (store: NoticeStore, state: JournalState) {
    let directory = (path as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw .cannotOpen(path: path, reason: (error as NSError).localizedDescription)
    }
    func attempt() throws -> (store: NoticeStore, state: JournalState) {
      try openPrivately(path: path, sync: sync, log: log, onPending: onPending)
    }
    do {
      return try attempt()
    } catch let error as SQLiteError where error.isCorruption {
      let aside = "\(path).corrupt-\(Int(Date().timeIntervalSince1970))"
      log.error(
        "the store at \(path) is damaged (\(error)); moved it aside to \(aside) and starting a fresh one")
      for suffix in ["", "-wal", "-shm"] where Posix.exists(path + suffix) {
        do {
          try Posix.rename(path + suffix, to: aside + suffix)
        } catch {
          throw .cannotOpen(path: path, reason: "it is damaged and cannot be moved aside: \(error)")
        }
      }
      do {
        return try attempt()
      } catch {
        throw .cannotOpen(path: path, reason: "\(error)")
      }
    } catch {
      throw .cannotOpen(path: path, reason: "\(error)")
    }
  }

  /// Opens the store with its files readable by the user alone (0600), whatever the umask and
  /// whatever mode an existing file had: they hold every notice's text.
  private static func openPrivately(
    path: String, sync: StoreSync, log: Logger, onPending: @escaping @Sendable () -> Void
  ) throws -> (store: NoticeStore, state: JournalState) {
    // SQLite creates `-wal` and `-shm` with the main file's mode, so that one is made private first.
    try Posix.createPrivateFile(path)
    let database = try SQLiteDatabase(path: path)
    try database.execute("PRAGMA journal_mode=WAL")
    // The pages a commit touches are the newest rows: 1 MiB of cache holds them, and the cache
    // reaches its size early instead of creeping up to SQLite's 2 MiB default.
    try database.execute("PRAGMA cache_size=-1024")
    try database.execute("PRAGMA synchronous=\(sync == .full ? "FULL" : "NORMAL")")
    let check = try database.prepare("PRAGMA quick_check")
    if try check.step(), let result = check.text(0), result != "ok" {
      throw SQLiteError(call: "quick_check", code: SQLITE_CORRUPT, message: result)
    }
    // A statement that is not reset holds a read open, and a migration cannot drop a table then.
    check.reset()
    try migrate(database)
    for suffix in ["-wal", "-shm"] where Posix.fileType(path + suffix) != nil {
      try Posix.chmod(path + suffix, 0o600)
    }
    let store = try NoticeStore(path: path, database: database, log: log, onPending: onPending)
    return (store, try store.load())
  }

  private static func migrate(_ database: SQLiteDatabase) throws(SQLiteError) {
    let version = try database.prepare("PRAGMA user_version")
    let current = try version.step() ? version.integer(0) : 0
    version.reset()
    guard current < migrations.count else { return }
    try database.execute("BEGIN IMMEDIATE")
    do {
      for index in current..<migrations.count { try database.execute(migrations[index]) }
      try database.execute("PRAGMA user_version=\(migrations.count)")
      try database.execute("COMMIT")
    } catch {
      try? database.execute("ROLLBACK")
      throw error
    }
  }

  private func load() throws -> JournalState {
    var state = JournalState()
    let unfinished = try database.prepare(
      "SELECT \(Self.columns) FROM notices WHERE outcome IS NULL ORDER BY id")
    while try unfinished.step() {
      if let notice = Self.notice(from: unfinished) { state.unfinished.append(notice) }
    }
    let history = try database.prepare(
      "SELECT \(Self.columns) FROM notices WHERE outcome IS NOT NULL ORDER BY finished_order, id")
    while try history.step() {
      if let notice = Self.notice(from: history) { state.history.append(notice) }
    }
    let maxID = try database.prepare("SELECT COALESCE(MAX(id), 0) FROM notices")
    let highest = try maxID.step() ? maxID.integer(0) : 0
    highestCommitted = highest
    let lastOrder = try database.prepare("SELECT COALESCE(MAX(finished_order), 0) FROM notices")
    lastFinishedOrder = try lastOrder.step() ? lastOrder.integer(0) : 0
    let meta = try database.prepare("SELECT key, value FROM meta")
    var values: [String: String] = [:]
    while try meta.step() {
      if let key = meta.text(0), let value = meta.text(1) { values[key] = value }
    }
    state.nextID = max(highest + 1, values["next_id"].flatMap(Int.init) ?? 1)
    identity = values["store_id"] ?? ""
    relaySequence = values["relay_sequence"].flatMap(Int.init) ?? state.nextID - 1
    if values["suspended"] == "1" {
      // A store from before do-not-disturb levels held everything back.
      let allow = values["suspend_allow"].flatMap(DoNotDisturbAllow.init(rawValue:)) ?? .nothing
      state.hand = .suspended(allow: allow, until: values["suspended_until"].flatMap(Double.init))
    } else if let until = values["resumed_until"].flatMap(Double.init) {
      state.hand = .resumed(until: until)
    }
    return state
  }

  // MARK: - Rows

  /// Binds `notice` to `upsert`'s 35 columns: `finishedOrder` is the order it finished in, kept
  /// only if it has none yet.
  private func bind(_ notice: Notice, finishedOrder: Int? = nil) {
    let row = upsert
    row.reset()
    row.bind(1, notice.id)
    row.bind(2, notice.kind.rawValue)
    row.bind(3, notice.title)
    row.bind(4, notice.body)
    row.bind(5, notice.app)
    row.bind(6, notice.urgency.rawValue)
    row.bind(7, notice.style.rawValue)
    row.bind(8, notice.icon)
    row.bind(9, notice.tag)
    row.bind(10, notice.key)
    row.bind(11, notice.value)
    row.bind(12, notice.delay)
    row.bind(13, notice.fadeIn)
    row.bind(14, notice.hold)
    row.bind(15, notice.fadeOut)
    row.bind(16, notice.easeIn.rawValue)
    row.bind(17, notice.easeOut.rawValue)
    row.bind(18, notice.timeout)
    row.bind(19, notice.after)
    row.bind(20, notice.actions.map(Self.encode))
    row.bind(21, notice.invoked)
    row.bind(22, notice.outcome?.rawValue)
    row.bind(23, notice.message)
    row.bind(24, notice.created)
    row.bind(25, notice.shown)
    row.bind(26, notice.outcome == nil ? nil : notice.finished)
    row.bind(27, notice.hints.map(Self.encode))
    row.bind(28, notice.count)
    row.bind(29, notice.foldedInto)
    row.bind(30, notice.origin.map(Self.encode))
    row.bind(31, notice.reply)
    row.bind(32, notice.replied)
    row.bind(33, notice.unread == true ? 1 : nil)
    row.bind(34, notice.restoredFrom)
    row.bind(35, finishedOrder)
  }

  /// A notice from a row read with `columns`; `nil` for a row no release could have written.
  static func notice(from row: SQLiteDatabase.Statement) -> Notice? {
    guard let kind = row.text(1).flatMap(Kind.init(rawValue:)), let title = row.text(2),
      let urgency = row.text(5).flatMap(Urgency.init(rawValue:)),
      let style = row.text(6).flatMap(Style.init(rawValue:)),
      let easeIn = row.text(15).flatMap(Easing.init(rawValue:)),
      let easeOut = row.text(16).flatMap(Easing.init(rawValue:))
    else { return nil }
    let outcome = row.text(21).flatMap(Outcome.init(rawValue:))
    return Notice(
      id: row.integer(0), kind: kind, title: title, body: row.text(3), app: row.text(4), urgency: urgency,
      style: style, icon: row.text(7), hints: row.text(26).flatMap(decodeHints), tag: row.text(8),
      key: row.text(9), value: row.optionalInteger(10),
      delay: row.real(11), fadeIn: row.real(12), hold: row.real(13), fadeOut: row.real(14), easeIn: easeIn,
      easeOut: easeOut, timeout: row.optionalReal(17), after: row.optionalInteger(18),
      actions: row.text(19).flatMap(decodeActions), invoked: row.text(20), count: row.optionalInteger(27),
      foldedInto: row.optionalInteger(28), origin: row.text(29).flatMap(decodeOrigin),
      phase: outcome == nil ? .waiting : .finished, opacity: 0,
      outcome: outcome, message: row.text(22),
      created: row.real(23), shown: row.optionalReal(24), finished: row.optionalReal(25), reply: row.text(30),
      replied: row.text(31), unread: row.optionalInteger(32) == 1 ? true : nil,
      restoredFrom: row.optionalInteger(33))
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

  // MARK: - NoticeJournal

  public func recordUnfinished(_ notice: Notice) {
    note { batch in
      if batch.finished[notice.id] == nil { batch.unfinished[notice.id] = notice }
    }
  }

  public func recordFinished(_ notice: Notice) {
    note { batch in
      batch.unfinished.removeValue(forKey: notice.id)
      if batch.finished.updateValue(notice, forKey: notice.id) == nil { batch.finishOrder.append(notice.id) }
    }
  }

  public func recordForgotten(_ id: Int) {
    note { batch in
      batch.unfinished.removeValue(forKey: id)
      batch.finished.removeValue(forKey: id)
      batch.forgotten.insert(id)
    }
  }

  public func recordHand(_ choice: HandChoice?) {
    note { $0.hand = .some(choice) }
  }

  public func recordNextID(_ nextID: Int) {
    note { $0.nextID = max($0.nextID ?? 0, nextID) }
  }

  /// JetStream stored the relay message of notice `id` (or the relay gave it up): its outbox row goes
  /// with the next commit.
  public func recordPublished(_ id: Int) {
    note { $0.published.insert(id) }
  }

  public func sync(_ completion: @escaping @Sendable ((any Error)?) -> Void) {
    note { $0.completions.append(completion) }
  }

  private func note(_ change: (inout Batch) -> Void) {
    let first = pending.withLock { batch -> Bool in
      let wasEmpty = batch.isEmpty
      change(&batch)
      return wasEmpty
    }
    if first { onPending() }
  }

  // MARK: - Committing

  /// Commits everything noted so far in one transaction and tells the callers of `sync`.
  ///
  /// A failed commit keeps its changes for the next one and answers its callers with the error; the
  /// next attempt waits (`firstRetryDelay`, doubling to `maximumRetryDelay`), so a full disk costs
  /// one attempt a second, not a core.
  public func commitPending() -> CommitOutcome {
    let now = Posix.monotonicNow()
    if let retry, now < retry.at { return .waiting(retryIn: retry.at - now) }
    let batch = pending.withLock { batch -> Batch in
      defer { batch = Batch() }
      return batch
    }
    if batch.isEmpty { return .idle }
    do {
      try commit(batch)
    } catch {
      let delay = min((retry?.delay ?? Self.firstRetryDelay / 2) * 2, Self.maximumRetryDelay)
      if retry == nil {
        log.error(
          "the store could not commit \(batch.unfinished.count + batch.finished.count) changes: \(error); retrying every \(Int(Self.maximumRetryDelay)) s until it can"
        )
      }
      retry = (Posix.monotonicNow() + delay, delay)
      var kept = batch
      kept.completions = []
      // Keep the changes for the next commit, so that they are written once there is room again.
      pending.withLock { $0.absorb(older: kept) }
      for completion in batch.completions { completion(error) }
      return .failed(retryIn: delay)
    }
    if retry != nil {
      retry = nil
      log.notice("the store commits again; every change kept meanwhile is written")
    }
    for completion in batch.completions { completion(nil) }
    return .committed
  }

  private func commit(_ batch: Batch) throws(SQLiteError) {
    let changes =
      !batch.unfinished.isEmpty || !batch.finished.isEmpty || !batch.forgotten.isEmpty
      || !batch.published.isEmpty
    guard changes || batch.hand != nil || batch.nextID != nil else { return }
    commitCount += 1
    var queued: [OutgoingMessage] = []
    let changed = Array(batch.unfinished.values) + Array(batch.finished.values)
    // The marks as this commit leaves them: kept only once it is committed.
    var raised = changed.contains { $0.origin != nil } ? try relayMarks() : marks
    // Likewise the order the last finished notice took, and the last place published.
    var order = lastFinishedOrder
    var sequence = relaySequence
    try database.execute("BEGIN IMMEDIATE")
    do {
      for notice in changed.sorted(by: { $0.id < $1.id }) {
        if let origin = notice.origin { try raise(origin, in: &raised) }
        let placed = sequence
        guard
          let outgoing = relaying?.queueing(
            notice, notice.id > highestCommitted, batch.finished[notice.id] != nil, &sequence)
        else { continue }
        queueOutgoing.reset()
        queueOutgoing.bind(1, outgoing.id)
        queueOutgoing.bind(2, outgoing.subject)
        queueOutgoing.bind(3, outgoing.messageID)
        queueOutgoing.bind(4, outgoing.payload)
        try queueOutgoing.run()
        // One message a notice: one already waiting keeps its place and is not told again (nor
        // takes a place in the sequence).
        if database.changes > 0 { queued.append(outgoing) } else { sequence = placed }
      }
      for id in batch.published.sorted() {
        unqueueOutgoing.reset()
        unqueueOutgoing.bind(1, id)
        try unqueueOutgoing.run()
      }
      for notice in batch.unfinished.values.sorted(by: { $0.id < $1.id }) {
        bind(notice)
        try upsert.run()
      }
      var ordered = Set<Int>()
      for id in batch.finishOrder where ordered.insert(id).inserted {
        guard let notice = batch.finished[id] else { continue }
        order += 1
        bind(notice, finishedOrder: order)
        try upsert.run()
      }
      for id in batch.forgotten.sorted() {
        forget.reset()
        forget.bind(1, id)
        try forget.run()
      }
      if let nextID = batch.nextID { try meta("next_id", "\(nextID)") }
      if sequence != relaySequence { try meta("relay_sequence", "\(sequence)") }
      if let hand = batch.hand {
        var suspended = false
        var allow: DoNotDisturbAllow?
        var suspendedUntil: Double?
        var resumedUntil: Double?
        switch hand {
        case .suspended(let chosen, let until)?: (suspended, allow, suspendedUntil) = (true, chosen, until)
        case .resumed(let until)?: resumedUntil = until
        case nil: break
        }
        try meta("suspended", suspended ? "1" : "0")
        try meta("suspend_allow", allow?.rawValue ?? "")
        try meta("suspended_until", suspendedUntil.map { "\($0)" } ?? "")
        try meta("resumed_until", resumedUntil.map { "\($0)" } ?? "")
      }
      try database.execute("COMMIT")
    } catch {
      try? database.execute("ROLLBACK")
      throw error
    }
    highestCommitted = max(highestCommitted, batch.unfinished.keys.max() ?? 0, batch.finished.keys.max() ?? 0)
    lastFinishedOrder = order
    relaySequence = sequence
    marks = raised
    if !queued.isEmpty { relaying?.onQueued(queued) }
  }

  // MARK: - The relay's outbox and marks

  /// Takes `origin`'s place into its store's mark, written in this transaction if it changed.
  private func raise(_ origin: NoticeOrigin, in marks: inout [String: RelayMark]?) throws(SQLiteError) {
    let key = origin.markKey
    var mark = marks?[key] ?? RelayMark()
    let before = mark
    mark.take(origin.position)
    guard mark != before else { return }
    marks?[key] = mark
    raiseMark.reset()
    raiseMark.bind(1, key)
    raiseMark.bind(2, mark.last)
    raiseMark.bind(3, mark.missingText)
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
    let rows = try database.prepare("SELECT id, subject, message_id, payload FROM relay_outbox ORDER BY id")
    var outgoing: [OutgoingMessage] = []
    while try rows.step() {
      outgoing.append(
        OutgoingMessage(
          id: rows.integer(0), subject: rows.text(1) ?? "", messageID: rows.text(2) ?? "",
          payload: rows.text(3) ?? ""))
    }
    return outgoing
  }

  /// Per origin store (`host/store`), what has been committed here from it (`RelayMark`).
  public func relayMarks() throws(SQLiteError) -> [String: RelayMark] {
    if let marks { return marks }
    let rows = try database.prepare("SELECT origin, last, missing FROM relay_marks")
    var read: [String: RelayMark] = [:]
    while try rows.step() {
      if let origin = rows.text(0) {
        read[origin] = RelayMark(last: rows.integer(1), missingText: rows.text(2) ?? "")
      }
    }
    marks = read
    return read
  }

  private func meta(_ key: String, _ value: String) throws(SQLiteError) {
    setMeta.reset()
    setMeta.bind(1, key)
    setMeta.bind(2, value)
    try setMeta.run()
  }
}
