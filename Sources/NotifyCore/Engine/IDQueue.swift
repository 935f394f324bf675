import NotifySupport

/// Ids in the order of a key, first come first served among equal keys. An entry whose id is no
/// longer wanted stays until it comes out (the owner skips it) or `compact` drops it.
struct IDQueue<Key: Comparable> {
  struct Entry: Comparable {
    var key: Key
    var sequence: Int
    var id: Int
    static func < (a: Entry, b: Entry) -> Bool { (a.key, a.sequence) < (b.key, b.sequence) }
  }

  private var heap = MinHeap<Entry>()
  private var sequence = 0

  var count: Int { heap.count }
  var first: Entry? { heap.first }

  mutating func push(_ id: Int, key: Key) {
    sequence += 1
    heap.push(Entry(key: key, sequence: sequence, id: id))
  }

  @discardableResult
  mutating func pop() -> Entry? { heap.pop() }

  /// Drops the entries of ids `isLive` rejects, once they outnumber `live` twice over (+64).
  mutating func compact(live: Int, isLive: (Int, Key) -> Bool) {
    heap.compact(live: live) { isLive($0.id, $0.key) }
  }
}
