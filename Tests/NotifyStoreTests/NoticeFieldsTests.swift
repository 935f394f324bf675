import Foundation
import NotifyCore
import NotifyProtocol
import NotifySupport
import Testing

@testable import NotifyStore

/// A notice's fields are written once, in the IDL (io.notifyd.Queue.varlink), from which
/// notifyd-wiregen generates `Notice` and the requests' parameter types with their `Codable`
/// conformances and the daemon's own readers and writers. These tests hold what is generated to the
/// IDL, and what is still listed by hand to them: the store's columns and its reading and writing
/// of a row, and what the relay sends of a notice.
@Suite("A notice's fields, everywhere they are listed")
struct NoticeFieldsTests {
  /// A notice with every field set, none to its default.
  static let everyField = Notice(
    id: 41, kind: .progress, title: "Backup", body: "<b>312</b> files", app: "restic", urgency: .critical,
    style: .blur, icon: "/i.png",
    hints: Hints(
      category: "transfer", desktopEntry: "restic", transient: false, resident: true, soundFile: "/s.oga",
      soundName: "bell", silent: false, actionIcons: true),
    tag: "backups", key: "backup-home", value: 64, delay: 0.5, fadeIn: 0.25, hold: 7, fadeOut: 2,
    easeIn: .linear, easeOut: .easeInOut, timeout: 30, after: 40,
    actions: [Action(key: "open", label: "Open")],
    invoked: "open", count: 3, foldedInto: 39,
    origin: NoticeOrigin(host: "srv", store: "s1", id: 9, sent: 100, sequence: 4),
    phase: .finished, opacity: 0, outcome: .completed, message: "done", created: 1000, shown: 1001,
    finished: 1010, reply: "Answer", replied: "on my way", unread: true, restoredFrom: 38,
    snoozedUntil: 1200)

