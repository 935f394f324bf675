import NotifyProtocol
import Testing

@Suite("DurationParser")
struct DurationParserTests {
  static let valid: [(String, Double)] = [
    ("0", 0), ("1.5", 1.5), ("1.5s", 1.5), ("300ms", 0.3), ("2m", 120), ("2min", 120), ("1h", 3600),
    ("1d", 86400), ("0.5h", 1800), ("10", 10), (" 2 s ", 2), (".5", 0.5), ("250us", 0.00025),
  ]

  @Test("durations people write", arguments: valid)
  func parses(text: String, seconds: Double) throws {
    let parsed = try #require(DurationParser.seconds(text))
    #expect(abs(parsed - seconds) < 1e-12)
  }

  @Test(
    "anything else is refused",
    arguments: ["", "s", "ms", "-1", "-1s", "abc", "1x", "1.2.3", "1e3", "inf", "nan", "1 h 2", "+1", "١"])
  func refuses(text: String) {
    #expect(DurationParser.seconds(text) == nil)
  }
}
