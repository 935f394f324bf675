import NotifySupport

/// The phase boundaries of shown notices, earliest first, and which shown notices are fading.
///
/// A boundary carries the generation of its notice's timeline: a notice whose timeline changed
/// (its hold restarted, it was ended or closed) has a new one, and the old boundary is skipped when
/// it comes out; stale ones are dropped once they outnumber the shown notices (`compact`).
struct BoundarySchedule {
  private struct Boundary: Comparable {
    var at: Double
    var id: Int
    /// `at` as seconds into the notice's timeline.
    var elapsed: Double
    var generation: Int
    static func < (a: Boundary, b: Boundary) -> Bool { (a.at, a.id) < (b.at, b.id) }
  }

  private var boundaries = MinHeap<Boundary>()
  /// Shown notices now fading in or out.
  private(set) var fading: Set<Int> = []

  /// The earliest boundary, stale or not.
  var earliest: Double? { boundaries.first?.at }
  var count: Int { boundaries.count }

  /// Notice `id`, in the timeline of `generation`, changes phase at `at` (`elapsed` into it).
  mutating func add(_ id: Int, at: Double, elapsed: Double, generation: Int) {
    boundaries.push(Boundary(at: at, id: id, elapsed: elapsed, generation: generation))
  }

  /// Removes the earliest boundary, due by `now`; answers its notice and how far into its
  /// timeline the boundary is, if the boundary is of its timeline now (`generation(of:)`), `nil` if
  /// it is stale.
  mutating func popDue(by now: Double, generation: (Int) -> Int?) -> (id: Int, elapsed: Double)? {
    guard let first = boundaries.first, first.at <= now else { return nil }
    boundaries.pop()
    return generation(first.id) == first.generation ? (first.id, first.elapsed) : nil
  }

  mutating func setFading(_ id: Int, _ isFading: Bool) {
    if isFading {
      fading.insert(id)
    } else {
      fading.remove(id)
    }
  }

  /// Drops stale boundaries at the front, and all of them once they outnumber `live`.
  mutating func compact(live: Int, generation: (Int) -> Int?) {
    while let first = boundaries.first, generation(first.id) != first.generation { boundaries.pop() }
    boundaries.compact(live: live) { generation($0.id) == $0.generation }
  }
}
