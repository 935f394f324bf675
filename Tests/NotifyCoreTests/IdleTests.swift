import NotifyCore
import NotifyProtocol
import Testing

/// `[Idle] After=` on the machine (DESIGN §11): while the person is away, shown notices do not
/// count down their hold; back, each holds what was left of it. On a manual clock.
@Suite("QueueMachine: holds while the person is away")
struct IdleTests {
  static let away = IdleState(idle: true, source: "test")
  static let back = IdleState(idle: false, source: "test")

  static func driver(maxVisible: Int = 3) -> MachineDriver {
    MachineDriver(MachineDriver.settings(maxVisible: maxVisible))
  }

  @Test func awayDuringTheHold_itStandsStill_andBackItHoldsWhatWasLeft() throws {
    var d = Self.driver()
    let id = try d.show(fadeIn: 1, hold: 2, fadeOut: 1)
    d.advance(to: 2)
    #expect(d.phase(id) == .holding)
    d.perform { m, i in m.setIdle(Self.away, at: i) }
    #expect(d.machine.status.idle == Self.away)
    // Its hold would have ended at 3 and its fade-out at 4: away, nothing is armed for it.
    #expect(d.armed == nil)
    d.advance(to: 600)
    #expect(d.phase(id) == .holding)
    // Away at 2, a second into its hold: it has a second left.
    d.perform { m, i in m.setIdle(Self.back, at: i) }
    #expect(d.armed == 601)
    d.advance(to: 601)
    #expect(d.phase(id) == .fadingOut)
    d.advance(to: 602)
    #expect(d.outcome(id) == .completed)
    #expect(
      d.lifecycle(of: id) == ["added", "queued", "fadingIn", "holding", "fadingOut", "finished:completed"])
  }

  @Test func shownWhileAway_itHoldsUntilThePersonIsBack() throws {
    var d = Self.driver()
    d.perform { m, i in m.setIdle(Self.away, at: i) }
    let id = try d.show(fadeIn: 1, hold: 2, fadeOut: 1)
    d.advance(to: 1)
    #expect(d.phase(id) == .holding)
    #expect(d.armed == nil)
    d.advance(to: 50)
    d.perform { m, i in m.setIdle(Self.back, at: i) }
    d.advance(to: 52)
    #expect(d.phase(id) == .fadingOut)
  }

  @Test func awayDuringTheFadeIn_theFadeInRunsOn_andTheHoldWaits() throws {
    var d = Self.driver()
    let id = try d.show(fadeIn: 1, hold: 2, fadeOut: 1)
    d.advance(to: 0.5)
    d.perform { m, i in m.setIdle(Self.away, at: i) }
    #expect(d.armed == 1)
    d.advance(to: 1)
    #expect(d.phase(id) == .holding)
    #expect(d.armed == nil)
  }

  @Test func aNoticeFadingOut_orEnded_orHeldUntilEnded_isLeftAlone() throws {
    var d = Self.driver()
    let fading = try d.show("fading", fadeIn: 1, hold: 1, fadeOut: 2)
    let ended = try d.show("ended", fadeIn: 1, hold: 10, fadeOut: 1)
    d.advance(to: 2.5)
    #expect(d.phase(fading) == .fadingOut)
    _ = try d.perform { m, i in try m.end(EndParameters(id: ended, hold: 1), at: i) }
    d.perform { m, i in m.setIdle(Self.away, at: i) }
    d.advance(to: 4.5)
    #expect(d.outcome(fading) == .completed)
    #expect(d.outcome(ended) == .completed)
  }

  @Test func newsWhileAway_keepsTheHoldStill_andGivesAWholeHoldOnceBack() throws {
    var d = Self.driver()
    let id = try d.show(fadeIn: 1, hold: 2, fadeOut: 1)
    d.advance(to: 2.5)
    d.perform { m, i in m.setIdle(Self.away, at: i) }
    _ = try d.perform { m, i in try m.update(UpdateParameters(id: id, body: "more"), at: i) }
    #expect(d.armed == nil)
    d.advance(to: 100)
    #expect(d.phase(id) == .holding)
    d.perform { m, i in m.setIdle(Self.back, at: i) }
    #expect(d.armed == 102)
  }

  @Test func awayDuringTheFadeIn_andBackBeforeItEnds_theWholeHoldFollowsIt() throws {
    var d = Self.driver()
    let id = try d.show(fadeIn: 1, hold: 2, fadeOut: 1)
    d.advance(to: 0.25)
    d.perform { m, i in m.setIdle(Self.away, at: i) }
    d.advance(to: 0.5)
    d.perform { m, i in m.setIdle(Self.back, at: i) }
    #expect(d.armed == 1)
    d.advance(to: 3)
    #expect(d.phase(id) == .fadingOut)
  }

  @Test func aNoticeHeldWhileAway_keepsItsSlot_soTheNextWaits() throws {
    var d = Self.driver(maxVisible: 1)
    d.perform { m, i in m.setIdle(Self.away, at: i) }
    let first = try d.show("first", fadeIn: 1, hold: 2, fadeOut: 1)
    let second = try d.show("second", fadeIn: 1, hold: 2, fadeOut: 1)
    d.advance(to: 30)
    #expect(d.phase(first) == .holding)
    #expect(d.phase(second) == .queued)
    #expect(d.machine.occupancy(of: .notices) == (slots: 1, sticky: 0))
    d.perform { m, i in m.setIdle(Self.back, at: i) }
    d.advance(to: 33)
    #expect(d.outcome(first) == .completed)
    #expect(d.phase(second) == .fadingIn)
  }

  @Test func noSourceAnyMore_countsAsBack() throws {
    var d = Self.driver()
    d.perform { m, i in m.setIdle(Self.away, at: i) }
    let id = try d.show(fadeIn: 1, hold: 2, fadeOut: 1)
    d.advance(to: 10)
    d.perform { m, i in m.setIdle(nil, at: i) }
    #expect(d.machine.status.idle == nil)
    d.advance(to: 13)
    #expect(d.outcome(id) == .completed)
  }
}

