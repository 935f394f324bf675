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
    return body(&records[position])
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
