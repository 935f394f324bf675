import Testing

@testable import NotifyCLI

private let escape = "\u{1B}"

@Suite("Screen updates: only changed lines are written")
struct TerminalScreenTests {
  private let bold = TextStyle(bold: true)

  @Test func firstDraw_clearsTheScreen_andWritesEveryLineThatHasText() {
    let lines = [StyledLine("one"), StyledLine(), StyledLine("three", bold)]
    let update = TerminalScreen.changes(from: nil, to: lines, mode: .trueColor, columns: 10)
    #expect(
      update.output
        == "\(escape)[H\(escape)[2J\(escape)[1;1Hone\(escape)[K\(escape)[3;1H\(escape)[0;1mthree\(escape)[0m\(escape)[K"
    )
    #expect(update.shown == ["one", "", "\(escape)[0;1mthree\(escape)[0m"])
  }

  @Test func laterDraws_writeOnlyTheLinesThatChanged() {
    let before = TerminalScreen.changes(
      from: nil, to: [StyledLine("a"), StyledLine("b"), StyledLine("c")], mode: .trueColor, columns: 10)
    let after = TerminalScreen.changes(
      from: before.shown, to: [StyledLine("a"), StyledLine("B"), StyledLine("c")], mode: .trueColor,
      columns: 10)
    #expect(after.output == "\(escape)[2;1HB\(escape)[K")
    let same = TerminalScreen.changes(
      from: after.shown, to: [StyledLine("a"), StyledLine("B"), StyledLine("c")], mode: .trueColor,
      columns: 10)
    #expect(same.output.isEmpty)
  }

  @Test func aColourChangeAlone_isAChange() {
    let dim = StyledLine("fade", TextStyle(foreground: RGBColor(red: 10, green: 10, blue: 10)))
    let bright = StyledLine("fade", TextStyle(foreground: RGBColor(red: 200, green: 200, blue: 200)))
    let first = TerminalScreen.changes(from: nil, to: [dim], mode: .trueColor, columns: 10)
    let second = TerminalScreen.changes(from: first.shown, to: [bright], mode: .trueColor, columns: 10)
    #expect(second.output == "\(escape)[1;1H\(escape)[0;38;2;200;200;200mfade\(escape)[0m\(escape)[K")
  }

  @Test func aResize_drawsEverythingAfresh() {
    let before = TerminalScreen.changes(
      from: nil, to: [StyledLine("a"), StyledLine("b")], mode: .trueColor, columns: 10)
    let after = TerminalScreen.changes(
      from: before.shown, to: [StyledLine("a"), StyledLine("b"), StyledLine("c")], mode: .trueColor,
      columns: 10)
    #expect(after.output.hasPrefix("\(escape)[H\(escape)[2J"))
    #expect(after.output.contains("\(escape)[1;1Ha"))
  }

  @Test func aLineThatFillsTheWidth_isNotErased_soItsLastColumnStays() {
    let update = TerminalScreen.changes(from: nil, to: [StyledLine("1234")], mode: .trueColor, columns: 4)
    #expect(update.output == "\(escape)[H\(escape)[2J\(escape)[1;1H1234")
  }

  @Test func enterAndLeave_switchScreens_cursorAndWrapping_andUndoEachOther() {
    let enter = TerminalScreen.enterSequence
    let leave = TerminalScreen.leaveSequence
    for (on, off) in [("?1049h", "?1049l"), ("?25l", "?25h"), ("?7l", "?7h")] {
      #expect(enter.contains("\(escape)[\(on)"))
      #expect(leave.contains("\(escape)[\(off)"))
    }
    #expect(leave.hasPrefix("\(escape)[0m"))
    #expect(leave.hasSuffix("\(escape)[?1049l"))
  }
}

@Suite("Styled lines as terminal bytes")
struct StyledLineTests {
  @Test func encoded_setsEachStyleOnce_andEndsInTheDefaultStyle() {
    var line = StyledLine()
    let red = TextStyle(foreground: RGBColor(red: 255, green: 0, blue: 0))
    line.append("a", red)
    line.append("b", red)
    line.append(" ")
    line.append("c", TextStyle(background: RGBColor(red: 0, green: 0, blue: 255), bold: true))
    #expect(line.spans.count == 3)
    #expect(
      line.encoded(.trueColor) == "\u{1B}[0;38;2;255;0;0mab\u{1B}[0m \u{1B}[0;1;48;2;0;0;255mc\u{1B}[0m")
    #expect(line.encoded(.palette256) == "\u{1B}[0;38;5;196mab\u{1B}[0m \u{1B}[0;1;48;5;21mc\u{1B}[0m")
    #expect(line.encoded(.monochrome) == "\u{1B}[0mab\u{1B}[0m \u{1B}[0;1mc\u{1B}[0m")
  }

  @Test func encoded_neverWritesAControlCharacterFromTheText() {
    let line = StyledLine("x\u{1B}[2J\u{07}\u{9B}31m\u{7F}y")
    let encoded = line.encoded(.trueColor)
    #expect(encoded == "x\u{FFFD}[2J\u{FFFD}\u{FFFD}31m\u{FFFD}y")
  }

  @Test func columns_areCountedInTerminalCells() {
    var line = StyledLine("백업")
    line.append(" 🎉", TextStyle(bold: true))
    #expect(line.columns == 7)
    #expect(line.text == "백업 🎉")
  }
}
