import NotifyCore
import Testing

@Suite("Glob patterns")
struct GlobTests {
  /// (pattern, text, whether it matches).
  static let table: [(String, String, Bool)] = [
    ("", "", true),
    ("", "a", false),
    ("abc", "abc", true),
    ("abc", "abcd", false),
    ("abc", "ab", false),
    ("*", "", true),
    ("*", "anything at all", true),
    ("*.txt", "notes.txt", true),
    ("*.txt", "notes.txt.bak", false),
    ("a*b*c", "axxbyyc", true),
    ("a*b*c", "axxbyy", false),
    ("a*c", "abcbc", true),
    ("*a*a*", "banana", true),
    ("**", "x", true),
    ("?", "", false),
    ("?", "x", true),
    ("?", "xy", false),
    ("caf?", "café", true),
    ("[abc]", "b", true),
    ("[abc]", "d", false),
    ("[a-z]x", "qx", true),
    ("[a-z]x", "Qx", false),
    ("[!a]", "b", true),
    ("[!a]", "a", false),
    ("[^0-9]", "7", false),
    ("[^0-9]", "z", true),
    ("[]]", "]", true),
    ("[a-]", "-", true),
    ("[a-]", "a", true),
    ("[a-]", "b", false),
    ("\\*", "*", true),
    ("\\*", "x", false),
    ("a\\?", "a?", true),
    ("a\\?", "ab", false),
    ("firefox*", "firefox-esr", true),
    ("Backup*", "backup done", false),
  ]

  @Test("matches whole strings", arguments: table)
  func matches(pattern: String, text: String, expected: Bool) throws {
    let glob = try #require(Glob(pattern))
    #expect(glob.matches(text) == expected)
  }

  @Test("malformed patterns are refused", arguments: ["[abc", "abc\\", "[!", "[z-a]"])
  func malformed_isNil(pattern: String) {
    #expect(Glob(pattern) == nil)
  }

  @Test func description_isThePatternAsWritten() throws {
    let glob = try #require(Glob("a*[!b]?"))
    #expect(glob.description == "a*[!b]?")
    #expect(glob.pattern == "a*[!b]?")
  }
}
