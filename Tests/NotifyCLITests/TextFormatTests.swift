import Testing

@testable import NotifyCLI

@Suite("Text formatting")
struct TextFormatTests {
  @Test func sanitized_keepsEscapeSequencesAndLineBreaksOffTheTerminal() {
    #expect(
      TextFormat.sanitized("a\u{1B}[31mred\nnext\u{7F}\u{9B}é") == "a\u{FFFD}[31mred next\u{FFFD}\u{FFFD}é")
  }

  @Test func sanitized_replacesBidiOverridesAndIsolates_andTurnsLineSeparatorsIntoSpaces() {
    #expect(
      TextFormat.sanitized("a\u{202E}b\u{2066}c\u{2028}d\u{2029}e\u{200F}")
        == "a\u{FFFD}b\u{FFFD}c d e\u{200F}")
  }

  @Test(arguments: [
    (0.456, 2, "0.46"), (1, 2, "1.00"), (0.05, 1, "0.1"), (12.5, 0, "13"), (0.004, 2, "0.00"),
  ])
  func fixed_roundsToTheGivenDecimals(value: Double, digits: Int, expected: String) {
    #expect(TextFormat.fixed(value, digits: digits) == expected)
  }
}
