import Foundation
import NotifyCore
import NotifyProtocol
import NotifySupport
import Synchronization
import Testing

@testable import NotifyStore

/// The store against real SQLite files: a store the first release wrote migrates with nothing lost,
/// what one turn noted is one commit, and a failed commit answers its callers and keeps its changes.
@Suite("NoticeStore")
struct NoticeStoreTests {
  let log = Logger(level: .error, sink: DiscardingSink())

  /// A fresh directory for one test's store.
  func directory() -> String {
    var template = Array("/tmp/notifyd-store-test-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
  }

  /// Collects the errors `sync` answers with, in order (`nil` for a commit).
  final class Answers: Sendable {
    private let values = Mutex<[String?]>([])
    var all: [String?] { values.withLock { $0 } }
    func record(_ error: (any Error)?) { values.withLock { $0.append(error.map { "\($0)" }) } }
  }

  // MARK: - Migration

  /// `Fixtures/store-v1.db` was written by the release before this schema (a JSON document per
  /// notice): eight notices with every field a client can set, one of them finished, the queue
  /// suspended for two hours, next id 9.
  @Test func aStoreOfTheFirstRelease_migrates_withNothingLost() throws {
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/store-v1.db").path
    let path = directory() + "/notifyd.db"
    try FileManager.default.copyItem(atPath: fixture, toPath: path)
    let (_, state) = try NoticeStore.open(path: path, sync: .normal, log: log)

    #expect(state.unfinished.map(\.id) == [1, 2, 3, 4, 5, 6, 8])
    #expect(state.history.map(\.id) == [7])
    #expect(state.nextID == 9)
    // Written before do-not-disturb had levels: it held everything back.
    #expect(state.hand == .suspended(allow: .nothing, until: 1_796_160_435.1441793))
    let byID = Dictionary(uniqueKeysWithValues: (state.unfinished + state.history).map { ($0.id, $0) })

    let backup = try #require(byID[1])
    #expect(backup.title == "Backup done" && backup.body == "312 files, 1.2 GiB")
    #expect(backup.app == "restic" && backup.tag == "backup" && backup.hold == 100)
    #expect(backup.actions == [Action(key: "open", label: "Open"), Action(key: "skip", label: "Skip")])
    #expect(backup.created == 1_796_153_234.5679924 && backup.shown == nil && backup.phase == .waiting)

    let disk = try #require(byID[2])
    #expect(disk.urgency == .critical && disk.key == "disk" && disk.style == .blur && disk.hold == 0)
    #expect(disk.icon == "/usr/share/pixmaps/debian-logo.png")

    let build = try #require(byID[3])
    #expect(build.kind == .progress && build.value == 40 && build.timeout == 0 && build.key == "build")

    let later = try #require(byID[4])
    #expect(later.delay == 3600 && later.fadeIn == 0.5 && later.fadeOut == 2)
    #expect(later.easeIn == .linear && later.easeOut == .easeInOut)

    let after = try #require(byID[5])
    #expect(after.after == 1 && after.hold == 7)

    let text = try #require(byID[6])
    #expect(text.title == #"Ünïcödé "quoted" \ back"#)
    #expect(text.body == "line1\nline2\ttab" && text.app == "app with space")

    let cancelled = try #require(byID[7])
    #expect(cancelled.outcome == .cancelled && cancelled.phase == .finished && cancelled.app == "cron")
    #expect(cancelled.finished == 1_796_153_234.611252)

    let ended = try #require(byID[8])
    #expect(ended.message == "finished ok" && ended.value == 10 && ended.timeout == 30)
    #expect(ended.shown == 1_796_153_234.6223226)

    // Opening it again finds the new schema and changes nothing.
    let (_, again) = try NoticeStore.open(path: path, sync: .normal, log: log)
    #expect(again == state)
  }

  // MARK: - Committing

  @Test func whatOneTurnNoted_isOneCommit_andEveryCallerHearsOfIt() throws {
    let path = directory() + "/notifyd.db"
    let woken = Locked(0)
    let (store, _) = try NoticeStore.open(path: path, sync: .normal, log: log) { woken.withLock { $0 += 1 } }
    let answers = Answers()
    for id in 1...100 {
      store.recordNextID(id + 1)
      store.recordUnfinished(Notice(id: id, kind: .notice, title: "n\(id)", body: "with a NUL\u{0}inside"))
      store.sync(answers.record)
    }
    #expect(woken.withLock { $0 } == 1, "the committer is woken once for a batch, not per change")
    #expect(store.commitPending() == .committed)
    #expect(store.commitCount == 1)
    #expect(answers.all == Array(repeating: nil, count: 100))
    #expect(store.commitPending() == .idle)

    let (_, state) = try NoticeStore.open(path: path, sync: .normal, log: log)
    #expect(state.unfinished.map(\.id) == Array(1...100))
    #expect(state.unfinished.first?.body == "with a NUL\u{0}inside")
    #expect(state.nextID == 101)
  }

  @Test func aFinishedNotice_isKept_untilTheEngineForgetsIt() throws {
    let path = directory() + "/notifyd.db"
    let (store, _) = try NoticeStore.open(path: path, sync: .full, log: log)
    var notice = Notice(id: 1, kind: .notice, title: "done")
    store.recordUnfinished(notice)
    #expect(store.commitPending() == .committed)
    notice.outcome = .completed
    notice.phase = .finished
    notice.finished = 1_800_000_000
    store.recordFinished(notice)
    #expect(store.commitPending() == .committed)
    #expect(try NoticeStore.open(path: path, sync: .normal, log: log).state.history == [notice])
    store.recordForgotten(1)
    #expect(store.commitPending() == .committed)
    #expect(try NoticeStore.open(path: path, sync: .normal, log: log).state.history.isEmpty)
  }

  /// A notice finished at `finished` (wall clock), read or not.
  func finished(_ id: Int, at finished: Double, unread: Bool? = true) -> Notice {
    var notice = Notice(id: id, kind: .notice, title: "n\(id)")
    notice.outcome = .completed
    notice.phase = .finished
    notice.finished = finished
    notice.unread = unread
    return notice
  }

  /// The soak found it: a daemon restarted after the wall clock went back read the notices that
  /// finished meanwhile as the oldest, listed them last and forgot them first.
  @Test func history_comesBackInTheOrderItFinished_whereverTheWallClockWas() throws {
    let path = directory() + "/notifyd.db"
    let (store, _) = try NoticeStore.open(path: path, sync: .normal, log: log)
    store.recordFinished(finished(1, at: 2_000))
    #expect(store.commitPending() == .committed)
    // The clock goes back: 3 and then 2 finish after 1, in one commit (its clock stepped back again
    // between them), then 4 in another.
    store.recordFinished(finished(3, at: 401))
    store.recordFinished(finished(2, at: 400))
    #expect(store.commitPending() == .committed)
    store.recordFinished(finished(4, at: 500))
    #expect(store.commitPending() == .committed)
    func reopened() throws -> [Int] {
      try NoticeStore.open(path: path, sync: .normal, log: log).state.history.map(\.id)
    }
    #expect(try reopened() == [1, 3, 2, 4])
    // Read later, a notice keeps its place.
    store.recordFinished(finished(1, at: 2_000, unread: nil))
    #expect(store.commitPending() == .committed)
    let (again, state) = try NoticeStore.open(path: path, sync: .normal, log: log)
    #expect(state.history.map(\.id) == [1, 3, 2, 4])
    #expect(state.history.first?.unread == nil)
    // A store opened again goes on from its last: 5 finishes after 4.
    again.recordFinished(finished(5, at: 100))
    #expect(again.commitPending() == .committed)
    #expect(try reopened() == [1, 3, 2, 4, 5])
  }

  /// A store written before the order was kept takes the order of the times its notices finished.
  @Test func aStoreWithoutTheOrder_takesTheOrderOfTheFinishingTimes() throws {
    let path = directory() + "/notifyd.db"
    let (store, _) = try NoticeStore.open(path: path, sync: .normal, log: log)
    for (id, time) in [(1, 300.0), (2, 100.0), (3, 200.0)] { store.recordFinished(finished(id, at: time)) }
    store.recordUnfinished(Notice(id: 4, kind: .notice, title: "waiting"))
    #expect(store.commitPending() == .committed)
    // As release 8 left it.
    try store.database.execute(
      "ALTER TABLE notices DROP COLUMN snoozed_until; ALTER TABLE notices DROP COLUMN finished_order;"
        + " PRAGMA user_version=8")
    let (_, state) = try NoticeStore.open(path: path, sync: .normal, log: log)
    #expect(state.history.map(\.id) == [2, 3, 1])
    #expect(state.unfinished.map(\.id) == [4])
  }

  @Test func aNoticesHints_areKept_andComeBackAsTheyWere() throws {
    let path = directory() + "/notifyd.db"
    let (store, _) = try NoticeStore.open(path: path, sync: .normal, log: log)
    let hints = Hints(
      category: "email.arrived", desktopEntry: "org.gnome.Evolution", transient: true, resident: true,
      soundFile: "/usr/share/sounds/a \"b\".oga", soundName: "message-new-email", silent: true)
    store.recordUnfinished(Notice(id: 1, kind: .notice, title: "with hints", hints: hints))
    store.recordUnfinished(Notice(id: 2, kind: .notice, title: "without"))
    #expect(store.commitPending() == .committed)
    let (_, state) = try NoticeStore.open(path: path, sync: .normal, log: log)
    #expect(state.unfinished.map(\.hints) == [hints, nil])
  }

  @Test func theHandsDoNotDisturbChoice_andMergedAndFoldedNotices_surviveAReopen() throws {
    let path = directory() + "/notifyd.db"
    let (store, _) = try NoticeStore.open(path: path, sync: .normal, log: log)
    var folded = Notice(id: 2, kind: .notice, title: "folded", foldedInto: 1)
    folded.outcome = .folded
    folded.phase = .finished
    folded.finished = 1_800_000_000
    store.recordUnfinished(Notice(id: 1, kind: .notice, title: "summary", count: 3))
    store.recordFinished(folded)
    for choice: HandChoice? in [
      .suspended(allow: .nothing, until: nil), .suspended(allow: .critical, until: 1_800_000_060),
      .resumed(until: 1_800_003_600), nil,
    ] {
      store.recordHand(choice)
      #expect(store.commitPending() == .committed)
      #expect(try NoticeStore.open(path: path, sync: .normal, log: log).state.hand == choice)
    }
    let (_, state) = try NoticeStore.open(path: path, sync: .normal, log: log)
    #expect(state.unfinished.map(\.count) == [3])
    #expect(state.history == [folded])
  }

  // MARK: - The relay's outbox and marks

  /// A stand-in for the relay's rules: a message for each notice a commit writes, saying what the
  /// store told of it (new or not, finished or not); none for notices titled "skip".
  private static func queueEverything(
    _ notice: Notice, _ isNew: Bool, _ finished: Bool, _ sequence: inout Int
  ) -> OutgoingMessage? {
    guard notice.title != "skip" else { return nil }
    return OutgoingMessage(
      id: notice.id, subject: "s",
      messageID: "m\(notice.id)-\(isNew ? "new" : "old")-\(finished ? "done" : "open")",
      payload: notice.title)
  }

  /// The outbox: what the relay's rules answer for each notice a commit writes is queued in that
  /// transaction, in id order, told as new only the first time; what was queued and not yet
  /// published comes back on reopen, and a published one does not.
  @Test func whatTheRelaysRulesAnswer_isQueuedInTheCommit_untilPublished() throws {
    let path = directory() + "/notifyd.db"
    let (store, _) = try NoticeStore.open(path: path, sync: .normal, log: log)
    #expect(store.identity.count == 16)
    let queued = Mutex<[String]>([])
    let started = try store.relay(queueing: Self.queueEverything) { messages in
      queued.withLock { $0 += messages.map(\.messageID) }
    }
    #expect(started.isEmpty)
    store.recordUnfinished(Notice(id: 2, kind: .notice, title: "second", app: "build", hold: 7))
    store.recordUnfinished(Notice(id: 1, kind: .notice, title: "first"))
    store.recordUnfinished(Notice(id: 3, kind: .notice, title: "skip"))
    #expect(queued.withLock { $0 }.isEmpty)
    #expect(store.commitPending() == .committed)
    #expect(queued.withLock { $0 } == ["m1-new-open", "m2-new-open"])
    // A change to a notice already committed is not new; one that finishes says so.
    var second = Notice(id: 2, kind: .notice, title: "second, changed")
    store.recordUnfinished(second)
    #expect(store.commitPending() == .committed)
    second.outcome = .completed
    store.recordFinished(second)
    #expect(store.commitPending() == .committed)
    // One message a notice waits at a time: those for notice 2 while its first waits are dropped.
    #expect(queued.withLock { $0 } == ["m1-new-open", "m2-new-open"])
    store.recordPublished(1)
    store.recordPublished(2)
    #expect(store.commitPending() == .committed)
    second.title = "second, again"
    store.recordFinished(second)
    #expect(store.commitPending() == .committed)
    #expect(queued.withLock { $0 }.last == "m2-old-done")

    let (reopened, _) = try NoticeStore.open(path: path, sync: .normal, log: log)
    #expect(reopened.identity == store.identity)
    let outbox = try reopened.relay(queueing: Self.queueEverything) { _ in }
    #expect(outbox.map(\.messageID) == ["m2-old-done"])
    #expect(outbox[0].subject == "s" && outbox[0].payload == "second, again")
  }

  /// Like the relay: a notice not titled "skip" is published, with the next place in the store's
  /// publishing sequence as its payload.
  private static func queuePlaced(
    _ notice: Notice, _ isNew: Bool, _ finished: Bool, _ sequence: inout Int
  ) -> OutgoingMessage? {
    guard notice.title != "skip" else { return nil }
    sequence += 1
    return OutgoingMessage(id: notice.id, subject: "s", messageID: "m\(notice.id)", payload: "\(sequence)")
  }

  /// The publishing sequence has no gaps: notices not published take no place (nor one whose
  /// message waits still), a commit that failed gives its places back, and a reopened store goes on
  /// where it was.
  @Test func thePublishingSequence_countsWhatWasPublished_withoutGaps_acrossFailuresAndRestarts() throws {
    let path = directory() + "/notifyd.db"
    let queued = Mutex<[String]>([])
    let record: @Sendable ([OutgoingMessage]) -> Void = { messages in
      queued.withLock { $0 += messages.map { "\($0.id):\($0.payload)" } }
    }
    let (store, _) = try NoticeStore.open(path: path, sync: .normal, log: log)
    _ = try store.relay(queueing: Self.queuePlaced, onQueued: record)
    for (id, title) in [(1, "a"), (2, "skip"), (3, "b")] {
      store.recordUnfinished(Notice(id: id, kind: .notice, title: title))
    }
    #expect(store.commitPending() == .committed)
    #expect(queued.withLock { $0 } == ["1:1", "3:2"])
    store.recordUnfinished(Notice(id: 1, kind: .notice, title: "a, changed"))
    #expect(store.commitPending() == .committed)
    #expect(queued.withLock { $0 } == ["1:1", "3:2"])
    // A commit that fails (the database may not grow): its places are taken again by the next.
    let pages = try store.database.prepare("PRAGMA page_count")
    _ = try pages.step()
    try store.database.execute("PRAGMA max_page_count=\(pages.integer(0))")
    pages.reset()
    let long = String(repeating: "x", count: 64 * 1024)
    store.recordUnfinished(Notice(id: 4, kind: .notice, title: "c", body: long))
    guard case .failed(let delay) = store.commitPending() else {
      Issue.record("the commit should have failed")
      return
    }
    try store.database.execute("PRAGMA max_page_count=1000000")
    usleep(UInt32(delay * 1_000_000) + 10_000)
    store.recordUnfinished(Notice(id: 5, kind: .notice, title: "d"))
    #expect(store.commitPending() == .committed)
    #expect(queued.withLock { $0 } == ["1:1", "3:2", "4:3", "5:4"])

    let (reopened, _) = try NoticeStore.open(path: path, sync: .normal, log: log)
    _ = try reopened.relay(queueing: Self.queuePlaced, onQueued: record)
    reopened.recordUnfinished(Notice(id: 6, kind: .notice, title: "e"))
    #expect(reopened.commitPending() == .committed)
    #expect(queued.withLock { $0 }.last == "6:5")
  }

  /// A store from before the sequence published its notices under their ids, and a desk's mark
  /// counted those: its first place is above every id it has given.
  @Test func aStoreFromBeforeTheSequence_startsItAboveItsIds() throws {
    let path = directory() + "/notifyd.db"
    let (store, _) = try NoticeStore.open(path: path, sync: .normal, log: log)
    store.recordUnfinished(Notice(id: 7, kind: .notice, title: "before"))
    store.recordNextID(12)
    #expect(store.commitPending() == .committed)
    let (reopened, state) = try NoticeStore.open(path: path, sync: .normal, log: log)
    #expect(state.nextID == 12)
    let queued = Mutex<[String]>([])
    _ = try reopened.relay(queueing: Self.queuePlaced) { messages in
      queued.withLock { $0 += messages.map(\.payload) }
    }
    reopened.recordUnfinished(Notice(id: 12, kind: .notice, title: "after"))
    #expect(reopened.commitPending() == .committed)
    #expect(queued.withLock { $0 } == ["12"])
  }

  /// Without a relay nothing is queued: a store that starts relaying later publishes only what comes
  /// after.
  @Test func withoutARelay_nothingIsQueued() throws {
    let path = directory() + "/notifyd.db"
    let (store, _) = try NoticeStore.open(path: path, sync: .normal, log: log)
    store.recordUnfinished(Notice(id: 1, kind: .notice, title: "before"))
    #expect(store.commitPending() == .committed)
    #expect(try store.relay(queueing: Self.queueEverything) { _ in }.isEmpty)
  }

  /// Per origin store, what was committed (`RelayMark`): raised by each relayed notice in its commit,
  /// the ids below it not come yet kept too, and read back after a reopen.
  @Test func relayedNotices_raiseTheirOriginsMark_inTheirCommit() throws {
    let path = directory() + "/notifyd.db"
    let (store, _) = try NoticeStore.open(path: path, sync: .normal, log: log)
    func relayed(_ id: Int, from origin: Int, host: String = "server") -> Notice {
      Notice(
        id: id, kind: .notice, title: "n", origin: NoticeOrigin(host: host, store: "a", id: origin, sent: 0))
    }
    store.recordUnfinished(relayed(1, from: 7))
    store.recordUnfinished(relayed(2, from: 5))
    store.recordUnfinished(relayed(3, from: 2, host: "ci"))
    // From a store that publishes in sequence: its places count, not its ids.
    for (id, origin, sequence) in [(4, 40, 2), (5, 90, 4)] {
      store.recordUnfinished(
        Notice(
          id: id, kind: .notice, title: "n",
          origin: NoticeOrigin(host: "laptop", store: "b", id: origin, sent: 0, sequence: sequence)))
    }
    #expect(store.commitPending() == .committed)
    var finished = relayed(1, from: 7)
    finished.outcome = .missed
    store.recordFinished(finished)
    #expect(store.commitPending() == .committed)
    let (reopened, state) = try NoticeStore.open(path: path, sync: .normal, log: log)
    #expect(
      try reopened.relayMarks() == [
        "server/a": RelayMark(last: 7, missing: [1, 2, 3, 4, 6]), "ci/a": RelayMark(last: 2, missing: [1]),
        "laptop/b": RelayMark(last: 4, missing: [1, 3]),
      ])
    #expect(state.history.map(\.outcome) == [.missed])
  }

