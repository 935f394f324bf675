import FoundationEssentials
import NotifyProtocol
import Testing

/// The relay's message (DESIGN §10): what an origin writes, a desk reads back exactly; anything
/// else on the subject is refused with the field that is wrong.
@Suite("Relay message")
struct RelayMessageTests {
  func decode(_ text: String) throws -> RelayNotice {
    try Array(text.utf8).withUnsafeBytes { try RelayNotice(decoding: $0) }
  }

  func refusal(_ text: String) -> String? {
    do {
      _ = try decode(text)
      return nil
    } catch {
      return "\(error)"
    }
  }

  @Test func aNoticeAsItsOriginResolvedIt_isReadBackExactly() throws {
    let notice = Notice(
      id: 5, kind: .notice, title: "Deploy?", body: "<b>prod</b>", app: "deploy", urgency: .critical,
      style: .blur, hints: Hints(category: "x", resident: true), tag: "t", key: "deploy", delay: 0.5,
      fadeIn: 0.2, hold: 12, fadeOut: 0.3, easeIn: .linear, easeOut: .easeInOut, after: 4,
      actions: [Action(key: "ok", label: "Approve"), Action(key: "no", label: "Reject")])
    let message = RelayNotice(
      origin: NoticeOrigin(host: "ci", store: "ab12", id: 5, sent: 1_796_000_000.5),
      notice: ShowParameters(relaying: notice))
    let read = try message.encoded().withUnsafeBytes { try RelayNotice(decoding: $0) }
    #expect(read == message)
    #expect(read.notice.after == nil)
    #expect(read.notice.urgency == .critical && read.notice.hold == 12 && read.notice.key == "deploy")
    #expect(read.notice.actions?.map(\.key) == ["ok", "no"])
    #expect(message.messageID == "ci/ab12/5")
  }

  @Test func whatIsNotANotice_isRefused_byTheFieldThatIsWrong() {
    let good = #"{"host":"ci","store":"s","id":1,"sent":2,"notice":{"title":"t"}}"#
    #expect(refusal(good) == nil)
    #expect(refusal("garbage") != nil)
    #expect(refusal("") != nil)
    #expect(refusal("[1,2]") != nil)
    #expect(refusal(#"{"host":"ci","store":"s","id":"seven","sent":2,"notice":{"title":"t"}}"#) != nil)
    #expect(refusal(#"{"host":"ci","store":"s","id":1,"sent":2,"notice":{"title":5}}"#) != nil)
    #expect(refusal(#"{"host":"ci","store":"s","id":1,"sent":2}"#)?.contains("notice") == true)
    #expect(
      refusal(#"{"host":"","store":"s","id":1,"sent":2,"notice":{"title":"t"}}"#)?.contains("host") == true)
    #expect(
      refusal(#"{"host":"ci","store":"s","id":0,"sent":2,"notice":{"title":"t"}}"#)?.contains("id") == true)
    #expect(refusal(good + "x") != nil)
  }

  @Test func names_keepToWhatNATSAllows() {
    let subjects = RelaySubjects(base: "notifyd.alice")
    #expect(subjects.stream == "NOTIFYD_notifyd_alice")
    #expect(subjects.notices(from: "build.example") == "notifyd.alice.notice.build_example")
    #expect(subjects.allNotices == "notifyd.alice.notice.>")
    #expect(subjects.consumer(for: "desk 1") == "notifyd_desk_1")
    #expect(RelaySubjects.isValidBase("notifyd.alice"))
    for bad in ["", "a..b", "a.*", "a.>", "a b", ".a"] { #expect(!RelaySubjects.isValidBase(bad), "\(bad)") }
  }
}
