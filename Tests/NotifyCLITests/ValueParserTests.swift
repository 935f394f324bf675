import NotifyProtocol
import Testing

@testable import NotifyCLI

@Suite("Reading option values")
struct ValueParserTests {
  @Test(arguments: [
    ("1.5", 1.5), ("1.5s", 1.5), ("300ms", 0.3), ("2m", 120), ("1h", 3600), ("0", 0), ("1d", 86400),
    ("24h", 86400),
  ])
  func duration_acceptsTheDocumentedForms(text: String, seconds: Double) throws {
    let parsed = try ValueParser.duration(text, option: "--hold")
    #expect(abs(parsed - seconds) < 1e-9)
  }

  @Test(arguments: ["", "s", "abc", "-1", "1.5x", "1e3", "inf", "nan", "25h", "2d", "86401"])
  func duration_rejectsWhatIsNotADurationOfAtMostADay(text: String) {
    #expect(throws: UsageError.self) { try ValueParser.duration(text, option: "--hold") }
  }

  @Test func duration_longerThanADay_saysSo() {
    #expect(
      throws: UsageError.invalidValue(option: "--for", value: "2d", reason: "a duration of at most a day")
    ) {
      try ValueParser.duration("2d", option: "--for")
    }
  }

  @Test(arguments: [("12", 12), ("#12", 12)])
  func noticeId_acceptsPlainAndHashForms(text: String, id: Int) throws {
    #expect(try ValueParser.noticeID(text, option: "ID") == id)
  }

  @Test(arguments: [
    ("30m", TimeReference.ago(1800)), ("1700000000", .epoch(1_700_000_000)), ("0", .epoch(0)),
  ])
  func timeReference_readsDurationsAsAgoAndNumbersAsEpoch(text: String, expected: TimeReference) throws {
    #expect(try ValueParser.timeReference(text, option: "--since") == expected)
  }
}
