import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The real scheduler: one thread that sleeps to the earliest absolute deadline on
/// `CLOCK_MONOTONIC` and, once woken, runs every action that has fallen due, in deadline order.
///
/// The engine arms one timer at a time (its next boundary, due time, frame or resume), so a
/// wake-up of this thread is one pass over everything due then: no Dispatch timer source per
/// notice, no hop from Dispatch's manager thread to a worker per tick. With nothing scheduled the
/// thread waits without a timeout, so an idle daemon is asleep.
///
/// The sleep is `pthread_cond_timedwait` on a condition bound to `CLOCK_MONOTONIC`: an absolute
/// deadline like `clock_nanosleep(TIMER_ABSTIME)`, which a newly armed, earlier deadline can cut
/// short without a signal.
public final class TimingThread: Scheduler, @unchecked Sendable {
  // @unchecked: `entries`, `actions`, `sleepingUntil` and `started` are guarded by `mutex`.
  private struct Entry: Comparable {
    var deadline: Double
    var sequence: Int
    static func < (a: Entry, b: Entry) -> Bool { (a.deadline, a.sequence) < (b.deadline, b.sequence) }
  }

  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  private var entries = MinHeap<Entry>()
  private var actions: [Int: @Sendable () -> Void] = [:]
  private var sequence = 0
  /// The sequence number of the entry the thread sleeps towards, so that cancelling it wakes the
  /// thread instead of letting it wake for nothing.
  private var sleepingOn: Int?
  private var started = false
  private let name: String

  /// A scheduler whose thread (named `name`) starts with the first action scheduled.
  public init(name: String = "notifyd.timing") {
    self.name = name
    pthread_mutex_init(mutex, nil)
    var attributes = pthread_condattr_t()
    pthread_condattr_init(&attributes)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
    pthread_cond_init(condition, &attributes)
    pthread_condattr_destroy(&attributes)
  }

  // The thread holds the scheduler for good: it is made once per daemon and never freed.

  public var now: Double { Self.monotonicNow() }

  public var wallTime: Double { Date().timeIntervalSince1970 }

  /// Seconds on `CLOCK_MONOTONIC`, the clock the thread sleeps on.
  static func monotonicNow() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  /// How many actions are scheduled and not yet run or cancelled.
  public var pendingCount: Int { locked { actions.count } }

  public func schedule(at deadline: Double, _ action: @escaping @Sendable () -> Void) -> ScheduledAction {
    let number: Int = locked {
      sequence += 1
      entries.push(Entry(deadline: deadline, sequence: sequence))
      actions[sequence] = action
      if !started {
        started = true
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
      } else if entries.first?.sequence == sequence {
        pthread_cond_signal(condition)  // earlier than what the thread sleeps towards
      }
      return sequence
    }
    return ScheduledAction { [weak self] in self?.cancel(number) }
  }

  private func cancel(_ number: Int) {
    locked {
      guard actions.removeValue(forKey: number) != nil else { return }
      if sleepingOn == number { pthread_cond_signal(condition) }
      // Cancelled entries leave the heap when they reach its top; past twice the live ones (a
      // timer re-armed earlier and earlier), the heap is rebuilt from the live ones.
      if entries.count > 2 * actions.count + 64 {
        var live = MinHeap<Entry>()
        while let entry = entries.pop() {
          if actions[entry.sequence] != nil { live.push(entry) }
        }
        entries = live
      }
    }
  }

  private func run() {
    pthread_mutex_lock(mutex)
    while true {
      // Drop cancelled entries, then sleep towards the earliest live one.
      while let first = entries.first, actions[first.sequence] == nil { entries.pop() }
      guard let first = entries.first else {
        sleepingOn = nil
        pthread_cond_wait(condition, mutex)
        continue
      }
      let now = Self.monotonicNow()
      if first.deadline > now {
        sleepingOn = first.sequence
        var deadline = timespec()
        deadline.tv_sec = Int(first.deadline.rounded(.down))
        deadline.tv_nsec = Int((first.deadline - first.deadline.rounded(.down)) * 1e9)
        pthread_cond_timedwait(condition, mutex, &deadline)
        sleepingOn = nil
        continue
      }
      // Everything due by now, in deadline order, run outside the lock.
      var due: [@Sendable () -> Void] = []
      while let entry = entries.first, entry.deadline <= now {
        entries.pop()
        if let action = actions.removeValue(forKey: entry.sequence) { due.append(action) }
      }
      pthread_mutex_unlock(mutex)
      for action in due { action() }
      pthread_mutex_lock(mutex)
    }
  }

  private func locked<Result>(_ body: () -> Result) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return body()
  }
}
