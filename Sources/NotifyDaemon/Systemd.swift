import CSystemd
import Foundation
import NotifyPosix

/// The daemon's side of the systemd protocols: readiness, status and watchdog notifications
/// (sd_notify) and sockets passed by socket activation (sd_listen_fds).
public enum Systemd {
  /// Sends `state` (lines such as `READY=1`) to the service manager, on a socket opened once
  /// (`NotifySocket`); `sd_notify(3)` for an address that is not a Unix socket's. Without
  /// `NOTIFY_SOCKET` this does nothing.
  @discardableResult
  public static func notify(_ state: String) -> Bool {
    guard let socket = notifySocket else { return sd_notify(0, state) > 0 }
    return socket.send(state)
  }

  /// Opened at the first notification (`READY=1`, at start), and kept.
  private static let notifySocket = NotifySocket(ProcessInfo.processInfo.environment["NOTIFY_SOCKET"])

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

/// The datagram socket the daemon's notifications go out on, opened once: `sd_notify(3)` opens one
/// for each, so a daemon out of descriptors (`EMFILE`) could not ping the watchdog, and systemd
/// killed a daemon that was only waiting for a descriptor to come free (the soak found it: out of
/// descriptors for under two seconds, past a ping, against `WatchdogSec=2s`).
private final class NotifySocket: Sendable {
  private let fd: Int32
  private let address: sockaddr_un
  private let length: socklen_t

  /// `nil` without a path (`/…`) or an abstract name (`@…`) that fits, or if no socket opens.
  init?(_ path: String?) {
    guard let path, path.hasPrefix("/") || path.hasPrefix("@"), var address = try? Posix.address(path) else {
      return nil
    }
    if path.hasPrefix("@") { address.sun_path.0 = 0 }
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return nil }
    self.fd = fd
    self.address = address
    // An abstract name is as long as it is, with no terminating NUL.
    length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + path.utf8.count)
  }

  /// Sends `state` without waiting: a manager that does not read loses a ping rather than
  /// stopping the loop. The manager knows the sender by the credentials the kernel attaches.
  func send(_ state: String) -> Bool {
    var address = address
    let bytes = Array(state.utf8)
    let sent = bytes.withUnsafeBytes { buffer in
      withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL), $0, length)
        }
      }
    }
    return sent == bytes.count
  }
}
