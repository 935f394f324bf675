import Dispatch
import NotifyCore

/// Answers one call, now or later, from any thread: replies hop to the server's queue and go out
/// on the connection the call came in on, in order.
///
/// - Important: a call is complete after its final reply (`continues` false) or an error; only
///   then does the connection take up the next pipelined call. Whatever a call holds (a
///   subscription, a wait) must be released in `onClose`: the connection calls it when it closes,
///   oneway calls included.
public final class Responder: Sendable {
  /// A reply: bytes encoded at once, or a long reply encoded as the client reads.
  enum Body: Sendable {
    case bytes([UInt8])
    case stream(any ReplyStream)
  }

  private let queue: DispatchQueue
  private let send: @Sendable (Body, Bool) -> Void
  private let closeHandlers = Locked<(closed: Bool, handlers: [@Sendable () -> Void])>((false, []))

  init(queue: DispatchQueue, send: @escaping @Sendable (Body, Bool) -> Void) {
    self.queue = queue
    self.send = send
  }

  /// Sends a reply; `continues` keeps the call open for more.
  public func reply(_ bytes: [UInt8], continues: Bool = false) {
    queue.async { [send] in send(.bytes(bytes), !continues) }
  }

  /// Sends a long reply, encoded piece by piece as the client reads it; `continues` keeps the call
  /// open for more.
  public func reply(streaming stream: some ReplyStream, continues: Bool = false) {
    queue.async { [send] in send(.stream(stream), !continues) }
  }

  /// Runs `handler` once the connection closes (at once if it already has), to release what the
  /// call holds, such as a subscription.
  public func onClose(_ handler: @escaping @Sendable () -> Void) {
    let closed = closeHandlers.withLock { state -> Bool in
      if !state.closed { state.handlers.append(handler) }
      return state.closed
    }
    if closed { handler() }
  }

  /// Called by the connection when it closes.
  func connectionClosed() {
    let handlers = closeHandlers.withLock { state -> [@Sendable () -> Void] in
      state.closed = true
      defer { state.handlers = [] }
      return state.handlers
    }
    for handler in handlers { handler() }
  }
}

/// Something that answers Varlink calls: the daemon's methods.
public protocol VarlinkService: Sendable {
  /// Handles one call. Reply through `responder`, now or later; a `oneway` call's replies are dropped.
  func handle(_ call: CallHeaderInfo, message: [UInt8], responder: Responder)
}

/// The parts of a call's envelope a service needs.
public struct CallHeaderInfo: Sendable {
  public var method: String
  public var more: Bool
  public var oneway: Bool
}
