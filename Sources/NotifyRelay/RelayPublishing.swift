import NotifyProtocol

/// What this host publishes as its store commits notices (DESIGN §10): each new notice accepted
/// here (not a progress indicator, and only with `[Relay] Publish=yes`), under the message id
/// `host/store/id`; and for a notice relayed here that finished, the answer to its origin, whether
/// or not this host publishes its own. The store asks in the transaction that keeps the notice, so
/// a message is queued exactly when its notice is committed.
public struct RelayPublishing: Sendable {
  public var place: RelayPlace
  /// `[Relay] Publish=`: this host's own notices go out.
  public var publishesNotices: Bool

  public init(place: RelayPlace, publishesNotices: Bool) {
    self.place = place
    self.publishesNotices = publishesNotices
  }

  /// The message to queue for `notice`, written by a commit: `isNew` when the store had not
  /// committed it before, `finished` when it finished in this commit.
  public func message(for notice: Notice, isNew: Bool, finished: Bool) -> OutgoingMessage? {
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
    let message = RelayNotice(
      origin: NoticeOrigin(host: place.host, store: place.store, id: notice.id, sent: notice.created),
      notice: ShowParameters(relaying: notice))
    return OutgoingMessage(
      id: notice.id, subject: place.subjects.notices(from: place.host), messageID: message.messageID,
      payload: String(decoding: message.encoded(), as: UTF8.self))
  }
}
