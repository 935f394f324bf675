import Foundation
import NotifyProtocol

/// What the engine hands its subscribers, in the order it happened, delivered off the engine's lock
/// by the thread that published it: no hop to another thread per event.
///
/// The engine posts under its lock (so the order of posts is the order of changes) and calls
/// `deliver()` once the lock is released. If another thread is delivering already, it takes the new
/// items too and this one returns at once: items are delivered one at a time, in order, and a
/// subscriber that calls back into the engine (whose post comes back here) neither deadlocks nor
/// recurses.
///
/// - Important: a subscriber runs on whichever thread changed the queue (a lane's, the timers', the
///   server's, the bus's); it must do little and hop to its own owner for anything more.
final class EventOutbox: @unchecked Sendable {
  // @unchecked: `items` and `delivering` are guarded by `condition`.
  /// A subscriber's sink: the event and its sequence number, the same for every sink that gets it,
  /// so that subscribers that encode it can share one encoding.
  typealias Sink = @Sendable (Event, UInt64) -> Void

  enum Item {
    /// Events for the sinks that were watching when they happened (or frames for one watcher);
    /// the first event's number.
    case events([Event], first: UInt64, sinks: [Sink])
    /// A `Wait` reply, a snapshot: anything that must come in order with the events.
    case call(@Sendable () -> Void)
  }

  private let condition = NSCondition()
  private var items: [Item] = []
  private var delivering = false

  /// Queues an item; the caller holds the engine's lock.
  func post(_ item: Item) {
    condition.lock()
    items.append(item)
    condition.unlock()
  }

  /// Delivers everything posted, unless another thread is doing so already.
  func deliver() {
    condition.lock()
    guard !delivering, !items.isEmpty else {
      condition.unlock()
      return
    }
    delivering = true
    while !items.isEmpty {
      let batch = items
      items.removeAll(keepingCapacity: true)
      condition.unlock()
      for item in batch { Self.run(item) }
      condition.lock()
    }
    delivering = false
    condition.broadcast()
    condition.unlock()
  }

  /// Returns once everything posted so far has been delivered.
  func waitUntilDelivered() {
    deliver()
    condition.lock()
    while delivering || !items.isEmpty { condition.wait() }
    condition.unlock()
  }

  private static func run(_ item: Item) {
    switch item {
    case .events(let events, let first, let sinks):
      for (offset, event) in events.enumerated() {
        for sink in sinks { sink(event, first + UInt64(offset)) }
      }
    case .call(let body):
      body()
    }
  }
}
