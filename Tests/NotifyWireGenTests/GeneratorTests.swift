import Testing

@testable import notifyd_wiregen

/// notifyd-wiregen on small IDL files: what it writes of a record, and what it refuses. (What it
/// writes of the real IDL is held to it by NotifyProtocolTests and NotifyStoreTests.NoticeFieldsTests.)
@Suite("notifyd-wiregen")
struct GeneratorTests {
  static let idl = """
    # A test interface.
    interface io.notifyd.Queue

    type Urgency (low, normal, critical)
    # A record with every kind of member.
    type Sample (name: string, level: ?Urgency, sizes: []int, parts: ?[]Part, weight: float)
    type Part (flag: bool)

    # Says hello.
    method Show(title: string) -> (id: int)
    method Get(id: int) -> (sample: Sample)
    method Wait(id: int) -> (sample: Sample)
    error Failed (reason: string)

    """

  private func generated(_ text: String = idl) throws -> String {
    try generate([(name: "test.varlink", text: text)])
  }

  @Test func aRecord_becomesAStruct_withItsInitializerReaderAndWriter() throws {
    let swift = try generated()
    #expect(
      swift.contains(
        "/// A record with every kind of member.\npublic struct Sample: Codable, Sendable, Hashable {"))
    #expect(
      swift.contains(
        "public init(name: String, level: Urgency? = nil, sizes: [Int], parts: [Part]? = nil, weight: Double)"
      ))
    // Required members are named when missing; optionals may be null; enumerations read by name.
    #expect(swift.contains(#"guard let name else { throw .invalid(field: "name") }"#))
    #expect(!swift.contains(#"guard let level"#))
    #expect(
      swift.contains(
        #"case "level": level = try reader.readNull() ? nil : try reader.readEnum(Urgency.self)"#))
    #expect(
      swift.contains(
        #"case "sizes": sizes = try reader.readElements { reader throws(JSONReadError) in try reader.readInt() }"#
      ))
    #expect(swift.contains(#"case "weight": weight = try reader.readDouble()"#))
    // Absent optionals are left out of what is written; present members in the IDL's order.
    #expect(swift.contains(#"if let level { writer.key("level"); writer.string(level.rawValue) }"#))
    let name = try #require(swift.range(of: #"writer.key("name")"#))
    let weight = try #require(swift.range(of: #"writer.key("weight")"#))
    #expect(name.lowerBound < weight.lowerBound)
  }

  @Test func methods_getParametersAndReplies_sharedOnesOnce_andTheirCases() throws {
    let swift = try generated()
    #expect(swift.contains("/// The parameters of `Show`.\npublic struct ShowParameters"))
    #expect(swift.contains("/// The reply of `Show`.\n///\n/// Says hello.\npublic struct ShowReply"))
    #expect(swift.contains("/// The parameters of `Get` and `Wait`.\npublic struct IDParameters"))
    #expect(swift.components(separatedBy: "public struct IDParameters").count == 2)
    #expect(swift.contains(#"case show = "Show""#) && swift.contains(#"case wait = "Wait""#))
    // The served interface's description is the file itself; errors give no record.
    #expect(swift.contains("public static let description = #\"\"\"\n" + Self.idl + "\n\"\"\"#"))
    #expect(!swift.contains("struct Failed"))
  }

  @Test func twoMethodsSharingARecord_withOtherMembers_areRefused() throws {
    let idl = "method Get(id: int) -> (sample: int)\nmethod Wait(id: string) -> (sample: int)\n"
    #expect(throws: IDLError.self) { try generated(idl) }
  }

  @Test(arguments: [
    "type Sample (name: )\n", "type Sample (a, b: int)\n", "method Show(title: string)\n",
    "method Show(low, high) -> ()\n", "type Sample (name: string\n", "variable x\n", "type Sample {}\n",
  ])
  func aMalformedIDL_isRefused_namingTheFile(text: String) throws {
    do {
      _ = try generated(text)
      Issue.record("\(text) was taken")
    } catch {
      #expect("\(error)".hasPrefix("test.varlink: "))
    }
  }

  @Test func aServedIDLWithoutItsLastNewline_isRefused() throws {
    #expect(throws: IDLError.self) { try generated("interface io.notifyd.Queue") }
  }
}
