import Dispatch
import Foundation
import NotifyProtocol

/// One client of the Varlink server: reads NUL-framed calls, answers them in order, and holds no
/// more for the client than `ConnectionLimits` allows.
///
/// Calls are taken up one at a time: the next waits (in `pending`) until the one being answered
/// has sent its final reply. A oneway call does not hold up the next, but it is tracked like any
/// other until it completes, and released when the connection closes.
///
/// - Important: used only on the server's queue.
final class Connection: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on `queue`.
  let fd: Int32
  let id: Int
  private let queue: DispatchQueue
  private let service: any VarlinkService
  private let log: Logger
  private let limits: ConnectionLimits
  private let onClose: (Connection) -> Void

  /// Where the connection is in its life.
  private enum State {
    /// Reading calls and answering them.
    case open
    /// The client shut down its sending side: answer what it asked, then close.
    case readClosed
    /// The last replies are being written; then the descriptor closes.
    case closing(reason: String?)
    /// Done: every call released.
    case closed
  }
  private var state = State.open
  var isClosed: Bool {
    if case .closed = state { return true }
    return false
  }

  private var framer: VarlinkFramer
  /// The socket's readiness (`SocketWatcher`, not DispatchSources: see there why).
  private var watch: SocketWatcher.Watch?
  /// Reading calls: from `start` until end of file or close.
  private var reading = false
  private var readPaused = false
  /// While reading is paused: looks for the client's hang-up.
  private var hangUpTimer: (any DispatchSourceTimer)?
  /// Replies wait for the socket to take them.
  private var waitingToWrite = false
  private var output = OutputQueue()

  /// Calls received and not yet taken up, oldest first (`pending[pendingStart...]`).
  private var pending: [[UInt8]] = []
  private var pendingStart = 0
  private var pendingBytes = 0
  /// Calls taken up and not yet complete, oneway ones included: released when the connection closes.
  private var open: [Int: Responder] = [:]
  /// The call (not oneway) being answered: later calls wait for its final reply.
  private var answering: Int?
  private var openOneway = 0
  private var nextCall = 0
  private var takingUpCalls = false

  /// When a write last made progress (or output began to wait), for the stall timeout.
  private var lastWriteProgress = DispatchTime.now()
  private var stallTimer: (any DispatchSourceTimer)?

  init(
    fd: Int32, id: Int, queue: DispatchQueue, service: any VarlinkService, log: Logger,
    limits: ConnectionLimits, readBuffer: ReadBuffer, onClose: @escaping (Connection) -> Void
  ) {
    self.readBuffer = readBuffer
    self.fd = fd
    self.id = id
    self.queue = queue
    self.service = service
    self.log = log
    self.limits = limits
    self.framer = VarlinkFramer(maximumMessageSize: limits.maximumMessageSize)
    self.onClose = onClose
  }

  func start() {
    let watch = SocketWatcher.shared.watch(
      fd, queue: queue, readable: { [unowned self] in readAvailable() },
      writable: { [unowned self] in flush() })
    self.watch = watch
    reading = true
    watch.want(read: true, write: false)
  }

  /// Tells the watcher what the connection waits for now.
  private func updateInterest() {
    watch?.want(read: reading && !readPaused, write: waitingToWrite)
  }

  // MARK: - Reading

  /// Where every connection of the server reads into: they all run on one serial queue, so one
  /// buffer serves them, and an idle connection holds none.
  final class ReadBuffer: @unchecked Sendable {
    // @unchecked: used only on the server's queue.
    var bytes = [UInt8](repeating: 0, count: 65536)
  }
  private let readBuffer: ReadBuffer

  private func readAvailable() {
    // Read a bounded amount per event, so that one busy client cannot starve the others.
    for _ in 0..<16 {
      guard case .open = state, !readPaused, reading else { return }
      let transfer: Posix.Transfer
      do {
        transfer = try readBuffer.bytes.withUnsafeMutableBytes { buffer throws(SystemError) in
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
        if Posix.peerHasClosed(fd) {
          close(reason: nil)
          return
        }
        stopReading()
        state = .readClosed
        closeIfDone()
        return
      case .bytes(let count):
        let framed = readBuffer.bytes.withUnsafeBytes {
          framer.append(UnsafeRawBufferPointer(rebasing: $0[0..<count]))
        }
        for message in framed.messages { received(message) }
        if framed.overflowed {
          write(
            VarlinkCoding.reply(
              .invalidArgument("(message)", "longer than \(framer.maximumMessageSize) bytes")))
          flushThenClose(reason: "a message over \(framer.maximumMessageSize) bytes")
          return
        }
      }
    }
  }

  private func received(_ message: [UInt8]) {
    guard case .open = state else { return }
    if pendingStart == pending.count && mayTakeUpCall {
      dispatch(message)
      return
    }
    pending.append(message)
    pendingBytes += message.count
    // Calls held behind one being answered wait in memory: past a bound, stop reading until they
    // drain, so one client cannot grow the daemon without limit.
    if pending.count - pendingStart >= limits.maximumPendingCalls
      || pendingBytes >= limits.maximumPendingBytes
    {
      pauseReading()
    }
  }

  /// Whether the next call may start now: none is being answered, oneway ones are few, and the
  /// client has read its earlier replies — one that reads nothing gets nothing more answered, so
  /// its calls wait in `pending` (bounded) and then in the socket.
  private var mayTakeUpCall: Bool {
    answering == nil && openOneway < limits.maximumOpenOnewayCalls && !outputBackedUp
  }

  /// Whether replies wait for the client: a long reply still being encoded, or half the bytes a
  /// slow reader may leave unread.
  private var outputBackedUp: Bool {
    output.openStreams > 0 || output.unsentBytes >= limits.maximumUnsentBytes / 2
  }

  /// How often a connection that stopped reading looks whether its client has gone: a suspended
  /// read source reports no end of file, and what the calls hold must not outlive the client.
  static let hangUpCheckInterval: DispatchTimeInterval = .seconds(1)

  private func pauseReading() {
    guard !readPaused, reading else { return }
    readPaused = true
    updateInterest()
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(
      deadline: .now() + Self.hangUpCheckInterval, repeating: Self.hangUpCheckInterval,
      leeway: .milliseconds(100))
    timer.setEventHandler { [unowned self] in
      if Posix.peerHasClosed(fd) { close(reason: nil) }
    }
    hangUpTimer = timer
    timer.activate()
  }

  private func resumeReadingIfDrained() {
    guard readPaused, pending.count - pendingStart < limits.maximumPendingCalls / 2,
      pendingBytes < limits.maximumPendingBytes / 2
    else { return }
    readPaused = false
    stopHangUpChecks()
    updateInterest()
  }

  /// Reads no more calls.
  private func stopReading() {
    guard reading else { return }
    reading = false
    if readPaused {
      readPaused = false
      stopHangUpChecks()
    }
    updateInterest()
  }

  private func stopHangUpChecks() {
    hangUpTimer?.cancel()
    hangUpTimer = nil
  }

  // MARK: - Calls

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
    if info.oneway && info.more {
      // Replies that are never sent cannot continue; such a call would only hold a subscription.
      write(
        VarlinkCoding.reply(
          .invalidArgument("oneway", "a call that asks for more replies cannot be oneway")))
      return
    }
    nextCall += 1
    let call = nextCall
    let responder = Responder(queue: queue) { [weak self] body, final in
      self?.replied(body, final: final, call: call, oneway: info.oneway)
    }
    open[call] = responder
    if info.oneway {
      openOneway += 1
    } else {
      answering = call
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

  private func replied(_ body: Responder.Body, final: Bool, call: Int, oneway: Bool) {
    guard !isClosed, open[call] != nil else { return }
    if !oneway {
      switch body {
      case .bytes(let bytes): write(bytes)
      case .stream(let stream): write(stream)
      }
    }
    guard final, !isClosed else { return }
    open.removeValue(forKey: call)
    if oneway {
      openOneway -= 1
    } else if answering == call {
      answering = nil
    }
    takeUpPendingCalls()
    closeIfDone()
  }

  /// Starts the calls that waited, in order, until one has to be answered first.
  private func takeUpPendingCalls() {
    // A call answered at once (a malformed one) writes, and a write that drains the output comes
    // back here: the loop below already takes up the next.
    guard !takingUpCalls else { return }
    takingUpCalls = true
    defer { takingUpCalls = false }
    while mayTakeUpCall, !isClosed, pendingStart < pending.count {
      let next = pending[pendingStart]
      pending[pendingStart] = []
      pendingStart += 1
      pendingBytes -= next.count
      dispatch(next)
    }
    if pendingStart == pending.count {
      pending.removeAll(keepingCapacity: pending.capacity <= limits.maximumPendingCalls)
      pendingStart = 0
    }
    resumeReadingIfDrained()
  }

  /// After the client's end of file: closes once no call is open or waiting.
  private func closeIfDone() {
    guard case .readClosed = state, open.isEmpty, pendingStart >= pending.count else { return }
    flushThenClose(reason: nil)
  }

  // MARK: - Writing

  private func write(_ bytes: [UInt8]) {
    guard !isClosed else { return }
    output.append(bytes)
    guard output.unsentBytes <= limits.maximumUnsentBytes else {
      close(reason: "the client reads too slowly (\(output.unsentBytes) bytes unread)")
      return
    }
    if !waitingToWrite { flush() }
  }

  private func write(_ stream: any ReplyStream) {
    guard !isClosed else { return }
    output.append(stream)
    if !waitingToWrite { flush() }
  }

  private func flush() {
    while !output.isEmpty {
      let transfer: Posix.Transfer
      do {
        transfer = try output.withUnsentBytes { bytes throws(SystemError) in
          bytes.isEmpty ? .bytes(0) : try Posix.send(fd, bytes)
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
        output.consume(count)
        lastWriteProgress = .now()
      case .wouldBlock, .endOfFile:
        waitForWritable()
        return
      }
    }
    if waitingToWrite {
      waitingToWrite = false
      updateInterest()
    }
    stallTimer?.cancel()
    stallTimer = nil
    if case .closing(let reason) = state {
      close(reason: reason)
      return
    }
    // The client has read what it was sent: the calls that waited for that may start.
    takeUpPendingCalls()
    closeIfDone()
  }

  private func waitForWritable() {
    guard !waitingToWrite, !isClosed else { return }
    waitingToWrite = true
    updateInterest()
    lastWriteProgress = .now()
    armStallTimer(after: limits.writeStallTimeout)
  }

  /// Drops a client that reads nothing for `writeStallTimeout` while replies wait for it: what
  /// they hold (a long reply's snapshot) must not outlive a client that went to sleep.
  private func armStallTimer(after seconds: Double) {
    stallTimer?.cancel()
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(deadline: .now() + seconds, leeway: .milliseconds(100))
    timer.setEventHandler { [unowned self] in
      stallTimer = nil
      guard waitingToWrite, !isClosed else { return }
      let waited = Double(DispatchTime.now().uptimeNanoseconds - lastWriteProgress.uptimeNanoseconds) / 1e9
      if waited >= limits.writeStallTimeout {
        close(reason: "the client has read nothing for \(Int(waited)) s")
      } else {
        armStallTimer(after: limits.writeStallTimeout - waited)
      }
    }
    stallTimer = timer
    timer.activate()
  }

  private func flushThenClose(reason: String?) {
    stopReading()
    state = .closing(reason: reason)
    if !waitingToWrite { flush() }
  }

  // MARK: - Closing

  /// Closes the connection and releases everything its calls hold.
  func close(reason: String?) {
    guard !isClosed else { return }
    state = .closed
    if let reason { log.info("client \(id): closing the connection: \(reason)") }
    reading = false
    readPaused = false
    waitingToWrite = false
    stopHangUpChecks()
    // Removed from epoll first; then the descriptor may go at once.
    watch?.cancel()
    watch = nil
    stallTimer?.cancel()
    stallTimer = nil
    Posix.close(fd)
    let responders = open.values
    open = [:]
    pending = []
    output.removeAll()
    for responder in responders { responder.connectionClosed() }
    onClose(self)
  }

}