/// `[Display] HoverHolds=` on the machine (issue 32): while the pointer is over a card its hold
/// stands still; when it leaves, the hold goes on with what was left, at least a second.
@Suite("QueueMachine: holds under the pointer")
struct PointerHoldTests {
  @Test func underThePointer_itHoldsPastThreeOfItsHolds_andLeftItHoldsWhatWasLeft() throws {
    var d = IdleTests.driver()
    let id = try d.show(fadeIn: 1, hold: 2, fadeOut: 1)
    d.advance(to: 1.5)
    d.perform { m, i in m.pointer(over: id, at: i) }
    #expect(d.armed == nil)  // nothing wakes while it stands still
    d.advance(to: 1.5 + 3 * 2)
    #expect(d.phase(id) == .holding)
    d.perform { m, i in m.pointer(over: nil, at: i) }
    // Over it half a second into its 2 s hold: 1.5 s left.
    #expect(d.armed == 7.5 + 1.5)
    d.advance(to: 9.5)
    #expect(d.phase(id) == .fadingOut)
    d.advance(to: 10)
    #expect(d.outcome(id) == .completed)
  }

  @Test func fadingOutBecauseItsHoldRanOut_itComesBack_andLeftItHoldsASecond() throws {
    var d = IdleTests.driver()
    let id = try d.show(fadeIn: 1, hold: 2, fadeOut: 2)
    d.advance(to: 4)  // half way through its fade-out
    #expect(d.phase(id) == .fadingOut)
    d.perform { m, i in m.pointer(over: id, at: i) }
    d.advance(to: 5)  // faded back in from half
    #expect(d.phase(id) == .holding && d.opacity(id) == 1)
    d.perform { m, i in m.pointer(over: nil, at: i) }
    d.advance(to: 5.999)
    #expect(d.phase(id) == .holding)
    d.advance(to: 6)
    #expect(d.phase(id) == .fadingOut)
  }

  @Test func aCardClosedByAPerson_doesNotComeBackUnderThePointer() throws {
    var d = IdleTests.driver()
    let id = try d.show(fadeIn: 1, hold: 2, fadeOut: 1)
    d.advance(to: 1.5)
    _ = try d.perform { m, i in try m.cancel(CancelParameters(id: id), at: i) }
    d.perform { m, i in m.pointer(over: id, at: i) }
    d.advance(to: 3)
    #expect(d.outcome(id) == .cancelled)
  }

