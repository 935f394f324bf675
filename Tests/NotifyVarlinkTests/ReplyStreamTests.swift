import NotifyProtocol
import NotifyVarlink
import Testing

@Suite("Reply streams")
struct ReplyStreamTests {
  private func whole(_ stream: some ReplyStream) -> String {
    var stream = stream
    var bytes: [UInt8] = []
    while let piece = stream.nextPiece() { bytes += piece }
    #expect(bytes.last == 0)
    return String(decoding: bytes.dropLast(), as: UTF8.self)
  }

  @Test func aSnapshot_writesItsOtherMembersFirst_andItsNoticesOnceAsTheStreamedArray() {
    let notice = Notice(id: 1, kind: .notice, title: "n")
    let snapshot = Event(kind: .snapshot, at: 5, notices: [notice], suspended: false)
    let text = whole(ArrayReplyStream(snapshot: snapshot, elements: [notice, notice]))
    #expect(
      text.hasPrefix(
        #"{"parameters":{"event":{"kind":"snapshot","at":5,"suspended":false,"notices":[{"id":1,"#))
    #expect(text.hasSuffix(#"}]}},"continues":true}"#))
    #expect(text.components(separatedBy: #""notices""#).count == 2)
    #expect(text.components(separatedBy: #""id":1,"#).count == 3)
  }
}
