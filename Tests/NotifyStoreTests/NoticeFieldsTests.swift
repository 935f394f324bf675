import Foundation
import NotifyCore
import NotifyProtocol
import NotifySupport
import Testing

@testable import NotifyStore

/// A notice's fields are declared once, in `Notice` (the wire reads and writes them from that
/// declaration); everything else that lists them must agree with it: the IDL the service returns,
/// the store's columns and its reading and writing of a row, and what the relay sends of a notice.
@Suite("A notice's fields, everywhere they are listed")
struct NoticeFieldsTests {
  /// A notice with every field set, none to its default.
  static let everyField = Notice(
    id: 41, kind: .progress, title: "Backup", body: "<b>312</b> files", app: "restic", urgency: .critical,
    style: .blur, icon: "/i.png",
    hints: Hints(
      category: "transfer", desktopEntry: "restic", transient: false, resident: true, soundFile: "/s.oga",
      soundName: "bell", silent: false),
    tag: "backups", key: "backup-home", value: 64, delay: 0.5, fadeIn: 0.25, hold: 7, fadeOut: 2,
    easeIn: .linear, easeOut: .easeInOut, timeout: 30, after: 40,
    actions: [Action(key: "open", label: "Open")],
    invoked: "open", count: 3, foldedInto: 39,
    origin: NoticeOrigin(host: "srv", store: "s1", id: 9, sent: 100),
    phase: .finished, opacity: 0, outcome: .completed, message: "done", created: 1000, shown: 1001,
    finished: 1010)

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
    ]
    for (declaration, value) in pairs {
      #expect(try Self.idlMembers(declaration) == Self.wireMembers(value), "\(declaration)")
    }
  }

  @Test func everyFieldOfANotice_isWrittenOnTheWire_andReadBack() throws {
    var writer = JSONWriter()
    Self.everyField.write(to: &writer)
    let object = try JSONDecoder().decode([String: JSONValue].self, from: Data(writer.bytes))
    #expect(Set(object.keys) == Self.wireMembers(Self.everyField))
    let read = try writer.bytes.withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      return try Notice(reading: &reader)
    }
    #expect(read == Self.everyField)
  }

  /// The store keeps a column per field but the two that only mean something while it runs; a
  /// notice written and read back is the same notice.
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
    #expect(columns == expected)

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
      show.content
        == NoticeContent(
          title: notice.title, body: notice.body, app: notice.app, urgency: notice.urgency,
          style: notice.style,
          icon: notice.icon, hints: notice.hints, tag: notice.tag, key: notice.key, delay: notice.delay,
          fadeIn: notice.fadeIn, fadeOut: notice.fadeOut))
    #expect(show.hold == notice.hold && show.easeIn == notice.easeIn && show.easeOut == notice.easeOut)
    #expect(show.actions == notice.actions && show.after == nil)
  }
}
