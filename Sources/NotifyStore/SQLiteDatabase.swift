import CSQLite
import Foundation

/// A failed SQLite call: which call, its result code and SQLite's message.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
  public var call: String
  public var code: Int32
  public var message: String

  public var description: String { "\(call): \(message) (SQLite error \(code))" }

  /// Whether the file is not a database or is damaged.
  public var isCorruption: Bool {
    let primary = code & 0xff
    return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB
  }

  /// Whether the disk (or quota) is full.
  public var isFull: Bool { code & 0xff == SQLITE_FULL }
}

/// One SQLite connection; every call goes through here, the seam for SQLite's errors.
///
/// - Important: not thread-safe; the store uses it from one serial queue.
final class SQLiteDatabase {
  private var handle: OpaquePointer?
  let path: String

  /// Opens (creating) the database at `path`; wraps `sqlite3_open_v2`.
  init(path: String) throws(SQLiteError) {
    self.path = path
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
    let code = sqlite3_open_v2(path, &handle, flags, nil)
    guard code == SQLITE_OK else {
      let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
      sqlite3_close_v2(handle)
      handle = nil
      throw SQLiteError(call: "open \(path)", code: code, message: message)
    }
    sqlite3_extended_result_codes(handle, 1)
    sqlite3_busy_timeout(handle, 5000)
  }

  deinit { sqlite3_close_v2(handle) }

  fileprivate func error(_ call: String, _ code: Int32) -> SQLiteError {
    SQLiteError(call: call, code: code, message: String(cString: sqlite3_errmsg(handle)))
  }

  /// How many rows the last statement inserted, changed or deleted; wraps `sqlite3_changes`.
  var changes: Int { Int(sqlite3_changes(handle)) }

  /// Runs SQL with no results; wraps `sqlite3_exec`.
  func execute(_ sql: String) throws(SQLiteError) {
    let code = sqlite3_exec(handle, sql, nil, nil, nil)
    guard code == SQLITE_OK else { throw error(sql, code) }
  }

  /// A prepared statement; wraps `sqlite3_prepare_v2`.
  func prepare(_ sql: String) throws(SQLiteError) -> Statement {
    var statement: OpaquePointer?
    let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
    guard code == SQLITE_OK, let statement else { throw error("prepare \(sql)", code) }
    return Statement(statement: statement, database: self, sql: sql)
  }

  /// A statement with bound values; step it for rows.
  final class Statement {
    private let statement: OpaquePointer
    private unowned let database: SQLiteDatabase
    private let sql: String

    init(statement: OpaquePointer, database: SQLiteDatabase, sql: String) {
      self.statement = statement
      self.database = database
      self.sql = sql
    }

    deinit { sqlite3_finalize(statement) }

    /// Makes the statement ready to run again with new values; wraps `sqlite3_reset(3)` and
    /// `sqlite3_clear_bindings(3)`.
    func reset() {
      sqlite3_reset(statement)
      sqlite3_clear_bindings(statement)
    }

    /// Binds `?index`; wraps `sqlite3_bind_int64(3)` (and `sqlite3_bind_null` for `nil`).
    func bind(_ index: Int32, _ value: Int?) {
      guard let value else { return }
      sqlite3_bind_int64(statement, index, Int64(value))
    }

    /// Binds `?index`; wraps `sqlite3_bind_double(3)`.
    func bind(_ index: Int32, _ value: Double?) {
      guard let value else { return }
      sqlite3_bind_double(statement, index, value)
    }

    /// Binds `?index` to the text's UTF-8, NUL bytes included; wraps `sqlite3_bind_text(3)`.
    func bind(_ index: Int32, _ value: String?) {
      guard var value else { return }
      value.withUTF8 { bytes in
        _ = sqlite3_bind_text(
          statement, index,
          UnsafeRawPointer(bytes.baseAddress).map { $0.assumingMemoryBound(to: CChar.self) },
          Int32(bytes.count), notifyd_sqlite_transient)
      }
    }

    /// Advances to the next row (`true`) or the end (`false`); wraps `sqlite3_step`.
    func step() throws(SQLiteError) -> Bool {
      let code = sqlite3_step(statement)
      switch code {
      case SQLITE_ROW: return true
      case SQLITE_DONE: return false
      default:
        let error = database.error(sql, code)
        sqlite3_reset(statement)
        throw error
      }
    }

    /// Runs the statement to its end with what is bound.
    func run() throws(SQLiteError) {
      while try step() {}
    }

    func optionalInteger(_ column: Int32) -> Int? { isNull(column) ? nil : integer(column) }
    func optionalReal(_ column: Int32) -> Double? { isNull(column) ? nil : real(column) }

    func integer(_ column: Int32) -> Int { Int(sqlite3_column_int64(statement, column)) }
    func real(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

    /// The column's text, NUL bytes included; wraps `sqlite3_column_text(3)` and `sqlite3_column_bytes`.
    func text(_ column: Int32) -> String? {
      guard let bytes = sqlite3_column_text(statement, column) else { return nil }
      let count = Int(sqlite3_column_bytes(statement, column))
      return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
  }
}
