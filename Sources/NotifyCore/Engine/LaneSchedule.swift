import NotifyProtocol

/// A lane's notices that are due and free, in the order they get a slot: higher urgency first,
/// then first come first served; and how many slots are taken.
///
/// Notices that pass do-not-disturb (critical ones, or a rule's `BypassDoNotDisturb=yes`) are kept
/// apart, so that while suspended the next one of them is found without passing over the others.
struct LaneSchedule {
  struct Rank: Comparable {
    var urgency: Int
    var arrival: Int
    static func < (a: Rank, b: Rank) -> Bool { (a.urgency, a.arrival) < (b.urgency, b.arrival) }
  }

  private var held = IDQueue<Rank>()
  private var passing = IDQueue<Rank>()
  private var arrivals = 0
  /// Slots taken: notices granted or running.
  var taken = 0
  /// Notices shown and held until ended that left their slot.
  var sticky = 0

  var count: Int { held.count + passing.count }

  mutating func add(_ id: Int, urgency: Urgency, passesDoNotDisturb: Bool) {
    let rank =
      switch urgency {
      case .critical: 0
      case .normal: 1
      case .low: 2
      }
    arrivals += 1
    if passesDoNotDisturb {
      passing.push(id, key: Rank(urgency: rank, arrival: arrivals))
    } else {
      held.push(id, key: Rank(urgency: rank, arrival: arrivals))
    }
  }

  /// Removes and answers the next notice for `isLive` ones (with `passingOnly`, the next that
  /// passes do-not-disturb); stale entries are dropped on the way.
  mutating func next(passingOnly: Bool = false, isLive: (Int) -> Bool) -> Int? {
    while let entry = passing.first, !isLive(entry.id) { passing.pop() }
    if passingOnly { return passing.pop()?.id }
    while let entry = held.first, !isLive(entry.id) { held.pop() }
    switch (held.first, passing.first) {
    case (let one?, let other?): return one.key < other.key ? held.pop()?.id : passing.pop()?.id
    case (_?, nil): return held.pop()?.id
    case (nil, _?): return passing.pop()?.id
    case (nil, nil): return nil
    }
  }

  mutating func compact(live: Int, isLive: (Int) -> Bool) {
    held.compact(live: live, isLive: isLive)
    passing.compact(live: live, isLive: isLive)
  }
}
