import Testing

@testable import NotifyCLI

@Suite("Terminal column widths")
struct DisplayWidthTests {
  @Test(arguments: [
    ("abc", 3),
    ("백업 완료", 9),  // four Hangul syllables and a space
    ("備份完成", 8),
    ("백업 완료 — 備份完成", 20),  // the em dash is ambiguous: one column
    ("ｆｕｌｌ", 8),  // fullwidth Latin
    ("🎉", 2),
    ("👍🏽", 4),  // emoji with a skin-tone modifier: one character, two wide scalars
    ("👨‍👩‍👧", 6),  // a ZWJ family: one character, as wide as its three emoji side by side
    ("❤️", 2),  // text-default heart asking for emoji presentation
    ("❤", 1),
    ("🇰🇷", 2),  // a flag: two regional indicators
    ("\u{0600}", 1),  // Arabic number sign: a format character with a glyph
    ("e\u{301}", 1),  // e + combining acute
    ("\u{1100}\u{1161}\u{11A8}", 2),  // conjoining Hangul jamo: 각
    ("a\u{200B}b", 2),  // zero-width space
    ("…", 1),
  ])
  func columns_countCellsNotBytesOrScalars(text: String, expected: Int) {
    #expect(DisplayWidth.columns(of: text) == expected)
  }

  @Test func controlCharacters_countAsTheReplacementCharacterTheyBecome() {
    #expect(
      DisplayWidth.columns(of: TextFormat.sanitized("a\u{1B}[31mb"))
        == DisplayWidth.columns(of: "a\u{FFFD}[31mb"))
    #expect(DisplayWidth.columns(of: "\u{1B}") == 1)
  }

  @Test(arguments: [
    ("Backup done", 20, "Backup done"),
    ("Backup done", 11, "Backup done"),
    ("Backup done", 8, "Backup …"),
    ("백업 완료", 6, "백업 …"),
    ("백업 완료", 5, "백업…"),  // "백업 " would need 5 + the ellipsis
    ("備份完成", 4, "備…"),  // 備 (2) + … (1): 份 would straddle the edge
    ("備份完成", 3, "備…"),
    ("備份完成", 2, "…"),
    ("🎉🎉🎉", 4, "🎉…"),
    ("e\u{301}e\u{301}e\u{301}", 2, "e\u{301}…"),  // the accent stays with its letter
    ("abc", 0, ""),
    ("abc", 1, "…"),
  ])
  func truncated_neverSplitsACharacter_andFitsTheColumns(text: String, limit: Int, expected: String) {
    let result = DisplayWidth.truncated(text, toColumns: limit)
    #expect(result == expected)
    #expect(DisplayWidth.columns(of: result) <= limit)
  }

  @Test func truncated_keepsWholeGraphemeClusters() {
    let family = "👨‍👩‍👧"
    let result = DisplayWidth.truncated(family + family + family, toColumns: 16)
    #expect(result == family + family + "…")
    #expect(Array(result).dropLast().allSatisfy { $0 == Character(family) })
  }

  @Test func padded_fillsTheColumnLeftByAWideCharacter() {
    let result = DisplayWidth.padded("備份完成", toColumns: 4)
    #expect(result == "備… ")
    #expect(DisplayWidth.columns(of: result) == 4)
    #expect(DisplayWidth.padded("ab", toColumns: 4) == "ab  ")
  }

  @Test func wrapped_breaksAtSpacesByColumns() {
    #expect(
      DisplayWidth.wrapped("42 files copied to the backup disk", toColumns: 16, maximumLines: 3)
        == ["42 files copied", "to the backup", "disk"])
    #expect(DisplayWidth.wrapped("백업 완료 — 備份完成", toColumns: 10, maximumLines: 3) == ["백업 완료", "— 備份完成"])
  }

  @Test func wrapped_breaksALongWordWhereItMust_andEndsWithAnEllipsis() {
    #expect(DisplayWidth.wrapped("備份完成備份完成", toColumns: 5, maximumLines: 2) == ["備份", "完成…"])
    #expect(DisplayWidth.wrapped("abcdefghij", toColumns: 4, maximumLines: 2) == ["abcd", "efg…"])
    #expect(DisplayWidth.wrapped("", toColumns: 4, maximumLines: 2).isEmpty)
  }

  @Test func wrapped_everyLineFitsTheColumns() {
    let text = "🎉 Release 1.2 (발표) is out — 新版本已发布, with notes at example.org/notes"
    for limit in 1...30 {
      for line in DisplayWidth.wrapped(text, toColumns: limit, maximumLines: 4) {
        #expect(DisplayWidth.columns(of: line) <= limit, "\(limit): \(line)")
      }
    }
  }
}
