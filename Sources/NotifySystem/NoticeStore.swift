import CSQLite
import Dispatch
import Foundation
import NotifyCore
import NotifyProtocol

/// Why the store could not be opened.
public enum StoreError: Error, Sendable, CustomStringConvertible {
  case cannotOpen(path: String, reason: String)

  public var description: String {
    switch self {
    case .cannotOpen(let path, let reason): return "cannot open the store at \(path): \(reason)"
    }
  }
}

/// The durable store: SQLite in WAL mode, one row per notice (its JSON, plus the columns history is
/// filtered by), and a `meta` table for the next id and the suspended state.
///
/// Changes are noted in memory under the engine's lock and committed in batches on the store's own
/// queue: while one commit runs, the next batch gathers, so concurrent `Show`s share commits.
///
/// - Important: the connection is used only on `writer`.
public final class NoticeStore: NoticeJournal, @unchecked Sendable {
  // @unchecked: `database` and `finishedSinceTrim` are used only on `writer`; the rest is in `pending`.
  public let path: String
  private let database: SQLiteDatabase
  /// A thread of its own (not `daemonSerial`): a commit blocks in `fsync`, and must not hold up
  /// the one thread the rest of the daemon runs on.
  private let writer = DispatchQueue(label: "notifyd.store")
  private let log: Logger
  private var finishedSinceTrim = 0

  private struct Batch {
    var unfinished: [Int: Notice] = [:]
    var finished: [Int: Notice] = [:]
    var suspended: (Bool, Double?)?
    var nextID: Int?
    var completions: [@Sendable ((any Error)?) -> Void] = []
    var isEmpty: Bool {
      unfinished.isEmpty && finished.isEmpty && suspended == nil && nextID == nil
    }

    /// Folds an older batch that failed to commit under this newer one.
    mutating func absorb(older: Batch) {
      for (id, notice) in older.unfinished where unfinished[id] == nil && finished[id] == nil {
        unfinished[id] = notice
      }
      for (id, notice) in older.finished where finished[id] == nil { finished[id] = notice }
      if suspended == nil { suspended = older.suspended }
      if nextID == nil { nextID = older.nextID }
    }
  }

  private struct Pending {
    var batch = Batch()
    /// A commit loop runs, or waits to retry: changes noted meanwhile join the next batch.
    var committing = false
    var historySize: Int
    /// How long the loop waits before it tries again after a failed commit; `nil` while commits work.
    var retryDelay: Double?
  }

  /// The first wait after a failed commit; each failure doubles it, up to `maximumRetryDelay`.
  static let firstRetryDelay = 0.05
  /// The longest wait between attempts while commits fail (a full disk): a `Show` meanwhile is
  /// answered `StoreFailed` within it, and the store recovers within it once there is room.
  static let maximumRetryDelay = 1.0

  private let pending: Locked<Pending>