  @Test func aFailedCommit_answersWithTheError_keepsTheChanges_andWaitsBeforeTryingAgain() throws {
    let path = directory() + "/notifyd.db"
    let (store, _) = try NoticeStore.open(path: path, sync: .normal, log: log)
    // A database that may not grow: the next page it needs is refused (SQLITE_FULL), as on a full disk.
    let pages = try store.database.prepare("PRAGMA page_count")
    _ = try pages.step()
    try store.database.execute("PRAGMA max_page_count=\(pages.integer(0))")
    pages.reset()
    let answers = Answers()
    let long = String(repeating: "x", count: 16 * 1024)
    for id in 1...8 { store.recordUnfinished(Notice(id: id, kind: .notice, title: "n\(id)", body: long)) }
    store.sync(answers.record)
    guard case .failed(let delay) = store.commitPending() else {
      Issue.record("the commit should have failed")
      return
    }
    #expect(delay == NoticeStore.firstRetryDelay)
    #expect(answers.all.count == 1 && answers.all[0]?.contains("full") == true)
    // Within the wait nothing is tried; a caller meanwhile waits for the next attempt.
    store.sync(answers.record)
    guard case .waiting = store.commitPending() else {
      Issue.record("the store should wait out its retry delay")
      return
    }
    #expect(answers.all.count == 1)
    try store.database.execute("PRAGMA max_page_count=1000000")
    usleep(UInt32(delay * 1_000_000) + 10_000)
    #expect(store.commitPending() == .committed)
    #expect(answers.all.count == 2 && answers.all[1] == nil)
    let (_, state) = try NoticeStore.open(path: path, sync: .normal, log: log)
    #expect(state.unfinished.map(\.id) == Array(1...8), "the changes of the failed commit were kept")
  }

  @Test func aDamagedFile_isMovedAside_andAFreshStoreStarted() throws {
    let directory = directory()
    let path = directory + "/notifyd.db"
    try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: path))
    let (_, state) = try NoticeStore.open(path: path, sync: .normal, log: log)
    #expect(state.unfinished.isEmpty && state.nextID == 1)
    let names = try FileManager.default.contentsOfDirectory(atPath: directory)
    #expect(names.contains { $0.hasPrefix("notifyd.db.corrupt-") })
  }
}
