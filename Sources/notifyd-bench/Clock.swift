import NotifyPosix

#if canImport(Glibc)
  import Glibc
#endif

/// Monotonic and wall clocks in the units the figures use.
enum Clock {
  /// Monotonic nanoseconds; wraps `clock_gettime(CLOCK_MONOTONIC)`.
  static func nanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
  }

  /// Monotonic seconds.
  static func seconds() -> Double { Double(nanoseconds()) / 1e9 }

  /// Seconds since the Unix epoch; wraps `clock_gettime(CLOCK_REALTIME)`.
  static func wallTime() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
  }

  /// Sleeps for `seconds` (`Posix.sleep`).
  static func sleep(_ seconds: Double) { Posix.sleep(seconds) }
}
