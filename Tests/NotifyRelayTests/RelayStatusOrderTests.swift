import Foundation
import NotifyConfig
import NotifyCore
import NotifyProtocol
import NotifyService
import NotifySupport
import NotifyTestSupport
import Testing

@testable import NotifyRelay

/// What the relay tells `Status` arrives in the order it changed, from whichever thread: the
/// committer's "2 to publish" once reached `Status` after the publishing thread's "0", and the
/// daemon said 2 were waiting for good (a TSan run of test_relay, 30 s of `outbox: 2`).
@Suite("NoticeRelay's state")
struct RelayStatusOrderTests {
  private func messages(_ ids: ClosedRange<Int>) -> [OutgoingMessage] {
    ids.map { OutgoingMessage(id: $0, subject: "s", messageID: "h/s/\($0)", payload: "\($0)") }
  }

  @Test func aChangeToldLate_doesNotOvertakeALaterOne() {
    var settings = RelaySettings()
    settings.urls = ["nats://127.0.0.1:1"]
    // What reached `Status`, in order (the daemon's onChange hands it to the queue).
    let told = Locked<[Int]>([])
    let calls = Locked(0)
    let relay = NoticeRelay(
      settings: settings,
      place: RelayPlace(host: "h", store: "s", subjects: RelaySubjects(base: "notifyd.t")),
      service: NoticeService(queue: NoticeQueue(scheduler: ManualScheduler()), journal: nil),
      outbox: [], marks: [:], log: Logger(level: .error, sink: DiscardingSink()), onPublished: { _ in },
      onChange: { state in
        // The first change is told slowly (its thread preempted on the way): a later one, from
        // another thread, comes meanwhile and must not overtake it.
        if calls.withLock({ calls in
          calls += 1
          return calls == 1
        }) {
          usleep(300_000)
        }
        told.withLock { $0.append(state.outbox) }
      })
    let committer = Thread { relay.enqueue(messages(1...1)) }
    committer.start()
    while calls.withLock({ $0 }) == 0 { usleep(1000) }
    relay.enqueue(messages(2...2))
    while told.withLock({ $0.count }) < 2 { usleep(1000) }
    #expect(told.withLock { $0 } == [1, 2])
    #expect(relay.state.outbox == 2)
  }
}
