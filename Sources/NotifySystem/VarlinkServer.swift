import Dispatch
import Foundation
import NotifyProtocol

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
      do {
        let probe = try Posix.unixStreamSocket()
        defer { Posix.close(probe) }
        let result = Posix.connect(probe, path: path)
        // A non-blocking connect to a live listener succeeds or is in progress (backlog full).
        if result == 0 || result == EAGAIN || result == EINPROGRESS {
          throw ServerError.alreadyRunning(path: path)
        }
        try Posix.unlink(path)
      } catch let error as ServerError {
        throw error
      } catch let error as SystemError {
        throw .system(error)
      } catch {
        throw .system(SystemError("probe", errno: EIO))
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

/// A Varlink server on a listening `AF_UNIX` socket, served from Dispatch sources on one serial
/// queue with non-blocking descriptors, so that a slow or dead client never stalls another.
///
/// - Important: only peers with the daemon's own uid are served; at most `maximumClients` at once,
///   each within `limits`. Out of descriptors, it stops accepting for `acceptBackoff` (or until a
///   client leaves) rather than spin on a listening socket that stays readable.
public final class VarlinkServer: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on `queue`.
  public let queue: DispatchQueue
  private let socket: ListeningSocket
  private let service: any VarlinkService
  private let log: Logger
  private let allowedUID: uid_t
  public let maximumClients: Int
  public let limits: ConnectionLimits
  /// Called on the server's queue after a connection closed and let go of what it held.
  private let connectionClosed: () -> Void
  private var acceptSource: (any DispatchSourceRead)?
  private var connections: [Int: Connection] = [:]
  private let readBuffer = Connection.ReadBuffer()
  private var nextConnectionID = 1
  /// Set while accepting is paused for lack of descriptors: the timer that resumes it.
  private var acceptBackoffTimer: (any DispatchSourceTimer)?
  /// Whether the last accept failed, so that a lasting shortage is logged once, not ten times a second.
  private var acceptFailing = false

  /// How long accepting pauses when the daemon is out of descriptors.
  static let acceptBackoff: DispatchTimeInterval = .milliseconds(100)
  /// Descriptors kept for everything but clients: the store, the bus, the journal, hooks' pipes.
  public static let reservedDescriptors = 64

  /// The most clients to serve with `openFileLimit` descriptors: 1024, or fewer when the limit
  /// leaves less room beside `reservedDescriptors`.
  public static func maximumClients(openFileLimit: Int) -> Int {
    max(1, min(1024, openFileLimit - reservedDescriptors))
  }

  public init(
    socket: ListeningSocket, service: any VarlinkService, queue: DispatchQueue, log: Logger,
    maximumClients: Int = 1024, limits: ConnectionLimits = ConnectionLimits(), allowedUID: uid_t = getuid(),
    connectionClosed: @escaping () -> Void = {}
  ) {
    self.connectionClosed = connectionClosed
    self.socket = socket
    self.service = service
    self.queue = queue
    self.log = log
    self.maximumClients = maximumClients
    self.limits = limits
    self.allowedUID = allowedUID
  }

  /// Starts accepting clients.
  public func start() {
    queue.async { [self] in
      let source = DispatchSource.makeReadSource(fileDescriptor: socket.fd, queue: queue)
      source.setEventHandler { [unowned self] in acceptPending() }
      acceptSource = source
      source.activate()
    }
  }

  /// Stops accepting and closes every connection; the caller, on the server's queue, removes the
  /// socket file.
  public func stop() {
    dispatchPrecondition(condition: .onQueue(queue))
    if acceptBackoffTimer != nil { resumeAccepting() }
    acceptSource?.cancel()
    acceptSource = nil
    for connection in Array(connections.values) { connection.close(reason: nil) }
  }

  /// The number of clients served now.
  public var clientCount: Int {
    dispatchPrecondition(condition: .onQueue(queue))
    return connections.count
  }

  /// Clients accepted in one turn on the queue; then the connections already accepted get theirs
  /// (a client that left is reaped) before accepting goes on.
  static let acceptBatch = 32

  /// Accepts until the backlog is empty (the source reports an edge, not a level: what is left
  /// unaccepted would wait for the next client), `acceptBatch` at a time.
  private func acceptPending() {
    reapedThisTurn = false
    for _ in 0..<Self.acceptBatch {
      guard acceptSource != nil, acceptBackoffTimer == nil, acceptOne() else { return }
    }
    queue.async { [weak self] in self?.acceptPending() }
  }

  /// Whether this turn of accepting has looked for clients that left: at most once a turn.
  private var reapedThisTurn = false

  /// Closes the connections whose clients have gone but whose end of file is not read yet (they
  /// wait their turn on the queue, or stopped reading): at the client limit, a client that
  /// connects and leaves in a tight loop must not take every place from the others.
  private func reapHungUpConnections() {
    guard !reapedThisTurn else { return }
    reapedThisTurn = true
    let byDescriptor = Dictionary(
      uniqueKeysWithValues: connections.values.map { ($0.fd, $0) })
    for fd in Posix.hungUp(Array(byDescriptor.keys)) {
      byDescriptor[fd]?.close(reason: nil)
    }
  }

  /// Accepts and admits one client; `false` when none was waiting or accepting failed.
  private func acceptOne() -> Bool {
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
    admit(fd)
    return true
  }

  private func pauseAccepting() {
    guard acceptBackoffTimer == nil, let acceptSource else { return }
    acceptSource.suspend()
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(deadline: .now() + Self.acceptBackoff)
    timer.setEventHandler { [unowned self] in resumeAccepting() }
    acceptBackoffTimer = timer
    timer.activate()
  }

  private func resumeAccepting() {
    guard let timer = acceptBackoffTimer else { return }
    timer.cancel()
    acceptBackoffTimer = nil
    acceptSource?.resume()
    // The clients that waited meanwhile raise no new edge on the socket: take them up now.
    queue.async { [weak self] in self?.acceptPending() }
  }

  private func admit(_ fd: Int32) {
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
    if connections.count >= maximumClients { reapHungUpConnections() }
    guard connections.count < maximumClients else {
      log.warning("refused a client: already serving \(maximumClients) clients")
      refuse(fd, .invalidArgument("(connection)", "the daemon already serves \(maximumClients) clients"))
      return
    }
    let id = nextConnectionID
    nextConnectionID += 1
    let connection = Connection(
      fd: fd, id: id, queue: queue, service: service, log: log, limits: limits, readBuffer: readBuffer
    ) { [unowned self] closed in
      connections.removeValue(forKey: closed.id)
      // A descriptor came free: a client waiting in the backlog may be accepted now.
      resumeAccepting()
      connectionClosed()
    }
    connections[id] = connection
    connection.start()
  }

  /// Sends one error reply without waiting, then closes.
  private func refuse(_ fd: Int32, _ error: VarlinkError) {
    let bytes = VarlinkCoding.reply(error)
    _ = bytes.withUnsafeBytes { try? Posix.send(fd, $0) }
    Posix.close(fd)
  }
}