  @Test func awayAndUnderThePointer_itHoldsUntilBothAreOver() throws {
    var d = IdleTests.driver()
    let id = try d.show(fadeIn: 1, hold: 2, fadeOut: 1)
    d.advance(to: 2)
    d.perform { m, i in m.pointer(over: id, at: i) }
    d.perform { m, i in m.setIdle(IdleTests.away, at: i) }
    d.perform { m, i in m.pointer(over: nil, at: i) }
    d.advance(to: 100)
    #expect(d.phase(id) == .holding)  // still away
    d.perform { m, i in m.setIdle(IdleTests.back, at: i) }
    #expect(d.armed == 101)  // the second it had left when the pointer came
  }

  @Test func movingFromOneCardToAnother_theFirstGoesOn_theSecondStands() throws {
    var d = IdleTests.driver()
    let first = try d.show(fadeIn: 1, hold: 4, fadeOut: 1)
    let second = try d.show(fadeIn: 1, hold: 4, fadeOut: 1)
    d.advance(to: 2)
    d.perform { m, i in m.pointer(over: first, at: i) }
    d.advance(to: 3)
    d.perform { m, i in m.pointer(over: second, at: i) }
    d.advance(to: 50)
    #expect(d.outcome(first) == .completed)
    #expect(d.phase(second) == .holding)
  }
}

/// `Reply` on the machine (issue 32): a notice that offers a reply field is answered with text, and
/// holds while a person types into it.
@Suite("QueueMachine: replies")
struct ReplyTests {
  private func shown(_ d: inout MachineDriver, reply: String? = "Reply", hold: Double = 2) throws -> Int {
    let id = try d.perform { m, i in
      try m.show(
        ShowParameters(
          title: "Ada", fadeIn: 1, hold: hold, fadeOut: 1, easeIn: .linear, easeOut: .linear, reply: reply),
        at: i)
    }
    d.advance(to: 1.5)
    return id
  }

  @Test func aReply_isKept_publishedAsReplied_andTheNoticeFadesOutCompleted() throws {
    var d = IdleTests.driver()
    let id = try shown(&d)
    let notice = try d.perform { m, i in try m.reply(ReplyParameters(id: id, text: "on my way"), at: i) }
    #expect(notice.replied == "on my way" && notice.phase == .fadingOut)
    #expect(d.lifecycle(of: id).contains("replied"))
    d.advance(to: 3)
    #expect(d.outcome(id) == .completed)
    #expect(d.machine.notice(id, at: d.now)?.replied == "on my way")
  }

  @Test func aReply_isRefused_withoutAField_whenNotVisible_orTooLong() throws {
    var d = IdleTests.driver()
    let plain = try shown(&d, reply: nil)
    #expect(throws: QueueError.self) {
      try d.perform { m, i in try m.reply(ReplyParameters(id: plain, text: "x"), at: i) }
    }
    let long = String(repeating: "a", count: RequestLimits.maximumReplyLength + 1)
    let field = try shown(&d)
    #expect(throws: QueueError.self) {
      try d.perform { m, i in try m.reply(ReplyParameters(id: field, text: long), at: i) }
    }
    let later = try d.perform { m, i in
      try m.show(ShowParameters(title: "later", delay: 60, reply: "Reply"), at: i)
    }
    #expect(throws: QueueError.self) {
      try d.perform { m, i in try m.reply(ReplyParameters(id: later, text: "x"), at: i) }
    }
  }

  @Test func whileAPersonTypes_theHoldStandsStill() throws {
    var d = IdleTests.driver()
    let id = try shown(&d)
    d.perform { m, i in m.typing(in: id, at: i) }
    d.advance(to: 60)
    #expect(d.phase(id) == .holding)
    d.perform { m, i in m.typing(in: nil, at: i) }
    #expect(d.armed == 61.5)  // the 1.5 s it had left
  }

  @Test func aReplyTypedAtTheDesk_comesBackWithItsAnswer_withinTheBound() throws {
    var d = IdleTests.driver()
    let id = try shown(&d)
    let closed = d.perform { m, i in
      m.answer(id, outcome: .completed, invoked: nil, replied: "on my way", at: i)
    }
    #expect(closed)
    #expect(d.machine.notice(id, at: d.now)?.replied == "on my way")
    let other = try shown(&d)
    let long = String(repeating: "é", count: RequestLimits.maximumReplyLength)  // twice the bytes
    _ = d.perform { m, i in m.answer(other, outcome: .completed, invoked: nil, replied: long, at: i) }
    #expect(d.machine.notice(other, at: d.now)?.replied == nil)
  }
}
