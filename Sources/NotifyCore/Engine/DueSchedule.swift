import NotifySupport

/// Notices on their way to being due: their due times, and the notices waiting for another one to
/// finish (`after`), by the id they wait for.
///
/// Entries of notices that finished meanwhile, or whose due time moved (a snooze moved, a notice
/// unsnoozed), are skipped when they come out, and dropped once they outnumber the live ones
/// (`compact`), so a client that shows and cancels delayed notices, or snoozes one again and again,
/// cannot make the schedule grow.
struct DueSchedule {
  private var times = IDQueue<Double>()
  private var waitingFor: [Int: [Int]] = [:]

  var earliest: Double? { times.first?.key }
  var count: Int { times.count }

  mutating func add(_ id: Int, dueAt: Double) {
    times.push(id, key: dueAt)
  }

  /// Removes and answers the earliest entry due by `now`: its notice and the due time it was added
  /// with.
  mutating func popDue(by now: Double) -> (id: Int, dueAt: Double)? {
    guard let first = times.first, first.key <= now else { return nil }
    times.pop()
    return (first.id, first.key)
  }

  /// Drops the entries `isLive` rejects (given the notice and the due time of the entry), once they
  /// outnumber `live`.
  mutating func compact(live: Int, isLive: (Int, Double) -> Bool) {
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
