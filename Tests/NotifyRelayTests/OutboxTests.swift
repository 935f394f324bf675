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
  private func sendAll(_ outbox: inout Outbox, window: Int) -> [Int] {
    var sent: [Int] = []
    while let next = outbox.nextToSend(window: window) { sent.append(next.id) }
    return sent
  }

  @Test func publishesInOrder_upToTheWindow() {
    var outbox = Outbox(messages: messages(1...5))
    #expect(sendAll(&outbox, window: 3) == [1, 2, 3])
    #expect(outbox.unresolved == ["h/s/1", "h/s/2", "h/s/3"])
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
    #expect(outbox.unresolved == ["h/s/1"])
    outbox.resolve("h/s/1", nil)
    #expect(outbox.takeAcknowledged() == [1])
    outbox.restart()
    #expect(outbox.failure == nil)
    #expect(sendAll(&outbox, window: 10) == [2, 4])
    outbox.resolve("h/s/2", nil)
    outbox.resolve("h/s/4", nil)
    #expect(outbox.takeAcknowledged() == [2, 3, 4])
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
    #expect(outbox.unresolved == ["h/s/3"] && outbox.acknowledged.isEmpty)
    // An answer for one given up is ignored; publishing goes on after those still out.
    outbox.resolve("h/s/1", nil)
    #expect(outbox.takeAcknowledged().isEmpty)
    #expect(sendAll(&outbox, window: 3) == [4, 5])
    #expect(outbox.giveUp(beyond: 10).isEmpty)
  }
}
