import NotifySupport
import Testing

@Suite("MinHeap")
struct MinHeapTests {
  @Test func elements_comeOutLeastFirst_whateverOrderTheyWentIn() {
    var generator = SystemRandomNumberGenerator()
    let values = (0..<500).map { _ in Int.random(in: -1000...1000, using: &generator) }
    var heap = MinHeap<Int>()
    for value in values { heap.push(value) }
    #expect(heap.count == 500 && heap.first == values.min())
    var out: [Int] = []
    while let value = heap.pop() { out.append(value) }
    #expect(out == values.sorted())
    #expect(heap.isEmpty && heap.pop() == nil)
  }

  @Test func pushesAndPopsInterleaved_keepTheOrder() {
    var heap = MinHeap<Int>()
    for value in [5, 3, 8] { heap.push(value) }
    #expect(heap.pop() == 3)
    heap.push(1)
    heap.push(9)
    #expect([heap.pop(), heap.pop(), heap.pop(), heap.pop(), heap.pop()] == [1, 5, 8, 9, nil])
    heap.push(2)
    heap.removeAll()
    #expect(heap.isEmpty)
  }
}
