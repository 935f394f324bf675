import FoundationEssentials
import NotifyProtocol
import Testing

/// The daemon's own JSON: what `JSONWriter` writes, clients decoding with Codable read back exactly;
/// what clients encode with Codable, `JSONReader` reads back exactly; and the reader is strict
/// where JSON is.
@Suite("Wire coding")
struct WireCodingTests {
  static let notice = Notice(
    id: 42, kind: .progress, title: "Ünïcödé \"quoted\" \\ back/slash\u{0}nul\u{1}\u{1F}",
    body: "line1\nline2\ttab\r😀",
    app: "app", urgency: .critical, style: .blur, icon: "/x/y.png", tag: "t", key: "k", value: 64, delay: 0.1,
    fadeIn: 1e-7, hold: 1e21, fadeOut: 2.5, easeIn: .linear, easeOut: .easeInOut, timeout: 30, after: 7,
    actions: [Action(key: "default", label: "Öffnen"), Action(key: "b", label: "")], invoked: "default",
    origin: NoticeOrigin(host: "ci-runner", store: "0123abcd", id: 17, sent: 1_796_153_234.25),
    phase: .holding, opacity: 0.3333333333333333, outcome: .dismissed, message: "done",
    created: 1_796_153_234.5679924,
    shown: 1_796_153_235.1, finished: -0.5)

  func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
    try VarlinkCoding.parameters(type, from: Array(bytes.dropLast()))
  }

  @Test func aNoticeWritten_isReadBackByCodable_unchanged() throws {
    #expect(
      try decode(NoticeReply.self, VarlinkReplyFrame.encode(NoticeReply(notice: Self.notice))).notice
        == Self.notice)
    let bare = Notice(id: 1, kind: .notice, title: "")
    #expect(try decode(NoticeReply.self, VarlinkReplyFrame.encode(NoticeReply(notice: bare))).notice == bare)
  }

  @Test func eventsAndReplies_written_areReadBackByCodable() throws {
    let event = Event(
      kind: .updated, at: 1_800_000_000.25, id: 42, notice: Self.notice, phase: .holding, opacity: 1)
    #expect(
      try decode(EventReply.self, VarlinkReplyFrame.encode(EventReply(event: event), continues: true)).event
        == event)
    let status = StatusReply(
      version: "1", suspended: true, suspendedUntil: nil,
      relay: RelayState(state: .reconnecting, detail: "disconnected", outbox: 12, dropped: 1), waiting: 1,
      queued: 2, visible: 3, finished: 4, unread: 5)
    #expect(try decode(StatusReply.self, VarlinkReplyFrame.encode(status)) == status)
    #expect(
      try decode(CancelReply.self, VarlinkReplyFrame.encode(CancelReply(cancelled: [1, -2, 3]))).cancelled
        == [1, -2, 3])
    #expect(
      try decode(ProgressReply.self, VarlinkReplyFrame.encode(ProgressReply(id: 9, existing: true))).existing)
  }

  @Test func wholeNumbers_areWrittenWithoutAFraction() {
    var writer = JSONWriter()
    writer.beginArray()
    for value in [5.0, -3.0, 0.5, 1e21, 1e16, 999_999_999_999_999] { writer.number(value) }
    writer.endArray()
    #expect(String(decoding: writer.bytes, as: UTF8.self) == "[5,-3,0.5,1e+21,1e+16,999999999999999]")
  }

  @Test func parametersEncodedByClients_areReadExactly() throws {
    let show = ShowParameters(
      title: "t\u{0}\"", body: "b", app: "a", urgency: .low, style: .blur, icon: "/i.png", tag: "g", key: "k",
      delay: 0.25, fadeIn: 1, hold: 0, fadeOut: 3e-3, easeIn: .easeIn, easeOut: .linear, after: 3,
      actions: [Action(key: "a", label: "😀")])
    let call = try VarlinkCoding.call("m", show)
    let read = try call.dropLast().withUnsafeBytes { raw in
      var reader = JSONReader(UnsafeRawBufferPointer(rebasing: raw[...]))
      var result: ShowParameters?
      try reader.readObject { reader, name throws(JSONReadError) in
        if name == "parameters" {
          result = try ShowParameters(reading: &reader)
        } else {
          try reader.skipValue()
        }
      }
      return result
    }
    #expect(read == show)
  }

  func read(_ json: String) -> Result<String, JSONReadError> {
    Array(json.utf8).withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      return Result { () throws(JSONReadError) in
        let text = try reader.readString()
        try reader.finish()
        return text
      }
    }
  }

  @Test func strings_unescapeEveryEscape_includingSurrogatePairs() throws {
    #expect(try read(#""\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#).get() == "\"\\/\u{8}\u{c}\n\r\té😀")
  }

  @Test(
    "malformed strings and numbers are syntax errors",
    arguments: [
      #""\ud83d""#, #""\ude00x""#, "\"a\u{1}b\"", #""\q""#, #""open"#, #""\u12""#,
    ])
  func malformedStrings_areSyntaxErrors(json: String) {
    guard case .failure(.syntax) = read(json) else {
      Issue.record("\(json) was read")
      return
    }
  }

  @Test("numbers follow JSON's grammar", arguments: ["01", "-", "1.", ".5", "1e", "+1", "0x10"])
  func malformedNumbers_areSyntaxErrors(json: String) {
    let result = Array(json.utf8).withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      return Result { () throws(JSONReadError) in
        _ = try reader.readDouble()
        try reader.finish()
      }
    }
    guard case .failure(.syntax) = result else {
      Issue.record("\(json) was read as a number")
      return
    }
  }
}
