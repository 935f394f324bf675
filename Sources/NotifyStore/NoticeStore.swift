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
  let queueOutgoing: SQLiteDatabase.Statement
  let unqueueOutgoing: SQLiteDatabase.Statement
  let raiseMark: SQLiteDatabase.Statement
  /// This store's identity (`meta.store_id`): with the host name, it makes a notice's relay message
  /// id unique, and a new store (a fresh one after a damaged one) starts new ids.
  public private(set) var identity = ""
  /// The highest notice id committed: a notice above it is new.
  private var highestCommitted = 0
  /// The `finished_order` the last notice to finish took.
  private var lastFinishedOrder = 0
  /// What `relay_marks` holds, read when first needed (by the committer).
  var marks: [String: RelayMark]?
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
  var relaying: (queueing: Queueing, onQueued: @Sendable ([OutgoingMessage]) -> Void)?
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

  private init(path: String, database: SQLiteDatabase, log: Logger, onPending: @escaping @Sendable () -> Void)
    throws(SQLiteError)
  {
    self.path = path
    self.database = database
    self.log = log
    self.onPending = onPending
    upsert = try database.prepare(NoticeColumn.upsert)
    forget = try database.prepare("DELETE FROM notices WHERE id = ?1")
    setMeta = try database.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)")
    queueOutgoing = try database.prepare(
      "INSERT OR IGNORE INTO relay_outbox (\(OutboxColumn.list)) VALUES (\(OutboxColumn.parameters))")
    unqueueOutgoing = try database.prepare("DELETE FROM relay_outbox WHERE id = ?1")
    raiseMark = try database.prepare(
      "INSERT OR REPLACE INTO relay_marks (\(MarkColumn.list)) VALUES (\(MarkColumn.parameters))")
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
    try StoreSchema.migrate(database)
    for suffix in ["-wal", "-shm"] where Posix.fileType(path + suffix) != nil {
      try Posix.chmod(path + suffix, 0o600)
    }
    let store = try NoticeStore(path: path, database: database, log: log, onPending: onPending)
    return (store, try store.load())
  }

  private func load() throws -> JournalState {
    var state = JournalState()
    let unfinished = try database.prepare(
      "SELECT \(NoticeColumn.list) FROM notices WHERE outcome IS NULL ORDER BY id")
    while try unfinished.step() {
      if let notice = NoticeColumn.notice(from: unfinished) { state.unfinished.append(notice) }
    }
    let history = try database.prepare(
      "SELECT \(NoticeColumn.list) FROM notices WHERE outcome IS NOT NULL ORDER BY finished_order, id")
    while try history.step() {
      if let notice = NoticeColumn.notice(from: history) { state.history.append(notice) }
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
        // One message a notice: one already waiting keeps its place and is not told again (nor
        // takes a place in the sequence).
        if try queue(outgoing) { queued.append(outgoing) } else { sequence = placed }
      }
      for id in batch.published.sorted() { try unqueue(id) }
      for notice in batch.unfinished.values.sorted(by: { $0.id < $1.id }) {
        NoticeColumn.bind(notice, to: upsert)
        try upsert.run()
      }
      var ordered = Set<Int>()
      for id in batch.finishOrder where ordered.insert(id).inserted {
        guard let notice = batch.finished[id] else { continue }
        order += 1
        NoticeColumn.bind(notice, finishedOrder: order, to: upsert)
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

  private func meta(_ key: String, _ value: String) throws(SQLiteError) {
    setMeta.reset()
    setMeta.bind(1, key)
    setMeta.bind(2, value)
    try setMeta.run()
  }
}
