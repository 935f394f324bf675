import NotifyProtocol

/// A lane's notices that are due and free, in the order they get a slot: higher urgency first,
/// then first come first served; and how many slots are taken.
struct LaneSchedule {
  private var ready = IDQueue<Int>()
  /// Slots taken: notices granted or running.
  var taken = 0
  /// Notices shown and held until ended that left their slot.
  var sticky = 0

  var count: Int { ready.count }

  mutating func add(_ id: Int, urgency: Urgency) {
    let rank =
      switch urgency {
      case .critical: 0
      case .normal: 1
      case .low: 2
      }
    ready.push(id, key: rank)
  }

  /// Removes and answers the next notice for `isLive` ones; stale entries are dropped on the way.
  mutating func next(isLive: (Int) -> Bool) -> Int? {
    while let entry = ready.pop() {
      if isLive(entry.id) { return entry.id }
    }
    return nil
  }

  mutating func compact(live: Int, isLive: (Int) -> Bool) {
    ready.compact(live: live, isLive: isLive)
  }
}
