import Foundation
import NotifyCore
import NotifyProtocol
import NotifyService
import NotifySupport
import NotifyTestSupport
import Testing

/// "Commit, then reply; withdraw on failure", the one rule every front end goes through.
@Suite("NoticeService")
struct NoticeServiceTests {
  /// A journal whose commits the test carries out by hand: `commit(failing:)` answers every `sync`
  /// made since the last one.
  final class ManualJournal: NoticeJournal, @unchecked Sendable {
    // @unchecked: `waiting` is guarded by `lock`.
    private let lock = NSLock()
    private var waiting: [@Sendable ((any Error)?) -> Void] = []
    var syncs: Int {
      lock.lock()
      defer { lock.unlock() }
      return waiting.count
    }

    func recordUnfinished(_ notice: Notice) {}
    func recordFinished(_ notice: Notice) {}
    func recordForgotten(_ id: Int) {}
    func recordHand(_ choice: HandChoice?) {}
    func recordNextID(_ nextID: Int) {}
    func sync(_ completion: @escaping @Sendable ((any Error)?) -> Void) {
      lock.lock()
      waiting.append(completion)
      lock.unlock()
    }

    struct DiskFull: Error, CustomStringConvertible {
      var description: String { "database or disk is full" }
    }

    func commit(failing: Bool) {
      lock.lock()
      let completions = waiting
      waiting = []
      lock.unlock()
      for completion in completions { completion(failing ? DiskFull() : nil) }
    }
  }

  /// What a `done` was called with, if it was.
  final class Outcome<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `result` is guarded by `lock`.
    private let lock = NSLock()
    private var stored: Result<Value, ServiceError>?
    var result: Result<Value, ServiceError>? {
      lock.lock()
      defer { lock.unlock() }
      return stored
    }
    func record(_ result: Result<Value, ServiceError>) {
      lock.lock()
      stored = result
      lock.unlock()
    }
  }

  func make() -> (NoticeService, ManualJournal) {
    let journal = ManualJournal()
    let queue = NoticeQueue(scheduler: ManualScheduler(), journal: journal)
    return (NoticeService(queue: queue, journal: journal), journal)
  }

  @Test func aChange_isAnswered_onlyOnceCommitted() throws {
    let (service, journal) = make()
    let outcome = Outcome<Int>()
    let id = service.show(ShowParameters(title: "t"), done: outcome.record)
    #expect(id != nil)
    #expect(outcome.result == nil, "answered before the commit")
    journal.commit(failing: false)
    #expect(try outcome.result?.get() == id)
  }

  @Test func aNewNotice_theStoreCouldNotKeep_isWithdrawn_andTheCallerTold() throws {
    let (service, journal) = make()
    let outcome = Outcome<Int>()
    let id = try #require(service.show(ShowParameters(title: "t", delay: 5), done: outcome.record))
    journal.commit(failing: true)
    #expect(outcome.result == .failure(.storeFailed(reason: "database or disk is full")))
    #expect(try service.notices.get(id).outcome == .cancelled)
  }

  @Test func anExistingIndicator_isNotWithdrawn_whenTheCommitOfItsUpdateFails() throws {
    let (service, journal) = make()
    let first = Outcome<ProgressReply>()
    let created = try #require(service.progress(ProgressParameters(title: "p", key: "k"), done: first.record))
    journal.commit(failing: false)
    let again = Outcome<ProgressReply>()
    service.progress(ProgressParameters(title: "p2", key: "k"), done: again.record)
    journal.commit(failing: true)
    #expect(again.result == .failure(.storeFailed(reason: "database or disk is full")))
    #expect(try service.notices.get(created.id).outcome == nil, "the indicator goes on")
  }

  @Test func aRefusedChange_isAnsweredAtOnce_withoutACommit() {
    let (service, journal) = make()
    let outcome = Outcome<Int>()
    #expect(
      service.show(ShowParameters(title: String(repeating: "x", count: 2000)), done: outcome.record) == nil)
    #expect(outcome.result == .failure(.queue(.invalidArgument(field: "title", reason: "longer than 1 KiB"))))
    #expect(journal.syncs == 0)
  }

  @Test func history_comesFromTheEngine_andRefusesANegativeLimit() throws {
    let (service, journal) = make()
    let outcome = Outcome<[Int]>()
    let id = try #require(service.show(ShowParameters(title: "t", delay: 5)) { _ in })
    service.cancel(CancelParameters(id: id), done: outcome.record)
    journal.commit(failing: false)
    #expect(try service.history(HistoryParameters()).map(\.id) == [id])
    #expect(throws: QueueError.invalidArgument(field: "limit", reason: "must not be negative")) {
      try service.history(HistoryParameters(limit: -1))
    }
  }

  /// A change nobody waits on (a click, a key, a signal from the bus) is never dropped: a store that
  /// could not commit it is a warning, a refusal is logged at the level its caller expects, and what
  /// it did reaches `succeeded`.
  @Test func aChangeNobodyWaitsOn_logsItsFailure_atTheLevelItMerits() throws {
    let (service, journal) = make()
    let sink = RecordingSink()
    let log = sink.logger(at: .debug)
    let done = Locked<[Int]>([])
    let kept = try #require(service.show(ShowParameters(title: "kept", delay: 5)) { _ in })
    journal.commit(failing: false)
    service.cancel(
      CancelParameters(id: kept),
      done: logFailure(of: "cancelling \(kept)", to: log) { cancelled in done.withLock { $0 += cancelled } })
    journal.commit(failing: true)
    service.dismiss(DismissParameters(id: 99), done: logFailure(of: "dismissing 99", to: log))
    service.cancel(CancelParameters(id: 98), done: logFailure(of: "cancelling 98", to: log, refused: .debug))
    let later = try #require(service.show(ShowParameters(title: "later", delay: 5)) { _ in })
    journal.commit(failing: false)
    service.cancel(
      CancelParameters(id: later),
      done: logFailure(of: "cancelling \(later)", to: log) { cancelled in done.withLock { $0 += cancelled } })
    journal.commit(failing: false)
    #expect(
      sink.lines == [
        .init(.warning, "cancelling \(kept): not kept: database or disk is full"),
        .init(.notice, "dismissing 99: no notice 99"), .init(.debug, "cancelling 98: no notice 98"),
      ])
    #expect(done.withLock { $0 } == [later], "a change that failed reached `succeeded`")
  }
}
