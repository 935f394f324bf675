import Foundation
import NotifyCore
import NotifyProtocol
import NotifyTestSupport
import Testing

/// A journal that keeps what the engine told it in memory, as the store would before committing.
final class MemoryJournal: NoticeJournal {
  struct Contents {
    var unfinished: [Int: Notice] = [:]
    var finished: [Notice] = []
    var hand: [HandChoice?] = []
    var nextID = 1
    var forgotten: [Int] = []
  }
  let contents = Protected(Contents())

  func recordUnfinished(_ notice: Notice) { contents.withLock { $0.unfinished[notice.id] = notice } }
  func recordFinished(_ notice: Notice) {
    contents.withLock {
      $0.unfinished[notice.id] = nil
      $0.finished.append(notice)
    }
  }
  func recordHand(_ choice: HandChoice?) {
    contents.withLock { $0.hand.append(choice) }
  }
  func recordNextID(_ nextID: Int) { contents.withLock { $0.nextID = nextID } }
  func recordForgotten(_ id: Int) { contents.withLock { $0.forgotten.append(id) } }
  func sync(_ completion: @escaping @Sendable ((any Error)?) -> Void) { completion(nil) }

  var snapshot: Contents { contents.withLock { $0 } }
}

/// Durability (DESIGN §2): what the engine writes to its journal, and how `restore` brings a queue
/// back after a restart — absolute due times, visible notices fading in again, history, ids never
/// reused, and the suspended state.
@Suite("NoticeQueue journal and restore")
struct NoticeQueueJournalTests {
  static let epoch = 1_800_000_000.0

  // MARK: - What the engine records

  @Test func journal_recordsAcceptedChangedAndFinishedNotices_andTheNextId() throws {
    let journal = MemoryJournal()
    let queue = NoticeQueue(scheduler: ManualScheduler(), journal: journal)
    let id = try queue.show(ShowParameters(title: "first", delay: 5))
    #expect(journal.snapshot.unfinished[id]?.title == "first")
    #expect(journal.snapshot.nextID == id + 1)
    _ = try queue.update(UpdateParameters(id: id, title: "second"))
    #expect(journal.snapshot.unfinished[id]?.title == "second")
    _ = try queue.cancel(CancelParameters(id: id))
    let finished = journal.snapshot.finished
    #expect(finished.map(\.id) == [id])
    #expect(finished.first?.outcome == .cancelled)
    #expect(journal.snapshot.unfinished.isEmpty)
  }

  @Test func journal_forgetsWhatLeavesHistory_oldestFirst() throws {
    let journal = MemoryJournal()
    var settings = QueueSettings()
    settings.historySize = 2
    let queue = NoticeQueue(settings: settings, scheduler: ManualScheduler(), journal: journal)
    var ids: [Int] = []
    for title in ["a", "b", "c", "d"] {
      let id = try queue.show(ShowParameters(title: title, delay: 5))
      _ = try queue.cancel(CancelParameters(id: id))
      ids.append(id)
    }
    #expect(journal.snapshot.forgotten == [ids[0], ids[1]])
    #expect(queue.history().map(\.id) == [ids[3], ids[2]])
  }

  @Test func journal_recordsSuspendAndResume() throws {
    let journal = MemoryJournal()
    let queue = NoticeQueue(scheduler: ManualScheduler(), journal: journal)
    try queue.suspend(for: 5)
    queue.resume()
    #expect(journal.snapshot.hand == [.suspended(allow: .critical, until: Self.epoch + 5), nil])
  }

  // MARK: - Restoring

  static func saved(
    id: Int, title: String = "saved", created: Double, delay: Double = 0, phase: Phase = .waiting,
    key: String? = nil
  ) -> Notice {
    Notice(
      id: id, kind: .notice, title: title, key: key, delay: delay, fadeIn: 1, hold: 2, fadeOut: 1,
      easeIn: .linear, easeOut: .linear, phase: phase, created: created)
  }

