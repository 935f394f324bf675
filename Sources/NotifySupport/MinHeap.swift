/// A binary min-heap: the least element comes out first. Elements that must leave in the order
/// they came when otherwise equal carry a sequence number in their ordering (the engine's
/// `IDQueue`, `TimerHeap`).
public struct MinHeap<Element: Comparable> {
  private var elements: [Element] = []

  public init() {}

  public var count: Int { elements.count }
  public var isEmpty: Bool { elements.isEmpty }
  /// The room its buffer has (for tests of its bound).
  public var capacity: Int { elements.capacity }
  /// The least element, without removing it.
  public var first: Element? { elements.first }

  public mutating func push(_ element: Element) {
    elements.append(element)
    var child = elements.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard elements[child] < elements[parent] else { break }
      elements.swapAt(child, parent)
      child = parent
    }
  }

  /// Removes and answers the least element.
  @discardableResult
  public mutating func pop() -> Element? {
    guard !elements.isEmpty else { return nil }
    elements.swapAt(0, elements.count - 1)
    let top = elements.removeLast()
    siftDown(from: 0)
    elements.releaseSpareCapacity()
    return top
  }

  public mutating func removeAll() {
    elements.removeAll(keepingCapacity: elements.capacity <= spareCapacityFloor)
  }

  /// Keeps only the elements `isLive` accepts, once the heap holds more than twice `live` of them
  /// (+64): the bound on the stale entries of a heap whose entries are dropped lazily, when they
  /// come out.
  public mutating func compact(live: Int, isLive: (Element) -> Bool) {
    guard elements.count > 2 * live + 64 else { return }
    elements.removeAll { !isLive($0) }
    elements.releaseSpareCapacity()
    for index in stride(from: elements.count / 2 - 1, through: 0, by: -1) { siftDown(from: index) }
  }

  private mutating func siftDown(from start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var least = parent
      if left < elements.count, elements[left] < elements[least] { least = left }
      if right < elements.count, elements[right] < elements[least] { least = right }
      if least == parent { break }
      elements.swapAt(parent, least)
      parent = least
    }
  }
}

/// Timers: deadlines in a `MinHeap`, their actions by number. A cancelled timer's deadline is
/// dropped when it comes up, or when cancelled ones outnumber the live ones (`MinHeap.compact`).
/// Serves the Varlink event loop's timers and the engine's timing thread.
public struct TimerHeap<Action> {
  private struct Deadline: Comparable {
    var at: Double
    var id: UInt64

    static func < (a: Deadline, b: Deadline) -> Bool { (a.at, a.id) < (b.at, b.id) }
  }

  private var deadlines = MinHeap<Deadline>()
  private var actions: [UInt64: Action] = [:]
  private var nextID: UInt64 = 1

  public init() {}

  /// Adds a timer for `deadline`; answers its number.
  public mutating func add(at deadline: Double, _ action: Action) -> UInt64 {
    let id = nextID
    nextID += 1
    actions[id] = action
    deadlines.push(Deadline(at: deadline, id: id))
    return id
  }

  /// Cancels timer `id`; answers whether it was still pending.
  @discardableResult
  public mutating func remove(_ id: UInt64) -> Bool {
    guard actions.removeValue(forKey: id) != nil else { return false }
    actions.releaseSpareCapacity()
    if actions.isEmpty {
      deadlines.removeAll()
    } else {
      deadlines.compact(live: actions.count) { actions[$0.id] != nil }
    }
    return true
  }

  /// The earliest live timer's deadline and number.
  public mutating func earliest() -> (at: Double, id: UInt64)? {
    while let first = deadlines.first, actions[first.id] == nil { deadlines.pop() }
    return deadlines.first.map { ($0.at, $0.id) }
  }

  /// Removes and answers the action of the earliest timer due by `now`.
  public mutating func popDue(now: Double) -> Action? {
    guard let first = earliest(), first.at <= now else { return nil }
    deadlines.pop()
    defer { actions.releaseSpareCapacity() }
    return actions.removeValue(forKey: first.id)
  }
}
