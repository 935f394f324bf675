import FoundationEssentials
import NotifyProtocol
import Testing

@Suite("JSONValue")
struct JSONValueTests {
  static let samples: [JSONValue] = [
    .null, .bool(true), .bool(false), .number(0), .number(-12), .number(1.5), .number(1e300),
    .string(""), .string("héllo \"quoted\"\n"), .array([]), .array([.number(1), .string("two"), .null]),
    .object([:]),
    .object(["nested": .object(["list": .array([.bool(false), .object(["x": .number(0.25)])])])]),
  ]

  @Test("encodes and decodes back to the same value", arguments: samples)
  func roundTrip(value: JSONValue) throws {
    let data = try JSONEncoder().encode(value)
    #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
  }

  @Test func integralNumbers_areWrittenWithoutAFraction() throws {
    let data = try JSONEncoder().encode(JSONValue.array([.number(3), .number(-7), .number(2.5)]))
    #expect(String(decoding: data, as: UTF8.self) == "[3,-7,2.5]")
  }

  @Test func decodes_eachKindOfJSON() throws {
    let text = #"{"a":null,"b":true,"c":2,"d":"s","e":[1],"f":{}}"#
    let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    #expect(value["a"] == .null)
    #expect(value["b"]?.boolValue == true)
    #expect(value["c"]?.numberValue == 2)
    #expect(value["d"]?.stringValue == "s")
    #expect(value["e"] == .array([.number(1)]))
    #expect(value["f"]?.objectValue == [:])
    #expect(value["missing"] == nil)
    #expect(JSONValue.string("x")["a"] == nil)
  }

  @Test func typedValues_roundTripThroughATree() throws {
    let notice = Notice(
      id: 3, kind: .progress, title: "Copy", value: 40, timeout: 30, actions: [Action(key: "k", label: "L")],
      phase: .holding, opacity: 1, created: 1_800_000_000.25)
    let tree = try JSONValue(encoding: notice)
    #expect(tree["kind"] == .string("progress"))
    #expect(tree["id"] == .number(3))
    #expect(try tree.decode(Notice.self) == notice)
  }

  @Test func accessors_answerNilForOtherKinds() {
    #expect(JSONValue.number(1).stringValue == nil)
    #expect(JSONValue.string("1").numberValue == nil)
    #expect(JSONValue.null.boolValue == nil)
    #expect(JSONValue.array([]).objectValue == nil)
  }
}
