/// Giving back what a burst left: Swift's arrays, dictionaries and sets keep the capacity they grew
/// to when elements leave, so a table that held 100,000 notices for a minute would hold their room
/// for good. `releaseSpareCapacity()` moves the elements into a buffer of twice their count once
/// they fill less than a quarter of the one they are in, and only when that buffer is smaller
/// (`releasesSpareCapacity`): capacity only falls, so a table never copies twice at one size.
/// Between a quarter and all of the capacity nothing moves, so a table that fills and empties
/// around one size never copies; over time a shrink costs O(1) per removal.

/// The capacity a container keeps however empty it gets: below it, shrinking would save less
/// than it costs to grow again.
public let spareCapacityFloor = 256

/// Whether a container of `capacity` holding `count` gives back its room: under a quarter full,
/// and the buffer it would move into (at most twice the larger of twice its count and `floor`)
/// smaller than the one it is in. A hash table's capacity is rounded up (a power of two of
/// buckets, three quarters used), so without the second part one at its floor would be rebuilt, at
/// the same capacity, on every removal.
public func releasesSpareCapacity(capacity: Int, count: Int, floor: Int = spareCapacityFloor) -> Bool {
  count < capacity / 4 && floor < capacity / 2
}

extension Array {
  /// Moves the elements into a smaller buffer once they fill less than a quarter of this one.
  public mutating func releaseSpareCapacity(floor: Int = spareCapacityFloor) {
    guard releasesSpareCapacity(capacity: capacity, count: count, floor: floor) else { return }
    var smaller: [Element] = []
    smaller.reserveCapacity(Swift.max(2 * count, floor))
    smaller.append(contentsOf: self)
    self = smaller
  }
}

extension Dictionary {
  /// Moves the entries into a smaller table once they fill less than a quarter of this one.
  public mutating func releaseSpareCapacity(floor: Int = spareCapacityFloor) {
    guard releasesSpareCapacity(capacity: capacity, count: count, floor: floor) else { return }
    var smaller = Self(minimumCapacity: Swift.max(2 * count, floor))
    for (key, value) in self { smaller[key] = value }
    self = smaller
  }
}

extension Set {
  /// Moves the members into a smaller table once they fill less than a quarter of this one.
  public mutating func releaseSpareCapacity(floor: Int = spareCapacityFloor) {
    guard releasesSpareCapacity(capacity: capacity, count: count, floor: floor) else { return }
    var smaller = Self(minimumCapacity: Swift.max(2 * count, floor))
    for member in self { smaller.insert(member) }
    self = smaller
  }
}
