import Foundation
import NotifyCore
import NotifyProtocol
import Testing

/// The operation as the unit of work on an `OperationQueue`: it reports its start, finishes when
/// told, and never finishes before its queue started it.
@Suite("NotificationOperation on an OperationQueue")
struct NotificationOperationTests {
  final class Log: Sendable {
    let started = Protected<[Int]>([])
    let cancelled = Protected<[Int]>([])
  }

  func makeOperation(_ id: Int, _ log: Log) -> NotificationOperation {
    NotificationOperation(
      noticeID: id, onStart: { op in log.started.withLock { $0.append(op.noticeID) } },
      onCancel: { op in log.cancelled.withLock { $0.append(op.noticeID) } })
  }

  @Test func theQueueStartsIt_itReportsTheStart_andRunsUntilFinished() {
    let log = Log()
    let queue = OperationQueue()
    let operation = makeOperation(1, log)
    queue.addOperation(operation)
    #expect(eventually { log.started.withLock { $0 } == [1] })
    #expect(operation.isExecuting && !operation.isFinished)
    operation.finish()
    #expect(operation.isFinished && !operation.isExecuting)
    #expect(eventually { queue.operationCount == 0 })
  }

  @Test func finishedBeforeItsQueueStartedIt_itFinishesAtStart_withoutReportingAStart() {
    let log = Log()
    let queue = OperationQueue()
    queue.isSuspended = true
    let operation = makeOperation(2, log)
    queue.addOperation(operation)
    operation.finish()
    #expect(!operation.isFinished)  // never before the queue started it
    queue.isSuspended = false
    #expect(eventually { operation.isFinished })
    #expect(queue.operationCount == 0 || eventually { queue.operationCount == 0 })
    #expect(log.started.withLock { $0 }.isEmpty)
  }

  @Test func aFinishFromInsideItsStartReport_finishesItOnceTheStartIsPosted() {
    let queue = OperationQueue()
    let box = Protected<NotificationOperation?>(nil)
    let operation = NotificationOperation(noticeID: 3, onStart: { op in op.finish() })
    box.withLock { $0 = operation }
    queue.addOperation(operation)
    #expect(eventually { operation.isFinished })
    #expect(eventually { queue.operationCount == 0 })
  }

  @Test func cancel_asksItsOwnerToCloseTheNotice() {
    let log = Log()
    let operation = makeOperation(4, log)
    operation.cancel()
    #expect(operation.isCancelled)
    #expect(log.cancelled.withLock { $0 } == [4])
  }

  @Test func aQueueOfWidthTwo_runsTwoAtOnce_theThirdWhenOneFinishes() {
    let log = Log()
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 2
    let operations = (1...3).map { makeOperation($0, log) }
    for operation in operations { queue.addOperation(operation) }
    #expect(eventually { log.started.withLock { $0.count } == 2 })
    #expect(!log.started.withLock { $0 }.contains(3))
    operations[0].finish()
    #expect(eventually { log.started.withLock { $0 }.contains(3) })
    for operation in operations { operation.finish() }
    #expect(eventually { queue.operationCount == 0 })
  }
}
