/// Giving back what a burst left: Swift's arrays, dictionaries and sets keep the capacity they grew
/// to when elements leave, so a table that held 100,000 notices for a minute would hold their room
/// for good. `releaseSpareCapacity()` moves the elements into a buffer of twice their count once
/// they fill less than a quarter of the one they are in (and it is larger than `floor`). A shrink
/// follows at least three quarters of a capacity's removals, so over time it costs O(1) per
/// removal; between a quarter and all of the capacity nothing moves, so a table that fills and
/// empties around one size never copies.

extension Array {
  /// Moves the elements into a smaller buffer once they fill less than a quarter of this one.
  public mutating func releaseSpareCapacity(floor: Int = spareCapacityFloor) {
    guard capacity > floor, count < capacity / 4 else { return }
    var smaller: [Element] = []
    smaller.reserveCapacity(Swift.max(2 * count, floor))
    smaller.append(contentsOf: self)
    self = smaller
  }
}

extension Dictionary {
  /// Moves the entries into a smaller table once they fill less than a quarter of this one.
  public mutating func releaseSpareCapacity(floor: Int = spareCapacityFloor) {
    guard capacity > floor, count < capacity / 4 else { return }
    var smaller = Self(minimumCapacity: Swift.max(2 * count, floor))
    for (key, value) in self { smaller[key] = value }
    self = smaller
  }
}

extension Set {
  /// Moves the members into a smaller table once they fill less than a quarter of this one.
  public mutating func releaseSpareCapacity(floor: Int = spareCapacityFloor) {
    guard capacity > floor, count < capacity / 4 else { return }
    var smaller = Self(minimumCapacity: Swift.max(2 * count, floor))
    for member in self { smaller.insert(member) }
    self = smaller
  }
}

/// The capacity a container keeps however empty it gets: below it, shrinking would save less
/// than it costs to grow again.
public let spareCapacityFloor = 256
