import NotifyCore
import NotifySupport
import Testing

/// `releaseSpareCapacity`: what keeps the engine's tables from holding a drained flood's room
/// (`test_memory_comes_back…` in tests/test_bounds.py measures the daemon).
@Suite("Spare capacity")
struct SpareCapacityTests {
  @Test func anArrayDrainedBelowAQuarter_movesIntoTwiceItsCount() {
    var array = Array(0..<100_000)
    let grown = array.capacity
    array.removeLast(99_900)
    array.releaseSpareCapacity()
    #expect(grown >= 100_000 && array.capacity < 1_000)
    #expect(array == Array(0..<100))
  }

  @Test func anArrayAboveAQuarter_orUnderTheFloor_staysInItsBuffer() {
    var array = Array(0..<10_000)
    array.removeLast(7_000)
    let address = array.withUnsafeBufferPointer { $0.baseAddress }
    array.releaseSpareCapacity()
    #expect(array.withUnsafeBufferPointer { $0.baseAddress } == address)
    var small = Array(0..<200)
    small.removeAll(keepingCapacity: true)
    let capacity = small.capacity
    small.releaseSpareCapacity()
    #expect(small.capacity == capacity)
  }

  @Test func aTableAtItsFloor_isNotRebuilt_howeverManyRemovalsFollow() {
    // A table asked for 256 has 512 buckets, 384 usable: under a quarter full it must stay put.
    var dictionary = [Int: Int](minimumCapacity: spareCapacityFloor)
    var set = Set<Int>(minimumCapacity: spareCapacityFloor)
    #expect(dictionary.capacity > spareCapacityFloor)
    #expect(!releasesSpareCapacity(capacity: dictionary.capacity, count: 0))
    for key in 0..<50 {
      dictionary[key] = key
      set.insert(key)
    }
    let capacities = (dictionary.capacity, set.capacity)
    for key in 0..<40 {
      dictionary.removeValue(forKey: key)
      set.remove(key)
      dictionary.releaseSpareCapacity()
      set.releaseSpareCapacity()
    }
    #expect((dictionary.capacity, set.capacity) == capacities)
    // Drained from far above, a table shrinks, and then stays at what it shrank to.
    var drained = Dictionary(uniqueKeysWithValues: (0..<100_000).map { ($0, $0) })
    for key in 0..<99_990 {
      drained.removeValue(forKey: key)
      drained.releaseSpareCapacity()
    }
    let settled = drained.capacity
    #expect(settled <= 2 * spareCapacityFloor)
    for key in 99_990..<99_995 {
      drained.removeValue(forKey: key)
      drained.releaseSpareCapacity()
    }
    #expect(drained.capacity == settled)
  }

  @Test func dictionariesAndSets_giveBackTheirBuckets_andKeepEveryEntry() {
    var dictionary = Dictionary(uniqueKeysWithValues: (0..<50_000).map { ($0, "\($0)") })
    var set = Set(0..<50_000)
    for key in 100..<50_000 {
      dictionary.removeValue(forKey: key)
      set.remove(key)
    }
    dictionary.releaseSpareCapacity()
    set.releaseSpareCapacity()
    #expect(dictionary.capacity < 1_000 && set.capacity < 1_000)
    #expect(dictionary == Dictionary(uniqueKeysWithValues: (0..<100).map { ($0, "\($0)") }))
    #expect(set == Set(0..<100))
  }

  @Test func aHeapDrainedByPops_givesBackItsRoom_andKeepsItsOrder() {
    var heap = MinHeap<Int>()
    for value in (0..<200_000).reversed() { heap.push(value) }
    let grown = heap.capacity
    var popped: [Int] = []
    for _ in 0..<199_990 { popped.append(heap.pop()!) }
    #expect(grown >= 200_000 && heap.capacity < 1_000)
    #expect(popped == Array(0..<199_990) && heap.count == 10 && heap.first == 199_990)
  }
}
