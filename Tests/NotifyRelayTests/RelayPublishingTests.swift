import NotifyProtocol
import Testing

@testable import NotifyRelay

/// What a host publishes as its store commits notices: its own new notices, and the answers for
/// notices relayed to it.
@Suite("RelayPublishing")
struct RelayPublishingTests {
  private let place = RelayPlace(host: "server", store: "s1", subjects: RelaySubjects(base: "notifyd.t"))

  @Test func aNewLocalNotice_isPublished_underItsMessageID_asShowWouldTakeIt() throws {
    let publishing = RelayPublishing(place: place, publishesNotices: true)
    let notice = Notice(id: 2, kind: .notice, title: "second", app: "build", hold: 7, created: 1000)
    var sequence = 40
    let message = try #require(
      publishing.message(for: notice, isNew: true, finished: false, sequence: &sequence))
    #expect(sequence == 41)
    #expect(message.id == 2)
    #expect(message.subject == "notifyd.t.notice.server")
    #expect(message.messageID == "server/s1/2")
    let relayed = try Array(message.payload.utf8).withUnsafeBytes { try RelayNotice(decoding: $0) }
    #expect(relayed.origin == NoticeOrigin(host: "server", store: "s1", id: 2, sent: 1000, sequence: 41))
    #expect(relayed.notice.title == "second" && relayed.notice.app == "build" && relayed.notice.hold == 7)
    #expect(relayed.messageID == message.messageID)
  }

  @Test(arguments: [
    ("an old notice changed", true, false, Kind.notice, false),
    ("a progress indicator", true, true, Kind.progress, false),
    ("a host that does not publish", false, true, Kind.notice, false),
    ("a local notice that finished", true, true, Kind.notice, true),
  ])
  func nothingIsPublished_for(
    _ what: String, publishes: Bool, isNew: Bool, kind: Kind, finished: Bool
  ) {
    var notice = Notice(id: 4, kind: kind, title: "n")
    if finished { notice.outcome = .completed }
    let publishing = RelayPublishing(place: place, publishesNotices: publishes)
    var sequence = 7
    #expect(
      publishing.message(for: notice, isNew: isNew && !finished, finished: finished, sequence: &sequence)
        == nil,
      "\(what)")
    #expect(sequence == 7, "\(what) takes no place in the sequence")
  }

  @Test func aRelayedNotice_isNeverPublishedAgain_butAnsweredWhenItFinishes_publishingOrNot() throws {
    let origin = NoticeOrigin(host: "laptop", store: "s9", id: 9, sent: 1)
    var notice = Notice(id: 5, kind: .notice, title: "Deploy?", origin: origin)
    var sequence = 3
    for publishes in [true, false] {
      let desk = RelayPublishing(place: place, publishesNotices: publishes)
      #expect(desk.message(for: notice, isNew: true, finished: false, sequence: &sequence) == nil)
    }
    notice.outcome = .completed
    notice.invoked = "ok"
    let desk = RelayPublishing(place: place, publishesNotices: false)
    let message = try #require(desk.message(for: notice, isNew: false, finished: true, sequence: &sequence))
    #expect(sequence == 3, "an answer takes no place in the sequence")
    #expect(message.id == 5)
    #expect(message.subject == "notifyd.t.answer.laptop")
    #expect(message.messageID == "answer/server/s1/5")
    let answer = try Array(message.payload.utf8).withUnsafeBytes { try RelayAnswer(decoding: $0) }
    #expect(
      answer == RelayAnswer(host: "server", store: "s1", to: origin, outcome: .completed, invoked: "ok"))
  }

  @Test func theMarkKey_isTheFrontOfTheMessageID() {
    let origin = NoticeOrigin(host: "server", store: "s1", id: 12, sent: 0)
    #expect(origin.markKey == "server/s1")
    #expect(
      RelayNotice(origin: origin, notice: ShowParameters(title: "t")).messageID == "\(origin.markKey)/12")
  }
}
