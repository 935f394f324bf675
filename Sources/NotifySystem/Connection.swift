import Dispatch
import Foundation
import NotifyProtocol

/// One client of the Varlink server: reads NUL-framed calls, answers them in order, buffers what
/// the peer is slow to read.
///
/// - Important: used only on the server's queue.
final class Connection: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on `queue`.
  let fd: Int32
  let id: Int
  private let queue: DispatchQueue
  private let service: any VarlinkService
  private let log: Logger
  private var framer = VarlinkFramer()
  private var readSource: (any DispatchSourceRead)?
  private var writeSource: (any DispatchSourceWrite)?
  private var outbox: [UInt8] = []
  private var outboxStart = 0
  /// Calls received and not yet taken up, because an earlier call is still being answered.
  private var pending: [[UInt8]] = []
  private var pendingStart = 0
  private var busy = false
  /// The client shut down its sending side: once every call it made is answered, close.
  private var readClosed = false
  /// Calls still being answered, which may hold a subscription or a wait.
  private var responders: [Int: Responder] = [:]
  private var nextCall = 0
  /// Dispatch sources not yet cancelled; the descriptor is closed once none is left.
  private var liveSources = 0
  private(set) var isClosed = false
  private let onClose: (Connection) -> Void

  /// The most a slow reader may leave unread before it is dropped.
  static let maximumOutbox = 16 << 20

  init(
    fd: Int32, id: Int, queue: DispatchQueue, service: any VarlinkService, log: Logger,
    onClose: @escaping (Connection) -> Void
  ) {
    self.fd = fd
    self.id = id
    self.queue = queue
    self.service = service
    self.log = log
    self.onClose = onClose
  }

  func start() {
    let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
    source.setEventHandler { [unowned self] in readAvailable() }
    source.setCancelHandler { [self] in sourceCancelled() }
    // Read once the source is registered: corelibs libdispatch (epoll) can lose a read source
    // whose client sent its call and hung up before the registration was done (epoll reports
    // EPOLLIN|EPOLLHUP at once, libdispatch removes the descriptor and never calls the handler),
    // and the connection would be held open for ever (tests/test_load.py found hundreds).
    source.setRegistrationHandler { [unowned self] in readAvailable() }
    liveSources += 1
    readSource = source
    source.activate()
  }

  // MARK: - Reading

  private static let chunk = 65536
  private var readBuffer = [UInt8](repeating: 0, count: Connection.chunk)

  private func readAvailable() {
    // Read a bounded amount per event, so that one busy client cannot starve the others.
    for _ in 0..<16 {
      guard !isClosed, !readPaused, readSource != nil else { return }
      let transfer: Posix.Transfer
      do {
        transfer = try readBuffer.withUnsafeMutableBytes { buffer throws(SystemError) in
          try Posix.read(fd, into: buffer)
        }
      } catch {
        close(reason: "\(error)")
        return
      }
      switch transfer {
      case .wouldBlock:
        return
      case .endOfFile:
        // The client is done sending; it may still be reading. Answer what it asked, then close.
        // A client that has gone altogether reads nothing: close now, or a Watch or Wait it left
        // behind would hold the connection open for ever (tests/test_load.py).
        if Self.peerHasClosed(fd) {
          close(reason: nil)
          return
        }
        stopReading()
        readClosed = true
        closeIfDone()
        return
      case .bytes(let count):
        let output = readBuffer.withUnsafeBytes {
          framer.append(UnsafeRawBufferPointer(rebasing: $0[0..<count]))
        }
        for message in output.messages { received(message) }
        if output.overflowed {
          write(
            VarlinkCoding.reply(
              .invalidArgument("(message)", "longer than \(framer.maximumMessageSize) bytes")))
          flushThenClose(reason: "a message over \(framer.maximumMessageSize) bytes")
          return
        }
      }
    }
  }

  /// Whether the peer has closed its end altogether, not only its sending half: an `AF_UNIX`
  /// stream reports `POLLHUP` only then (`shutdown(SHUT_WR)` gives `POLLRDHUP` alone). Wraps `poll(2)`.
  private static func peerHasClosed(_ fd: Int32) -> Bool {
    var descriptor = pollfd(fd: fd, events: 0, revents: 0)
    return poll(&descriptor, 1, 0) == 1 && descriptor.revents & Int16(POLLHUP) != 0
  }

  private func received(_ message: [UInt8]) {
    if busy {
      pending.append(message)
      // Calls pipelined behind a Wait or Watch wait in memory: past a bound, stop reading until
      // they drain, so one client cannot grow the daemon without limit.
      if pending.count - pendingStart >= Self.maximumPending { pauseReading() }
      return
    }
    dispatch(message)
  }

  /// Calls held behind an unanswered one before the connection stops reading.
  static let maximumPending = 1024
  private var readPaused = false

  private func pauseReading() {
    guard !readPaused, let readSource else { return }
    readSource.suspend()
    readPaused = true
  }

  private func resumeReading() {
    guard readPaused else { return }
    readPaused = false
    readSource?.resume()
  }

  /// Cancels the read source; a paused source is resumed first, or its cancel handler never runs.
  private func stopReading() {
    guard let source = readSource else { return }
    readSource = nil
    source.cancel()
    if readPaused {
      readPaused = false
      source.resume()
    }
  }

  /// Decodes a call's envelope and hands it to the service.
  private func dispatch(_ message: [UInt8]) {
    let header: CallHeader
    do {
      header = try VarlinkCoding.decodeCall(message)
    } catch {
      write(VarlinkCoding.reply(.invalidArgument("(message)", Self.describe(error))))
      return
    }
    let info = CallHeaderInfo(
      method: header.method, more: header.more ?? false, oneway: header.oneway ?? false)
    nextCall += 1
    let call = nextCall
    let responder = Responder(queue: queue) { [weak self] bytes, final in
      self?.replied(bytes, final: final, oneway: info.oneway, call: call)
    }
    if !info.oneway {
      busy = true
      responders[call] = responder
    }
    service.handle(info, message: message, responder: responder)
  }

  private static func describe(_ error: any Error) -> String {
    if let decoding = error as? DecodingError {
      switch decoding {
      case .typeMismatch, .valueNotFound: return "not a Varlink call object"
      case .keyNotFound(let key, _): return "the call has no '\(key.stringValue)'"
      case .dataCorrupted: return "not valid JSON or not UTF-8"
      @unknown default: break
      }
    }
    return "not a Varlink call: \(error)"
  }

  private func replied(_ bytes: [UInt8], final: Bool, oneway: Bool, call: Int) {
    guard !isClosed, !oneway, responders[call] != nil else { return }
    write(bytes)
    guard final else { return }
    busy = false
    responders.removeValue(forKey: call)
    while !busy, !isClosed, pendingStart < pending.count {
      let next = pending[pendingStart]
      pendingStart += 1
      dispatch(next)
    }
    if pendingStart == pending.count {
      pending.removeAll(keepingCapacity: true)
      pendingStart = 0
    }
    if pending.count - pendingStart < Self.maximumPending / 2 { resumeReading() }
    closeIfDone()
  }

  /// After the client's end of file: closes once no call is being answered or waiting.
  private func closeIfDone() {
    guard readClosed, !busy, pendingStart >= pending.count, !isClosed else { return }
    flushThenClose(reason: nil)
  }

  // MARK: - Writing

  private func write(_ bytes: [UInt8]) {
    guard !isClosed else { return }
    outbox.append(contentsOf: bytes)
    if outbox.count - outboxStart > Self.maximumOutbox {
      close(reason: "the client reads too slowly (\(outbox.count - outboxStart) bytes unread)")
      return
    }
    if writeSource == nil { flush() }
  }

  private var closeAfterFlush: String??

  private func flush() {
    while outboxStart < outbox.count {
      let transfer: Posix.Transfer
      do {
        transfer = try outbox.withUnsafeBytes { buffer throws(SystemError) in
          try Posix.send(fd, UnsafeRawBufferPointer(rebasing: buffer[outboxStart...]))
        }
      } catch let error as SystemError {
        close(reason: error.errno == EPIPE || error.errno == ECONNRESET ? nil : "\(error)")
        return
      } catch {
        close(reason: "\(error)")
        return
      }
      switch transfer {
      case .bytes(let count):
        outboxStart += count
      case .wouldBlock, .endOfFile:
        armWriteSource()
        return
      }
    }
    outbox.removeAll(keepingCapacity: outbox.capacity <= 1 << 20)
    outboxStart = 0
    if let source = writeSource {
      source.cancel()
      writeSource = nil
    }
    if let reason = closeAfterFlush { close(reason: reason) }
  }

  private func armWriteSource() {
    guard writeSource == nil else { return }
    let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
    source.setEventHandler { [unowned self] in flush() }
    source.setCancelHandler { [self] in sourceCancelled() }
    liveSources += 1
    writeSource = source
    source.activate()
  }

  private func flushThenClose(reason: String?) {
    stopReading()
    closeAfterFlush = .some(reason)
    if writeSource == nil { flush() }
  }

  // MARK: - Closing

  /// Closes the connection and releases everything its calls hold.
  func close(reason: String?) {
    guard !isClosed else { return }
    isClosed = true
    if let reason { log.info("client \(id): closing the connection: \(reason)") }
    stopReading()
    writeSource?.cancel()
    writeSource = nil
    if liveSources == 0 { Posix.close(fd) }
    let responders = self.responders.values
    self.responders = [:]
    pending = []
    outbox = []
    for responder in responders { responder.connectionClosed() }
    onClose(self)
  }

  /// A source's cancel handler: the descriptor is closed only after every source on it has let go.
  private func sourceCancelled() {
    liveSources -= 1
    if liveSources == 0 && isClosed { Posix.close(fd) }
  }
}
