import Foundation
import NotifyCore
import NotifyProtocol
import Testing

/// Every rule of a notice's life (DESIGN §2), observed through `NoticeQueue` on a manual clock.
///
/// Lanes start operations on their own threads, so each test waits (`waitUntilShown`, `settle`)
/// until a lane has started a notice before it moves the clock on; the clock itself only moves
/// when a test says so, so every boundary below is exact.
@Suite("NoticeQueue on a manual clock")
struct NoticeQueueTests {
  static let epoch = 1_800_000_000.0

  // MARK: - Phases and opacity

  @Test func phases_changeExactlyAtTheirBoundaries() throws {
    let h = QueueHarness()
    let id = try h.show(fadeIn: 1, hold: 2, fadeOut: 1)
    #expect(h.waitUntilShown(id))
    #expect(h.phase(id) == .fadingIn)
    h.advance(to: 0.999)
    #expect(h.phase(id) == .fadingIn)
    h.advance(to: 1)
    #expect(h.phase(id) == .holding)
    h.advance(to: 2.999)
    #expect(h.phase(id) == .holding)
    h.advance(to: 3)
    #expect(h.phase(id) == .fadingOut)
    h.advance(to: 3.999)
    #expect(h.phase(id) == .fadingOut)
    h.advance(to: 4)
    let notice = try h.queue.get(id)
    #expect(notice.phase == .finished)
    #expect(notice.outcome == .completed)
    #expect(notice.shown == Self.epoch)
    #expect(notice.finished == Self.epoch + 4)
  }

  @Test func events_reportEachPhaseAtItsBoundaryInstant() throws {
    let h = QueueHarness()
    let id = try h.show(fadeIn: 1, hold: 2, fadeOut: 0.5)
    #expect(h.waitUntilShown(id))
    h.advance(to: 10)
    #expect(h.recorder.waitForFinish(of: id))
    let times = h.recorder.events(for: id).filter { $0.kind == .phase || $0.kind == .finished }
      .map { $0.at - Self.epoch }
    #expect(times == [0, 0, 1, 3, 3.5])
  }

