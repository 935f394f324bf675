import CLinux
import NotifyPosix
import NotifyVarlink

/// Gives memory the daemon has freed back to the system, so that its resident set follows what it
/// holds: glibc keeps freed memory in its arenas (one per thread it has seen, up to eight per
/// core), and after a burst — a client that sent megabytes, a long `List` — the daemon would stay
/// that large for good.
///
/// At start it limits the arenas to two and lets the main heap shrink as soon as 128 KiB at its
/// top are free; then `memoryMayHaveBeenFreed()` arms one trim a second later: `malloc_trim(3)`,
/// and the code the work touched let go (`Posix.releaseCodePages`; its pages stay in
/// the page cache, and the next call maps what it runs again, in about 0.1 ms). The trim runs at
/// most once a second under steady churn and never while the daemon is idle.
///
/// - Important: `configure()` must run before the daemon starts any thread;
///   `memoryMayHaveBeenFreed()` is called on the loop's thread.
final class MemoryReclaimer: @unchecked Sendable {
  // @unchecked: `armed` is touched only on the loop's thread.
  private let loop: EventLoop
  private var armed = false
  /// How long after memory was freed the trim runs: later frees in between share it.
  static let delay = 1.0

  init(loop: EventLoop) {
    self.loop = loop
  }

  /// Tunes glibc's allocator; wraps `mallopt(3)`.
  static func configure() {
    _ = mallopt(M_ARENA_MAX, 2)
    _ = mallopt(M_TRIM_THRESHOLD, 128 << 10)
    _ = mallopt(M_TOP_PAD, 64 << 10)
  }

  /// Something large was let go (a connection closed, a batch of notices finished): trims soon.
  func memoryMayHaveBeenFreed() {
    guard !armed else { return }
    armed = true
    loop.schedule(after: Self.delay) { [self] in
      armed = false
      _ = malloc_trim(0)
      Posix.releaseCodePages()
    }
  }
}
