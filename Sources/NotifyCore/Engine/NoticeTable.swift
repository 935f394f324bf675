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

  /// Whether changes of presentation are noted (only while someone is told of them).
  private(set) var notesPresentations = false
  /// Shown notices whose presentation changed since `takePresentationChanges()`.
  private var presentationChanged: Set<Int> = []

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
    guard notesPresentations else { return body(&records[position]) }
    // A timeline set or rewritten bumps its generation.
    let generation = records[position].generation
    defer { if records[position].generation != generation { presentationChanged.insert(id) } }
    return body(&records[position])
  }

  /// Starts noting changes of presentation, every shown notice first (a new listener hears of each),
  /// or stops and forgets them.
  mutating func notePresentations(_ on: Bool) {
    notesPresentations = on
    presentationChanged = on ? presentationChanged.union(records.lazy.filter(\.isShown).map(\.notice.id)) : []
  }

  /// Notes that the presentation of notice `id` changed (its text, by which it matches rules).
  mutating func notePresentationChanged(_ id: Int) {
    if notesPresentations { presentationChanged.insert(id) }
  }

  /// The ids whose presentation changed since the last call.
  mutating func takePresentationChanges() -> Set<Int> {
    defer { presentationChanged.removeAll() }
    return presentationChanged
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
