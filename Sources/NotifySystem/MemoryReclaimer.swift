import CLinux
import Dispatch

/// Gives memory the daemon has freed back to the system, so that its resident set follows what it
/// holds: glibc keeps freed memory in its arenas (one per thread it has seen, up to eight per
/// core), and after a burst — a client that sent megabytes, a long `List` — the daemon would stay
/// that large for good.
///
/// At start it limits the arenas to two and lets the main heap shrink as soon as 128 KiB at its
/// top are free; then `memoryMayHaveBeenFreed()` arms one trim (`malloc_trim(3)`) a second later.
/// The trim runs at most once a second under steady churn and never while the daemon is idle.
///
/// - Important: `configure()` must run before the daemon starts any thread.
final class MemoryReclaimer: @unchecked Sendable {
  // @unchecked: `timer` is touched only on `queue`.
  private let queue = DispatchQueue.daemonSerial("notifyd.memory", qos: .utility)
  private var timer: (any DispatchSourceTimer)?
  /// How long after memory was freed the trim runs: later frees in between share it.
  static let delay: DispatchTimeInterval = .seconds(1)

  /// Tunes glibc's allocator; wraps `mallopt(3)`.
  static func configure() {
    _ = mallopt(M_ARENA_MAX, 2)
    _ = mallopt(M_TRIM_THRESHOLD, 128 << 10)
    _ = mallopt(M_TOP_PAD, 64 << 10)
  }

  /// Something large was let go (a connection closed, a batch of notices finished): trims soon.
  func memoryMayHaveBeenFreed() {
    queue.async { [self] in
      guard timer == nil else { return }
      let timer = DispatchSource.makeTimerSource(queue: queue)
      timer.schedule(deadline: .now() + Self.delay, leeway: .milliseconds(200))
      timer.setEventHandler { [unowned self] in
        self.timer?.cancel()
        self.timer = nil
        _ = malloc_trim(0)
      }
      self.timer = timer
      timer.activate()
    }
  }
}
