import Foundation
import NotifyCore
import NotifyPosix
import NotifyProtocol
import NotifySupport

#if canImport(Glibc)
  import Glibc
#endif

/// Why the server could not start.
public enum ServerError: Error, Sendable, CustomStringConvertible {
  /// Another daemon answers on the socket path.
  case alreadyRunning(path: String)
  /// Something that is not a socket sits at the path; it is left alone.
  case notASocket(path: String)
  /// A system call failed.
  case system(SystemError)

  public var description: String {
    switch self {
    case .alreadyRunning(let path): return "another notifyd already answers on \(path)"
    case .notASocket(let path): return "\(path) exists and is not a socket; refusing to replace it"
    case .system(let error): return error.description
    }
  }
}

/// The listening socket: one the daemon made (and removes on exit), or one handed over by systemd
/// (never unlinked).
public struct ListeningSocket: Sendable {
  public let fd: Int32
  /// The path the daemon bound and must remove on exit; `nil` for an inherited socket.
  public let ownedPath: String?
  /// The path, for messages.
  public let displayPath: String

  /// Creates the socket at `path` (mode 0600 under umask 0077), replacing a stale socket file but
  /// refusing when another daemon answers there.
  public static func create(at path: String) throws(ServerError) -> ListeningSocket {
    Posix.umask(0o077)
    if let type = Posix.fileType(path) {
      guard type == S_IFSOCK else { throw .notASocket(path: path) }
      if answers(path) { throw .alreadyRunning(path: path) }
      do {
        try Posix.unlink(path)
      } catch {
        throw .system(error)
      }
    }
    do throws(SystemError) {
      let directory = (path as NSString).deletingLastPathComponent
      if !directory.isEmpty {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      }
      let fd = try Posix.unixStreamSocket()
      do {
        try Posix.bind(fd, path: path)
        try Posix.chmod(path, 0o600)
        try Posix.listen(fd)
      } catch {
        Posix.close(fd)
        throw error
      }
      return ListeningSocket(fd: fd, ownedPath: path, displayPath: path)
    } catch {
      throw .system(error)
    }
  }

  /// Whether a daemon listens at `path`: a non-blocking connect to a live listener succeeds, or is
  /// in progress when its backlog is full.
  private static func answers(_ path: String) -> Bool {
    guard let probe = try? Posix.unixStreamSocket() else { return false }
    defer { Posix.close(probe) }
    do {
      try Posix.connect(probe, path: path)
      return true
    } catch {
      return error.errno == EAGAIN || error.errno == EINPROGRESS
    }
  }

  /// Adopts a socket systemd passed (`LISTEN_FDS`); it is made non-blocking and never unlinked.
  public static func inherited(fd: Int32, name: String) -> ListeningSocket {
    // Best effort: a descriptor systemd passed is a listening socket, which takes both flags.
    try? Posix.makeNonBlockingAndCloseOnExec(fd)
    return ListeningSocket(fd: fd, ownedPath: nil, displayPath: name)
  }

  /// Removes the socket file the daemon made, if it did.
  public func removeOwnedPath() {
    if let ownedPath { try? Posix.unlink(ownedPath) }
  }
}

