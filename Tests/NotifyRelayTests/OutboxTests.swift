import NotifyNATS
import NotifyProtocol
import Testing

@testable import NotifyRelay

/// The relay's outbox as a value: published in order up to a window, leaving only once it and every
/// one before it are acknowledged, published again from the first unacknowledged after a failure.
@Suite("Outbox")
struct OutboxTests {
  private func messages(_ ids: ClosedRange<Int>) -> [OutgoingMessage] {
    ids.map { OutgoingMessage(id: $0, subject: "s", messageID: "h/s/\($0)", payload: "\($0)") }
  }

  /// Sends until the window is full; answers the ids sent.
  private func sendAll(_ outbox: inout Outbox, window: Int, now: Double = 0) -> [Int] {
    var sent: [Int] = []
    while let next = outbox.nextToSend(window: window, now: now) { sent.append(next.id) }
    return sent
  }

  @Test func publishesInOrder_upToTheWindow() {
    var outbox = Outbox(messages: messages(1...5))
    #expect(sendAll(&outbox, window: 3) == [1, 2, 3])
    #expect(Set(outbox.unresolved.keys) == ["h/s/1", "h/s/2", "h/s/3"])
    // Nothing leaves before its answer; an answer for the first lets one more go out.
    #expect(outbox.takeAcknowledged().isEmpty)
    outbox.resolve("h/s/1", nil)
    #expect(outbox.takeAcknowledged() == [1])
    #expect(sendAll(&outbox, window: 3) == [4])
  }

  @Test func aMessageLeaves_onlyOnceEveryOneBeforeItIsAcknowledged() {
    var outbox = Outbox(messages: messages(1...4))
    _ = sendAll(&outbox, window: 10)
    outbox.resolve("h/s/3", nil)
    outbox.resolve("h/s/2", nil)
    #expect(outbox.takeAcknowledged().isEmpty)
    outbox.resolve("h/s/1", nil)
    #expect(outbox.takeAcknowledged() == [1, 2, 3])
    #expect(outbox.messages.map(\.id) == [4])
    outbox.resolve("h/s/4", nil)
    #expect(outbox.takeAcknowledged() == [4])
    #expect(outbox.messages.isEmpty && outbox.unresolved.isEmpty && outbox.acknowledged.isEmpty)
  }

  @Test func afterAFailure_whatIsNotAcknowledgedGoesAgainInOrder_andAcknowledgedOnesAreSkipped() {
    var outbox = Outbox(messages: messages(1...4))
    _ = sendAll(&outbox, window: 10)
    outbox.resolve("h/s/2", NATSError("timeout"))
    outbox.resolve("h/s/4", NATSError("later failure"))
    outbox.resolve("h/s/3", nil)
    // The first failure is kept; the relay waits until nothing is unresolved, then restarts.
    #expect(outbox.failure?.description == "timeout")
    #expect(Set(outbox.unresolved.keys) == ["h/s/1"])
    outbox.resolve("h/s/1", nil)
    #expect(outbox.takeAcknowledged() == [1])
    outbox.restart()
    #expect(outbox.failure == nil)
    #expect(sendAll(&outbox, window: 10) == [2, 4])
    outbox.resolve("h/s/2", nil)
    outbox.resolve("h/s/4", nil)
    #expect(outbox.takeAcknowledged() == [2, 3, 4])
  }

  /// After a restart the first goes again alone, and its answer can come before `nextToSend` skips
  /// the acknowledged ones behind it: all three leave at once, and the outbox goes on (it counted
  /// sent below zero, and the next `nextToSend` read `messages[-2]`).
  @Test func afterARestart_anAnswerBeforeTheAcknowledgedOnesAreSkipped_takesThemAll() {
    var outbox = Outbox(messages: messages(1...4))
    _ = sendAll(&outbox, window: 10)
    outbox.resolve("h/s/1", NATSError("timeout"))
    outbox.resolve("h/s/2", nil)
    outbox.resolve("h/s/3", nil)
    outbox.resolve("h/s/4", NATSError("timeout"))
    outbox.restart()
    #expect(outbox.nextToSend(window: 10, now: 1)?.id == 1)
    outbox.resolve("h/s/1", nil)
    #expect(outbox.takeAcknowledged() == [1, 2, 3])
    #expect(outbox.sent == 0)
    #expect(sendAll(&outbox, window: 10) == [4])
    outbox.resolve("h/s/4", nil)
    #expect(outbox.takeAcknowledged() == [4])
    #expect(outbox.messages.isEmpty && outbox.unresolved.isEmpty && outbox.acknowledged.isEmpty)
  }

  @Test func anAnswerThatNeverComes_countsAsAFailureOnceItsWaitIsOver_andTheMessageGoesAgain() {
    var outbox = Outbox(messages: messages(1...3))
    #expect(sendAll(&outbox, window: 10, now: 100) == [1, 2, 3])
    outbox.resolve("h/s/2", nil)
    outbox.resolve("h/s/3", nil)
    // Number 1's answer was lost: nothing leaves, and before its wait is over nothing fails.
    let early = outbox.expire(before: 100, waited: 10)
    #expect(!early && outbox.failure == nil && outbox.takeAcknowledged().isEmpty)
    let late = outbox.expire(before: 100.5, waited: 10)
    #expect(late)
    #expect(outbox.failure?.isTimeout == true && outbox.unresolved.isEmpty)
    // Its answer, late, changes nothing; after the restart it goes again, alone, and then all leave.
    outbox.resolve("h/s/1", nil)
    #expect(outbox.takeAcknowledged().isEmpty)
    outbox.restart()
    #expect(sendAll(&outbox, window: 10, now: 200) == [1])
    outbox.resolve("h/s/1", nil)
    #expect(outbox.takeAcknowledged() == [1, 2, 3])
  }

  @Test func anAnswerForNothingSent_changesNothing() {
    var outbox = Outbox(messages: messages(1...2))
    outbox.resolve("h/s/1", nil)
    outbox.resolve("h/s/9", NATSError("stray"))
    #expect(outbox.takeAcknowledged().isEmpty)
    #expect(outbox.failure == nil)
  }

  @Test func givingUpTheOldest_pastTheBound_forgetsTheirAnswers() {
    var outbox = Outbox(messages: messages(1...6))
    _ = sendAll(&outbox, window: 3)
    outbox.resolve("h/s/2", nil)
    #expect(outbox.giveUp(beyond: 4) == [1, 2])
    #expect(outbox.messages.map(\.id) == [3, 4, 5, 6])
    #expect(Set(outbox.unresolved.keys) == ["h/s/3"] && outbox.acknowledged.isEmpty)
    // An answer for one given up is ignored; publishing goes on after those still out.
    outbox.resolve("h/s/1", nil)
    #expect(outbox.takeAcknowledged().isEmpty)
    #expect(sendAll(&outbox, window: 3) == [4, 5])
    #expect(outbox.giveUp(beyond: 10).isEmpty)
  }
}