  /// The members of an IDL type (`type Notice (…)`) or a method's parameters (`method Show(…)`).
  static func idlMembers(_ declaration: String) throws -> Set<String> {
    let text = Interface.description
    let pattern = try Regex("\(declaration) ?\\(([^)]*)\\)").dotMatchesNewlines()
    let match = try #require(text.firstMatch(of: pattern), "the IDL has no \(declaration)")
    let body = String(match.output[1].substring ?? "")
    return Set(body.matches(of: try Regex(#"([A-Za-z]+):"#)).map { String($0.output[1].substring ?? "") })
  }

  /// The stored properties of a value, as its `Codable` conformance names them on the wire: a
  /// request's content and options are one flat object.
  static func wireMembers(_ value: Any) -> Set<String> {
    var members = Set<String>()
    for child in Mirror(reflecting: value).children {
      guard let label = child.label else { continue }
      if label == "content" || label == "options" {
        members.formUnion(wireMembers(child.value))
      } else {
        members.insert(label)
      }
    }
    return members
  }

  @Test func theIDL_namesExactlyTheMembersOfEachType() throws {
    let pairs: [(String, Any)] = [
      ("type Notice", Self.everyField), ("type Hints", Hints()),
      ("type Action", Action(key: "k", label: "l")),
      ("type Origin", Self.everyField.origin!),
      ("type DoNotDisturb", DoNotDisturb(reason: .hand, allow: .critical)),
      ("type Idle", IdleState(idle: true, source: "s")),
      ("type Display", DisplayState(backend: nil, drawing: false, detail: "")),
      ("type Relay", RelayState(state: .connected, detail: "")), ("type Event", Event(kind: .added, at: 0)),
      ("method Show", ShowParameters(title: "t")), ("method Progress", ProgressParameters(title: "t")),
      ("method Update", UpdateParameters(id: 1)), ("method End", EndParameters(id: 1)),
      ("method Cancel", CancelParameters()), ("method Invoke", InvokeParameters(id: 1, action: "a")),
      ("method Suspend", SuspendParameters()), ("method History", HistoryParameters()),
      ("method Watch", WatchParameters()), ("method Dismiss", DismissParameters()),
      ("method List", ListParameters()), ("method Get", IDParameters(id: 1)),
      ("method Read", ReadParameters()), ("method Restore", RestoreParameters()),
      ("method Forget", ForgetParameters()), ("method Snooze", SnoozeParameters(id: 1)),
      ("method Unsnooze", IDParameters(id: 1)),
    ]
    for (declaration, value) in pairs {
      #expect(try Self.idlMembers(declaration) == Self.wireMembers(value), "\(declaration)")
    }
  }

  /// What the daemon writes is what a client decoding with `Codable` reads, every field of it.
  @Test func theDaemonsWriters_writeEveryDeclaredField() throws {
    func roundTrip<T: WireEncodable & Codable & Equatable>(_ value: T) throws {
      var writer = JSONWriter()
      value.write(to: &writer)
      let object = try JSONDecoder().decode([String: JSONValue].self, from: Data(writer.bytes))
      #expect(Set(object.keys) == Self.wireMembers(value), "\(T.self)")
      #expect(try JSONDecoder().decode(T.self, from: Data(writer.bytes)) == value, "\(T.self)")
    }
    try roundTrip(Self.everyField)
    try roundTrip(Self.everyField.hints!)
    try roundTrip(Self.everyField.origin!)
    try roundTrip(
      Event(
        kind: .suspended, at: 5, id: 1, notice: Self.everyField, phase: .holding, opacity: 0.5,
        notices: [Self.everyField], suspended: true,
        doNotDisturb: DoNotDisturb(reason: .duration, allow: .nothing, until: 9), activationToken: "t",
        unread: 2))
    try roundTrip(
      StatusReply(
        version: "1", suspended: true, suspendedUntil: 5,
        doNotDisturb: DoNotDisturb(reason: .hand, allow: .critical, until: 7), resumedUntil: 6,
        idle: IdleState(idle: true, source: "s"), fullscreen: FullscreenState(delayed: 1, pushedBack: 2),
        display: DisplayState(backend: "x11", drawing: true, detail: "d"),
        relay: RelayState(state: .connected, detail: "d", outbox: 1, dropped: 2), waiting: 1, queued: 2,
        visible: 3, finished: 4, unread: 5, snoozed: 6, snoozeEnds: 7))
    try roundTrip(Self.everyShow)
  }

  /// A `Show` with every parameter set.
  static let everyShow = ShowParameters(
    title: "t", body: "b", app: "a", urgency: .low, style: .blur, icon: "/i.png", hints: Hints(category: "c"),
    tag: "g", key: "k", delay: 1, fadeIn: 2, hold: 3, fadeOut: 4, easeIn: .linear, easeOut: .easeInOut,
    after: 5,
    actions: [Action(key: "a", label: "A")], reply: "r")

  /// What a client encodes with `Codable`, every parameter set, the daemon reads back whole.
  @Test func theDaemonsReaders_readEveryDeclaredParameter() throws {
    func roundTrip<T: WireDecodable & Codable & Equatable>(_ value: T) throws {
      let bytes = try JSONEncoder().encode(value)
      let object = try JSONDecoder().decode([String: JSONValue].self, from: bytes)
      #expect(Set(object.keys) == Self.wireMembers(value), "\(T.self): not every parameter set")
      let read = try Array(bytes).withUnsafeBytes { raw in
        var reader = JSONReader(raw)
        return try T(reading: &reader)
      }
      #expect(read == value, "\(T.self)")
    }
    try roundTrip(Self.everyShow)
    try roundTrip(
      ProgressParameters(
        title: "t", body: "b", app: "a", urgency: .critical, style: .blur, icon: "/i",
        hints: Hints(silent: true),
        tag: "g", key: "k", value: 5, timeout: 6, delay: 1, fadeIn: 2, fadeOut: 3))
    try roundTrip(UpdateParameters(id: 1, title: "t", body: "b", value: 3))
    try roundTrip(EndParameters(id: 1, message: "m", hold: 2))
    try roundTrip(CancelParameters(id: 1, tag: "t", all: true, now: true))
    try roundTrip(DismissParameters(id: 1, all: true))
    try roundTrip(InvokeParameters(id: 1, action: "a", activationToken: "t"))
    try roundTrip(SuspendParameters(duration: 5, allow: .nothing))
    try roundTrip(ListParameters(held: true, snoozed: true))
    try roundTrip(SnoozeParameters(id: 1, duration: 2, until: 3))
    try roundTrip(IDParameters(id: 3))
    try roundTrip(
      HistoryParameters(limit: 1, app: "a", outcome: .folded, since: 2, foldedInto: 3, unread: true))
    try roundTrip(ReadParameters(ids: [1, 2], all: true))
    try roundTrip(RestoreParameters(ids: [3], last: 2))
    try roundTrip(ForgetParameters(ids: [4], app: "a*", all: false))
    try roundTrip(WatchParameters(frames: true, fps: 30))
    try roundTrip(
      Hints(
        category: "c", desktopEntry: "d", transient: true, resident: false, soundFile: "/f", soundName: "n",
        silent: true, actionIcons: true))
    try roundTrip(Self.everyField.origin!)
  }

  /// The store keeps a column per field but the two that only mean something while it runs, and
  /// one of its own (the order history finished in); a notice written and read back is the same
  /// notice.
  @Test func theStore_hasAColumnPerField_andKeepsEveryOne() throws {
    let directory = NSTemporaryDirectory() + "notifyd-fields-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let log = Logger(level: .error, sink: DiscardingSink())
    let (store, _) = try NoticeStore.open(path: directory + "/n.db", sync: .normal, log: log)
    let rows = try store.database.prepare("SELECT name FROM pragma_table_info('notices')")
    var columns = Set<String>()
    while try rows.step() { columns.insert(rows.text(0) ?? "") }
    // Where a column's name is not the field's in snake case: `finished` is the finish time of a
    // finished notice only.
    let renamed = ["finished": "finished_at"]
    let runtime: Set<String> = ["phase", "opacity"]  // a notice read back starts its timeline again
    let expected = Set(
      Self.wireMembers(Self.everyField).subtracting(runtime).map { field in
        renamed[field]
          ?? field.reduce(into: "") { name, character in
            name += character.isUppercase ? "_" + character.lowercased() : String(character)
          }
      })
    #expect(columns == expected.union(["finished_order"]))
    // The row the store writes and reads names each of them once (`NoticeColumn`, in snake case).
    #expect(NoticeColumn.allCases.map(\.name).count == columns.count)
    #expect(Set(NoticeColumn.allCases.map(\.name)) == columns)
    #expect(OutboxColumn.list == "id, subject, message_id, payload")

    store.recordFinished(Self.everyField)
    #expect(store.commitPending() == .committed)
    let (_, state) = try NoticeStore.open(path: directory + "/n.db", sync: .normal, log: log)
    #expect(state.history == [Self.everyField])
  }

  /// A relayed notice carries every field `Show` takes, as its origin resolved it, but the id it
  /// waits for there.
  @Test func theRelay_sendsEveryFieldShowTakes_butAfter() throws {
    let show = ShowParameters(relaying: Self.everyField)
    var writer = JSONWriter()
    show.write(to: &writer)
    let object = try JSONDecoder().decode([String: JSONValue].self, from: Data(writer.bytes))
    #expect(Set(object.keys) == (try Self.idlMembers("method Show")).subtracting(["after"]))
    let notice = Self.everyField
    #expect(
      (show.title, show.body, show.app, show.icon) == (notice.title, notice.body, notice.app, notice.icon))
    #expect(show.urgency == notice.urgency && show.style == notice.style)
    #expect(show.tag == notice.tag && show.key == notice.key)
    #expect(show.hints == notice.hints && show.delay == notice.delay)
    #expect(show.fadeIn == notice.fadeIn && show.fadeOut == notice.fadeOut)
    #expect(show.hold == notice.hold && show.easeIn == notice.easeIn && show.easeOut == notice.easeOut)
    #expect(show.actions == notice.actions && show.after == nil)
  }
}
