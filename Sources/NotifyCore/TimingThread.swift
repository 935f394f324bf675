import Foundation
import NotifyPosix
import NotifySupport

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
  // @unchecked: `timers`, `sleepingOn` and `started` are guarded by `mutex`.
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  private var timers = TimerHeap<@Sendable () -> Void>()
  /// The timer the thread sleeps towards, so that cancelling it wakes the thread instead of letting
  /// it wake for nothing.
  private var sleepingOn: UInt64?
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

  public var now: Double { Posix.monotonicNow() }

  public var wallTime: Double { Date().timeIntervalSince1970 }

  public func schedule(at deadline: Double, _ action: @escaping @Sendable () -> Void) -> ScheduledAction {
    let number: UInt64 = locked {
      let number = timers.add(at: deadline, action)
      if !started {
        started = true
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
      } else if timers.earliest()?.id == number {
        pthread_cond_signal(condition)  // earlier than what the thread sleeps towards
      }
      return number
    }
    return ScheduledAction { [weak self] in self?.cancel(number) }
  }

  private func cancel(_ number: UInt64) {
    locked {
      if timers.remove(number), sleepingOn == number { pthread_cond_signal(condition) }
    }
  }

  private func run() {
    pthread_mutex_lock(mutex)
    while true {
      guard let first = timers.earliest() else {
        sleepingOn = nil
        pthread_cond_wait(condition, mutex)
        continue
      }
      let now = Posix.monotonicNow()
      if first.at > now {
        sleepingOn = first.id
        var deadline = timespec()
        deadline.tv_sec = Int(first.at.rounded(.down))
        deadline.tv_nsec = Int((first.at - first.at.rounded(.down)) * 1e9)
        pthread_cond_timedwait(condition, mutex, &deadline)
        sleepingOn = nil
        continue
      }
      // Everything due by now, in deadline order, run outside the lock.
      var due: [@Sendable () -> Void] = []
      while let action = timers.popDue(now: now) { due.append(action) }
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
