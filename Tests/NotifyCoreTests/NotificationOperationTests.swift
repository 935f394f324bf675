import Foundation
import NotifyCore
import NotifyProtocol
import Testing

/// What an operation reported, and the manual instant it reported it at.
struct Report: Sendable, Equatable {
  var at: Double
  var transition: NotificationOperation.Transition
}

final class ReportLog: Sendable {
  private let reports = Protected<[Report]>([])
  func append(_ report: Report) { reports.withLock { $0.append(report) } }
  var all: [Report] { reports.withLock { $0 } }
  var finishes: [Report] {
    all.filter { if case .finished = $0.transition { return true } else { return false } }
  }
}

/// The operation on its own, started by hand (as a lane would) and driven by a manual clock.
@Suite("NotificationOperation on a manual clock")
struct NotificationOperationTests {
  let clock = ManualScheduler()
  let log = ReportLog()

  func makeOperation(
    fadeIn: Double = 1, hold: Double? = 2, fadeOut: Double = 1, holdExpiryOutcome: Outcome = .completed
  ) -> NotificationOperation {
    let clock = self.clock
    let log = self.log
    return NotificationOperation(
      noticeID: 7,
      timing: Timeline.Timing(
        fadeIn: fadeIn, hold: hold, fadeOut: fadeOut, easeIn: .linear, easeOut: .linear),
      holdExpiryOutcome: holdExpiryOutcome, scheduler: clock
    ) { _, transition in
      log.append(Report(at: clock.now, transition: transition))
    }
  }

  @Test func start_reportsEachPhaseExactlyAtItsBoundary_thenCompletes() {
    clock.advance(to: 10)
    let operation = makeOperation(fadeIn: 1, hold: 2, fadeOut: 1)
    operation.start()
    #expect(operation.isExecuting)
    #expect(log.all.isEmpty)  // reported from the scheduler, not inside start()
    clock.advance(by: 0)
    #expect(log.all == [Report(at: 10, transition: .phase(.fadingIn, opacity: 0))])
    clock.advance(to: 10.999)
    #expect(log.all.count == 1)
    clock.advance(to: 11)
    #expect(log.all.last == Report(at: 11, transition: .phase(.holding, opacity: 1)))
    clock.advance(to: 12.999)
    #expect(log.all.count == 2)
    clock.advance(to: 13)
    #expect(log.all.last == Report(at: 13, transition: .phase(.fadingOut, opacity: 1)))
    #expect(!operation.isFinished)
    clock.advance(to: 14)
    #expect(log.all.last == Report(at: 14, transition: .finished(.completed)))
    #expect(operation.isFinished)
    #expect(!operation.isExecuting)
  }

  @Test func holdRunningOut_finishesWithTheHoldExpiryOutcome() {
    let operation = makeOperation(holdExpiryOutcome: .timedOut)
    operation.start()
    clock.advance(to: 100)
    #expect(log.finishes == [Report(at: 4, transition: .finished(.timedOut))])
  }

  @Test func appearance_isComputedFromElapsedTime_notFromTimerTicks() {
    let operation = makeOperation(fadeIn: 2, hold: 2, fadeOut: 2)
    #expect(operation.appearance.phase == .queued)
    #expect(operation.appearance.opacity == 0)
    operation.start()
    clock.advance(by: 0)
    #expect(clock.pendingCount == 1)  // one timer, for the next boundary only
    clock.advance(to: 0.5)  // no timer falls due in between
    #expect(operation.appearance.phase == .fadingIn)
    #expect(operation.appearance.opacity == 0.25)
    #expect(log.all.count == 1)
    clock.advance(to: 5)
    #expect(operation.appearance.opacity == 0.5)
    clock.advance(to: 6)
    #expect(operation.appearance.phase == .finished)
    #expect(operation.appearance.opacity == 0)
  }

  @Test func holdingUntilEnded_armsNoTimerAtAll() {
    let operation = makeOperation(hold: nil)
    operation.start()
    clock.advance(to: 1)
    #expect(log.all.last?.transition == .phase(.holding, opacity: 1))
    #expect(clock.pendingCount == 0)
    clock.advance(to: 1_000_000)
    #expect(operation.appearance.phase == .holding)
    #expect(!operation.isFinished)
  }

  @Test func cancel_beforeStart_finishesAtStartWithoutReporting() {
    let operation = makeOperation()
    operation.cancel()
    #expect(operation.isCancelled)
    #expect(!operation.isFinished)  // the queue still has to start it
    operation.start()
    #expect(operation.isFinished)
    clock.advance(to: 100)
    #expect(log.all.isEmpty)
  }

  @Test func cancel_whileHolding_fadesOutOverTheFullFadeOut_asCancelled() {
    let operation = makeOperation(fadeIn: 1, hold: 5, fadeOut: 2)
    operation.start()
    clock.advance(to: 3)
    operation.cancel()
    #expect(log.all.count == 2)  // nothing reported from inside cancel()
    clock.advance(by: 0)
    #expect(log.all.last == Report(at: 3, transition: .phase(.fadingOut, opacity: 1)))
    clock.advance(to: 4.999)
    #expect(!operation.isFinished)
    clock.advance(to: 5)
    #expect(log.all.last == Report(at: 5, transition: .finished(.cancelled)))
  }

