import Dispatch
import Foundation
import NotifyPosix
import NotifySupport

#if canImport(Glibc)
  import Glibc
#endif

/// The server's thread: one `epoll` instance for the listening socket and every client, timers, and
/// tasks handed in from other threads, all run on this one thread.
///
/// A turn: wait for readiness (or the earliest timer, or a task), run the ready handlers, the tasks,
/// the due timers, then the turn-end handlers — the store's group commit of everything this turn
/// accepted, then the replies that commit released, one write per connection. Only then does the
/// loop wait again, so every call one read returned is answered by one write.
///
/// Registrations are level-triggered: a connection that stops reading drops its read interest.
/// `EPOLLHUP` and `EPOLLERR` are reported whatever the interest, and a handler must act on them
/// (close), or the loop would see them again at once.
///
/// - Important: registrations, timers and turn-end handlers are made and used on the loop's thread
///   only; `execute` and `isCurrent` may be called from any thread.
public final class EventLoop: @unchecked Sendable {
  // @unchecked: `thread`, `tasks` and `sleeping` are guarded by `lock`; everything else is used on
  // the loop's thread only.
  public let name: String
  private let epoll: Int32
  private let wakeFD: Int32
  private var thread: pthread_t?

  private let lock = NSLock()
  private var tasks: [@Sendable () -> Void] = []
  /// Set while the loop waits in `epoll_wait` with nothing queued: a task must write `wakeFD`.
  private var sleeping = false

  private var handlers: [UInt64: (UInt32) -> Void] = [:]
  private var nextToken: UInt64 = 1
  private var timers = TimerHeap<() -> Void>()
  private var turnEndHandlers: [() -> Bool] = []

  /// Where every connection on this loop reads into: they all run on its thread, so one buffer
  /// serves them, and an idle connection holds none.
  var readBuffer = [UInt8](repeating: 0, count: 65536)

  /// The token of the wake-up counter's registration.
  private static let wakeToken: UInt64 = 0

  public init(name: String) throws(SystemError) {
    self.name = name
    epoll = try Posix.epollCreate()
    wakeFD = try Posix.eventCounter()
    try Posix.epollControl(epoll, .add, wakeFD, events: Posix.Readiness.input, token: Self.wakeToken)
  }

  /// Starts the loop's thread.
  public func start() {
    let thread = Thread { [self] in run() }
    thread.name = name
    thread.stackSize = 1 << 20
    thread.start()
  }

  /// Runs the loop on the calling thread until `stop()`.
  public func run() {
    lock.lock()
    thread = pthread_self()
    lock.unlock()
    var ready = Posix.ReadyEvents()
    while !stopped {
      lock.lock()
      let idle = tasks.isEmpty && !endOfTurnBusy
      sleeping = idle
      lock.unlock()
      let timeout = idle ? timers.timeout(now: Posix.monotonicNow()) : 0
      do {
        try Posix.epollWait(epoll, into: &ready, timeout: timeout)
      } catch {
        fatalError("\(name): \(error)")
      }
      lock.lock()
      sleeping = false
      lock.unlock()
      for index in 0..<ready.count {
        let token = ready.tokens[index]
        if token == Self.wakeToken {
          Posix.drainEventCounter(wakeFD)
          continue
        }
        handlers[token]?(ready.events[index])
      }
      endOfTurnBusy = false
      runTasks()
      runDueTimers()
      endTurn()
    }
    Posix.close(wakeFD)
    Posix.close(epoll)
  }

  /// Set by `stop()`: the loop returns after this turn.
  private var stopped = false

  /// Ends the loop after the tasks handed in before this; its descriptors close as it returns.
  /// What is still registered is left as it is: stop the users of the loop first.
  public func stop() {
    execute { [self] in stopped = true }
  }

  /// Runs `body` on the loop's thread and waits for its result: for tests and start-up code on
  /// other threads. On the loop's own thread it runs at once.
  public func sync<Result: Sendable>(_ body: @escaping @Sendable () -> Result) -> Result {
    if isCurrent { return body() }
    let done = DispatchSemaphore(value: 0)
    let box = Locked<Result?>(nil)
    execute {
      box.withLock { $0 = body() }
      done.signal()
    }
    done.wait()
    return box.withLock { $0! }
  }

  /// Whether the caller runs on the loop's thread.
  public var isCurrent: Bool {
    lock.lock()
    defer { lock.unlock() }
    return isCurrentLocked
  }

  private var isCurrentLocked: Bool {
    guard let thread else { return false }
    return pthread_equal(thread, pthread_self()) != 0
  }

  // MARK: - Tasks

  /// Runs `task` on the loop's thread, after the tasks handed in before it.
  public func execute(_ task: @escaping @Sendable () -> Void) {
    lock.lock()
    tasks.append(task)
    let wake = sleeping
    sleeping = false
    lock.unlock()
    if wake { Posix.signalEventCounter(wakeFD) }
  }

