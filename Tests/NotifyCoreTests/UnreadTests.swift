import NotifyProtocol
import Testing

@testable import NotifyCore

/// What a person missed and getting it back (DESIGN §13), on the machine with a manual clock: a
/// notice that finished without being shown to a person is unread; `Read`, `Restore`, `Forget`.
@Suite("QueueMachine: unread, read, restore, forget")
struct UnreadTests {
  static let away = IdleState(idle: true, source: "test")
  static let back = IdleState(idle: false, source: "test")

  /// A driver whose popups draw (unless `drawn` is false).
  static func driver(drawn: Bool = true, _ change: (inout QueueSettings) -> Void = { _ in }) -> MachineDriver
  {
    var settings = MachineDriver.settings(maxVisible: 3)
    change(&settings)
    var d = MachineDriver(settings)
    if drawn { d.perform { m, i in m.setPresenter(.popups, true, at: i) } }
    return d
  }

  func unread(_ d: MachineDriver, _ id: Int) -> Bool { d.machine.notice(id, at: d.now)?.unread == true }

  /// The `unread` count the last published event carried.
  func lastToldCount(_ d: MachineDriver) -> Int? {
    d.log.reversed().lazy.compactMap { effect -> Int? in
      guard case .publish(let event) = effect else { return nil }
      return event.unread
    }.first
  }

