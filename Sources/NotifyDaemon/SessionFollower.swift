import Dispatch
import Foundation
import NotifyDBus
import NotifyDisplay
import NotifyPosix
import NotifySupport
import Synchronization

/// Follows the graphical session for a daemon the user's service manager started, perhaps before
/// any compositor (socket activation at login): where the session draws is what it exports to the
/// manager (`UserManagerEnvironment`), read again when the manager signals and when a display
/// server's socket appears or goes (`inotify(7)` on `XDG_RUNTIME_DIR`, where Wayland compositors
/// make theirs, and on `/tmp/.X11-unix`). A session exports its variables a moment after its
/// compositor makes the socket, and nothing signals that moment, so a socket appearing is
/// followed by a few more reads (after 0.05 s, doubling, for at most `followUpReads`) until the
/// manager names a display whose socket is there. Nothing is polled while nothing changes.
///
/// `changed` hears where the session draws whenever it changes; `socketAppeared` hears that the
/// socket of a display in force appeared again (a compositor started anew under the same name),
/// so that the popups connect at once rather than at their backoff's next try. Both run on the
/// follower's queue.
///
/// - Important: everything mutable belongs to `queue`.
final class SessionFollower: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on `queue`.
  private let queue = DispatchQueue(label: "notifyd.session-sockets")
  private let log: Logger
  private let runtimeDirectory: String?
  private let changed: @Sendable (SessionDisplay) -> Void
  private let socketAppeared: @Sendable (DisplayKind) -> Void
  private var manager: UserManagerEnvironment?
  private var session: FollowedSession
  private var stopped = false
  /// Whether the manager has answered since the start (its first answer is logged).
  private var answered = false

  /// The kind of display server whose socket appeared.
  enum DisplayKind { case wayland, x11 }

  private var inotify: Int32 = -1
  private var source: (any DispatchSourceRead)?
  /// Each watch and the directory it watches.
  private var watches: [Int32: String] = [:]
  /// The reads after a socket appears: 0.05 s, doubling, seven of them (6.35 s in all).
  static let firstFollowUp = 0.05
  static let followUpReads = 7
  /// The reads left after a socket appeared, and the timer of the next.
  private var followUpsLeft = 0
  private lazy var followUp = RetryTimer(
    queue: queue, firstDelay: Self.firstFollowUp,
    longestDelay: Self.firstFollowUp * Double(1 << (Self.followUpReads - 1)))
  /// Whether the popups draw now: a notice added while they do not asks the manager again.
  private let drawing = Atomic<Bool>(false)
  /// When a notice last asked, on the monotonic clock: at most one read a `noticeInterval`.
  private var noticeAsked = -Double.infinity
  /// The read a notice asked for within `noticeInterval` of the last: one, at the interval's end.
  private var noticeRead: (any DispatchSourceTimer)?
  static let noticeInterval = 1.0

  init(
    started: SessionDisplay, environment: [String: String], log: Logger,
    changed: @escaping @Sendable (SessionDisplay) -> Void,
    socketAppeared: @escaping @Sendable (DisplayKind) -> Void
  ) {
    self.log = log
    self.changed = changed
    self.socketAppeared = socketAppeared
    session = FollowedSession(started: started)
    runtimeDirectory = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 }
    manager = UserManagerEnvironment(log: log, environment: environment) { [weak self] assignments in
      guard let self else { return }
      queue.async { self.managerSays(assignments) }
    }
  }

  /// Starts watching; returns at once.
  func start() {
    queue.async { [self] in
      watchSockets()
      manager?.start()
    }
  }

  /// Stops watching; waits until it is done.
  func stop() {
    manager?.stop()
    queue.sync {
      stopped = true
      stopFollowingUp()
      noticeRead?.cancel()
      noticeRead = nil
      if let source {
        // The descriptor closes once the source has let go of it.
        let fd = inotify
        source.setCancelHandler { Posix.close(fd) }
        source.cancel()
      } else if inotify >= 0 {
        Posix.close(inotify)
      }
      source = nil
      inotify = -1
      watches = [:]
    }
  }

  /// The popups draw, or no longer do.
  func setDrawing(_ drawing: Bool) {
    self.drawing.store(drawing, ordering: .relaxed)
  }

  /// A notice was added: while the popups draw nowhere, the session may have exported its display
  /// without anything saying so (an X session started from a display manager's greeter, whose
  /// socket appeared long before), so the manager is asked again, at most once a second.
  func noticeAdded() {
    guard !drawing.load(ordering: .relaxed) else { return }
    queue.async { [self] in
      guard !stopped, noticeRead == nil else { return }
      let wait = noticeAsked + Self.noticeInterval - Posix.monotonicNow()
      guard wait > 0 else {
        readForNotice()
        return
      }
      // Asked again too soon: one read at the interval's end, so that a display exported meanwhile
      // is found for this notice too.
      let timer = DispatchSource.makeTimerSource(queue: queue)
      timer.schedule(deadline: .now() + wait)
      timer.setEventHandler { [weak self] in
        guard let self else { return }
        noticeRead = nil
        readForNotice()
      }
      noticeRead = timer
      timer.activate()
    }
  }

  private func readForNotice() {
    noticeAsked = Posix.monotonicNow()
    manager?.readAgain()
  }

  // MARK: - The manager

  private func managerSays(_ assignments: [String]) {
    guard !stopped else { return }
    let changes = session.managerSays(assignments)
    if !answered {
      answered = true
      log.info(
        "session: following the user's service manager's environment (\(SessionDisplay(assignments: assignments)))"
      )
    }
    guard changes else { return }
    let current = session.current
    log.info("session: the user's service manager says \(current); popups follow")
    if socketIsThere(current) { stopFollowingUp() }
    changed(current)
  }

  /// Whether the display `display` names has its socket (or is not local, so that none can be looked for).
  private func socketIsThere(_ display: SessionDisplay) -> Bool {
    if let path = display.waylandSocket(runtimeDirectory: runtimeDirectory) { return Posix.exists(path) }
    if let x11 = display.x11 { return display.x11Socket.map(Posix.exists) ?? !x11.isEmpty }
    return false
  }

  // MARK: - Sockets

  private func watchSockets() {
    do {
      inotify = try Posix.inotifyCreate()
    } catch {
      log.info(
        "session: cannot watch for display servers' sockets (\(error)); following the manager's signals only")
      return
    }
    if let runtimeDirectory { watch(runtimeDirectory) }
    watchX11Directory()
    let source = DispatchSource.makeReadSource(fileDescriptor: inotify, queue: queue)
    source.setEventHandler { [weak self] in self?.readEvents() }
    source.activate()
    self.source = source
    // A display server whose socket is there already may be exporting its variables just now.
    if socketsExist() { startFollowingUp() }
  }

  /// Whether any display server's socket is there (a `wayland-*` in the runtime directory, an
  /// `X<n>` in /tmp/.X11-unix).
  private func socketsExist() -> Bool {
    let manager = FileManager.default
    let wayland = runtimeDirectory.flatMap { try? manager.contentsOfDirectory(atPath: $0) } ?? []
    let x11 = (try? manager.contentsOfDirectory(atPath: SessionDisplay.x11SocketDirectory)) ?? []
    return wayland.contains(where: Self.isWaylandSocket) || x11.contains(where: Self.isX11Socket)
  }

  static func isWaylandSocket(_ name: String) -> Bool {
    name.hasPrefix("wayland-") && !name.hasSuffix(".lock")
  }
  static func isX11Socket(_ name: String) -> Bool { name.hasPrefix("X") && Int(name.dropFirst()) != nil }

  /// `/tmp/.X11-unix`, or `/tmp` until an X server makes it.
  private func watchX11Directory() {
    if !watch(SessionDisplay.x11SocketDirectory) { watch("/tmp") }
  }

  @discardableResult
  private func watch(_ directory: String) -> Bool {
    guard let watch = try? Posix.watchDirectory(inotify, directory) else { return false }
    watches[watch] = directory
    return true
  }

  private func readEvents() {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let transfer = buffer.withUnsafeMutableBytes { bytes in try? Posix.read(inotify, into: bytes) }
      guard case .bytes(let count) = transfer else { return }
      let events = buffer.withUnsafeBytes { bytes in
        Posix.directoryEvents(in: UnsafeRawBufferPointer(rebasing: bytes[..<count]))
      }
      for event in events { handle(event) }
    }
  }

  private func handle(_ event: Posix.DirectoryEvent) {
    guard !stopped else { return }
    if event.mask & Posix.queueOverflowed != 0 {
      // Events were lost: one of them may have been a socket.
      manager?.readAgain()
      startFollowingUp()
      return
    }
    guard let directory = watches[event.watch] else { return }
    if event.mask & Posix.watchEnded != 0 {
      watches[event.watch] = nil
      if directory == SessionDisplay.x11SocketDirectory { watchX11Directory() }
      return
    }
    if directory != SessionDisplay.x11SocketDirectory, directory != runtimeDirectory {
      // The parent of /tmp/.X11-unix, until an X server makes it.
      guard event.name == ".X11-unix", event.mask & Posix.entryCreated != 0 else { return }
      if let parent = watches.first(where: { $0.value == directory })?.key {
        Posix.removeWatch(inotify, parent)
        watches[parent] = nil
      }
      watchX11Directory()
      // The X server that made it binds its socket a moment later, before the new watch may see it.
      manager?.readAgain()
      startFollowingUp()
      return
    }
    let isWayland = directory == runtimeDirectory
    guard isWayland ? Self.isWaylandSocket(event.name) : Self.isX11Socket(event.name) else { return }
    manager?.readAgain()
    guard event.mask & Posix.entryCreated != 0 else { return }
    let path = "\(directory)/\(event.name)"
    let current = session.current
    if path == current.waylandSocket(runtimeDirectory: runtimeDirectory) {
      socketAppeared(.wayland)
    } else if path == current.x11Socket {
      socketAppeared(.x11)
    } else {
      startFollowingUp()
    }
  }

  /// A display server's socket appeared that the manager does not name yet: read it a few times
  /// more while the session exports its variables.
  private func startFollowingUp() {
    followUpsLeft = Self.followUpReads
    // From the first delay again, even while a later read of an earlier socket is pending.
    followUp.cancel()
    followUp.reset()
    scheduleFollowUp()
  }

  private func scheduleFollowUp() {
    followUp.schedule { [weak self] in
      guard let self else { return }
      followUpsLeft -= 1
      manager?.readAgain()
      if followUpsLeft > 0 { scheduleFollowUp() }
    }
  }

  private func stopFollowingUp() {
    followUpsLeft = 0
    followUp.cancel()
  }
}
