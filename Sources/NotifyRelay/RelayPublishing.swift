import NotifyProtocol

/// What this host publishes as its store commits notices (DESIGN §10): each new notice accepted
/// here (not a progress indicator, and only with `[Relay] Publish=yes`), under the message id
/// `host/store/id`, with the next place in the store's publishing sequence; and for a notice
/// relayed here that finished, the answer to its origin, whether or not this host publishes its
/// own. The store asks in the transaction that keeps the notice, so a message is queued exactly
/// when its notice is committed, and the sequence is kept with it.
public struct RelayPublishing: Sendable {
  public var place: RelayPlace
  /// `[Relay] Publish=`: this host's own notices go out.
  public var publishesNotices: Bool

  public init(place: RelayPlace, publishesNotices: Bool) {
    self.place = place
    self.publishesNotices = publishesNotices
  }

  /// The message to queue for `notice`, written by a commit: `isNew` when the store had not
  /// committed it before, `finished` when it finished in this commit. `sequence` is the place of
  /// the last notice the store published; a notice published here takes the next.
  public func message(for notice: Notice, isNew: Bool, finished: Bool, sequence: inout Int)
    -> OutgoingMessage?
  {
    if let origin = notice.origin {
      guard finished, let outcome = notice.outcome else { return nil }
      let answer = RelayAnswer(
        host: place.host, store: place.store, to: origin, outcome: outcome, invoked: notice.invoked,
        replied: notice.replied)
      return OutgoingMessage(
        id: notice.id, subject: place.subjects.answers(to: origin.host),
        messageID: "answer/\(place.host)/\(place.store)/\(notice.id)",
        payload: String(decoding: answer.encoded(), as: UTF8.self))
    }
    guard publishesNotices, isNew, notice.kind == .notice else { return nil }
    sequence += 1
    let message = RelayNotice(
      origin: NoticeOrigin(
        host: place.host, store: place.store, id: notice.id, sent: notice.created, sequence: sequence),
      notice: ShowParameters(relaying: notice))
    return OutgoingMessage(
      id: notice.id, subject: place.subjects.notices(from: place.host), messageID: message.messageID,
      payload: String(decoding: message.encoded(), as: UTF8.self))
  }
}
