import NotifyCore
import NotifyPosix
import NotifyProtocol
import NotifySupport

#if canImport(Glibc)
  import Glibc
#endif

/// One client of the Varlink server: reads NUL-framed calls, answers them in order, and holds no
/// more for the client than `ConnectionLimits` allows.
///
/// Calls are taken up as they arrive while every call before them is `prompt` (answered at once or
/// at the next commit): a pipelined batch of `Show`s shares one commit, and each reply waits in its
/// slot until the replies before it are out. An `eventual` call (`Wait`, `Watch`) holds back the
/// calls behind it until its final reply. A oneway call gets no slot (its replies are dropped) but is
/// tracked until it completes, and released when the connection closes.
///
/// Writing is left to the end of the loop's turn (`flush()`): everything one read brought in is
/// answered with one write.
///
/// - Important: used only on the event loop's thread.
final class Connection: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on the loop's thread.
  let fd: Int32
  let id: Int
  private let loop: EventLoop
  private let table: MethodTable
  private let log: Logger
  private let limits: ConnectionLimits
  /// Tells the server that this connection has work for the end of the turn.
  private let needsAttention: (Connection) -> Void
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

  private var registration: EventLoop.Registration?
  private var framer: VarlinkFramer
  /// Whether reading stopped because too many calls wait (`maximumPendingCalls`, `…Bytes`).
  private(set) var readPaused = false
  /// Replies wait for the socket to take them.
  private var waitingToWrite = false
  private var output = OutputQueue()
  /// Queued for the end of the turn (`needsAttention`): at most once.
  var isAttentionQueued = false

  /// Calls received and not yet taken up, oldest first (`pending[pendingStart...]`).
  private var pending: [[UInt8]] = []
  private var pendingStart = 0
  private var pendingBytes = 0
  /// Calls taken up and not yet complete, oneway ones included: released when the connection closes.
  private var open: [Int: (responder: Responder, slot: Int?, completion: MethodTable.Completion)] = [:]
  private var openEventual = 0
  private var openOneway = 0
  private var nextCall = 0

  /// Replies in call order: `slots[slotsStart...]` belong to calls `firstSlot...`. The first slot's
  /// replies go straight to `output`; later ones wait here until every slot before them is final.
  private struct Slot {
    var bodies: [Responder.Body] = []
    var final = false
  }
  private var slots: [Slot] = []
  private var slotsStart = 0
  private var firstSlot = 0
  private var nextSlot = 0

  /// When a write last made progress (or output began to wait), for the stall timeout.
  private var lastWriteProgress = 0.0
  private var stallTimer: EventLoop.Timer?

  init(
    fd: Int32, id: Int, loop: EventLoop, table: MethodTable, log: Logger, limits: ConnectionLimits,
    needsAttention: @escaping (Connection) -> Void, onClose: @escaping (Connection) -> Void
  ) {
    self.fd = fd
    self.id = id
    self.loop = loop
    self.table = table
    self.log = log
    self.limits = limits
    self.framer = VarlinkFramer(maximumMessageSize: limits.maximumMessageSize)
    self.needsAttention = needsAttention
    self.onClose = onClose
  }

  func start() throws(SystemError) {
    registration = try loop.register(fd, read: true) { [unowned self] events in handle(events) }
  }

  private func handle(_ events: UInt32) {
    if events & (Posix.Readiness.hangUp | Posix.Readiness.error) != 0 {
      // The client has gone altogether: nothing it asked can reach it. Close now, or a Watch or Wait
      // it left behind would hold the connection open for ever.
      close(reason: nil)
      return
    }
    if events & (Posix.Readiness.input | Posix.Readiness.peerShutDown) != 0 { readAvailable() }
    if !isClosed, events & Posix.Readiness.output != 0 { _ = flush() }
  }

  /// Tells the loop what the connection waits for now.
  private func updateInterest() {
    let reading: Bool
    if case .open = state { reading = !readPaused } else { reading = false }
    registration?.update(read: reading, write: waitingToWrite)
  }

  // MARK: - Reading

  private func readAvailable() {
    // A bounded amount per turn, so that one busy client cannot starve the others: what is left
    // is reported again next turn (the registration is level-triggered).
    for _ in 0..<4 {
      guard case .open = state, !readPaused else { return }
      let transfer: Posix.Transfer
      do {
        transfer = try loop.readBuffer.withUnsafeMutableBytes { buffer throws(SystemError) in
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
        if Posix.peerHasClosed(fd) {
          close(reason: nil)
          return
        }
        // The client is done sending; it may still be reading. Answer what it asked, then close.
        state = .readClosed
        updateInterest()
        closeIfDone()
        return
      case .bytes(let count):
        let framed = loop.readBuffer.withUnsafeBytes {
          framer.append(UnsafeRawBufferPointer(rebasing: $0[0..<count]))
        }
        for message in framed.messages { received(message) }
        if framed.overflowed {
          answerAtOnce(
            VarlinkReplyFrame.encode(
              .invalidArgument("(message)", "longer than \(framer.maximumMessageSize) bytes")))
          flushThenClose(reason: "a message over \(framer.maximumMessageSize) bytes")
          return
        }
        if count < loop.readBuffer.count { return }
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
    // Calls held back wait in memory: past a bound, stop reading until they drain, so one client
    // cannot grow the daemon without limit.
    if pending.count - pendingStart >= limits.maximumPendingCalls
      || pendingBytes >= limits.maximumPendingBytes
    {
      readPaused = true
      updateInterest()
    }
  }

  private func resumeReadingIfDrained() {
    guard readPaused, pending.count - pendingStart < limits.maximumPendingCalls / 2,
      pendingBytes < limits.maximumPendingBytes / 2
    else { return }
    readPaused = false
    updateInterest()
  }

  /// Whether the next call may start now: none that keeps later calls waiting is open, there are
  /// not too many open, and the client has read its earlier replies — one that reads nothing gets
  /// nothing more answered, so its calls wait in `pending` (bounded) and then in the socket.
  private var mayTakeUpCall: Bool {
    openEventual == 0 && open.count < limits.maximumOpenCalls && openOneway < limits.maximumOpenOnewayCalls
      && !outputBackedUp
  }

  /// Whether replies wait for the client: a long reply still being encoded, or half the bytes a
  /// slow reader may leave unread.
  private var outputBackedUp: Bool {
    output.openStreams > 0 || output.unsentBytes >= limits.maximumUnsentBytes / 2
  }

  // MARK: - Calls

  /// Reads a call and starts it.
  private func dispatch(_ message: [UInt8]) {
    switch table.prepare(message) {
    case .refused(let error, let oneway):
      if !oneway { answerAtOnce(VarlinkReplyFrame.encode(error)) }
    case .call(let call):
      if call.oneway && call.more {
        // Replies that are never sent cannot continue; such a call would only hold a subscription.
        answerAtOnce(
          VarlinkReplyFrame.encode(
            .invalidArgument("oneway", "a call that asks for more replies cannot be oneway")))
        return
      }
      nextCall += 1
      let number = nextCall
      let slot: Int? = call.oneway ? nil : takeSlot()
      let responder = Responder(
        call: number, more: call.more, oneway: call.oneway, connection: self, loop: loop)
      // A oneway call holds up nothing: nobody waits for its replies.
      let completion = call.oneway ? MethodTable.Completion.prompt : call.completion
      open[number] = (responder, slot, completion)
      if call.oneway { openOneway += 1 }
      if completion == .eventual { openEventual += 1 }
      call.run(responder)
    }
  }

  private func takeSlot() -> Int {
    defer { nextSlot += 1 }
    slots.append(Slot())
    return nextSlot
  }

  /// An answer that needs no call of its own (a malformed message): a slot of its own, final.
  private func answerAtOnce(_ bytes: [UInt8]) {
    let slot = takeSlot()
    fill(slot, .bytes(bytes), final: true)
  }

  /// A reply of call `number`, from its responder.
  func replied(_ number: Int, _ body: Responder.Body, final: Bool) {
    guard !isClosed, let call = open[number] else { return }
    if let slot = call.slot { fill(slot, body, final: final) }
    guard final else { return }
    open.removeValue(forKey: number)
    if call.slot == nil { openOneway -= 1 }
    if call.completion == .eventual { openEventual -= 1 }
    // The calls behind it may start now: at the end of the turn, not from inside this reply.
    requestAttention()
  }

  /// Puts a reply into its slot, and everything that may go out now into the output.
  private func fill(_ slot: Int, _ body: Responder.Body, final: Bool) {
    guard !isClosed else { return }
    let index = slotsStart + (slot - firstSlot)
    if slot == firstSlot {
      append(body)
      // A client too far behind is dropped right there.
      if isClosed { return }
    } else {
      slots[index].bodies.append(body)
    }
    if final { slots[index].final = true }
    // The first slots that are complete leave, and the replies of the one after them go out.
    while slotsStart < slots.count, slots[slotsStart].final {
      slotsStart += 1
      firstSlot += 1
      if slotsStart < slots.count {
        let bodies = slots[slotsStart].bodies
        slots[slotsStart].bodies = []
        for body in bodies {
          append(body)
          if isClosed { return }
        }
      }
    }
    if slotsStart == slots.count {
      slots.removeAll(keepingCapacity: slots.capacity <= 64)
      slotsStart = 0
    }
    requestAttention()
  }

  private func append(_ body: Responder.Body) {
    switch body {
    case .bytes(let bytes): output.append(bytes)
    case .stream(let stream): output.append(stream)
    }
    if output.unsentBytes > limits.maximumUnsentBytes {
      close(reason: "the client reads too slowly (\(output.unsentBytes) bytes unread)")
    }
  }

  private func requestAttention() {
    guard !isAttentionQueued, !isClosed else { return }
    isAttentionQueued = true
    needsAttention(self)
  }

  /// Starts the calls that waited, in order, until one has to be answered first; answers whether
  /// it started any.
  func takeUpPendingCalls() -> Bool {
    var started = false
    while mayTakeUpCall, !isClosed, pendingStart < pending.count {
      if case .closing = state { break }
      let next = pending[pendingStart]
      pending[pendingStart] = []
      pendingStart += 1
      pendingBytes -= next.count
      dispatch(next)
      started = true
    }
    if pendingStart == pending.count {
      pending.removeAll(keepingCapacity: pending.capacity <= limits.maximumPendingCalls)
      pendingStart = 0
    }
    resumeReadingIfDrained()
    return started
  }

  /// After the client's end of file: closes once no call is open or waiting.
  private func closeIfDone() {
    guard case .readClosed = state, open.isEmpty, pendingStart >= pending.count else { return }
    flushThenClose(reason: nil)
  }

  // MARK: - Writing

  /// Writes what waits, as far as the socket takes it; answers whether it wrote anything. Called at
  /// the end of the loop's turn and when the socket can take more.
  func flush() -> Bool {
    guard !isClosed else { return false }
    var wrote = false
    while !output.isEmpty {
      let transfer: Posix.Transfer
      do {
        transfer = try output.withUnsentBytes { bytes throws(SystemError) in
          bytes.isEmpty ? .bytes(0) : try Posix.send(fd, bytes)
        }
      } catch let error as SystemError {
        close(reason: error.errno == EPIPE || error.errno == ECONNRESET ? nil : "\(error)")
        return wrote
      } catch {
        close(reason: "\(error)")
        return wrote
      }
      switch transfer {
      case .bytes(let count):
        output.consume(count)
        lastWriteProgress = Posix.monotonicNow()
        wrote = wrote || count > 0
      case .wouldBlock, .endOfFile:
        waitForWritable()
        return wrote
      }
    }
    if waitingToWrite {
      waitingToWrite = false
      updateInterest()
    }
    if let stallTimer {
      loop.cancel(stallTimer)
      self.stallTimer = nil
    }
    if case .closing(let reason) = state {
      close(reason: reason)
      return wrote
    }
    closeIfDone()
    // The client has read what it was sent: calls that waited for that may start now.
    if pendingStart < pending.count && mayTakeUpCall { requestAttention() }
    return wrote
  }

  private func waitForWritable() {
    guard !waitingToWrite, !isClosed else { return }
    waitingToWrite = true
    updateInterest()
    lastWriteProgress = Posix.monotonicNow()
    armStallTimer(after: limits.writeStallTimeout)
  }

  /// Drops a client that reads nothing for `writeStallTimeout` while replies wait for it: what they
  /// hold (a long reply's snapshot) must not outlive a client that went to sleep.
  private func armStallTimer(after seconds: Double) {
    if let stallTimer { loop.cancel(stallTimer) }
    stallTimer = loop.schedule(after: seconds) { [unowned self] in
      stallTimer = nil
      guard waitingToWrite, !isClosed else { return }
      let waited = Posix.monotonicNow() - lastWriteProgress
      if waited >= limits.writeStallTimeout {
        close(reason: "the client has read nothing for \(Int(waited)) s")
      } else {
        armStallTimer(after: limits.writeStallTimeout - waited)
      }
    }
  }

  private func flushThenClose(reason: String?) {
    state = .closing(reason: reason)
    updateInterest()
    requestAttention()
  }

  // MARK: - Closing

  /// Closes the connection and releases everything its calls hold.
  func close(reason: String?) {
    guard !isClosed else { return }
    state = .closed
    if let reason { log.info("client \(id): closing the connection: \(reason)") }
    waitingToWrite = false
    // Removed from epoll first; then the descriptor may go at once.
    registration?.cancel()
    registration = nil
    if let stallTimer { loop.cancel(stallTimer) }
    stallTimer = nil
    Posix.close(fd)
    let calls = open.values
    open = [:]
    pending = []
    slots = []
    output.removeAll()
    for call in calls { call.responder.connectionClosed() }
    onClose(self)
  }
}
