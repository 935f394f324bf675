import Foundation

/// A value guarded by a pthread mutex (through `NSLock`): the one owner of a type's mutable state.
///
/// The engine and the daemon use this rather than `Synchronization.Mutex` because on Linux a
/// contended `Mutex` waits on a priority-inheriting futex inside the runtime library, where Thread
/// Sanitizer cannot see the lock change hands: every contended access it guards is reported as a
/// data race that is not one, so `make tsan-test` could never be clean. Thread Sanitizer does see
/// pthread mutexes.
public final class Locked<Value>: @unchecked Sendable {
  // @unchecked: `value` is only read or written while `lock` is held. Inlinable, so that the
  // engine's calls from another module are specialized as they were when it lived in NotifyCore.
  @usableFromInline let lock = NSLock()
  @usableFromInline var value: Value

  public init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` on the value with the lock held, and returns what it returns.
  @inlinable
  public func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