  @Test func eventStream_forOneNotice_isAddedQueuedFadingInHoldingFadingOutFinished() throws {
    let h = QueueHarness()
    let id = try h.show()
    #expect(h.waitUntilShown(id))
    h.advance(to: 100)
    #expect(h.recorder.waitForFinish(of: id))
    #expect(
      h.recorder.lifecycle(of: id) == [
        "added", "queued", "fadingIn", "holding", "fadingOut", "finished:completed",
      ])
  }

  /// (curve, opacity ¼ into a 2 s fade-in, opacity ¼ into a 2 s fade-out).
  static let curveTable: [(Easing, Double, Double)] = [
    (.linear, 0.25, 0.75),
    (.easeIn, 0.015625, 0.984375),
    (.easeOut, 0.578125, 0.421875),
    (.easeInOut, 0.0625, 0.9375),
  ]

  @Test("opacity at chosen instants follows each curve", arguments: curveTable)
  func opacity_followsTheCurve(curve: Easing, fadeInOpacity: Double, fadeOutOpacity: Double) throws {
    let h = QueueHarness()
    let id = try h.show(fadeIn: 2, hold: 1, fadeOut: 2, easeIn: curve, easeOut: curve)
    #expect(h.waitUntilShown(id))
    h.advance(to: 0.5)
    #expect(abs(try #require(h.opacity(id)) - fadeInOpacity) < 1e-12)
    h.advance(to: 2)
    #expect(h.opacity(id) == 1)
    h.advance(to: 3.5)
    #expect(abs(try #require(h.opacity(id)) - fadeOutOpacity) < 1e-12)
  }

  @Test func defaultCurves_fadeInEasesOut_fadeOutEasesIn() throws {
    let h = QueueHarness()
    let id = try h.queue.show(ShowParameters(title: "defaults", fadeIn: 2, hold: 1, fadeOut: 2))
    let notice = try h.queue.get(id)
    #expect(notice.easeIn == .easeOut)
    #expect(notice.easeOut == .easeIn)
    #expect(h.waitUntilShown(id))
    h.advance(to: 0.5)
    #expect(h.opacity(id) == 0.578125)
    h.advance(to: 3.5)
    #expect(h.opacity(id) == 0.984375)
  }

  @Test func builtInTiming_isFadeIn1Hold5FadeOut1() throws {
    let h = QueueHarness()
    let id = try h.queue.show(ShowParameters(title: "defaults"))
    let notice = try h.queue.get(id)
    #expect(notice.delay == 0)
    #expect(notice.fadeIn == 1)
    #expect(notice.hold == 5)
    #expect(notice.fadeOut == 1)
    #expect(h.waitUntilShown(id))
    h.advance(to: 5.999)
    #expect(h.phase(id) == .holding)
    h.advance(to: 6)
    #expect(h.phase(id) == .fadingOut)
    h.advance(to: 7)
    #expect(try h.queue.get(id).outcome == .completed)
  }

  // MARK: - Cancel

  @Test func cancel_whenQueued_finishesAtOnce_andFreesItsTurn() throws {
    let h = QueueHarness()
    let a = try h.show()
    #expect(h.waitUntilShown(a))
    let b = try h.show()
    let c = try h.show()
    #expect(try h.queue.cancel(CancelParameters(id: b)) == [b])
    let cancelled = try h.queue.get(b)
    #expect(cancelled.phase == .finished)
    #expect(cancelled.outcome == .cancelled)
    #expect(cancelled.finished == Self.epoch)
    h.advance(to: 4)
    #expect(h.waitUntilShown(c))
    #expect(h.recorder.events(for: c).first { $0.phase == .fadingIn }?.at == Self.epoch + 4)
    #expect(!h.recorder.phases(of: b).contains { $0.isVisible })
  }

  @Test func cancel_whenWaiting_finishesAtOnce_andIsNeverShown() throws {
    let h = QueueHarness()
    let id = try h.show(delay: 5)
    #expect(h.phase(id) == .waiting)
    #expect(try h.queue.cancel(CancelParameters(id: id)) == [id])
    #expect(try h.queue.get(id).outcome == .cancelled)
    h.advance(to: 20)
    h.queue.flushEvents()  // its due time has passed on the manual clock: a queued event would be here
    #expect(h.recorder.phases(of: id).isEmpty)
    #expect(h.queue.status().waiting == 0)
  }

  @Test func cancel_whenFadingIn_fadesFromTheCurrentOpacity_overFadeOutTimesOpacity() throws {
    let h = QueueHarness()
    let id = try h.show(fadeIn: 2, hold: 5, fadeOut: 2)
    #expect(h.waitUntilShown(id))
    h.advance(to: 1)
    #expect(h.opacity(id) == 0.5)
    #expect(try h.queue.cancel(CancelParameters(id: id)) == [id])
    #expect(h.phase(id) == .fadingOut)
    #expect(h.opacity(id) == 0.5)  // no jump
    h.advance(to: 1.5)
    #expect(h.opacity(id) == 0.25)
    h.advance(to: 1.999)
    #expect(h.phase(id) == .fadingOut)
    h.advance(to: 2)  // 1 + fadeOut 2 × opacity 0.5
    let notice = try h.queue.get(id)
    #expect(notice.phase == .finished)
    #expect(notice.outcome == .cancelled)
    #expect(notice.finished == Self.epoch + 2)
  }

  @Test func cancelNow_vanishesAtOnce() throws {
    let h = QueueHarness()
    let id = try h.show(fadeIn: 1, hold: 5, fadeOut: 2)
    #expect(h.waitUntilShown(id))
    h.advance(to: 3)
    #expect(try h.queue.cancel(CancelParameters(id: id, now: true)) == [id])
    h.clock.advance(by: 0)
    let notice = try h.queue.get(id)
    #expect(notice.phase == .finished)
    #expect(notice.outcome == .cancelled)
    #expect(notice.finished == Self.epoch + 3)
    #expect(h.recorder.waitForFinish(of: id))
    #expect(!h.recorder.phases(of: id).contains(.fadingOut))
  }

  @Test func cancel_byTag_andAll_answerTheIdsCancelled() throws {
    let h = QueueHarness()
    let a = try h.show(delay: 1, tag: "mail")
    let b = try h.show(delay: 1, tag: "chat")
    let c = try h.show(delay: 1, tag: "mail")
    #expect(try h.queue.cancel(CancelParameters(tag: "mail")) == [a, c])
    #expect(try h.queue.get(b).phase == .waiting)
    let d = try h.show(delay: 1)
    #expect(try h.queue.cancel(CancelParameters(all: true)) == [b, d])
    #expect(h.queue.list().isEmpty)
  }

  @Test(
    "cancel needs exactly one of id, tag and all",
    arguments: [
      CancelParameters(), CancelParameters(id: 1, tag: "x"), CancelParameters(id: 1, all: true),
      CancelParameters(tag: "x", all: true),
    ])
  func cancel_withoutExactlyOneSelector_isRefused(parameters: CancelParameters) throws {
    let h = QueueHarness()
    _ = try h.show(delay: 1)
    #expect(throws: QueueError.invalidArgument(field: "id", reason: "give exactly one of id, tag and all")) {
      try h.queue.cancel(parameters)
    }
    #expect(h.queue.list().count == 1)
  }

  @Test func cancel_unknownId_isNoSuchNotice_finishedId_cancelsNothing() throws {
    let h = QueueHarness()
    #expect(throws: QueueError.noSuchNotice(id: 42)) { try h.queue.cancel(CancelParameters(id: 42)) }
    let id = try h.show(delay: 1)
    _ = try h.queue.cancel(CancelParameters(id: id))
    #expect(try h.queue.cancel(CancelParameters(id: id)) == [])
    #expect(try h.queue.get(id).outcome == .cancelled)
  }

  // MARK: - End

  @Test func end_onProgressIndicator_showsMessage_holdsEndHold_fadesOut_completed() throws {
    let h = QueueHarness()
    let id = try h.queue.progress(ProgressParameters(title: "Copying", timeout: 0, fadeIn: 1, fadeOut: 1)).id
    #expect(h.waitUntilShown(id))
    h.advance(to: 5)
    let ended = try h.queue.end(EndParameters(id: id, message: "Copied 3 files"))
    #expect(ended.message == "Copied 3 files")
    #expect(ended.phase == .holding)
    h.advance(to: 6.499)
    #expect(h.phase(id) == .holding)
    h.advance(to: 6.5)  // EndHold 1.5 s by default
    #expect(h.phase(id) == .fadingOut)
    h.advance(to: 7.5)
    let notice = try h.queue.get(id)
    #expect(notice.outcome == .completed)
    #expect(notice.message == "Copied 3 files")
    #expect(notice.finished == Self.epoch + 7.5)
  }

  @Test func end_onProgressIndicator_withHold_holdsThatLong() throws {
    var settings = QueueSettings()
    settings.endHold = 4
    let h = QueueHarness(settings: settings)
    let id = try h.queue.progress(ProgressParameters(title: "Copying", timeout: 0, fadeIn: 1, fadeOut: 1)).id
    #expect(h.waitUntilShown(id))
    h.advance(to: 2)
    _ = try h.queue.end(EndParameters(id: id, message: "done", hold: 0.5))
    h.advance(to: 2.5)
    #expect(h.phase(id) == .fadingOut)
    h.advance(to: 3.5)
    #expect(try h.queue.get(id).outcome == .completed)
  }

  @Test func end_usesTheConfiguredEndHold() throws {
    var settings = QueueSettings()
    settings.endHold = 3
    let h = QueueHarness(settings: settings)
    let id = try h.queue.progress(ProgressParameters(title: "Copying", timeout: 0, fadeIn: 1, fadeOut: 1)).id
    #expect(h.waitUntilShown(id))
    h.advance(to: 2)
    _ = try h.queue.end(EndParameters(id: id))
    h.advance(to: 4.999)
    #expect(h.phase(id) == .holding)
    h.advance(to: 5)
    #expect(h.phase(id) == .fadingOut)
  }

  @Test func end_onPlainNotice_startsItsFadeOutNow() throws {
    let h = QueueHarness()
    let id = try h.show(fadeIn: 1, hold: 10, fadeOut: 1)
    #expect(h.waitUntilShown(id))
    h.advance(to: 3)
    let ended = try h.queue.end(EndParameters(id: id))
    #expect(ended.phase == .fadingOut)
    #expect(ended.opacity == 1)
    h.advance(to: 3.5)
    #expect(h.opacity(id) == 0.5)
    h.advance(to: 4)
    let notice = try h.queue.get(id)
    #expect(notice.outcome == .completed)
    #expect(notice.finished == Self.epoch + 4)
  }

  @Test func end_onQueuedPlainNotice_completesAtOnce_andFreesItsTurn() throws {
    let h = QueueHarness()
    let a = try h.show()
    #expect(h.waitUntilShown(a))
    let b = try h.show()
    let c = try h.show()
    #expect(try h.queue.end(EndParameters(id: b)).outcome == .completed)
    h.advance(to: 4)
    #expect(h.waitUntilShown(c))
    #expect(h.recorder.events(for: c).first { $0.phase == .fadingIn }?.at == Self.epoch + 4)
    #expect(!h.recorder.phases(of: b).contains { $0.isVisible })
  }

  @Test func end_onQueuedProgressWithMessage_showsTheMessageWhenItsTurnComes() throws {
    let h = QueueHarness(settings: QueueHarness.settings(progressMaxVisible: 1))
    let first = try h.queue.progress(ProgressParameters(title: "one", timeout: 0, fadeIn: 1, fadeOut: 1)).id
    #expect(h.waitUntilShown(first))
    let second = try h.queue.progress(ProgressParameters(title: "two", timeout: 0, fadeIn: 1, fadeOut: 1)).id
    let ended = try h.queue.end(EndParameters(id: second, message: "two done"))
    #expect(ended.phase == .queued)
    h.advance(to: 2)
    _ = try h.queue.end(EndParameters(id: first))
    h.advance(to: 4.5)  // 2 + EndHold 1.5 + fadeOut 1
    #expect(try h.queue.get(first).outcome == .completed)
    #expect(h.waitUntilShown(second))
    h.advance(to: 5.5)
    #expect(h.phase(second) == .holding)
    h.advance(to: 7)  // fade-in 1 + EndHold 1.5 from 4.5
    #expect(h.phase(second) == .fadingOut)
    h.advance(to: 8)
    let notice = try h.queue.get(second)
    #expect(notice.outcome == .completed)
    #expect(notice.message == "two done")
  }

  @Test func end_ofFinishedNotice_answersItUnchanged() throws {
    let h = QueueHarness()
    let id = try h.show(delay: 1)
    _ = try h.queue.cancel(CancelParameters(id: id))
    #expect(try h.queue.end(EndParameters(id: id)).outcome == .cancelled)
  }

  // MARK: - Progress indicators

  @Test func progress_timeout_finishesTimedOut() throws {
    let h = QueueHarness()
    let id = try h.queue.progress(ProgressParameters(title: "Sync", timeout: 2, fadeIn: 1, fadeOut: 1)).id
    #expect(h.waitUntilShown(id))
    h.advance(to: 2.999)
    #expect(h.phase(id) == .holding)
    h.advance(to: 3)
    #expect(h.phase(id) == .fadingOut)
    h.advance(to: 4)
    let notice = try h.queue.get(id)
    #expect(notice.outcome == .timedOut)
    #expect(notice.kind == .progress)
  }

  @Test func progress_withoutTimeout_takesTheConfiguredOne_zeroMeansNone() throws {
    var settings = QueueSettings()
    settings.progressTimeout = 3
    let h = QueueHarness(settings: settings)
    let timed = try h.queue.progress(ProgressParameters(title: "a", fadeIn: 0, fadeOut: 0)).id
    let forever = try h.queue.progress(ProgressParameters(title: "b", timeout: 0, fadeIn: 0, fadeOut: 0)).id
    #expect(try h.queue.get(timed).timeout == 3)
    #expect(h.waitUntilShown(timed))
    #expect(h.waitUntilShown(forever))
    h.advance(to: 3)
    #expect(try h.queue.get(timed).outcome == .timedOut)
    h.advance(to: 100_000)
    #expect(h.phase(forever) == .holding)
  }

  @Test func progress_withExistingKey_answersSameId_existing_andRestartsTimeout() throws {
    let h = QueueHarness()
    let first = try h.queue.progress(
      ProgressParameters(title: "Upload", key: "up", value: 10, timeout: 5, fadeIn: 1, fadeOut: 1))
    #expect(first.existing == false)
    #expect(h.waitUntilShown(first.id))
    h.advance(to: 4)
    let again = try h.queue.progress(ProgressParameters(title: "Upload", key: "up", value: 50))
    #expect(again.id == first.id)
    #expect(again.existing)
    #expect(try h.queue.get(first.id).value == 50)
    h.advance(to: 6)  // the first timeout would have run out here
    #expect(h.phase(first.id) == .holding)
    h.advance(to: 8.999)
    #expect(h.phase(first.id) == .holding)
    h.advance(to: 9)
    #expect(h.phase(first.id) == .fadingOut)
    h.advance(to: 10)
    #expect(try h.queue.get(first.id).outcome == .timedOut)
    #expect(h.queue.history().count == 1)
  }

  @Test func progressLane_neverBlocksNotices() throws {
    let h = QueueHarness(settings: QueueHarness.settings(maxVisible: 1, progressMaxVisible: 1))
    let p1 = try h.queue.progress(ProgressParameters(title: "p1", timeout: 0)).id
    #expect(h.waitUntilShown(p1))
    let p2 = try h.queue.progress(ProgressParameters(title: "p2", timeout: 0)).id
    let notice = try h.show()
    #expect(h.waitUntilShown(notice))
    letLanesRun(h.queue)
    #expect(h.phase(p2) == .queued)
    let status = h.queue.status()
    #expect(status.visible == 2)
    #expect(status.queued == 1)
  }

  @Test func maxVisible_limitsTheNoticeLane() throws {
    let h = QueueHarness(settings: QueueHarness.settings(maxVisible: 2))
    let a = try h.show()
    let b = try h.show()
    let c = try h.show()
    #expect(h.waitUntilShown(a))
    #expect(h.waitUntilShown(b))
    letLanesRun(h.queue)
    #expect(h.phase(c) == .queued)
    h.advance(to: 4)
    #expect(h.waitUntilShown(c))
  }

  // MARK: - Delay

  @Test func delayedNotice_holdsNoSlot_andBlocksNobody() throws {
    let h = QueueHarness(settings: QueueHarness.settings(maxVisible: 1))
    let delayed = try h.show(delay: 10)
    let later = try h.show()
    #expect(h.waitUntilShown(later))
    #expect(h.phase(delayed) == .waiting)
    let status = h.queue.status()
    #expect(status.waiting == 1)
    #expect(status.visible == 1)
  }

  @Test func delay_makesTheNoticeDueExactlyThen() throws {
    let h = QueueHarness()
    h.advance(to: 1)
    let id = try h.show(delay: 2)
    h.advance(to: 2.999)
    // Only the due timer moves a waiting notice, and it runs on the manual clock.
    #expect(h.phase(id) == .waiting)
    h.advance(to: 3)
    #expect(h.waitUntilShown(id))
    let times = h.recorder.events(for: id).filter { $0.kind == .phase }.map { $0.at - Self.epoch }
    #expect(times == [3, 3])  // queued and fadingIn, both at the due instant
    h.advance(to: 4)
    #expect(h.phase(id) == .holding)
  }

  // MARK: - Suspend and resume

  @Test func suspend_holdsQueuedNotices_visibleOnesRunToTheirEnd_resumeShowsThemInOrder() throws {
    let h = QueueHarness()
    let a = try h.show()
    #expect(h.waitUntilShown(a))
    let b = try h.show("b")
    let c = try h.show("c")
    #expect(try h.queue.suspend())
    #expect(h.queue.status().suspended)
    h.advance(to: 4)
    #expect(try h.queue.get(a).outcome == .completed)
    letLanesRun(h.queue)
    #expect(h.phase(b) == .queued)
    #expect(h.phase(c) == .queued)
    h.advance(to: 10)
    #expect(!h.queue.resume())
    #expect(h.waitUntilShown(b))
    #expect(h.recorder.events(for: b).first { $0.phase == .fadingIn }?.at == Self.epoch + 10)
    #expect(h.phase(c) == .queued)
    h.advance(to: 14)
    #expect(h.waitUntilShown(c))
    #expect(h.recorder.waitFor { $0.kind == .resumed })
    #expect(h.recorder.all.contains { $0.kind == .suspended && $0.suspended == true })
  }

  @Test func suspend_holdsNewAndDelayedNotices() throws {
    let h = QueueHarness()
    try h.queue.suspend()
    let now = try h.show()
    let delayed = try h.show(delay: 1)
    h.advance(to: 1)
    letLanesRun(h.queue)
    #expect(h.phase(now) == .queued)
    #expect(h.phase(delayed) == .queued)
    h.queue.resume()
    #expect(h.waitUntilShown(now))
    h.advance(to: 5)
    #expect(h.waitUntilShown(delayed))
  }

  @Test func suspendFor_resumesByItself() throws {
    let h = QueueHarness()
    try h.queue.suspend(for: 3)
    #expect(h.queue.status().suspendedUntil == Self.epoch + 3)
    let id = try h.show()
    h.advance(to: 2.999)
    letLanesRun(h.queue)
    #expect(h.phase(id) == .queued)
    #expect(h.queue.status().suspended)
    h.advance(to: 3)
    #expect(!h.queue.status().suspended)
    #expect(h.queue.status().suspendedUntil == nil)
    #expect(h.waitUntilShown(id))
  }

  @Test func resume_beforeADurationEnds_cancelsTheTimedResume() throws {
    let h = QueueHarness()
    try h.queue.suspend(for: 3)
    h.queue.resume()
    try h.queue.suspend()
    h.advance(to: 5)
    #expect(h.queue.status().suspended)
  }

  @Test func status_countsEachStateOfNotice() throws {
    let h = QueueHarness()
    let a = try h.show()
    #expect(h.waitUntilShown(a))
    _ = try h.show()
    _ = try h.show(delay: 9)
    let d = try h.show(delay: 9)
    _ = try h.queue.cancel(CancelParameters(id: d))
    let status = h.queue.status()
    #expect(status.visible == 1)
    #expect(status.queued == 1)
    #expect(status.waiting == 1)
    #expect(status.finished == 1)
    #expect(!status.suspended)
  }

  // MARK: - Replace by key

  @Test func replace_whenQueued_oldFinishesReplaced_newTakesItsPlace() throws {
    let h = QueueHarness()
    let a = try h.show()
    #expect(h.waitUntilShown(a))
    let old = try h.show("old", key: "build")
    let new = try h.show("new", key: "build")
    #expect(new != old)
    #expect(try h.queue.get(old).outcome == .replaced)
    #expect(h.phase(new) == .queued)
    h.advance(to: 4)
    #expect(h.waitUntilShown(new))
    #expect(h.recorder.events(for: new).first { $0.phase == .fadingIn }?.at == Self.epoch + 4)
    #expect(!h.recorder.phases(of: old).contains { $0.isVisible })
  }

  @Test func replace_whenWaiting_oldFinishesReplaced() throws {
    let h = QueueHarness()
    let old = try h.show("old", delay: 5, key: "k")
    let new = try h.show("new", key: "k")
    #expect(new > old)
    #expect(try h.queue.get(old).outcome == .replaced)
    #expect(h.waitUntilShown(new))
    h.advance(to: 6)
    #expect(!h.recorder.phases(of: old).contains { $0.isVisible })
  }

  @Test func replacingById_visible_changesItInPlace_notYetShown_replacesIt_finished_startsANewOne() throws {
    // D-Bus `replaces_id`: the rule of a key, by id, in one call.
    let h = QueueHarness()
    let shown = try h.show("first", fadeIn: 1, hold: 5, fadeOut: 1)
    #expect(h.waitUntilShown(shown))
    #expect(try h.queue.show(ShowParameters(title: "changed"), replacing: shown) == shown)
    #expect(try h.queue.get(shown).title == "changed")
    let waiting = try h.show("later", delay: 5)
    let instead = try h.queue.show(ShowParameters(title: "instead"), replacing: waiting)
    #expect(instead != waiting)
    #expect(try h.queue.get(waiting).outcome == .replaced)
    let gone = try h.queue.show(ShowParameters(title: "anew"), replacing: 999)
    #expect(gone != 999 && gone > instead)
    let indicator = try h.queue.progress(ProgressParameters(title: "p", value: 1))
    #expect(h.waitUntilShown(indicator.id))
    let updated = try h.queue.progress(ProgressParameters(title: "p", value: 50), replacing: indicator.id)
    #expect(updated.id == indicator.id && updated.existing)
    #expect(try h.queue.get(indicator.id).value == 50)
  }

  @Test func replace_whenVisible_changesTextInPlace_sameId_noNewFadeIn_holdRestarts() throws {
    let h = QueueHarness()
    let id = try h.show("Downloading", fadeIn: 1, hold: 2, fadeOut: 1, key: "dl")
    #expect(h.waitUntilShown(id))
    h.advance(to: 2)
    let again = try h.show("Downloaded", fadeIn: 1, hold: 2, fadeOut: 1, key: "dl")
    #expect(again == id)
    let notice = try h.queue.get(id)
    #expect(notice.title == "Downloaded")
    #expect(notice.phase == .holding)
    #expect(notice.opacity == 1)
    h.advance(to: 3.5)  // the old hold would have ended at 3
    #expect(h.phase(id) == .holding)
    h.advance(to: 4)
    #expect(h.phase(id) == .fadingOut)
    h.advance(to: 5)
    #expect(try h.queue.get(id).outcome == .completed)
    #expect(h.recorder.waitForFinish(of: id))
    #expect(h.recorder.phases(of: id).filter { $0 == .fadingIn }.count == 1)
    #expect(h.recorder.events(for: id).contains { $0.kind == .updated && $0.notice?.title == "Downloaded" })
    #expect(h.queue.history().count == 1)
  }

  @Test func replace_whenFadingOut_fadesBackInWithoutStartingOver() throws {
    let h = QueueHarness()
    let id = try h.show("one", fadeIn: 1, hold: 1, fadeOut: 1, key: "k")
    #expect(h.waitUntilShown(id))
    h.advance(to: 2.5)
    #expect(try h.show("two", key: "k") == id)
    #expect(h.opacity(id) == 0.5)
    h.advance(to: 3)
    #expect(h.phase(id) == .holding)
  }

  @Test func replace_whileClosingAfterCancel_givesANewNotice_andTheOldOneFinishesAsCancelled() throws {
    let h = QueueHarness(settings: QueueHarness.settings(maxVisible: 2))
    let old = try h.show("one", fadeIn: 1, hold: 5, fadeOut: 2, key: "k")
    #expect(h.waitUntilShown(old))
    h.advance(to: 2)
    _ = try h.queue.cancel(CancelParameters(id: old))
    h.clock.advance(by: 0)
    #expect(h.phase(old) == .fadingOut)
    let new = try h.show("two", key: "k")
    #expect(new != old)
    #expect(try h.queue.get(old).title == "one")
    h.advance(to: 4)
    #expect(h.waitUntilFinished(old))
    #expect(try h.queue.get(old).outcome == .cancelled)
    #expect(try h.queue.get(new).outcome == nil)
    // Its lane starts it on a thread of its own: once it shows, the key updates it in place.
    #expect(h.waitUntilShown(new))
    #expect(try h.show("three", key: "k") == new)
  }

  @Test func progress_withTheKeyOfAnEndedIndicator_startsANewOne() throws {
    let h = QueueHarness()
    let first = try h.queue.progress(ProgressParameters(title: "build", key: "b", fadeIn: 1))
    #expect(h.waitUntilShown(first.id))
    h.advance(to: 2)
    _ = try h.queue.end(EndParameters(id: first.id, message: "done"))
    let second = try h.queue.progress(ProgressParameters(title: "build again", key: "b"))
    #expect(second.existing == false)
    #expect(second.id != first.id)
  }

  // MARK: - Dependencies

  @Test func after_waitsForTheOtherNoticeToFinish_evenWithASlotFree() throws {
    let h = QueueHarness(settings: QueueHarness.settings(maxVisible: 2))
    let a = try h.show()
    #expect(h.waitUntilShown(a))
    let b = try h.show(after: a)
    // Only `a` finishing moves a notice that waits for it.
    #expect(h.phase(b) == .waiting)
    h.advance(to: 3.999)
    #expect(h.phase(b) == .waiting)
    h.advance(to: 4)
    #expect(h.waitUntilShown(b))
    #expect(h.recorder.events(for: b).first { $0.phase == .fadingIn }?.at == Self.epoch + 4)
  }

  @Test func after_delayedNotice_waitsForItsDependencyOnceDue() throws {
    let h = QueueHarness(settings: QueueHarness.settings(maxVisible: 2))
    let a = try h.show(hold: 5)
    #expect(h.waitUntilShown(a))
    let b = try h.show(delay: 1, after: a)
    h.advance(to: 2)
    // Due now, it waits for `a`; only `a` finishing moves it.
    #expect(h.phase(b) == .waiting)
    h.advance(to: 7)
    #expect(h.waitUntilShown(b))
  }

  @Test func after_unknownOrFinishedId_meansNoWait() throws {
    let h = QueueHarness(settings: QueueHarness.settings(maxVisible: 3))
    let unknown = try h.show(after: 999)
    #expect(h.waitUntilShown(unknown))
    let gone = try h.show(delay: 1)
    _ = try h.queue.cancel(CancelParameters(id: gone))
    let afterGone = try h.show(after: gone)
    #expect(h.waitUntilShown(afterGone))
  }

  @Test func after_cancelledDependency_releasesTheWaitingNotice() throws {
    let h = QueueHarness(settings: QueueHarness.settings(maxVisible: 2))
    let a = try h.show(delay: 10)
    let b = try h.show(after: a)
    #expect(h.phase(b) == .waiting)
    _ = try h.queue.cancel(CancelParameters(id: a))
    #expect(h.waitUntilShown(b))
  }

  @Test(arguments: [0, -3])
  func after_nonPositive_isInvalid(after: Int) throws {
    let h = QueueHarness()
    #expect(throws: QueueError.invalidArgument(field: "after", reason: "must be a positive notice id")) {
      try h.show(after: after)
    }
  }

  @Test func icon_isKept_andReplacedInPlaceWithTheRest_asAnAbsolutePathOrAnIconName() throws {
    let h = QueueHarness()
    let id = try h.queue.show(ShowParameters(title: "t", icon: "/usr/share/pixmaps/a.png", key: "k"))
    #expect(try h.queue.get(id).icon == "/usr/share/pixmaps/a.png")
    let progress = try h.queue.progress(ProgressParameters(title: "p", icon: "/tmp/b.png")).id
    #expect(try h.queue.get(progress).icon == "/tmp/b.png")
    let named = try h.queue.show(ShowParameters(title: "named", icon: "dialog-warning-symbolic"))
    #expect(try h.queue.get(named).icon == "dialog-warning-symbolic")
    for bad in ["./a.png", "", "file:///a.png", ".hidden", "a\nb", String(repeating: "n", count: 256)] {
      #expect(
        throws: QueueError.invalidArgument(
          field: "icon", reason: "must be an absolute path to an image file or an icon name")
      ) { try h.queue.show(ShowParameters(title: "t", icon: bad)) }
    }
    #expect(throws: QueueError.self) {
      try h.queue.show(ShowParameters(title: "t", icon: "/" + String(repeating: "a", count: 4096)))
    }
    #expect(throws: QueueError.self) { try h.queue.progress(ProgressParameters(title: "t", icon: "/a\0b")) }
  }

  // MARK: - Capacity and urgency

  @Test func capacity_refusesPastIt_withQueueFull() throws {
    var settings = QueueSettings()
    settings.capacity = 2
    let h = QueueHarness(settings: settings)
    let a = try h.show(delay: 1)
    _ = try h.show(delay: 1)
    #expect(throws: QueueError.queueFull(capacity: 2)) { try h.show(delay: 1) }
    #expect(throws: QueueError.queueFull(capacity: 2)) {
      try h.queue.progress(ProgressParameters(title: "p"))
    }
    _ = try h.queue.cancel(CancelParameters(id: a))
    _ = try h.show(delay: 1)
  }

  @Test func critical_holdsUntilEnded() throws {
    let h = QueueHarness()
    let id = try h.queue.show(ShowParameters(title: "Battery low", urgency: .critical, fadeIn: 1, fadeOut: 1))
    #expect(try h.queue.get(id).hold == 0)
    #expect(h.waitUntilShown(id))
    h.advance(to: 100_000)
    #expect(h.phase(id) == .holding)
    _ = try h.queue.end(EndParameters(id: id))
    #expect(h.phase(id) == .fadingOut)
    h.advance(to: 100_001)
    #expect(try h.queue.get(id).outcome == .completed)
  }

  @Test func explicitHoldZero_holdsUntilEnded() throws {
    let h = QueueHarness()
    let id = try h.show(hold: 0)
    #expect(h.waitUntilShown(id))
    h.advance(to: 50_000)
    #expect(h.phase(id) == .holding)
  }

  @Test func critical_jumpsAheadOfNormalNoticesInTheLane() throws {
    let h = QueueHarness()
    let a = try h.show()
    #expect(h.waitUntilShown(a))
    let b = try h.show("b")
    let low = try h.show("low", urgency: .low)
    let critical = try h.show("critical", hold: 1, urgency: .critical)
    h.advance(to: 4)
    #expect(h.waitUntilShown(critical))
    #expect(h.phase(b) == .queued)
    h.advance(to: 7)  // critical: 1 + 1 + 1
    #expect(h.waitUntilShown(b))
    #expect(h.phase(low) == .queued)
    h.advance(to: 11)
    #expect(h.waitUntilShown(low))
  }

  // MARK: - History, Get and Wait

  @Test func history_isNewestFirst_andTrimmedToHistorySize() throws {
    var settings = QueueSettings()
    settings.historySize = 3
    let h = QueueHarness(settings: settings)
    var ids: [Int] = []
    for _ in 0..<5 {
      let id = try h.show(delay: 1)
      _ = try h.queue.cancel(CancelParameters(id: id))
      ids.append(id)
    }
    #expect(h.queue.history().map(\.id) == [ids[4], ids[3], ids[2]])
    #expect(h.queue.history(HistoryParameters(limit: 2)).map(\.id) == [ids[4], ids[3]])
    #expect(throws: QueueError.noSuchNotice(id: ids[0])) { try h.queue.get(ids[0]) }
    #expect(try h.queue.get(ids[2]).outcome == .cancelled)
    #expect(h.queue.status().finished == 3)
  }

  @Test func history_filtersByOutcomeAndApp() throws {
    let h = QueueHarness()
    let a = try h.show(delay: 1, app: "mail")
    let b = try h.show(delay: 1, app: "chat")
    _ = try h.queue.cancel(CancelParameters(id: a))
    _ = try h.queue.end(EndParameters(id: b))
    #expect(h.queue.history(HistoryParameters(outcome: .cancelled)).map(\.id) == [a])
    #expect(h.queue.history(HistoryParameters(app: "chat")).map(\.id) == [b])
    #expect(h.queue.history(HistoryParameters(outcome: .completed)).first?.outcome == .completed)
  }

  @Test func wait_cancelled_isForgotten_andNeverAnswered() throws {
    let h = QueueHarness()
    let id = try h.show()
    #expect(h.waitUntilShown(id))
    let replies = EventRecorder()
    let kept = try h.queue.wait(id) { replies.record(Event(kind: .finished, at: 0, id: $0.id, notice: $0)) }
    let dropped = try h.queue.wait(id) { _ in Issue.record("a cancelled wait was answered") }
    #expect(h.queue.subscriberCounts.waiters == 2)
    dropped.cancel()
    #expect(h.queue.subscriberCounts.waiters == 1)
    h.advance(to: 4)
    #expect(replies.waitFor { $0.notice?.outcome == .completed })
    #expect(h.queue.subscriberCounts.waiters == 0)
    kept.cancel()  // after the answer: nothing left to forget
    #expect(h.queue.subscriberCounts.waiters == 0)
  }

  @Test func get_andWait_answerForFinishedNotices() throws {
    let h = QueueHarness()
    let id = try h.show()
    #expect(h.waitUntilShown(id))
    let replies = EventRecorder()
    try h.queue.wait(id) { notice in
      replies.record(Event(kind: .finished, at: 0, id: notice.id, notice: notice))
    }
    h.advance(to: 3)
    h.queue.flushEvents()  // a reply sent by now would have arrived
    #expect(replies.all.isEmpty)
    h.advance(to: 4)
    #expect(replies.waitFor { $0.notice?.outcome == .completed })
    let notice = try h.queue.get(id)
    #expect(notice.phase == .finished)
    #expect(notice.outcome == .completed)
    let late = EventRecorder()
    try h.queue.wait(id) { notice in late.record(Event(kind: .finished, at: 0, id: notice.id, notice: notice))
    }
    #expect(late.waitFor { $0.notice?.outcome == .completed })
  }

  @Test func getAndWait_unknownId_isNoSuchNotice() {
    let h = QueueHarness()
    #expect(throws: QueueError.noSuchNotice(id: 5)) { try h.queue.get(5) }
    #expect(throws: QueueError.noSuchNotice(id: 5)) { try h.queue.wait(5) { _ in } }
    #expect(throws: QueueError.noSuchNotice(id: 5)) {
      try h.queue.update(UpdateParameters(id: 5, title: "x"))
    }
  }

  @Test func ids_arePositive_increasing_andNeverReused() throws {
    var settings = QueueSettings()
    settings.rules = [Rule(name: "mute", matchApp: Glob("muted"), suppress: true)]
    let h = QueueHarness(settings: settings)
    var ids: [Int] = []
    ids.append(try h.show(delay: 1, key: "k"))
    ids.append(try h.show(delay: 1, key: "k"))  // replaces the first
    ids.append(try h.show(app: "muted"))  // suppressed
    ids.append(try h.queue.progress(ProgressParameters(title: "p", delay: 1)).id)
    _ = try h.queue.cancel(CancelParameters(all: true))
    ids.append(try h.show(delay: 1))
    #expect(ids.allSatisfy { $0 > 0 })
    #expect(ids == ids.sorted())
    #expect(Set(ids).count == ids.count)
  }

  // MARK: - Validation

  static let invalidShows: [(ShowParameters, String)] = [
    (ShowParameters(title: String(repeating: "a", count: 1025)), "title"),
    (ShowParameters(title: String(repeating: "é", count: 513)), "title"),  // 1026 bytes, 513 characters
    (ShowParameters(title: "t", body: String(repeating: "b", count: 16 * 1024 + 1)), "body"),
    (ShowParameters(title: "t", delay: -1), "delay"),
    (ShowParameters(title: "t", delay: 86_401), "delay"),
    (ShowParameters(title: "t", fadeIn: .nan), "fadeIn"),
    (ShowParameters(title: "t", fadeIn: -0.001), "fadeIn"),
    (ShowParameters(title: "t", hold: .infinity), "hold"),
    (ShowParameters(title: "t", hold: -5), "hold"),
    (ShowParameters(title: "t", fadeOut: 1e9), "fadeOut"),
    (ShowParameters(title: "t", fadeOut: .nan), "fadeOut"),
    (ShowParameters(title: "t", actions: [Action(key: "", label: "Empty")]), "actions.0.key"),
    (ShowParameters(title: "t", app: String(repeating: "a", count: 257)), "app"),
    (ShowParameters(title: "t", tag: String(repeating: "t", count: 257)), "tag"),
    (ShowParameters(title: "t", key: String(repeating: "k", count: 257)), "key"),
    (ShowParameters(title: "t", actions: (0..<9).map { Action(key: "k\($0)", label: "l") }), "actions"),
    (
      ShowParameters(
        title: "t",
        actions: [Action(key: "a", label: "A"), Action(key: String(repeating: "k", count: 257), label: "B")]),
      "actions.1.key"
    ),
    (
      ShowParameters(title: "t", actions: [Action(key: "a", label: String(repeating: "é", count: 129))]),
      "actions.0.label"
    ),
  ]

  static let invalidProgress: [(ProgressParameters, String)] = [
    (ProgressParameters(title: "t", app: String(repeating: "a", count: 257)), "app"),
    (ProgressParameters(title: "t", tag: String(repeating: "t", count: 257)), "tag"),
    (ProgressParameters(title: "t", key: String(repeating: "k", count: 257)), "key"),
  ]

  @Test("invalid Progress parameters are refused, naming the field", arguments: invalidProgress)
  func progress_invalid_namesTheField(parameters: ProgressParameters, field: String) {
    let h = QueueHarness()
    let error = #expect(throws: QueueError.self) { try h.queue.progress(parameters) }
    #expect(error?.field == field)
    #expect(h.queue.list().isEmpty)
  }

  @Test func namesAndActions_atTheirLimits_areAccepted() throws {
    let h = QueueHarness()
    let name = String(repeating: "n", count: 256)
    _ = try h.queue.show(
      ShowParameters(
        title: "t", app: name, tag: name, key: name,
        actions: (0..<8).map { Action(key: "\($0)" + String(repeating: "k", count: 255), label: name) }))
    _ = try h.queue.progress(
      ProgressParameters(title: "p", app: name, tag: name, key: "p" + name.dropFirst()))
    #expect(h.queue.list().count == 2)
  }

  @Test("invalid Show parameters are refused, naming the field", arguments: invalidShows)
  func show_invalid_namesTheField(parameters: ShowParameters, field: String) {
    let h = QueueHarness()
    let error = #expect(throws: QueueError.self) { try h.queue.show(parameters) }
    #expect(error?.field == field)
    #expect(h.queue.list().isEmpty)
  }

  @Test func show_atTheLimits_isAccepted() throws {
    let h = QueueHarness()
    _ = try h.queue.show(
      ShowParameters(
        title: String(repeating: "a", count: 1024), body: String(repeating: "b", count: 16 * 1024),
        delay: 86_400, fadeIn: 0, hold: 86_400, fadeOut: 0))
    #expect(h.queue.list().count == 1)
  }

  static let invalidOthers: [(String, String)] = [
    ("progress timeout", "timeout"), ("progress fadeIn", "fadeIn"), ("progress title", "title"),
    ("end message", "message"), ("end hold", "hold"), ("update title", "title"), ("update body", "body"),
    ("suspend duration", "duration"), ("watch fps", "fps"),
  ]

  @Test("other invalid requests are refused, naming the field", arguments: invalidOthers)
  func request_invalid_namesTheField(request: String, field: String) throws {
    let h = QueueHarness()
    let id = try h.show(delay: 1)
    let error = #expect(throws: QueueError.self) {
      switch request {
      case "progress timeout": _ = try h.queue.progress(ProgressParameters(title: "p", timeout: -1))
      case "progress fadeIn": _ = try h.queue.progress(ProgressParameters(title: "p", fadeIn: .nan))
      case "progress title":
        _ = try h.queue.progress(ProgressParameters(title: String(repeating: "x", count: 2000)))
      case "end message":
        _ = try h.queue.end(EndParameters(id: id, message: String(repeating: "m", count: 20_000)))
      case "end hold": _ = try h.queue.end(EndParameters(id: id, hold: -1))
      case "update title":
        _ = try h.queue.update(UpdateParameters(id: id, title: String(repeating: "x", count: 2000)))
      case "update body":
        _ = try h.queue.update(UpdateParameters(id: id, body: String(repeating: "x", count: 20_000)))
      case "suspend duration": try h.queue.suspend(for: 90_000)
      case "watch fps": _ = try h.queue.watch(fps: 0) { _ in }
      default: Issue.record("unknown request \(request)")
      }
    }
    #expect(error?.field == field)
    #expect(try h.queue.get(id).phase == .waiting)
  }

  // MARK: - Update, Invoke, dismiss

  @Test func update_visibleNotice_changesItInPlace_andRestartsItsHold() throws {
    let h = QueueHarness()
    let id = try h.show("Old", fadeIn: 1, hold: 2, fadeOut: 1)
    #expect(h.waitUntilShown(id))
    h.advance(to: 2)
    let updated = try h.queue.update(UpdateParameters(id: id, title: "New", body: "more", value: 3))
    #expect(updated.title == "New")
    #expect(updated.body == "more")
    #expect(updated.value == 3)
    h.advance(to: 3.999)
    #expect(h.phase(id) == .holding)
    h.advance(to: 4)
    #expect(h.phase(id) == .fadingOut)
  }

  @Test func update_afterPlainNoticeWasEnded_doesNotHoldItForever() throws {
    let h = QueueHarness()
    let id = try h.show(fadeIn: 1, hold: 5, fadeOut: 2)
    #expect(h.waitUntilShown(id))
    h.advance(to: 2)
    _ = try h.queue.end(EndParameters(id: id))
    h.advance(to: 2.5)
    _ = try h.queue.update(UpdateParameters(id: id, body: "late news"))
    h.advance(to: 1000)
    #expect(try h.queue.get(id).outcome == .completed)
  }

  @Test func invoke_onVisibleNotice_recordsTheAction_fadesOut_completed() throws {
    let h = QueueHarness()
    let actions = [Action(key: "open", label: "Open"), Action(key: "later", label: "Later")]
    let id = try h.show(fadeIn: 1, hold: 10, fadeOut: 1, actions: actions)
    #expect(h.waitUntilShown(id))
    h.advance(to: 2)
    let invoked = try h.queue.invoke(InvokeParameters(id: id, action: "open"))
    #expect(invoked.invoked == "open")
    #expect(invoked.phase == .fadingOut)
    h.advance(to: 3)
    let notice = try h.queue.get(id)
    #expect(notice.outcome == .completed)
    #expect(notice.invoked == "open")
    #expect(h.recorder.waitFor { $0.kind == .invoked && $0.id == id && $0.notice?.invoked == "open" })
  }

  @Test func invoke_unknownAction_isInvalidAction_notVisible_isInvalidId() throws {
    let h = QueueHarness()
    let actions = [Action(key: "open", label: "Open")]
    let visible = try h.show(actions: actions)
    #expect(h.waitUntilShown(visible))
    let unknown = #expect(throws: QueueError.self) {
      try h.queue.invoke(InvokeParameters(id: visible, action: "delete"))
    }
    #expect(unknown?.field == "action")
    let queued = try h.show(actions: actions)
    let notVisible = #expect(throws: QueueError.self) {
      try h.queue.invoke(InvokeParameters(id: queued, action: "open"))
    }
    #expect(notVisible?.field == "id")
    #expect(h.phase(visible) == .fadingIn)
  }

  @Test func dismiss_visibleNotice_finishesDismissedAtOnce() throws {
    let h = QueueHarness()
    let id = try h.show(hold: 10)
    #expect(h.waitUntilShown(id))
    h.advance(to: 2)
    _ = try h.queue.dismiss(DismissParameters(id: id))
    h.clock.advance(by: 0)
    let notice = try h.queue.get(id)
    #expect(notice.outcome == .dismissed)
    #expect(notice.finished == Self.epoch + 2)
  }

  @Test func dismissByID_orAllVisible_finishesThemDismissed_andLeavesTheRestWaiting() throws {
    let h = QueueHarness()
    let first = try h.show(hold: 10)
    let second = try h.show(hold: 10)
    let later = try h.show(delay: 50)
    #expect(h.waitUntilShown(first))
    #expect(try h.queue.dismiss(DismissParameters(id: first)) == [first])
    #expect(try h.queue.get(first).outcome == .dismissed)
    // One slot here: the next shows once the first is gone.
    #expect(h.waitUntilShown(second))
    // Once finished, dismissing it again does nothing; an id never given is an error.
    #expect(try h.queue.dismiss(DismissParameters(id: first)) == [])
    #expect(throws: QueueError.noSuchNotice(id: 99)) { try h.queue.dismiss(DismissParameters(id: 99)) }
    // All: what a person sees; the notice not yet due stays.
    #expect(try h.queue.dismiss(DismissParameters(all: true)) == [second])
    #expect(try h.queue.get(second).outcome == .dismissed)
    #expect(h.phase(later) == .waiting)
    for both in [DismissParameters(), DismissParameters(id: later, all: true)] {
      let refused = #expect(throws: QueueError.self) { try h.queue.dismiss(both) }
      #expect(refused?.field == "id")
    }
  }

  @Test func resident_invokingAnAction_reportsIt_butTheNoticeStays() throws {
    let h = QueueHarness()
    let id = try h.show(
      fadeIn: 1, hold: 10, fadeOut: 1, actions: [Action(key: "open", label: "Open")],
      hints: Hints(resident: true))
    #expect(h.waitUntilShown(id))
    h.advance(to: 2)
    let invoked = try h.queue.invoke(InvokeParameters(id: id, action: "open", activationToken: "t-1"))
    #expect(invoked.invoked == "open")
    #expect(invoked.phase == .holding)
    #expect(h.recorder.waitFor { $0.kind == .invoked && $0.id == id && $0.activationToken == "t-1" })
    // It lives its hold out, as if nothing was chosen.
    h.advance(to: 10.9)
    #expect(h.phase(id) == .holding)
    h.advance(to: 13)
    #expect(try h.queue.get(id).outcome == .completed)
  }

  @Test func transient_isSeenFinishing_butNotKeptInHistory() throws {
    let h = QueueHarness()
    let kept = try h.show("kept", fadeIn: 0, hold: 1, fadeOut: 0)
    #expect(h.waitUntilShown(kept))
    h.advance(to: 2)
    #expect(h.recorder.waitForFinish(of: kept))
    let passing = try h.show("passing", fadeIn: 0, hold: 1, fadeOut: 0, hints: Hints(transient: true))
    #expect(try h.queue.get(passing).hints == Hints(transient: true))
    #expect(h.waitUntilShown(passing))
    h.advance(to: 4)
    #expect(
      h.recorder.waitFor { $0.kind == .finished && $0.id == passing && $0.notice?.outcome == .completed })
    #expect(try h.queue.get(kept).outcome == .completed)
    #expect(throws: QueueError.noSuchNotice(id: passing)) { try h.queue.get(passing) }
    #expect(h.queue.history().map(\.id) == [kept])
  }

  // MARK: - Watching and frames

  @Test func watch_startsWithASnapshotOfUnfinishedNotices() throws {
    let h = QueueHarness()
    let a = try h.show(delay: 5)
    try h.queue.suspend()
    let late = EventRecorder()
    let subscription = try h.queue.watch { late.record($0) }
    defer { subscription.cancel() }
    #expect(late.waitFor { $0.kind == .snapshot })
    let first = try #require(late.all.first)
    #expect(first.kind == .snapshot)
    #expect(first.notices?.map(\.id) == [a])
    #expect(first.suspended == true)
  }

  @Test func frames_goOnlyToWatchersThatAsked_onlyWhileSomethingFades() throws {
    let h = QueueHarness(frames: true, fps: 8)
    let plain = EventRecorder()
    let subscription = try h.queue.watch { plain.record($0) }
    defer { subscription.cancel() }
    #expect(!h.queue.isFrameTimerArmed)
    let id = try h.show(fadeIn: 1, hold: 2, fadeOut: 1)
    #expect(h.waitUntilShown(id))
    #expect(h.queue.isFrameTimerArmed)
    h.advance(to: 1)
    #expect(h.recorder.waitFor { $0.kind == .phase && $0.phase == .holding })
    let fadeIn = h.recorder.frames
    #expect(fadeIn.map(\.opacity) == [0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875])
    #expect(fadeIn.allSatisfy { $0.id == id && $0.phase == .fadingIn })
    #expect(!h.queue.isFrameTimerArmed)  // holding: nothing fades
    h.advance(to: 2.999)
    h.queue.flushEvents()  // frames come from a timer on the manual clock; any sent by now are here
    #expect(h.recorder.frames.count == 7)
    h.advance(to: 3)
    #expect(h.queue.isFrameTimerArmed)
    h.advance(to: 4)
    #expect(h.recorder.waitForFinish(of: id))
    #expect(h.recorder.frames.count == 14)
    #expect(h.recorder.frames.suffix(7).map(\.opacity) == [0.875, 0.75, 0.625, 0.5, 0.375, 0.25, 0.125])
    #expect(!h.queue.isFrameTimerArmed)  // idle means asleep
    #expect(plain.frames.isEmpty)
    #expect(plain.waitFor { $0.kind == .finished })
  }

  @Test func noFrameWatcher_meansNoFrameTimer_evenWhileFading() throws {
    let h = QueueHarness()
    let id = try h.show(fadeIn: 2)
    #expect(h.waitUntilShown(id))
    h.advance(to: 1)
    #expect(h.phase(id) == .fadingIn)
    #expect(!h.queue.isFrameTimerArmed)
    #expect(h.recorder.frames.isEmpty)
  }

  // MARK: - Settings

  @Test func suppressedNotice_isAnsweredWithAnId_inHistoryAsCancelled_neverShown() throws {
    var settings = QueueSettings()
    settings.rules = [Rule(name: "quiet", matchApp: Glob("spam*"), suppress: true)]
    let h = QueueHarness(settings: settings)
    let id = try h.show(app: "spammer")
    #expect(id > 0)
    let notice = try h.queue.get(id)
    #expect(notice.phase == .finished)
    #expect(notice.outcome == .cancelled)
    #expect(h.queue.history().map(\.id) == [id])
    h.advance(to: 100)
    #expect(h.recorder.waitForFinish(of: id))
    #expect(h.recorder.lifecycle(of: id) == ["added", "finished:cancelled"])
    let other = try h.show(app: "mail")
    #expect(h.waitUntilShown(other))
  }

  @Test func rulesFromSettings_applyToAcceptedNotices() throws {
    var settings = QueueSettings()
    settings.timing = TimingOverrides(fadeIn: 0.5)
    settings.rules = [
      Rule(name: "mail", matchApp: Glob("mail"), timing: TimingOverrides(hold: 7), urgency: .low)
    ]
    let h = QueueHarness(settings: settings)
    let id = try h.queue.show(ShowParameters(title: "New mail", app: "mail"))
    let notice = try h.queue.get(id)
    #expect(notice.hold == 7)
    #expect(notice.fadeIn == 0.5)
    #expect(notice.urgency == .low)
  }

  @Test func apply_newMaxVisible_letsQueuedNoticesShow() throws {
    let h = QueueHarness()
    let a = try h.show()
    #expect(h.waitUntilShown(a))
    let b = try h.show()
    h.queue.apply(QueueHarness.settings(maxVisible: 2))
    #expect(h.waitUntilShown(b))
    #expect(h.queue.settings.maxVisible == 2)
  }
}