  @Test func cancel_duringFadeIn_fadesFromTheCurrentOpacity() {
    let operation = makeOperation(fadeIn: 2, hold: 5, fadeOut: 2)
    operation.start()
    clock.advance(to: 1)
    operation.cancel()
    clock.advance(by: 0)
    #expect(log.all.last == Report(at: 1, transition: .phase(.fadingOut, opacity: 0.5)))
    clock.advance(to: 1.5)
    #expect(operation.appearance.opacity == 0.25)
    clock.advance(to: 2)
    #expect(log.all.last == Report(at: 2, transition: .finished(.cancelled)))
  }

  @Test func cancelImmediately_whenVisible_finishesAtThatInstant() {
    let operation = makeOperation(fadeIn: 1, hold: 5, fadeOut: 2)
    operation.start()
    clock.advance(to: 2)
    operation.cancel(immediately: true)
    clock.advance(by: 0)
    #expect(log.all.last == Report(at: 2, transition: .finished(.cancelled)))
    #expect(!log.all.contains { $0.transition == .phase(.fadingOut, opacity: 1) })
    #expect(operation.isFinished)
  }

  @Test func endWithoutHold_startsTheFadeOutNow_asCompleted_evenForAProgressIndicator() {
    let operation = makeOperation(hold: nil, holdExpiryOutcome: .timedOut)
    operation.start()
    clock.advance(to: 4)
    operation.end(hold: nil)
    clock.advance(by: 0)
    #expect(log.all.last == Report(at: 4, transition: .phase(.fadingOut, opacity: 1)))
    clock.advance(to: 5)
    #expect(log.all.last == Report(at: 5, transition: .finished(.completed)))
  }

  @Test func endWithHold_holdsThatLongFromNow_thenFadesOut() {
    let operation = makeOperation(hold: nil, holdExpiryOutcome: .timedOut)
    operation.start()
    clock.advance(to: 2)
    operation.end(hold: 1.5)
    clock.advance(to: 3.499)
    #expect(operation.appearance.phase == .holding)
    clock.advance(to: 3.5)
    #expect(log.all.last == Report(at: 3.5, transition: .phase(.fadingOut, opacity: 1)))
    clock.advance(to: 10)
    #expect(log.finishes == [Report(at: 4.5, transition: .finished(.completed))])
  }

  @Test func end_beforeStart_changesTheHoldItWillHave() throws {
    let operation = makeOperation(fadeIn: 1, hold: nil, fadeOut: 1)
    operation.end(hold: 2)
    operation.start()
    clock.advance(to: 2.999)
    #expect(operation.appearance.phase == .holding)
    clock.advance(to: 10)
    #expect(log.finishes == [Report(at: 4, transition: .finished(.completed))])
  }

  @Test func dismiss_finishesAtOnceWithTheGivenOutcome() {
    let operation = makeOperation()
    operation.start()
    clock.advance(to: 1.5)
    operation.dismiss(outcome: .dismissed)
    clock.advance(by: 0)
    #expect(log.finishes == [Report(at: 1.5, transition: .finished(.dismissed))])
  }

  @Test func restartHold_duringFadeOut_fadesBackIn_andHoldsAgain() {
    let operation = makeOperation(fadeIn: 1, hold: 1, fadeOut: 1)
    operation.start()
    clock.advance(to: 2.5)
    operation.restartHold(1)
    clock.advance(by: 0)
    #expect(log.all.last == Report(at: 2.5, transition: .phase(.fadingIn, opacity: 0.5)))
    clock.advance(to: 3)
    #expect(log.all.last == Report(at: 3, transition: .phase(.holding, opacity: 1)))
    clock.advance(to: 10)
    #expect(log.finishes == [Report(at: 5, transition: .finished(.completed))])
  }

  @Test func revivedAfterItsTimeoutBegan_thenEnded_completesRatherThanTimingOut() {
    // A progress indicator starts fading out because its timeout passed, gets news (its hold
    // restarts), and is then ended: it ended normally.
    let operation = makeOperation(fadeIn: 1, hold: 1, fadeOut: 1, holdExpiryOutcome: .timedOut)
    operation.start()
    clock.advance(to: 2.5)
    operation.restartHold(10)
    clock.advance(to: 4)
    operation.end(hold: nil)
    clock.advance(to: 100)
    #expect(log.finishes.map(\.transition) == [.finished(.completed)])
  }

  @Test func afterCancel_endOrRestartHold_doNotBringTheNoticeBack() {
    let operation = makeOperation(fadeIn: 1, hold: 5, fadeOut: 2)
    operation.start()
    clock.advance(to: 2)
    operation.cancel()
    clock.advance(to: 2.5)
    operation.restartHold(5)
    operation.end(hold: 3)
    clock.advance(to: 100)
    #expect(log.finishes == [Report(at: 4, transition: .finished(.cancelled))])
    #expect(!log.all.contains { $0.transition == .phase(.holding, opacity: 1) && $0.at > 2 })
  }

  @Test func finishedOperation_ignoresEveryLaterRequest() {
    let operation = makeOperation(fadeIn: 0, hold: 1, fadeOut: 0)
    operation.start()
    clock.advance(to: 5)
    #expect(operation.isFinished)
    operation.cancel(immediately: true)
    operation.end(hold: 3)
    operation.restartHold(3)
    operation.dismiss(outcome: .dismissed)
    clock.advance(to: 50)
    #expect(log.finishes.count == 1)
    #expect(clock.pendingCount == 0)
  }
}
