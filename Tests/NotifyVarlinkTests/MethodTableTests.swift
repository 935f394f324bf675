import NotifyProtocol
import Testing

@testable import NotifyVarlink

/// Reading a call in one pass: the method looked up as its name is read, the parameters decoded
/// into the bound type, every kind of bad message refused with the error DESIGN §3 names.
@Suite("MethodTable")
struct MethodTableTests {
  static var table: MethodTable {
    var table = MethodTable(vendor: "v", product: "p", version: "1", url: "https://example.org")
    table.add(interface: Interface.name, description: Interface.description)
    table.bind(Interface.Method.show.qualifiedName, ShowParameters.self) { _, _ in }
    table.bind(Interface.Method.wait.qualifiedName, IDParameters.self, completion: .eventual) { _, _ in }
    return table
  }

  func refusal(_ json: String) -> VarlinkError? {
    guard case .refused(let error, _) = Self.table.prepare(Array(json.utf8)) else { return nil }
    return error
  }

  func call(_ json: String) -> MethodTable.PreparedCall? {
    guard case .call(let call) = Self.table.prepare(Array(json.utf8)) else { return nil }
    return call
  }

  @Test func aBoundMethod_isPrepared_withItsFlagsAndCompletion() throws {
    let show = try #require(
      call(#"{"method":"io.notifyd.Queue.Show","parameters":{"title":"t"},"more":true}"#))
    #expect(show.more && !show.oneway && show.completion == .prompt)
    let wait = try #require(call(#"{"oneway":true,"method":"io.notifyd.Queue.Wait","parameters":{"id":3}}"#))
    #expect(wait.oneway && wait.completion == .eventual)
  }

  @Test(
    "wrong parameters are InvalidParameter naming the field, wherever the method comes",
    arguments: [
      (#"{"method":"io.notifyd.Queue.Show","parameters":{"title":5}}"#, "title"),
      (#"{"parameters":{"title":5},"method":"io.notifyd.Queue.Show"}"#, "title"),
      (#"{"method":"io.notifyd.Queue.Show","parameters":{}}"#, "title"),
      (#"{"method":"io.notifyd.Queue.Show"}"#, "title"),
      (
        #"{"method":"io.notifyd.Queue.Show","parameters":{"title":"t","actions":[{"key":"k"}]}}"#,
        "actions.0.label"
      ),
      (
        #"{"parameters":{"title":"t","actions":[{"key":1,"label":"l"}]},"method":"io.notifyd.Queue.Show"}"#,
        "actions.0.key"
      ),
      (#"{"method":"io.notifyd.Queue.Show","parameters":{"title":"t","after":1.5}}"#, "after"),
      (#"{"method":"io.notifyd.Queue.Show","parameters":{"title":"t","hold":1e999}}"#, "hold"),
      (#"{"method":"io.notifyd.Queue.Show","parameters":{"title":"t","urgency":"urgent"}}"#, "urgency"),
      (#"{"method":"io.notifyd.Queue.Wait","parameters":[1]}"#, "parameters"),
    ])
  func wrongParameters_nameTheField(json: String, field: String) {
    #expect(refusal(json) == .invalidParameter(field))
  }

  @Test func parametersThatAreNull_readAsEmpty_andUnknownMembersAreSkipped() {
    #expect(
      call(#"{"method":"io.notifyd.Queue.Show","parameters":{"title":"t","new":{"a":[1,{"b":null}]}}}"#)
        != nil)
    #expect(refusal(#"{"method":"io.notifyd.Queue.Show","parameters":null}"#) == .invalidParameter("title"))
  }

  @Test func unknownNames_areMethodNotFound_orInterfaceNotFound() {
    #expect(refusal(#"{"method":"io.notifyd.Queue.Explode"}"#) == .methodNotFound("io.notifyd.Queue.Explode"))
    #expect(
      refusal(#"{"method":"org.example.Thing.Do"}"#)
        == VarlinkError(Interface.ErrorName.interfaceNotFound, ["interface": .string("org.example.Thing")]))
  }

  @Test(
    "messages that are not calls are InvalidArgument (message)",
    arguments: [
      (#"{"method": "io.notifyd.Queue.Show", "#, "JSON"),
      (#"[1, 2, 3]"#, "not a Varlink call object"),
      (#""text""#, "not a Varlink call object"),
      (#"{"parameters": {}}"#, "the call has no 'method'"),
      (#"{"method": 5}"#, "not a Varlink call object"),
      (#"{"method":"io.notifyd.Queue.Show","more":"yes"}"#, "not a Varlink call object"),
      (#"{"method":"io.notifyd.Queue.Show"} trailing"#, "JSON"),
      ("{\"method\":\"io.notifyd.Queue.Show\",\"parameters\":{\"title\":\"\u{1}\"}}", "JSON"),
    ])
  func notACall_isInvalidArgumentOfTheMessage(json: String, reason: String) throws {
    let error = try #require(refusal(json))
    #expect(error.name == Interface.ErrorName.invalidArgument)
    #expect(error.parameters["field"] == .string("(message)"))
    #expect(error.parameters["reason"]?.stringValue?.contains(reason) == true)
  }

  @Test func aSkippedObjectWithATrailingComma_isNotJSON() throws {
    let error = try #require(refusal(#"{"method":"io.notifyd.Queue.Show","extra":{"a":1,}}"#))
    #expect(error.parameters["reason"]?.stringValue?.contains("JSON") == true)
    #expect(
      call(#"{"method":"io.notifyd.Queue.Show","parameters":{"title":"t"},"extra":{"a":{},"b":[]}}"#) != nil)
  }

  @Test func invalidUTF8_isRefused() {
    let bytes =
      Array(#"{"method":"io.notifyd.Queue.Show","parameters":{"title":""#.utf8) + [0xff, 0xfe]
      + Array(#""}}"#.utf8)
    guard case .refused(let error, _) = Self.table.prepare(bytes) else {
      Issue.record("invalid UTF-8 was read as a call")
      return
    }
    #expect(error.name == Interface.ErrorName.invalidArgument)
  }

  @Test func nestingPastTheLimit_isRefused_withoutExhaustingTheStack() throws {
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    let error = try #require(refusal(#"{"method":"io.notifyd.Queue.Show","extra":\#(deep)}"#))
    #expect(error.parameters["reason"]?.stringValue?.contains("nested deeper") == true)
  }

  @Test func theServiceInterface_isBuiltIn() throws {
    let info = try #require(call(#"{"method":"org.varlink.service.GetInfo"}"#))
    #expect(info.completion == .prompt)
    #expect(
      call(
        #"{"method":"org.varlink.service.GetInterfaceDescription","parameters":{"interface":"io.notifyd.Queue"}}"#
      ) != nil)
    #expect(
      refusal(#"{"method":"org.varlink.service.GetInterfaceDescription"}"#) == .invalidParameter("interface"))
    #expect(
      Self.table.methodNames == [Interface.Method.show.qualifiedName, Interface.Method.wait.qualifiedName])
  }
}
