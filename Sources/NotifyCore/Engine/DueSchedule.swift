import NotifyProtocol

/// Notices on their way to being due: a heap of due times, and the notices waiting for another
/// one to finish (`after`), by the id they wait for.
///
/// Entries of notices that finished meanwhile are left in place and skipped when they come out;
/// the heap is rebuilt once they outnumber the live ones (`compact`), so a client that shows and
/// cancels delayed notices cannot make it grow.
struct DueSchedule {
  struct Entry: Comparable {
    var dueAt: Double
    var sequence: Int
    var id: Int
    static func < (a: Entry, b: Entry) -> Bool { (a.dueAt, a.sequence) < (b.dueAt, b.sequence) }
  }

  private var heap = MinHeap<Entry>()
  private var sequence = 0
  private(set) var waitingFor: [Int: [Int]] = [:]

  var earliest: Double? { heap.first?.dueAt }
  var count: Int { heap.count }

  mutating func add(_ id: Int, dueAt: Double) {
    sequence += 1
    heap.push(Entry(dueAt: dueAt, sequence: sequence, id: id))
  }

  /// Removes and answers the earliest entry due by `now`.
  mutating func popDue(by now: Double) -> Int? {
    guard let first = heap.first, first.dueAt <= now else { return nil }
    heap.pop()
    return first.id
  }

  /// Drops entries for which `isLive` is false once they are more than twice the `live` count (+64).
  mutating func compact(live: Int, isLive: (Int) -> Bool) {
    guard heap.count > 2 * live + 64 else { return }
    var kept = MinHeap<Entry>()
    while let entry = heap.pop() {
      if isLive(entry.id) { kept.push(entry) }
    }
    heap = kept
  }

  mutating func wait(_ id: Int, for other: Int) {
    waitingFor[other, default: []].append(id)
  }

  /// The notices that waited for `id`, which has finished.
  mutating func release(_ id: Int) -> [Int] {
    waitingFor.removeValue(forKey: id) ?? []
  }
}

/// A lane's notices that are due and free, in the order they get a slot: higher urgency first,
/// then first come first served; and how many slots are taken.
struct LaneSchedule {
  struct Entry: Comparable {
    var rank: Int
    var sequence: Int
    var id: Int
    static func < (a: Entry, b: Entry) -> Bool { (a.rank, a.sequence) < (b.rank, b.sequence) }
  }

  private var heap = MinHeap<Entry>()
  private var sequence = 0
  /// Slots taken: notices granted or running.
  var taken = 0
  /// Notices shown and held until ended that left their slot.
  var sticky = 0

  var count: Int { heap.count }

  mutating func add(_ id: Int, urgency: Urgency) {
    sequence += 1
    let rank =
      switch urgency {
      case .critical: 0
      case .normal: 1
      case .low: 2
      }
    heap.push(Entry(rank: rank, sequence: sequence, id: id))
  }

  /// Removes and answers the next notice for `isLive` ones; stale entries are dropped on the way.
  mutating func next(isLive: (Int) -> Bool) -> Int? {
    while let entry = heap.pop() {
      if isLive(entry.id) { return entry.id }
    }
    return nil
  }

  /// Drops stale entries once they outnumber `live` twice over (+64).
  mutating func compact(live: Int, isLive: (Int) -> Bool) {
    guard heap.count > 2 * live + 64 else { return }
    var kept = MinHeap<Entry>()
    while let entry = heap.pop() {
      if isLive(entry.id) { kept.push(entry) }
    }
    heap = kept
  }
}
