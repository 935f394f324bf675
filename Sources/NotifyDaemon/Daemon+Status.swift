import Foundation
import NotifyConfig
import NotifyCore
import NotifyDBus
import NotifyDisplay
import NotifyPaths
import NotifyPosix
import NotifyProtocol
import NotifyRelay
import NotifyService
import NotifyStore
import NotifySupport
import NotifyVarlink
import NotifyWayland
import NotifyX11
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// What the daemon tells systemd: `STATUS=` lines as the queue changes, and the watchdog's pings.
extension Daemon {
  /// A status line such as "2 queued, 1 visible", "suspended until 14:05, 3 queued, 0 visible, 2
  /// unread" or "quiet hours until 07:00 (nothing passes), 1 queued".
  func statusText(_ status: StatusReply) -> String {
    func clock(_ wall: Double) -> String {
      var calendar = Calendar.current
      calendar.timeZone = .current
      let components = calendar.dateComponents([.hour, .minute], from: Date(timeIntervalSince1970: wall))
      return String(format: "%02d:%02d", components.hour ?? 0, components.minute ?? 0)
    }
    var parts: [String] = []
    if let dnd = status.doNotDisturb {
      var text = dnd.reason == .schedule ? "quiet hours" : "suspended"
      if let until = dnd.until { text += " until \(clock(until))" }
      if dnd.allow == .nothing { text += " (nothing passes)" }
      parts.append(text)
    } else if let until = status.resumedUntil {
      parts.append("resumed in quiet hours until \(clock(until))")
    }
    if let fullscreen = status.fullscreen {
      parts.append("fullscreen (\(fullscreen.delayed + fullscreen.pushedBack) wait for it)")
    }
    if let relay = status.relay {
      var text = "relay \(relay.state.rawValue)"
      if relay.state == .failed { text += ": \(relay.detail)" }
      if relay.outbox > 0 { text += " (\(relay.outbox) to publish)" }
      parts.append(text)
    }
    if status.waiting > 0 { parts.append("\(status.waiting) waiting") }
    parts.append("\(status.queued) queued")
    parts.append("\(status.visible) visible")
    if status.unread > 0 { parts.append("\(status.unread) unread") }
    return parts.joined(separator: ", ")
  }

  /// How long changes gather before one `STATUS=` tells of them all.
  static let statusDelay = 0.1

  /// Called from any thread on every change; at most one `STATUS=` per `statusDelay`, and one task
  /// for the loop per update, not per change.
  func statusMayHaveChanged() {
    guard
      statusDue.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    else { return }
    loop.execute { [self] in
      loop.schedule(after: Self.statusDelay) { [self] in
        statusDue.store(false, ordering: .releasing)
        guard let queue else { return }
        let text = statusText(queue.status())
        if text != lastStatus {
          lastStatus = text
          Systemd.notify("STATUS=\(text)")
        }
      }
    }
  }

  /// Pings the watchdog every half interval from the loop, so a stuck loop stops the pings.
  func startWatchdog() {
    guard let usec = Systemd.watchdogInterval() else { return }
    let interval = Double(usec) / 2e6
    func ping() {
      Systemd.notify("WATCHDOG=1")
      loop.schedule(after: interval) { ping() }
    }
    loop.schedule(after: interval) { ping() }
  }
}
