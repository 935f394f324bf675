import FoundationEssentials
import Testing

@testable import NotifyProtocol

/// Messages read and written as the daemon reads calls and writes replies, with its one-pass
/// readers and its writers: paths of what is wrong, null, unknown and repeated members, bad bytes,
/// depth.
@Suite("The daemon's readers and writers of the wire")
struct WireReadingTests {
  private func read<T: WireDecodable>(_ type: T.Type, _ json: String) -> Result<T, JSONReadError> {
    Array(json.utf8).withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      return Result { () throws(JSONReadError) in
        let value = try T(reading: &reader)
        try reader.finish()
        return value
      }
    }
  }

  private func written(_ value: some WireEncodable) -> String {
    var writer = JSONWriter()
    value.write(to: &writer)
    return String(decoding: writer.bytes, as: UTF8.self)
  }

  @Test(arguments: [
    (#"{"body":"b"}"#, "title"),
    (#"{"title":3}"#, "title"),
    (#"{"title":null}"#, "title"),
    (#"{"title":"t","urgency":"loud"}"#, "urgency"),
    (#"{"title":"t","delay":"1s"}"#, "delay"),
    (#"{"title":"t","after":1.5}"#, "after"),
    (#"{"title":"t","hints":{"transient":"yes"}}"#, "hints.transient"),
    (#"{"title":"t","hints":[]}"#, "hints"),
    (#"{"title":"t","actions":[{"key":"a","label":"A"},{"key":"b"}]}"#, "actions.1.label"),
    (#"{"title":"t","actions":{"key":"a"}}"#, "actions"),
    (#"[]"#, ""),
    (#""title""#, ""),
  ])
  func aWrongOrMissingMember_isNamedByItsPath(json: String, field: String) {
    #expect(read(ShowParameters.self, json) == .failure(.invalid(field: field)))
  }

  @Test func nullAndAbsent_areNil_unknownMembersAreSkipped_andTheLastOfTwoWins() throws {
    let json = #"""
      {"title":"first","body":null,"unknown":{"deep":[1,2,{"x":null}]},"title":"second",
       "urgency":"critical","hold":0,"actions":[],"hints":{"category":"email"}}
      """#
    let show = try read(ShowParameters.self, json).get()
    #expect(show.title == "second")
    #expect(show.body == nil && show.app == nil)
    #expect(show.urgency == .critical && show.hold == 0 && show.actions == [])
    #expect(show.hints == Hints(category: "email"))
  }

  @Test func badBytes_areASyntaxError_evenInAMemberNobodyAskedFor() {
    for json in [#"{"title":"t","x":[1,}"#, #"{"title":"t""#, "{\"title\":\"\u{1}\"}", #"{"title":"t"} x"#] {
      guard case .failure(.syntax) = read(ShowParameters.self, json) else {
        Issue.record("\(json) was not a syntax error")
        continue
      }
    }
  }

  @Test func nestingPastTheBound_isRefused_beforeAnythingIsDecoded() {
    let deep =
      String(repeating: "[", count: JSONReader.maximumDepth + 1)
      + String(repeating: "]", count: JSONReader.maximumDepth + 1)
    guard case .failure(.syntax) = read(ShowParameters.self, #"{"title":"t","x":\#(deep)}"#) else {
      Issue.record("a value nested too deep was accepted")
      return
    }
  }

  @Test func theReader_standsAfterTheValue_forWhatFollowsIt() throws {
    let json = Array(#"{"a":{"title":"t","app":"x"},"b":true}"#.utf8)
    let (show, after) = try json.withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      var show: ShowParameters?
      var after: Bool?
      try reader.readObject { reader, name throws(JSONReadError) in
        switch name {
        case "a": show = try ShowParameters(reading: &reader)
        default: after = try reader.readBool()
        }
      }
      return (show, after)
    }
    #expect(show == ShowParameters(title: "t", app: "x"))
    #expect(after == true)
  }

  @Test func whatIsWritten_leavesAbsentOptionalsOut_andIsReadBackByCodable() throws {
    let show = ShowParameters(
      title: "t\"\n", urgency: .low, hints: Hints(transient: true), delay: 0.5, after: 3,
      actions: [Action(key: "k", label: "L")])
    let text = written(show)
    #expect(!text.contains("body") && !text.contains("null"))
    #expect(try JSONDecoder().decode(ShowParameters.self, from: Data(text.utf8)) == show)
    #expect(try read(ShowParameters.self, text).get() == show)
    #expect(written(NoParameters()) == "{}")
    #expect(written(ShowParameters(title: "t", hold: 2)) == #"{"title":"t","hold":2}"#)
    #expect(written(CancelReply(cancelled: [1, 2])) == #"{"cancelled":[1,2]}"#)
  }
}