  /// The schema, one migration per version; `PRAGMA user_version` says how many have run.
  static let migrations: [String] = [
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
    """
  ]

  private init(path: String, database: SQLiteDatabase, historySize: Int, log: Logger) {
    self.path = path
    self.database = database
    self.log = log
    self.pending = Locked(Pending(historySize: historySize))
  }

  /// Opens the store at `path`, creating it and its directory. A file that is not a database, or
  /// is damaged, is moved aside as `notifyd.db.corrupt-<timestamp>` (never deleted), logged
  /// loudly, and a fresh store started.
  public static func open(
    path: String, sync: StoreSync, historySize: Int, log: Logger
  ) throws(StoreError) -> (store: NoticeStore, state: JournalState) {
    let directory = (path as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw .cannotOpen(path: path, reason: (error as NSError).localizedDescription)
    }
    do {
      return try openPrivately(path: path, sync: sync, historySize: historySize, log: log)
    } catch let error as SQLiteError where error.isCorruption {
      let aside = "\(path).corrupt-\(Int(Date().timeIntervalSince1970))"
      log.error(
        "the store at \(path) is damaged (\(error)); moved it aside to \(aside) and starting a fresh one")
      for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
        do {
          try FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix)
        } catch {
          throw .cannotOpen(path: path, reason: "it is damaged and cannot be moved aside: \(error)")
        }
      }
      do {
        return try openPrivately(path: path, sync: sync, historySize: historySize, log: log)
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
    path: String, sync: StoreSync, historySize: Int, log: Logger
  ) throws -> (store: NoticeStore, state: JournalState) {
    // SQLite creates `-wal` and `-shm` with the main file's mode, so that one is made private first.
    try Posix.createPrivateFile(path)
    let opened = try openChecked(path: path, sync: sync, historySize: historySize, log: log)
    for suffix in ["-wal", "-shm"] where Posix.fileType(path + suffix) != nil {
      try Posix.chmod(path + suffix, 0o600)
    }
    return opened
  }

  private static func openChecked(
    path: String, sync: StoreSync, historySize: Int, log: Logger
  ) throws -> (store: NoticeStore, state: JournalState) {
    let database = try SQLiteDatabase(path: path)
    try database.execute("PRAGMA journal_mode=WAL")
    // The pages a commit touches are the newest rows and the history index: 1 MiB of cache holds
    // them, and the cache reaches its size early instead of creeping up to SQLite's 2 MiB default.
    try database.execute("PRAGMA cache_size=-1024")
    try database.execute("PRAGMA synchronous=\(sync == .full ? "FULL" : "NORMAL")")
    let check = try database.prepare("PRAGMA quick_check")
    if try check.step(), let result = check.text(0), result != "ok" {
      throw SQLiteError(call: "quick_check", code: SQLITE_CORRUPT, message: result)
    }
    try migrate(database)
    let store = NoticeStore(path: path, database: database, historySize: historySize, log: log)
    return (store, try store.load(historySize: historySize))
  }

  private static func migrate(_ database: SQLiteDatabase) throws(SQLiteError) {
    let version = try database.prepare("PRAGMA user_version")
    let current = try version.step() ? version.integer(0) : 0
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

  private func load(historySize: Int) throws -> JournalState {
    var state = JournalState()
    let decoder = JSONDecoder()
    let unfinished = try database.prepare("SELECT data FROM notices WHERE finished = 0 ORDER BY id")
    while try unfinished.step() {
      if let text = unfinished.text(0), let notice = try? decoder.decode(Notice.self, from: Data(text.utf8)) {
        state.unfinished.append(notice)
      }
    }
    let history = try database.prepare(
      "SELECT data FROM notices WHERE finished = 1 ORDER BY finished_at DESC, id DESC LIMIT ?1")
    history.bind([.integer(historySize)])
    while try history.step() {
      if let text = history.text(0), let notice = try? decoder.decode(Notice.self, from: Data(text.utf8)) {
        state.history.insert(notice, at: 0)
      }
    }
    let maxID = try database.prepare("SELECT COALESCE(MAX(id), 0) FROM notices")
    let highest = try maxID.step() ? maxID.integer(0) : 0
    let meta = try database.prepare("SELECT key, value FROM meta")
    var values: [String: String] = [:]
    while try meta.step() {
      if let key = meta.text(0), let value = meta.text(1) { values[key] = value }
    }
    state.nextID = max(highest + 1, values["next_id"].flatMap(Int.init) ?? 1)
    state.suspended = values["suspended"] == "1"
    state.suspendedUntil = values["suspended_until"].flatMap(Double.init)
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
      batch.finished[notice.id] = notice
    }
  }

  public func recordSuspended(_ suspended: Bool, until: Double?) {
    note { $0.suspended = (suspended, until) }
  }

  public func recordNextID(_ nextID: Int) {
    note { $0.nextID = max($0.nextID ?? 0, nextID) }
  }

  public func sync(_ completion: @escaping @Sendable ((any Error)?) -> Void) {
    let start = pending.withLock { state -> Bool in
      state.batch.completions.append(completion)
      return startCommitting(&state)
    }
    if start { writer.async { self.commitLoop() } }
  }

  /// Changes the number of finished notices kept.
  public func setHistorySize(_ size: Int) {
    pending.withLock { $0.historySize = size }
  }

  private func note(_ change: (inout Batch) -> Void) {
    let start = pending.withLock { state -> Bool in
      change(&state.batch)
      return startCommitting(&state)
    }
    if start { writer.async { self.commitLoop() } }
  }

  private func startCommitting(_ state: inout Pending) -> Bool {
    guard !state.committing else { return false }
    state.committing = true
    return true
  }

  /// Commits batches until none is left; each commit takes everything noted while the previous ran.
  ///
  /// A failed commit keeps its changes for the next one and answers its callers with the error;
  /// the loop then waits (`retryDelay`, growing to `maximumRetryDelay`) before it tries again, so a
  /// full disk costs one attempt a second, not a core, and the writer stays free for reads.
  private func commitLoop() {
    while true {
      let (batch, historySize): (Batch, Int) = pending.withLock { state in
        if state.batch.isEmpty && state.batch.completions.isEmpty {
          state.committing = false
          return (Batch(), -1)
        }
        defer { state.batch = Batch() }
        return (state.batch, state.historySize)
      }
      if historySize < 0 { return }
      do {
        try commit(batch, historySize: historySize)
      } catch {
        let delay = pending.withLock { state -> Double in
          var retry = batch
          retry.completions = []
          // Keep the changes for the next commit, so that they are written once there is room again.
          state.batch.absorb(older: retry)
          let delay = min((state.retryDelay ?? Self.firstRetryDelay / 2) * 2, Self.maximumRetryDelay)
          state.retryDelay = delay
          return delay
        }
        if delay == Self.firstRetryDelay {
          log.error(
            "the store could not commit \(batch.unfinished.count + batch.finished.count) changes: \(error); retrying every \(Int(Self.maximumRetryDelay)) s until it can"
          )
        }
        for completion in batch.completions { completion(error) }
        writer.asyncAfter(deadline: .now() + delay) { self.commitLoop() }
        return
      }
      let recovered = pending.withLock { state -> Bool in
        defer { state.retryDelay = nil }
        return state.retryDelay != nil
      }
      if recovered { log.notice("the store commits again; every change kept meanwhile is written") }
      for completion in batch.completions { completion(nil) }
    }
  }

  private func commit(_ batch: Batch, historySize: Int) throws {
    guard !batch.isEmpty else { return }
    let encoder = JSONEncoder()
    try database.execute("BEGIN IMMEDIATE")
    do {
      let upsert = try database.prepare(
        "INSERT OR REPLACE INTO notices (id, finished, finished_at, app, outcome, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
      )
      for notice in batch.unfinished.values.sorted(by: { $0.id < $1.id }) {
        let data = String(decoding: try encoder.encode(notice), as: UTF8.self)
        try upsert.run([
          .integer(notice.id), .integer(0), .null, notice.app.map(SQLiteValue.text) ?? .null, .null,
          .text(data),
        ])
      }
      for notice in batch.finished.values.sorted(by: { $0.id < $1.id }) {
        let data = String(decoding: try encoder.encode(notice), as: UTF8.self)
        try upsert.run([
          .integer(notice.id), .integer(1), .real(notice.finished ?? 0),
          notice.app.map(SQLiteValue.text) ?? .null,
          notice.outcome.map { .text($0.rawValue) } ?? .null, .text(data),
        ])
      }
      let meta = try database.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)")
      if let nextID = batch.nextID { try meta.run([.text("next_id"), .text("\(nextID)")]) }
      if let (suspended, until) = batch.suspended {
        try meta.run([.text("suspended"), .text(suspended ? "1" : "0")])
        try meta.run([.text("suspended_until"), .text(until.map { "\($0)" } ?? "")])
      }
      finishedSinceTrim += batch.finished.count
      if finishedSinceTrim >= 64 {
        finishedSinceTrim = 0
        try database.prepare(
          """
          DELETE FROM notices WHERE finished = 1 AND id IN
            (SELECT id FROM notices WHERE finished = 1 ORDER BY finished_at DESC, id DESC LIMIT -1 OFFSET ?1)
          """
        ).run([.integer(historySize)])
      }
      try database.execute("COMMIT")
    } catch {
      try? database.execute("ROLLBACK")
      throw error
    }
  }

  // MARK: - History

  /// Finished notices from the store, newest first, after committing what is pending.
  public func history(
    _ request: HistoryParameters, completion: @escaping @Sendable (Result<[Notice], any Error>) -> Void
  ) {
    sync { [self] _ in
      writer.async { [self] in
        completion(Result { try queryHistory(request) })
      }
    }
  }

  private func queryHistory(_ request: HistoryParameters) throws -> [Notice] {
    var sql = "SELECT data FROM notices WHERE finished = 1"
    var values: [SQLiteValue] = []
    if let app = request.app {
      values.append(.text(app))
      sql += " AND app = ?\(values.count)"
    }
    if let outcome = request.outcome {
      values.append(.text(outcome.rawValue))
      sql += " AND outcome = ?\(values.count)"
    }
    if let since = request.since {
      values.append(.real(since))
      sql += " AND finished_at >= ?\(values.count)"
    }
    let historySize = pending.withLock { $0.historySize }
    values.append(.integer(min(request.limit ?? historySize, historySize)))
    sql += " ORDER BY finished_at DESC, id DESC LIMIT ?\(values.count)"
    let statement = try database.prepare(sql)
    statement.bind(values)
    let decoder = JSONDecoder()
    var notices: [Notice] = []
    while try statement.step() {
      if let text = statement.text(0) {
        notices.append(try decoder.decode(Notice.self, from: Data(text.utf8)))
      }
    }
    return notices
  }
}
