import CLinux
import Dispatch
import Foundation
import NotifyCore

/// Readiness of the clients' sockets, from one epoll instance and a thread of its own, handed to
/// each connection on its queue: what DispatchSources did for connections, without their bug.
///
/// corelibs libdispatch's epoll backend frees a descriptor's bookkeeping on a worker thread after
/// a hang-up while its manager thread walks the same unlocked table to register another source
/// (upstream issue #949): under connect-and-hang-up churn the daemon crashed in
/// `_dispatch_unote_register_muxed` or `_dispatch_source_refs_finalize_unregistration`. Here a
/// descriptor is registered once, with `EPOLLONESHOT`, under a token of its own; after each
/// delivery its interest is armed again on the connection's queue. Removing it is one
/// `epoll_ctl(DEL)`, after which the descriptor may be closed at once: a delivery already on its
/// way finds the watch cancelled, and a reused descriptor number gets a new token.
final class SocketWatcher: @unchecked Sendable {
  // @unchecked: `watches` is guarded by its lock; the epoll descriptor is set once.
  static let shared = SocketWatcher()

  private let epoll: Int32
  private let watches = Locked<(next: UInt64, byToken: [UInt64: Watch])>((1, [:]))

  private init() {
    epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
    precondition(epoll >= 0, "epoll_create1 failed: \(String(cString: strerror(errno)))")
    let thread = Thread { [epoll, watches] in Self.run(epoll: epoll, watches: watches) }
    thread.name = "notifyd.sockets"
    thread.start()
  }

  /// Watches `fd` for reading, and for writing when asked, calling the handlers on `queue`.
  func watch(
    _ fd: Int32, queue: DispatchQueue, readable: @escaping () -> Void, writable: @escaping () -> Void
  ) -> Watch {
    let watch = watches.withLock { state in
      let watch = Watch(
        fd: fd, token: state.next, epoll: epoll, queue: queue, readable: readable, writable: writable)
      state.byToken[state.next] = watch
      state.next += 1
      return watch
    }
    watch.owner = self
    return watch
  }

  fileprivate func forget(_ token: UInt64) {
    _ = watches.withLock { $0.byToken.removeValue(forKey: token) }
  }

  private static func run(epoll: Int32, watches: Locked<(next: UInt64, byToken: [UInt64: Watch])>) {
    var tokens = [UInt64](repeating: 0, count: 64)
    var events = [UInt32](repeating: 0, count: 64)
    while true {
      let count = notifyd_epoll_wait(epoll, &tokens, &events, -1)
      if count < 0 {
        if errno == EINTR { continue }
        fatalError("epoll_wait failed: \(String(cString: strerror(errno)))")
      }
      for index in 0..<Int(count) {
        let token = tokens[index]
        let ready = events[index]
        guard let watch = watches.withLock({ $0.byToken[token] }) else { continue }
        watch.queue.async { watch.deliver(ready) }
      }
    }
  }

  /// One descriptor's interest. Used only on its queue, but for `deliver`'s lookup.
  final class Watch: @unchecked Sendable {
    // @unchecked: everything mutable is touched only on `queue`.
    let fd: Int32
    let token: UInt64
    let queue: DispatchQueue
    private let epoll: Int32
    private let readable: () -> Void
    private let writable: () -> Void
    fileprivate weak var owner: SocketWatcher?
    private var wantsRead = false
    private var wantsWrite = false
    private var registered = false
    /// Armed in epoll: an event may come (ONESHOT disarms it when one does).
    private var armed = false
    /// Between a delivery and the re-arm that follows it: the interest is armed once the
    /// handlers have run.
    private var delivering = false
    private(set) var isCancelled = false

    fileprivate init(
      fd: Int32, token: UInt64, epoll: Int32, queue: DispatchQueue, readable: @escaping () -> Void,
      writable: @escaping () -> Void
    ) {
      self.fd = fd
      self.token = token
      self.epoll = epoll
      self.queue = queue
      self.readable = readable
      self.writable = writable
    }

    /// Sets what to wait for; a hang-up or an error is reported to whichever is wanted.
    func want(read: Bool, write: Bool) {
      guard !isCancelled else { return }
      wantsRead = read
      wantsWrite = write
      if !delivering { arm() }
    }

    /// Stops watching; the descriptor may be closed as soon as this returns.
    func cancel() {
      guard !isCancelled else { return }
      isCancelled = true
      if registered { _ = notifyd_epoll_control(epoll, EPOLL_CTL_DEL, fd, 0, token) }
      owner?.forget(token)
    }

    fileprivate func deliver(_ events: UInt32) {
      guard !isCancelled else { return }
      armed = false
      delivering = true
      let trouble = events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
      if wantsRead && (events & EPOLLIN.rawValue != 0 || trouble || events & EPOLLRDHUP.rawValue != 0) {
        readable()
      }
      if !isCancelled && wantsWrite && (events & EPOLLOUT.rawValue != 0 || trouble) {
        writable()
      }
      delivering = false
      if !isCancelled { arm() }
    }

    private func arm() {
      var events: UInt32 = EPOLLONESHOT.rawValue
      if wantsRead { events |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
      if wantsWrite { events |= EPOLLOUT.rawValue }
      // Wanting nothing: disarm. epoll reports a hang-up or an error even then, once (ONESHOT);
      // that delivery finds nothing wanted and leaves the descriptor disarmed, so a paused
      // connection whose client has gone cannot make this thread spin.
      if !wantsRead && !wantsWrite && !armed { return }
      let operation = registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD
      if notifyd_epoll_control(epoll, operation, fd, events, token) == 0 {
        registered = true
        armed = true
      }
    }
  }
}
