/// A binary min-heap: the least element comes out first. Elements that must leave in the order
/// they came when otherwise equal carry a sequence number in their ordering (`DueHeap`, the event
/// loop's timers).
public struct MinHeap<Element: Comparable> {
  private var elements: [Element] = []

  public init() {}

  public var count: Int { elements.count }
  public var isEmpty: Bool { elements.isEmpty }
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
    var parent = 0
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
    return top
  }

  public mutating func removeAll() {
    elements.removeAll(keepingCapacity: true)
  }
}
