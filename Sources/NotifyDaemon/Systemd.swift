import CSystemd
import Foundation

/// The daemon's side of the systemd protocols: readiness, status and watchdog notifications
/// (sd_notify) and sockets passed by socket activation (sd_listen_fds).
public enum Systemd {
  /// Sends `state` (lines such as `READY=1`) to the service manager; wraps `sd_notify(3)`.
  /// Without `NOTIFY_SOCKET` this does nothing.
  @discardableResult
  public static func notify(_ state: String) -> Bool {
    sd_notify(0, state) > 0
  }

  /// Tells the manager a reload has begun: `RELOADING=1` with `MONOTONIC_USEC=` (which systemd
  /// 253+ requires for `Type=notify-reload`); send `READY=1` once the new config is in force.
  @discardableResult
  public static func notifyReloading() -> Bool {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    let microseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    return notify("RELOADING=1\nMONOTONIC_USEC=\(microseconds)")
  }

  /// The watchdog interval in microseconds when the manager asked for pings; wraps `sd_watchdog_enabled(3)`.
  public static func watchdogInterval() -> UInt64? {
    var usec: UInt64 = 0
    guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
    return usec
  }

  /// The sockets passed by the manager, with their `FileDescriptorName=`; wraps
  /// `sd_listen_fds_with_names(3)`. Unsets the `LISTEN_*` variables, so children do not inherit them.
  public static func listenedSockets() -> [(fd: Int32, name: String)] {
    var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    let count = sd_listen_fds_with_names(1, &names)
    guard count > 0 else { return [] }
    var sockets: [(Int32, String)] = []
    for index in 0..<Int(count) {
      let name = names?[index].map { String(cString: $0) } ?? "unknown"
      sockets.append((Int32(SD_LISTEN_FDS_START) + Int32(index), name))
      free(names?[index])
    }
    free(names)
    return sockets
  }
}
