import NotifySupport

/// Who listens to the queue: watchers (with the pace of their frames) and `Wait` callers, by
/// number. The owner keeps what each number delivers to; the hub decides who gets what, when.
struct EventHub {
  struct Watcher {
    var frames: Bool
    /// Seconds between two frames this watcher gets.
    var interval: Double
    var nextFrameAt: Double
  }

  private(set) var watchers: [Int: Watcher] = [:]
  private var nextWatcher = 1
  /// `Wait` callers by the notice they wait for.
  private(set) var waiters: [Int: [Int]] = [:]
  private var waiterCount = 0
  private var nextWaiter = 1
  /// The next frame tick while frames are paced; `nil` while none are (nothing fades, or nobody
  /// asked for frames).
  private(set) var nextFrameTick: Double?

  var watcherCount: Int { watchers.count }
  var waitingCount: Int { waiterCount }

  mutating func addWatcher(frames: Bool, interval: Double, now: Double) -> Int {
    let id = nextWatcher
    nextWatcher += 1
    watchers[id] = Watcher(frames: frames, interval: interval, nextFrameAt: now)
    return id
  }

  mutating func removeWatcher(_ id: Int) {
    watchers.removeValue(forKey: id)
    watchers.releaseSpareCapacity()
  }

  mutating func addWaiter(for notice: Int) -> Int {
    let id = nextWaiter
    nextWaiter += 1
    waiters[notice, default: []].append(id)
    waiterCount += 1
    return id
  }

  /// A number for a caller answered at once, never registered.
  mutating func reserveWaiter() -> Int {
    defer { nextWaiter += 1 }
    return nextWaiter
  }

  mutating func removeWaiter(_ waiter: Int, of notice: Int) {
    guard var list = waiters[notice], let index = list.firstIndex(of: waiter) else { return }
    list.remove(at: index)
    waiterCount -= 1
    waiters[notice] = list.isEmpty ? nil : list
    waiters.releaseSpareCapacity()
  }

  /// The callers waiting for `notice`, which has finished; they leave the hub.
  mutating func takeWaiters(of notice: Int) -> [Int] {
    guard let list = waiters.removeValue(forKey: notice) else { return [] }
    waiters.releaseSpareCapacity()
    waiterCount -= list.count
    return list
  }

  // MARK: - Frame pacing

  private var frameInterval: Double? {
    watchers.values.lazy.filter(\.frames).map(\.interval).min()
  }

  /// Starts pacing frames from `now` when something fades and someone wants frames; otherwise stops.
  mutating func pace(fading: Bool, now: Double) {
    guard fading, let interval = frameInterval else {
      nextFrameTick = nil
      return
    }
    guard nextFrameTick == nil else { return }
    nextFrameTick = now + interval
    for id in watchers.keys where watchers[id]!.frames {
      watchers[id]!.nextFrameAt = max(watchers[id]!.nextFrameAt, now)
    }
  }

  /// At a frame tick (`nextFrameTick` ≤ `now`): the watchers whose frame is due, and the next tick,
  /// kept on the pace of the previous one so frames do not drift.
  mutating func tick(at now: Double) -> [Int] {
    guard let tick = nextFrameTick, let interval = frameInterval else {
      nextFrameTick = nil
      return []
    }
    var due: [Int] = []
    // A small tolerance, so a watcher at the tick's own pace is not skipped for a late microsecond.
    for (id, watcher) in watchers where watcher.frames && watcher.nextFrameAt <= now + interval / 4 {
      var next = watcher.nextFrameAt + watcher.interval
      if next < now { next = now + watcher.interval }
      watchers[id]!.nextFrameAt = next
      due.append(id)
    }
    var following = tick + interval
    if following <= now { following = now + interval }
    nextFrameTick = following
    return due.sorted()
  }
}
