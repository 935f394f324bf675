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
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
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
/// - Important: only peers with the daemon's own uid are served; at most `maximumClients` at once.
public final class VarlinkServer: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on `queue`.
  public let queue: DispatchQueue
  private let socket: ListeningSocket
  private let service: any VarlinkService
  private let log: Logger
  private let allowedUID: uid_t
  public let maximumClients: Int
  private var acceptSource: (any DispatchSourceRead)?
  private var connections: [Int: Connection] = [:]
  private var nextConnectionID = 1

  public init(
    socket: ListeningSocket, service: any VarlinkService, queue: DispatchQueue, log: Logger,
    maximumClients: Int = 1024, allowedUID: uid_t = getuid()
  ) {
    self.socket = socket
    self.service = service
    self.queue = queue
    self.log = log
    self.maximumClients = maximumClients
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
    acceptSource?.cancel()
    acceptSource = nil
    for connection in Array(connections.values) { connection.close(reason: nil) }
  }

  private func acceptPending() {
    while true {
      let fd: Int32?
      do {
        fd = try Posix.accept(socket.fd)
      } catch {
        // EMFILE and the like: log and try again on the next event rather than spin.
        log.warning("accepting a client: \(error), ignoring")
        return
      }
      guard let fd else { return }
      admit(fd)
    }
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
    guard connections.count < maximumClients else {
      log.warning("refused a client: already serving \(maximumClients) clients")
      refuse(fd, .invalidArgument("(connection)", "the daemon already serves \(maximumClients) clients"))
      return
    }
    let id = nextConnectionID
    nextConnectionID += 1
    let connection = Connection(fd: fd, id: id, queue: queue, service: service, log: log) {
      [unowned self] closed in
      connections.removeValue(forKey: closed.id)
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
