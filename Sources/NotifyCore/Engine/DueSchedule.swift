import NotifySupport

/// Notices on their way to being due: their due times, and the notices waiting for another one to
/// finish (`after`), by the id they wait for.
///
/// Entries of notices that finished meanwhile are skipped when they come out, and dropped once they
/// outnumber the live ones (`compact`), so a client that shows and cancels delayed notices cannot
/// make the schedule grow.
struct DueSchedule {
  private var times = IDQueue<Double>()
  private var waitingFor: [Int: [Int]] = [:]

  var earliest: Double? { times.first?.key }
  var count: Int { times.count }

  mutating func add(_ id: Int, dueAt: Double) {
    times.push(id, key: dueAt)
  }

  /// Removes and answers the earliest entry due by `now`.
  mutating func popDue(by now: Double) -> Int? {
    guard let first = times.first, first.key <= now else { return nil }
    times.pop()
    return first.id
  }

  mutating func compact(live: Int, isLive: (Int) -> Bool) {
    times.compact(live: live, isLive: isLive)
  }

  mutating func wait(_ id: Int, for other: Int) {
    waitingFor[other, default: []].append(id)
  }

  /// The notices that waited for `id`, which has finished.
  mutating func release(_ id: Int) -> [Int] {
    defer { waitingFor.releaseSpareCapacity() }
    return waitingFor.removeValue(forKey: id) ?? []
  }
}