/// A Varlink server on a listening `AF_UNIX` socket, served on one `EventLoop` with non-blocking
/// descriptors, so that a slow or dead client never stalls another.
///
/// The loop's turn-end work is the server's too: `takeUpPendingCalls()` starts the calls that were
/// waiting for a reply, and `flushConnections()` writes each connection's replies once; the daemon
/// puts the store's commit between them, so a turn's replies go out once committed.
///
/// - Important: only peers with the daemon's own uid are served; at most `maximumClients` at once,
///   each within `limits`. Out of descriptors, it stops accepting for `acceptBackoff` (or until a
///   client leaves) rather than spin on a listening socket that stays readable. Used on the loop's
///   thread only, but for `init`.
public final class VarlinkServer: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on the loop's thread.
  public let loop: EventLoop
  private let socket: ListeningSocket
  private let table: MethodTable
  private let log: Logger
  private let allowedUID: uid_t
  public let maximumClients: Int
  public let limits: ConnectionLimits
  /// Called on the loop after a connection closed and let go of what it held.
  private let connectionClosed: () -> Void
  private var listening: EventLoop.Registration?
  private var connections: [Int: Connection] = [:]
  /// Connections with work for the end of the turn, in the order they asked.
  private var attention: [Connection] = []
  private var nextConnectionID = 1
  /// Set while accepting is paused for lack of descriptors: the timer that resumes it.
  private var acceptBackoffTimer: EventLoop.Timer?
  /// Whether the last accept failed, so that a lasting shortage is logged once, not ten times a second.
  private var acceptFailing = false

  /// Clients refused at `maximumClients` since one was last admitted: the log says the first and
  /// the count, not one line each.
  private var refusedAtLimit = 0
  /// How long accepting pauses when the daemon is out of descriptors.
  static let acceptBackoff = 0.1
  /// Descriptors kept for everything but clients: the store, the bus, the journal, hooks' pipes.
  public static let reservedDescriptors = 64

  /// The most clients to serve with `openFileLimit` descriptors: 1024, or fewer when the limit
  /// leaves less room beside `reservedDescriptors`.
  public static func maximumClients(openFileLimit: Int) -> Int {
    max(1, min(1024, openFileLimit - reservedDescriptors))
  }

  public init(
    socket: ListeningSocket, table: MethodTable, loop: EventLoop, log: Logger,
    maximumClients: Int = 1024, limits: ConnectionLimits = ConnectionLimits(), allowedUID: uid_t = getuid(),
    connectionClosed: @escaping () -> Void = {}
  ) {
    self.connectionClosed = connectionClosed
    self.socket = socket
    self.table = table
    self.loop = loop
    self.log = log
    self.maximumClients = maximumClients
    self.limits = limits
    self.allowedUID = allowedUID
  }

  /// Starts accepting clients.
  public func start() throws(SystemError) {
    listening = try loop.register(socket.fd, read: true) { [unowned self] _ in acceptPending() }
  }

  /// Stops accepting and closes every connection; the caller removes the socket file.
  public func stop() {
    if let acceptBackoffTimer { loop.cancel(acceptBackoffTimer) }
    acceptBackoffTimer = nil
    listening?.cancel()
    listening = nil
    for connection in Array(connections.values) { connection.close(reason: nil) }
  }

  /// The number of clients served now.
  public var clientCount: Int { connections.count }

  // MARK: - The end of a turn

  /// Starts the calls that waited behind a reply that has come; answers whether any started.
  public func takeUpPendingCalls() -> Bool {
    var started = false
    for connection in attention where !connection.isClosed {
      if connection.takeUpPendingCalls() { started = true }
    }
    return started
  }

  /// Writes every connection's waiting replies; answers whether anything was written or is left
  /// to do. A connection whose writes let calls start again asks for attention while it is flushed:
  /// it stays in `attention`, for the next round of the turn's end to take its calls up.
  public func flushConnections() -> Bool {
    let batch = attention
    attention.removeAll(keepingCapacity: true)
    var wrote = false
    for connection in batch {
      connection.isAttentionQueued = false
      if connection.flush() { wrote = true }
    }
    return wrote || !attention.isEmpty
  }

  private func needsAttention(_ connection: Connection) {
    attention.append(connection)
  }

  // MARK: - Accepting

  /// Clients accepted in one turn, at most: the kernel's whole backlog (`SOMAXCONN`, 4096), so that
  /// a client that connects waits one turn to be accepted, however many connected before it; the
  /// rest wait for the next (the listening socket stays readable). Accepting is cheap beside
  /// serving, and what a client can make the daemon hold is bounded by `maximumClients`. With 32 a
  /// turn, clients that connect and leave many times a second (256 load clients,
  /// tests/test_load.py) kept the backlog full and a new client waited 5–11 s for its first reply;
  /// with 256, under a second on this machine but 19 s with the daemon and its load held to a
  /// fifth of a core (a CPU quota); with the whole backlog, 4–7 s there.
  static let acceptBatch = 4096

  private func acceptPending() {
    var reaped = false
    for _ in 0..<Self.acceptBatch {
      guard listening != nil, acceptBackoffTimer == nil, acceptOne(reaped: &reaped) else { return }
    }
  }

  /// Closes the connections whose clients have gone but whose hang-up is not handled yet: at the
  /// client limit, a client that connects and leaves in a tight loop must not take every place.
  private func reapHungUpConnections() {
    let byDescriptor = Dictionary(uniqueKeysWithValues: connections.values.map { ($0.fd, $0) })
    for fd in Posix.hungUp(Array(byDescriptor.keys)) {
      byDescriptor[fd]?.close(reason: nil)
    }
  }

  /// Accepts and admits one client; `false` when none was waiting or accepting failed.
  private func acceptOne(reaped: inout Bool) -> Bool {
    let fd: Int32?
    do {
      fd = try Posix.accept(socket.fd)
    } catch {
      // The client stays in the backlog and the socket stays readable: accepting again at once
      // would spin. Wait for a descriptor to come free.
      if !acceptFailing {
        acceptFailing = true
        log.warning("accepting a client: \(error); retrying every 100 ms until a descriptor is free")
      }
      pauseAccepting()
      return false
    }
    guard let fd else { return false }
    if acceptFailing {
      acceptFailing = false
      log.info("accepting clients again")
    }
    admit(fd, reaped: &reaped)
    return true
  }

  private func pauseAccepting() {
    guard acceptBackoffTimer == nil else { return }
    listening?.update(read: false, write: false)
    acceptBackoffTimer = loop.schedule(after: Self.acceptBackoff) { [unowned self] in
      acceptBackoffTimer = nil
      resumeAccepting()
    }
  }

  private func resumeAccepting() {
    if let acceptBackoffTimer {
      loop.cancel(acceptBackoffTimer)
      self.acceptBackoffTimer = nil
    }
    listening?.update(read: true, write: false)
  }

  private func admit(_ fd: Int32, reaped: inout Bool) {
    let uid: uid_t
    do {
      uid = try Posix.peerUID(fd)
    } catch {
      log.warning("client without credentials: \(error), ignoring")
      Posix.close(fd)
      return
    }
    guard uid == allowedUID else {
      log.warning("refused a client with uid \(uid) (serving only uid \(allowedUID))")
      refuse(fd, VarlinkError("org.varlink.service.PermissionDenied"))
      return
    }
    if connections.count >= maximumClients && !reaped {
      reaped = true
      reapHungUpConnections()
    }
    guard connections.count < maximumClients else {
      // Said once for a run of refusals (a turn accepts up to `acceptBatch`), then counted.
      if refusedAtLimit == 0 { log.warning("refused a client: already serving \(maximumClients) clients") }
      refusedAtLimit += 1
      refuse(fd, .invalidArgument("(connection)", "the daemon already serves \(maximumClients) clients"))
      return
    }
    if refusedAtLimit > 1 {
      log.warning("refused \(refusedAtLimit) clients in all while serving \(maximumClients); accepting again")
    }
    refusedAtLimit = 0
    let id = nextConnectionID
    nextConnectionID += 1
    let connection = Connection(
      fd: fd, id: id, loop: loop, table: table, log: log, limits: limits,
      needsAttention: { [unowned self] in needsAttention($0) }
    ) { [unowned self] closed in
      connections.removeValue(forKey: closed.id)
      // A descriptor came free: a client waiting in the backlog may be accepted now.
      if acceptBackoffTimer != nil { resumeAccepting() }
      connectionClosed()
    }
    do {
      try connection.start()
    } catch {
      log.warning("client \(id): \(error), closing it")
      Posix.close(fd)
      return
    }
    connections[id] = connection
  }

  /// Sends one error reply without waiting, then closes.
  private func refuse(_ fd: Int32, _ error: VarlinkError) {
    let bytes = VarlinkReplyFrame.encode(error)
    _ = bytes.withUnsafeBytes { try? Posix.send(fd, $0) }
    Posix.close(fd)
  }
}
