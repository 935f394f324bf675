import NotifyCore
import NotifyProtocol
import NotifySupport

/// Answers one call, now or later, from any thread: replies go out on the connection the call came
/// in on, in the order the calls came (`Connection` keeps a slot per call).
///
/// On the event loop's thread, with nothing handed in before it, a reply goes straight into the
/// connection's output; from any other thread it waits in the responder's mailbox, and one task on
/// the loop hands over every reply that gathered there (a watcher's run of events), in order.
///
/// - Important: a call is complete after its final reply (`continues` false) or an error. Whatever a
///   call holds (a subscription, a wait) must be released in `onClose`: the connection calls it when
///   it closes, oneway calls included.
public final class Responder: Sendable {
  /// A reply: bytes encoded at once, or a long reply encoded as the client reads.
  enum Body: Sendable {
    case bytes([UInt8])
    case stream(any ReplyStream)
  }

  /// Whether the caller asked for more than one reply (`Watch`).
  public let more: Bool
  /// Whether the caller asked for no reply: what is sent is dropped.
  public let oneway: Bool
  private let call: Int
  private let loop: EventLoop
  private let connection: Connection
  /// Replies sent from other threads, waiting for one task on the loop to hand them over.
  private let mailbox = Locked<(replies: [(Body, Bool)], handedOver: Bool)>(([], false))
  private let closeHandlers = Locked<(closed: Bool, handlers: [@Sendable () -> Void])>((false, []))

  init(call: Int, more: Bool, oneway: Bool, connection: Connection, loop: EventLoop) {
    self.call = call
    self.more = more
    self.oneway = oneway
    self.connection = connection
    self.loop = loop
  }

  /// Sends a reply already framed (JSON and its NUL); `continues` keeps the call open for more.
  public func reply(_ bytes: [UInt8], continues: Bool = false) {
    send(.bytes(bytes), final: !continues)
  }

  /// Sends `parameters` as a reply.
  public func reply(_ parameters: some WireEncodable, continues: Bool = false) {
    send(.bytes(VarlinkReplyFrame.encode(parameters, continues: continues)), final: !continues)
  }

  /// Answers with an error; the call is complete.
  public func fail(_ error: VarlinkError) {
    send(.bytes(VarlinkReplyFrame.encode(error)), final: true)
  }

  /// Sends a long reply, encoded piece by piece as the client reads it; `continues` keeps the call
  /// open for more.
  public func reply(streaming stream: some ReplyStream, continues: Bool = false) {
    send(.stream(stream), final: !continues)
  }

  /// Where a reply goes: straight into the connection, or into the mailbox — handing the loop a
  /// task for it, or joining the replies a task already waits to deliver.
  private enum Route {
    case inline, handOver, queued
  }

  private func send(_ body: Body, final: Bool) {
    let route = mailbox.withLock { mailbox -> Route in
      if mailbox.replies.isEmpty && !mailbox.handedOver && loop.mayRunInline { return .inline }
      mailbox.replies.append((body, final))
      if mailbox.handedOver { return .queued }
      mailbox.handedOver = true
      return .handOver
    }
    switch route {
    case .inline: connection.replied(call, body, final: final)
    case .handOver: loop.execute { [self] in deliverMailbox() }
    case .queued: break
    }
  }

  /// Hands the connection every reply that waited in the mailbox, in order: one task on the loop
  /// for a whole run of them (a watcher's events), not one per reply.
  private func deliverMailbox() {
    let replies = mailbox.withLock { mailbox in
      mailbox.handedOver = false
      defer { mailbox.replies = [] }
      return mailbox.replies
    }
    for (body, final) in replies { connection.replied(call, body, final: final) }
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