  /// Whether, on the loop's thread, nothing handed in waits: what runs now comes after everything
  /// handed in before it.
  public var mayRunInline: Bool {
    lock.lock()
    defer { lock.unlock() }
    return isCurrentLocked && tasks.isEmpty
  }

  /// Runs the tasks handed in, and answers whether there were any.
  @discardableResult
  private func runTasks() -> Bool {
    // Tasks handed in while these run wait for the next round, so a task that hands in another
    // cannot keep the loop from its sockets.
    var ran = false
    for _ in 0..<4 {
      lock.lock()
      let batch = tasks
      tasks.removeAll(keepingCapacity: true)
      lock.unlock()
      if batch.isEmpty { break }
      ran = true
      for task in batch { task() }
    }
    return ran
  }

  // MARK: - Descriptors

  /// A descriptor watched by the loop; `update` changes what for, `cancel` stops watching.
  public final class Registration {
    fileprivate let token: UInt64
    public let fd: Int32
    private unowned let loop: EventLoop
    private var events: UInt32
    public private(set) var isCancelled = false

    fileprivate init(token: UInt64, fd: Int32, events: UInt32, loop: EventLoop) {
      self.token = token
      self.fd = fd
      self.events = events
      self.loop = loop
    }

    /// Watches for reading (with the peer's half-close) and for writing, as asked.
    public func update(read: Bool, write: Bool) {
      guard !isCancelled else { return }
      let wanted = Self.events(read: read, write: write)
      guard wanted != events else { return }
      events = wanted
      try? Posix.epollControl(loop.epoll, .modify, fd, events: wanted, token: token)
    }

    /// Stops watching; the descriptor may be closed as soon as this returns.
    public func cancel() {
      guard !isCancelled else { return }
      isCancelled = true
      try? Posix.epollControl(loop.epoll, .delete, fd, events: 0, token: token)
      loop.handlers.removeValue(forKey: token)
    }

    fileprivate static func events(read: Bool, write: Bool) -> UInt32 {
      var events: UInt32 = 0
      if read { events |= Posix.Readiness.input | Posix.Readiness.peerShutDown }
      if write { events |= Posix.Readiness.output }
      return events
    }
  }

  /// Watches `fd`; `handler` gets the `epoll` events (`EPOLLIN`, `EPOLLOUT`, `EPOLLHUP`, …).
  public func register(_ fd: Int32, read: Bool, write: Bool = false, handler: @escaping (UInt32) -> Void)
    throws(SystemError) -> Registration
  {
    let token = nextToken
    nextToken += 1
    let events = Registration.events(read: read, write: write)
    try Posix.epollControl(epoll, .add, fd, events: events, token: token)
    handlers[token] = handler
    return Registration(token: token, fd: fd, events: events, loop: self)
  }

  // MARK: - Timers

  /// A timer armed on the loop; `cancel` disarms it.
  public struct Timer: Hashable, Sendable {
    fileprivate let id: UInt64
  }

  /// Runs `action` once, `seconds` from now.
  @discardableResult
  public func schedule(after seconds: Double, _ action: @escaping () -> Void) -> Timer {
    Timer(id: timers.add(at: Posix.monotonicNow() + seconds, action))
  }

  public func cancel(_ timer: Timer) {
    timers.remove(timer.id)
  }

  private func runDueTimers() {
    let now = Posix.monotonicNow()
    while let action = timers.popDue(now: now) { action() }
  }

  // MARK: - End of a turn

  /// Adds work for the end of every turn, run in the order added; it answers whether it did
  /// anything, and the handlers run again (a few times at most) while any did.
  public func atEndOfTurn(_ handler: @escaping () -> Bool) {
    turnEndHandlers.append(handler)
  }

  private func endTurn() {
    for _ in 0..<8 {
      var worked = false
      for handler in turnEndHandlers where handler() { worked = true }
      // A task run here (a reply handed in from another thread) may leave work for the handlers:
      // the next turn does it without sleeping, or the reply would wait for the loop's next
      // wake-up. Not at once: what the next turn reads joins it (one commit, one send for all).
      if runTasks() { endOfTurnBusy = true }
      if !worked { return }
    }
    // Still busy after eight rounds: the next turn looks at the sockets without sleeping.
    endOfTurnBusy = true
  }

  /// Set when a turn ended with its end-of-turn work unfinished: the next turn does not sleep.
  private var endOfTurnBusy = false
}

extension TimerHeap {
  /// Milliseconds until the earliest live timer (rounded up), or -1 without one.
  mutating func timeout(now: Double) -> Int32 {
    guard let first = earliest() else { return -1 }
    let milliseconds = ((first.at - now) * 1000).rounded(.up)
    return Int32(max(0, min(milliseconds, Double(Int32.max))))
  }
}
