import FoundationEssentials
import NotifyProtocol
import Testing

@Suite("VarlinkCoding")
struct VarlinkCodingTests {
  static func message(_ json: String) -> [UInt8] { Array(json.utf8) }

  @Test func call_isJSONEndedByASingleNul() throws {
    let bytes = try VarlinkCoding.call(
      Interface.Method.show.qualifiedName, ShowParameters(title: "Backup done", hold: 2), more: true)
    #expect(bytes.last == 0)
    #expect(bytes.dropLast().contains(0) == false)
    let body = Array(bytes.dropLast())
    let header = try VarlinkCoding.decodeCall(body)
    #expect(header.method == "io.notifyd.Queue.Show")
    #expect(header.more == true)
    #expect(header.oneway == nil)
    let parameters = try VarlinkCoding.parameters(ShowParameters.self, from: body)
    #expect(parameters == ShowParameters(title: "Backup done", hold: 2))
  }

  @Test func call_leavesOutMoreAndOnewayWhenFalse() throws {
    let bytes = try VarlinkCoding.call("io.notifyd.Queue.List", NoParameters())
    let text = String(decoding: bytes.dropLast(), as: UTF8.self)
    #expect(!text.contains("more"))
    #expect(!text.contains("oneway"))
    #expect(text.contains("\"parameters\":{}"))
  }

  @Test func reply_carriesParametersAndContinues_endedByNul() throws {
    let bytes = VarlinkReplyFrame.encode(ShowReply(id: 12), continues: true)
    #expect(bytes.last == 0)
    let reply = try VarlinkCoding.decodeReply(Array(bytes.dropLast()))
    #expect(reply.continues == true)
    #expect(reply.error == nil)
    #expect(reply.parameters == .object(["id": .number(12)]))
    let last = try VarlinkCoding.decodeReply(Array(VarlinkReplyFrame.encode(ShowReply(id: 1)).dropLast()))
    #expect(last.continues == nil)
  }

  @Test func errorReply_carriesTheNameAndParameters() throws {
    let bytes = VarlinkReplyFrame.encode(.invalidArgument("title", "longer than 1 KiB"))
    #expect(bytes.last == 0)
    let reply = try VarlinkCoding.decodeReply(Array(bytes.dropLast()))
    #expect(reply.error == "io.notifyd.Queue.InvalidArgument")
    #expect(reply.parameters?["field"] == .string("title"))
    #expect(reply.parameters?["reason"] == .string("longer than 1 KiB"))
  }

  /// (message, the field the error must name).
  static let wrongParameters: [(String, String)] = [
    (#"{"method":"m","parameters":{"title":5}}"#, "title"),
    (#"{"method":"m","parameters":{"title":"t","hold":"long"}}"#, "hold"),
    (#"{"method":"m","parameters":{"title":"t","urgency":"extreme"}}"#, "urgency"),
    (#"{"method":"m","parameters":{"body":"no title"}}"#, "title"),
    (#"{"method":"m","parameters":{"title":"t","actions":[{"key":"k","label":3}]}}"#, "actions.0.label"),
    (#"{"method":"m","parameters":{"title":"t","after":1.5}}"#, "after"),
    (#"{"method":"m"}"#, "title"),
  ]

  @Test("parameters of the wrong type are InvalidParameter naming the field", arguments: wrongParameters)
  func parameters_wrongType_namesTheField(json: String, field: String) {
    let error = #expect(throws: VarlinkError.self) {
      try VarlinkCoding.parameters(ShowParameters.self, from: Self.message(json))
    }
    #expect(error == VarlinkError.invalidParameter(field))
    #expect(error?.name == "org.varlink.service.InvalidParameter")
  }

  @Test func parameters_missingMember_decodesAsEmptyObject() throws {
    let watch = try VarlinkCoding.parameters(WatchParameters.self, from: Self.message(#"{"method":"m"}"#))
    #expect(watch == WatchParameters())
    let none = try VarlinkCoding.parameters(NoParameters.self, from: Self.message(#"{"method":"m"}"#))
    #expect(none == NoParameters())
  }

  @Test func parameters_unknownMembersAreIgnored() throws {
    let parameters = try VarlinkCoding.parameters(
      IDParameters.self, from: Self.message(#"{"method":"m","parameters":{"id":3,"extra":true}}"#))
    #expect(parameters.id == 3)
  }

  @Test func decodeCall_readsTheEnvelope() throws {
    let header = try VarlinkCoding.decodeCall(
      Self.message(#"{"method":"io.notifyd.Queue.Watch","more":true,"oneway":false,"parameters":{}}"#))
    #expect(header.method == "io.notifyd.Queue.Watch")
    #expect(header.more == true)
    #expect(header.oneway == false)
  }

  @Test func errorDescription_isOneLineNamingTheField() {
    #expect(
      VarlinkError.invalidArgument("hold", "must be ≥ 0").description == "InvalidArgument: hold: must be ≥ 0")
    #expect(
      VarlinkError.invalidParameter("title").description == "InvalidParameter: invalid parameter 'title'")
    #expect(VarlinkError.noSuchNotice(4).description == "NoSuchNotice: no notice with id 4")
  }
}
