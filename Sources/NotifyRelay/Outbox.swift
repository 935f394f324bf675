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
  /// Published and not answered yet: when each was published (seconds on a monotonic clock).
  var unresolved: [String: Double] = [:]
  /// Acknowledged, not yet at the front.
  var acknowledged: Set<String> = []
  /// The first failure since the last restart.
  var failure: NATSError?

  /// The acknowledged messages at the front, removed: their ids, in order.
  mutating func takeAcknowledged() -> [Int] {
    let front = messages.prefix { acknowledged.remove($0.messageID) != nil }
    messages.removeFirst(front.count)
    // Those at the front may not all have been counted as sent: after a restart, the first is
    // published again while the ones behind it, acknowledged before, are skipped only when
    // `nextToSend` reaches them, and its answer can come first.
    sent = max(0, sent - front.count)
    return front.map(\.id)
  }

  /// The next to publish, marked as sent and unresolved since `now`, while fewer than `window` are out.
  mutating func nextToSend(window: Int, now: Double) -> OutgoingMessage? {
    while sent < min(window, messages.count), acknowledged.contains(messages[sent].messageID) { sent += 1 }
    guard sent < min(window, messages.count) else { return nil }
    let next = messages[sent]
    sent += 1
    unresolved[next.messageID] = now
    return next
  }

  /// Counts each message published before `deadline` and still unanswered as failed, and answers
  /// whether there was one: its answer was lost on the way (a publish once got neither its answer
  /// nor libnats' own timeout, and the outbox would have held that message, and once the window was
  /// full every one after it, until a reconnect). An answer that comes for it later changes
  /// nothing; it goes again after the restart, and the stream knows a copy by its id.
  mutating func expire(before deadline: Double, waited seconds: Double) -> Bool {
    let lost = unresolved.filter { $0.value < deadline }
    guard !lost.isEmpty else { return false }
    for messageID in lost.keys { unresolved[messageID] = nil }
    if failure == nil { failure = .noAnswer(after: seconds) }
    return true
  }

  /// The stream's answer for `messageID`: acknowledged, or failed (the first failure is kept). An
  /// answer for a message given up meanwhile changes nothing.
  mutating func resolve(_ messageID: String, _ error: NATSError?) {
    guard unresolved.removeValue(forKey: messageID) != nil else { return }
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
      unresolved[message.messageID] = nil
      acknowledged.remove(message.messageID)
    }
    return gone.map(\.id)
  }
}
