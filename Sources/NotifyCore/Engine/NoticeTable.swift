import NotifySupport

/// The unfinished notices' records, by id: stored densely in one array, with an index from id to
/// position, so that a record costs its own size (and an array's spare capacity) rather than a
/// hash table's empty buckets of records.
///
/// Removing moves the last record into the hole: positions change, ids do not. Both give back
/// their room once a burst has drained (`releaseSpareCapacity`).
struct NoticeTable {
  private(set) var records: [NoticeRecord] = []
  private var positions: [Int: Int] = [:]

  /// Whether `retimed` is kept (only while someone is told of presentations).
  var tracksRetimed = false
  /// Ids whose timeline changed since `takeRetimed()`: their presentation is told again.
  private var retimed: Set<Int> = []

  var count: Int { records.count }
  var isEmpty: Bool { records.isEmpty }

  func contains(_ id: Int) -> Bool { positions[id] != nil }

  subscript(id: Int) -> NoticeRecord? {
    positions[id].map { records[$0] }
  }

  /// Changes the record of `id` in place; answers `nil` when there is none.
  @discardableResult
  mutating func modify<Result>(_ id: Int, _ body: (inout NoticeRecord) -> Result) -> Result? {
    guard let position = positions[id] else { return nil }
    guard tracksRetimed else { return body(&records[position]) }
    let before = (records[position].timeline, records[position].startedAt)
    defer {
      if records[position].timeline != before.0 || records[position].startedAt != before.1 {
        retimed.insert(id)
      }
    }
    return body(&records[position])
  }

  /// The ids whose timeline changed since the last call.
  mutating func takeRetimed() -> Set<Int> {
    defer { retimed.removeAll() }
    return retimed
  }

  mutating func insert(_ record: NoticeRecord) {
    positions[record.notice.id] = records.count
    records.append(record)
  }

  @discardableResult
  mutating func remove(_ id: Int) -> NoticeRecord? {
    guard let position = positions.removeValue(forKey: id) else { return nil }
    let last = records.count - 1
    if position != last {
      records.swapAt(position, last)
      positions[records[position].notice.id] = position
    }
    defer {
      records.releaseSpareCapacity()
      positions.releaseSpareCapacity()
    }
    return records.removeLast()
  }

  /// The ids of every record, oldest (smallest) first.
  var sortedIDs: [Int] { positions.keys.sorted() }
}