  @Test func restore_keepsDueTimesAbsolute() throws {
    let h = QueueHarness()
    // Accepted 1 s before the restart with a 3 s delay: due 2 s after it.
    h.queue.restore(
      JournalState(unfinished: [Self.saved(id: 4, created: Self.epoch - 1, delay: 3)], nextID: 5))
    #expect(h.phase(4) == .waiting)
    h.advance(to: 1.999)
    // Only the due timer moves a waiting notice, and it runs on the manual clock.
    #expect(h.phase(4) == .waiting)
    h.advance(to: 2)
    #expect(h.waitUntilShown(4))
    #expect(h.recorder.events(for: 4).first { $0.phase == .fadingIn }?.at == Self.epoch + 2)
  }

  @Test func restore_noticeThatWasVisible_startsItsFadeInAgain_inAcceptedOrder() throws {
    let h = QueueHarness()
    h.queue.restore(
      JournalState(
        unfinished: [
          Self.saved(id: 7, title: "was visible", created: Self.epoch - 60, phase: .holding),
          Self.saved(id: 8, title: "was queued", created: Self.epoch - 59, phase: .queued),
        ], nextID: 9))
    #expect(h.waitUntilShown(7))
    #expect(h.phase(7) == .fadingIn)
    #expect(h.opacity(7) == 0)
    #expect(h.phase(8) == .queued)
    h.advance(to: 4)
    #expect(try h.queue.get(7).outcome == .completed)
    #expect(h.waitUntilShown(8))
  }

  @Test func restore_bringsBackHistory_andIdsAreNeverReused() throws {
    var finished = Self.saved(id: 3, created: Self.epoch - 100)
    finished.phase = .finished
    finished.outcome = .completed
    let h = QueueHarness()
    h.queue.restore(
      JournalState(
        unfinished: [Self.saved(id: 12, created: Self.epoch - 5, delay: 50)], history: [finished], nextID: 10)
    )
    #expect(try h.queue.get(3).outcome == .completed)
    #expect(h.queue.history().map(\.id) == [3])
    let id = try h.show(delay: 1)
    #expect(id == 13)  // past both the saved next id and every restored id
  }

  @Test func restore_trimsHistoryToHistorySize() throws {
    var settings = QueueSettings()
    settings.historySize = 2
    let h = QueueHarness(settings: settings)
    let history = (1...4).map { id -> Notice in
      var notice = Self.saved(id: id, created: Self.epoch - 100)
      notice.phase = .finished
      notice.outcome = .cancelled
      return notice
    }
    h.queue.restore(JournalState(history: history, nextID: 5))
    #expect(h.queue.history().map(\.id) == [4, 3])
    #expect(throws: QueueError.noSuchNotice(id: 1)) { try h.queue.get(1) }
  }

  @Test func restore_suspendedState_survives_andATimedResumeStillHappens() throws {
    let h = QueueHarness()
    h.queue.restore(
      JournalState(
        unfinished: [Self.saved(id: 1, created: Self.epoch - 10)], nextID: 2,
        hand: .suspended(allow: .critical, until: Self.epoch + 4)))
    let status = h.queue.status()
    #expect(status.suspended)
    #expect(status.suspendedUntil == Self.epoch + 4)
    h.advance(to: 3.999)
    letLanesRun(h.queue)
    #expect(h.phase(1) == .queued)
    h.advance(to: 4)
    #expect(h.waitUntilShown(1))
    #expect(!h.queue.status().suspended)
  }

  @Test func restore_suspensionThatEndedWhileDown_isOver() throws {
    let journal = MemoryJournal()
    let clock = ManualScheduler()
    let queue = NoticeQueue(scheduler: clock, journal: journal)
    queue.restore(JournalState(nextID: 1, hand: .suspended(allow: .critical, until: Self.epoch - 1)))
    #expect(!queue.status().suspended)
    #expect(journal.snapshot.hand.last == .some(nil))
  }

  @Test func restore_keys_stillReplace() throws {
    let h = QueueHarness()
    h.queue.restore(
      JournalState(unfinished: [Self.saved(id: 5, created: Self.epoch, delay: 30, key: "build")], nextID: 6))
    let new = try h.show("rebuilt", key: "build")
    #expect(new == 6)
    #expect(try h.queue.get(5).outcome == .replaced)
  }
}
