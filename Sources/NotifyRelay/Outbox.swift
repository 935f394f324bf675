import NotifyNATS
import NotifyProtocol

/// What waits to be published, in order: the first `sent` have been published (or skipped as
/// acknowledged already), and each message published is `unresolved` until the stream answers. A
/// message leaves it only once it and every one before it are acknowledged.
///
/// - Important: a value; `NoticeRelay` keeps it under its lock.
struct Outbox {
  var messages: [OutgoingMessage]
  var sent = 0
  var unresolved: Set<String> = []
  /// Acknowledged, not yet at the front.
  var acknowledged: Set<String> = []
  /// The first failure since the last restart.
  var failure: NATSError?

  /// The acknowledged messages at the front, removed: their ids, in order.
  mutating func takeAcknowledged() -> [Int] {
    let front = messages.prefix { acknowledged.remove($0.messageID) != nil }
    messages.removeFirst(front.count)
    sent -= front.count
    return front.map(\.id)
  }

  /// The next to publish, marked as sent and unresolved, while fewer than `window` are out.
  mutating func nextToSend(window: Int) -> OutgoingMessage? {
    while sent < min(window, messages.count), acknowledged.contains(messages[sent].messageID) { sent += 1 }
    guard sent < min(window, messages.count) else { return nil }
    let next = messages[sent]
    sent += 1
    unresolved.insert(next.messageID)
    return next
  }

  /// The stream's answer for `messageID`: acknowledged, or failed (the first failure is kept). An
  /// answer for a message given up meanwhile changes nothing.
  mutating func resolve(_ messageID: String, _ error: NATSError?) {
    guard unresolved.remove(messageID) != nil else { return }
    if let error {
      if failure == nil { failure = error }
    } else {
      acknowledged.insert(messageID)
    }
  }

  /// After a failure, with nothing unresolved: publish again from the front.
  mutating func restart() {
    failure = nil
    sent = 0
  }

  /// The oldest given up past `limit`: their ids.
  mutating func giveUp(beyond limit: Int) -> [Int] {
    guard messages.count > limit else { return [] }
    let gone = messages.prefix(messages.count - limit)
    messages.removeFirst(gone.count)
    sent = max(0, sent - gone.count)
    for message in gone {
      unresolved.remove(message.messageID)
      acknowledged.remove(message.messageID)
    }
    return gone.map(\.id)
  }
}
