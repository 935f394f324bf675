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
      origin: NoticeOrigin(host: "ci", store: "ab12", id: 5, sent: 1_796_000_000.5, sequence: 3),
      notice: ShowParameters(relaying: notice))
    let read = try message.encoded().withUnsafeBytes { try RelayNotice(decoding: $0) }
    #expect(read == message)
    #expect(read.origin.sequence == 3 && read.origin.position == 3)
    #expect(read.notice.after == nil)
    #expect(read.notice.urgency == .critical && read.notice.hold == 12 && read.notice.key == "deploy")
    #expect(read.notice.actions?.map(\.key) == ["ok", "no"])
    #expect(message.messageID == "ci/ab12/5")
  }

  @Test func whatIsNotANotice_isRefused_byTheFieldThatIsWrong() throws {
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
    // Without a sequence (an older notifyd), the id is its place in the mark.
    #expect(try decode(good).origin.position == 1)
    #expect(
      refusal(#"{"host":"ci","store":"s","id":1,"sent":2,"notice":{"title":"t"},"sequence":0}"#)?
        .contains("sequence") == true)
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

@Suite("What a desk has taken from an origin (RelayMark)")
struct RelayMarkTests {
  @Test func inOrder_eachIdIsNewOnce() {
    var mark = RelayMark()
    for id in 1...5 {
      #expect(mark.isNew(id))
      mark.take(id)
      #expect(!mark.isNew(id))
    }
    #expect(mark == RelayMark(last: 5))
    #expect(!mark.isNew(3) && mark.isNew(6))
  }

  /// A publisher's window: 4 reaches the stream after 5 and 6 (its first attempt failed).
  @Test func anIdAfterLaterOnes_withinTheWindow_isNewOnce_thenARedelivery() {
    var mark = RelayMark()
    for id in [1, 2, 3, 5, 6] { mark.take(id) }
    #expect(mark.missing == [4])
    #expect(mark.isNew(4))
    mark.take(4)
    #expect(!mark.isNew(4) && mark.missing.isEmpty)
    mark.take(4)
    #expect(mark == RelayMark(last: 6))
  }

  /// A delivery lost with a NATS node comes again only after the consumer's ack wait, when the
  /// desk has taken thousands of later ones (the hour-long soak lost 10 notices this way to a mark
  /// that forgot what was missing 1,024 ids back).
  @Test func aPlaceStillMissing_isNewHoweverManyCameAfterIt() {
    var mark = RelayMark()
    for position in 1...20_000 where position != 5 { mark.take(position) }
    #expect(mark.missing == [5])
    #expect(mark.isNew(5))
    mark.take(5)
    #expect(!mark.isNew(5) && mark == RelayMark(last: 20_000))
  }

  @Test func missingStaysBounded_theLowestTakenAsNeverComing() {
    var mark = RelayMark()
    mark.take(1)
    // A host gave up its outbox's oldest 10 × maximumMissing before publishing them.
    let jump = 2 + 10 * RelayMark.maximumMissing
    mark.take(jump)
    #expect(mark.missing == Array(jump - RelayMark.maximumMissing..<jump))
    #expect(!mark.isNew(2) && mark.isNew(jump - 1))
    // Each gap above the highest takes the place of the lowest missing.
    mark.take(jump + 2)
    #expect(mark.missing.count == RelayMark.maximumMissing && mark.missing.last == jump + 1)
    #expect(!mark.isNew(jump - RelayMark.maximumMissing) && mark.isNew(jump + 1))
    // None more than a window below the highest.
    mark.take(jump + 2 + RelayMark.window)
    #expect(mark.missing.allSatisfy { $0 > mark.last - RelayMark.window && $0 < mark.last })
    #expect(mark.missing.count == RelayMark.maximumMissing && !mark.isNew(jump + 1))
    #expect(RelayMark(last: 10, missing: [1, 20, 0, 9, -3, 9]).missing == [1, 9])
  }

  @Test func theStoresText_roundTrips_andJunkIsLeftOut() {
    var mark = RelayMark()
    for id in [3, 7, 9] { mark.take(id) }
    #expect(mark.missingText == "1,2,4,5,6,8")
    #expect(RelayMark(last: 9, missingText: mark.missingText) == mark)
    #expect(RelayMark(last: 9, missingText: "4,x,,12,8") == RelayMark(last: 9, missing: [4, 8]))
    #expect(RelayMark(last: 0, missingText: "") == RelayMark())
  }
}