  @Test func drawnNowhere_aNoticeThatRanItsCourse_isUnread_andCounted() throws {
    var d = Self.driver(drawn: false)
    let id = try d.show(fadeIn: 1, hold: 2, fadeOut: 1)
    d.advance(to: 5)
    #expect(d.outcome(id) == .timedOut || d.outcome(id) == .completed)
    #expect(unread(d, id))
    #expect(d.machine.unreadCount == 1)
    #expect(d.machine.status.unread == 1)
    #expect(lastToldCount(d) == 1)
    // Kept so in the store: its finish is journaled unread.
    #expect(
      d.log.contains {
        if case .journal(.finished(let n)) = $0 { n.id == id && n.unread == true } else { false }
      })
  }

  @Test func drawnWhileThePersonIsThere_itIsRead() throws {
    var d = Self.driver()
    let id = try d.show(fadeIn: 1, hold: 2, fadeOut: 1)
    d.advance(to: 5)
    #expect(d.machine.notice(id, at: d.now)?.outcome != nil)
    #expect(!unread(d, id))
    #expect(d.machine.unreadCount == 0)
  }

  @Test func forwardedToAnotherServer_itIsSeenThere() throws {
    var d = Self.driver(drawn: false)
    d.perform { m, i in m.setPresenter(.forwarded, true, at: i) }
    let id = try d.show(fadeIn: 0, hold: 1, fadeOut: 0)
    d.advance(to: 2)
    #expect(!unread(d, id))
  }

  @Test func shownOnlyWhileAway_andEnded_isUnread_butSeenOnceBack_isNot() throws {
    var d = Self.driver()
    d.perform { m, i in m.setIdle(Self.away, at: i) }
    let missed = try d.show("missed", fadeIn: 1, hold: 2, fadeOut: 1)
    let seen = try d.show("seen", fadeIn: 1, hold: 2, fadeOut: 1)
    d.advance(to: 10)
    // Away, holds stand still: its sender ends it meanwhile.
    _ = try d.perform { m, i in try m.end(EndParameters(id: missed), at: i) }
    d.advance(to: 12)
    #expect(d.outcome(missed) == .completed)
    #expect(unread(d, missed))
    d.perform { m, i in m.setIdle(Self.back, at: i) }
    d.advance(to: 20)
    #expect(d.outcome(seen) != nil)
    #expect(!unread(d, seen))
    #expect(d.machine.unreadCount == 1)
  }

  @Test func appearingAsThePopupsConnect_itIsSeenThen() throws {
    var d = Self.driver(drawn: false)
    let id = try d.show(fadeIn: 1, hold: 5, fadeOut: 1)
    d.advance(to: 2)
    d.perform { m, i in m.setPresenter(.popups, true, at: i) }
    d.advance(to: 10)
    #expect(!unread(d, id))
  }

  @Test func takenBack_suppressed_dismissed_orActedOn_isNeverUnread() throws {
    var d = Self.driver(drawn: false) { settings in
      var rule = Rule(name: "quiet")
      rule.matchApp = Glob("muted")
      rule.suppress = true
      settings.rules = [rule]
    }
    let cancelled = try d.show(hold: 5)
    let suppressed = try d.show(hold: 5, app: "muted")
    let dismissed = try d.show(hold: 5)
    let invoked = try d.perform { m, i in
      try m.show(
        ShowParameters(title: "Deploy?", hold: 5, actions: [Action(key: "yes", label: "Yes")]), at: i)
    }
    let old = try d.show(delay: 50, hold: 5, key: "build")
    d.advance(to: 1)
    let replacing = try d.show(hold: 5, key: "build")  // the old one was not shown yet: it is replaced
    _ = try d.perform { m, i in try m.cancel(CancelParameters(id: cancelled), at: i) }
    _ = try d.perform { m, i in try m.dismiss(DismissParameters(id: dismissed), at: i) }
    _ = try d.perform { m, i in try m.invoke(InvokeParameters(id: invoked, action: "yes"), at: i) }
    d.advance(to: 20)
    for id in [cancelled, suppressed, dismissed, invoked] {
      #expect(d.machine.notice(id, at: d.now)?.outcome != nil)
      #expect(!unread(d, id))
    }
    #expect(replacing != old && d.outcome(old) == .replaced && !unread(d, old))
    // Only what replaced it ran its course unseen.
    #expect(d.machine.unreadCount == 1 && unread(d, replacing))
  }

  @Test func foldedByFloodControl_eachFoldedNoticeIsUnread() throws {
    var d = Self.driver { $0.perApp = FloodLimit(count: 1, period: 3600) }
    _ = try d.show("first", hold: 5, app: "chatty")
    let folded = try d.show("second", hold: 5, app: "chatty")
    #expect(d.outcome(folded) == .folded)
    #expect(unread(d, folded))
  }

  // MARK: - Read

  @Test func read_byIdOrAll_clearsAndCounts_andIsJournaledAndPublished() throws {
    var d = Self.driver(drawn: false)
    let ids = try (0..<3).map { _ in try d.show(fadeIn: 0, hold: 1, fadeOut: 0) }
    d.advance(to: 2)
    #expect(d.machine.unreadCount == 3)
    d.log.removeAll()
    let first = try d.perform { m, i in try m.read(ReadParameters(ids: [ids[0], ids[0]]), at: i) }
    #expect(first == [ids[0]])
    #expect(!unread(d, ids[0]) && unread(d, ids[1]))
    #expect(d.machine.unreadCount == 2)
    #expect(
      d.log.contains {
        if case .journal(.finished(let n)) = $0 { n.id == ids[0] && n.unread == nil } else { false }
      })
    #expect(d.lifecycle(of: ids[0]) == ["read"])
    #expect(lastToldCount(d) == 2)
    // Again: nothing was unread.
    #expect(try d.perform { m, i in try m.read(ReadParameters(ids: [ids[0]]), at: i) }.isEmpty)
    let rest = try d.perform { m, i in try m.read(ReadParameters(all: true), at: i) }
    #expect(rest == [ids[2], ids[1]])
    #expect(d.machine.unreadCount == 0)
    #expect(lastToldCount(d) == 0)
  }

  @Test func read_forget_restore_refuseWhatIsNotInHistory_changingNothing() throws {
    var d = Self.driver(drawn: false)
    let done = try d.show(fadeIn: 0, hold: 1, fadeOut: 0)
    d.advance(to: 2)
    let running = try d.show(fadeIn: 0, hold: 100, fadeOut: 0)
    #expect(throws: QueueError.noSuchNotice(id: 999)) {
      try d.perform { m, i in try m.read(ReadParameters(ids: [done, 999]), at: i) }
    }
    #expect(unread(d, done))  // the good id was not read either
    #expect(throws: QueueError.self) {
      try d.perform { m, i in try m.read(ReadParameters(ids: [running]), at: i) }
    }
    #expect(throws: QueueError.self) { try d.perform { m, i in try m.read(ReadParameters(), at: i) } }
    #expect(throws: QueueError.self) {
      try d.perform { m, i in try m.read(ReadParameters(ids: [done], all: true), at: i) }
    }
    #expect(throws: QueueError.self) {
      try d.perform { m, i in try m.read(ReadParameters(ids: Array(1...RequestLimits.maximumIDs + 1)), at: i)
      }
    }
    #expect(throws: QueueError.self) {
      try d.perform { m, i in try m.forget(ForgetParameters(ids: [running]), at: i) }
    }
    #expect(throws: QueueError.self) {
      try d.perform { m, i in try m.forget(ForgetParameters(app: "a", all: true), at: i) }
    }
    #expect(throws: QueueError.self) {
      try d.perform { m, i in try m.restore(RestoreParameters(ids: [running]), at: i) }
    }
    #expect(throws: QueueError.self) {
      try d.perform { m, i in try m.restore(RestoreParameters(last: 0), at: i) }
    }
    #expect(throws: QueueError.self) {
      try d.perform { m, i in try m.restore(RestoreParameters(ids: [done], last: 1), at: i) }
    }
    #expect(d.machine.notice(done, at: d.now) != nil && d.machine.unreadCount == 1)
  }

  // MARK: - Restore

  @Test func restore_showsTheSameContentAgain_asANewNotice_linkedToTheOriginal_whichIsRead() throws {
    var d = Self.driver(drawn: false)
    let original = try d.perform { m, i in
      try m.show(
        ShowParameters(
          title: "Deploy 42", body: "to <b>production</b>", app: "ci", urgency: .low, key: "deploy", delay: 3,
          fadeIn: 0.5, hold: 4, fadeOut: 0.5, actions: [Action(key: "open", label: "Open")], reply: "Why?"),
        at: i)
    }
    d.advance(to: 10)
    #expect(unread(d, original))
    let restored = try d.perform { m, i in try m.restore(RestoreParameters(last: 1), at: i) }
    #expect(restored.count == 1)
    let copy = try #require(d.machine.notice(restored[0], at: d.now))
    let source = try #require(d.machine.notice(original, at: d.now))
    #expect(copy.id != original && copy.restoredFrom == original)
    #expect(copy.title == source.title && copy.body == source.body && copy.app == source.app)
    #expect(copy.urgency == .low && copy.actions == source.actions && copy.reply == "Why?")
    #expect(copy.fadeIn == 0.5 && copy.hold == 4 && copy.fadeOut == 0.5)
    #expect(copy.delay == 0 && copy.key == nil && copy.outcome == nil && copy.unread == nil)
    #expect(!unread(d, original) && d.machine.unreadCount == 0)
    // A new timeline: it fades in now, and runs its course.
    d.advance(to: 10.5)
    #expect(d.phase(restored[0]) == .holding)
    d.advance(to: 20)
    #expect(d.machine.notice(restored[0], at: d.now)?.outcome != nil)
  }

  @Test func restore_theLastFew_newestFirst_passingDoNotDisturbAsCriticalNoticesDo() throws {
    var d = Self.driver()
    let ids = try (0..<3).map { _ in try d.show(fadeIn: 0, hold: 1, fadeOut: 0) }
    d.advance(to: 2)
    try d.perform { m, i in try m.suspend(for: nil, allow: .critical, at: i) }
    let restored = try d.perform { m, i in try m.restore(RestoreParameters(last: 2), at: i) }
    #expect(restored.map { d.machine.notice($0, at: d.now)?.restoredFrom } == [ids[2], ids[1]])
    d.advance(to: 2.1)
    #expect(restored.allSatisfy { d.phase($0) == .holding })
    // "Nothing passes" holds a restore too, until resumed.
    d.advance(to: 10)
    try d.perform { m, i in try m.suspend(for: nil, allow: .nothing, at: i) }
    let held = try d.perform { m, i in try m.restore(RestoreParameters(ids: [ids[0]]), at: i) }[0]
    d.advance(to: 20)
    #expect(d.phase(held) == .queued)
    d.perform { m, i in m.resume(at: i) }
    d.advance(to: 20.1)
    #expect(d.phase(held) == .holding)
  }

  @Test func restore_anIndicator_comesBackAsANotice_withItsClosingWords() throws {
    var d = Self.driver()
    let (id, _) = try d.perform { m, i in try m.progress(ProgressParameters(title: "Build", value: 40), at: i)
    }
    d.advance(to: 1)
    _ = try d.perform { m, i in try m.end(EndParameters(id: id, message: "Build passed"), at: i) }
    d.advance(to: 10)
    let restored = try d.perform { m, i in try m.restore(RestoreParameters(ids: [id]), at: i) }
    let copy = try #require(d.machine.notice(restored[0], at: d.now))
    #expect(copy.kind == .notice && copy.body == "Build passed" && copy.value == nil && copy.hold > 0)
  }

  @Test func restore_refusesPastCapacity_showingNone() throws {
    var d = Self.driver { $0.capacity = 2 }
    for round in 0..<3 {
      try d.show(fadeIn: 0, hold: 1, fadeOut: 0)
      d.advance(to: Double(round * 2 + 2))
    }
    #expect(throws: QueueError.queueFull(capacity: 2)) {
      try d.perform { m, i in try m.restore(RestoreParameters(last: 3), at: i) }
    }
    #expect(d.machine.unfinishedNotices(at: d.now).isEmpty)
  }

  // MARK: - Forget

  @Test func forget_byIdAppOrAll_removesFromHistoryAndStore_andFixesTheCount() throws {
    var d = Self.driver(drawn: false)
    let mail = try d.show(fadeIn: 0, hold: 1, fadeOut: 0, app: "mail")
    let chat = try (0..<2).map { _ in try d.show(fadeIn: 0, hold: 1, fadeOut: 0, app: "chat-1") }
    let other = try d.show(fadeIn: 0, hold: 1, fadeOut: 0, app: "build")
    d.advance(to: 2)
    #expect(d.machine.unreadCount == 4)
    d.log.removeAll()
    #expect(try d.perform { m, i in try m.forget(ForgetParameters(ids: [mail]), at: i) } == [mail])
    #expect(d.machine.notice(mail, at: d.now) == nil)
    #expect(d.log.contains(.journal(.forgotten(id: mail))))
    #expect(d.lifecycle(of: mail) == ["forgotten"])
    #expect(d.machine.unreadCount == 3 && lastToldCount(d) == 3)
    #expect(try d.perform { m, i in try m.forget(ForgetParameters(app: "chat-*"), at: i) } == chat.reversed())
    #expect(d.machine.finishedNotices(HistoryParameters()).map(\.id) == [other])
    #expect(try d.perform { m, i in try m.forget(ForgetParameters(all: true), at: i) } == [other])
    #expect(d.machine.status.finished == 0 && d.machine.unreadCount == 0)
    #expect(throws: QueueError.noSuchNotice(id: mail)) {
      try d.perform { m, i in try m.forget(ForgetParameters(ids: [mail]), at: i) }
    }
  }

  @Test func history_filtersUnread() throws {
    var d = Self.driver(drawn: false)
    let read = try d.show(fadeIn: 0, hold: 1, fadeOut: 0)
    let unread = try d.show(fadeIn: 0, hold: 1, fadeOut: 0)
    d.advance(to: 2)
    _ = try d.perform { m, i in try m.read(ReadParameters(ids: [read]), at: i) }
    #expect(d.machine.finishedNotices(HistoryParameters(unread: true)).map(\.id) == [unread])
    #expect(d.machine.finishedNotices(HistoryParameters(unread: false)).map(\.id) == [read])
  }

  @Test func unread_survivesARestart_throughTheJournal() throws {
    var d = Self.driver(drawn: false)
    let ids = try (0..<2).map { _ in try d.show(fadeIn: 0, hold: 1, fadeOut: 0) }
    d.advance(to: 2)
    _ = try d.perform { m, i in try m.read(ReadParameters(ids: [ids[0]]), at: i) }
    // What the journal kept: the last record of each.
    var kept: [Int: Notice] = [:]
    for case .journal(.finished(let notice)) in d.log { kept[notice.id] = notice }
    var restarted = MachineDriver(MachineDriver.settings(maxVisible: 3))
    restarted.perform { m, i in
      m.restore(JournalState(history: ids.compactMap { kept[$0] }, nextID: 10), at: i)
    }
    #expect(restarted.machine.unreadCount == 1)
    #expect(restarted.machine.notice(ids[1], at: 0)?.unread == true)
  }

  @Test func trimmedFromHistory_anUnreadNoticeLeavesTheCount() throws {
    var d = Self.driver(drawn: false) { $0.historySize = 2 }
    _ = try (0..<5).map { _ in try d.show(fadeIn: 0, hold: 1, fadeOut: 0) }
    d.advance(to: 2)
    #expect(d.machine.status.finished == 2 && d.machine.unreadCount == 2)
  }

  @Test func forgettingAsFastAsNoticesFinish_keepsHistorysIndexBounded() {
    var history = NoticeHistory()
    for id in 1...10_000 {
      history.append(Notice(id: id, kind: .notice, title: "n", unread: true))
      #expect(history.remove(id) != nil)
    }
    #expect(history.count == 0 && history.unreadCount == 0)
    #expect(history.orderSize <= 2 * 1024 + 2)
    // Trimming past removed ids keeps the newest `limit`.
    for id in 10_001...10_010 { history.append(Notice(id: id, kind: .notice, title: "n")) }
    _ = history.remove(10_009)
    #expect(history.trim(to: 3) == [10_001, 10_002, 10_003, 10_004, 10_005, 10_006])
    #expect(history.newestFirst.map(\.id) == [10_010, 10_008, 10_007])
  }
}
