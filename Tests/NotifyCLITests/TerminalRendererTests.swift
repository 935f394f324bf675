import NotifyProtocol
import Testing

@testable import NotifyCLI

private let palette = WatchPalette.dark()

private func renderer(_ mode: ColorMode = .trueColor) -> TerminalRenderer {
  TerminalRenderer(
    palette: palette, colorMode: mode, socketPath: "/run/user/1000/notifyd.sock", quitHint: "q to quit")
}

private func notice(
  _ id: Int = 1, title: String = "Backup done", body: String? = "42 files copied", app: String? = "backup",
  urgency: Urgency = .normal, style: Style = .clear, kind: Kind = .notice, value: Int? = nil,
  phase: Phase = .holding, opacity: Double = 1, hold: Double = 3
) -> Notice {
  Notice(
    id: id, kind: kind, title: title, body: body, app: app, urgency: urgency, style: style, value: value,
    fadeIn: 2,
    hold: hold, fadeOut: 2, phase: phase, opacity: opacity, shown: 100)
}

/// A model whose snapshot, taken at 103, holds `notices`.
private func model(_ notices: [Notice], suspended: Bool = false) -> WatchModel {
  var model = WatchModel()
  model.apply(Event(kind: .snapshot, at: 103, notices: notices, suspended: suspended))
  return model
}

/// `text` without the SGR sequences `StyledLine.encoded` writes.
private func strippingSGR(_ text: String) -> String {
  var result = ""
  var scalars = text.unicodeScalars[...]
  while let scalar = scalars.popFirst() {
    if scalar == "\u{1B}", scalars.first == "[" {
      scalars = scalars.drop { $0 != "m" }.dropFirst()
    } else {
      result.unicodeScalars.append(scalar)
    }
  }
  return result
}

/// The foreground colour of the first span containing `text`.
private func foreground(of text: String, in lines: [StyledLine]) -> RGBColor? {
  lines.lazy.flatMap(\.spans).first { $0.text.contains(text) }?.style.foreground
}

@Suite("The live view's layout and colours")
struct TerminalRendererTests {
  @Test func card_showsIdAppUrgencyTitleTimeLeftAndBody_inAFrameOfTheFullWidth() {
    let lines = renderer().render(model([notice()]), columns: 64, rows: 8, now: 103).map(\.text)
    #expect(
      lines == [
        "notifyd · running · 1 visible · 0 queued · 0 waiting   q to quit",
        "",
        "╭─ #1 · backup ─────────────────────────────────────── normal ─╮",
        "│ Backup done                                         4 s left │",
        "│ 42 files copied                                              │",
        "╰──────────────────────────────────────────────────────────────╯",
        "",
        "",
      ])
  }

  @Test func statusLine_saysSuspended_andCountsTheBacklog_withTheQuitHintAtTheRight() {
    let waiting = Notice(id: 2, kind: .notice, title: "later", phase: .waiting)
    let queued = Notice(id: 3, kind: .notice, title: "next", phase: .queued)
    let lines = renderer().render(model([waiting, queued], suspended: true), columns: 80, rows: 3, now: 0)
    #expect(
      lines[0].text == "notifyd · suspended · 0 visible · 1 queued · 1 waiting"
        + String(repeating: " ", count: 17) + "q to quit")
    #expect(lines[0].spans.first { $0.text == "suspended" }?.style.foreground == palette.warning)
    #expect(lines[2].text == "No notices on screen.")
  }

  @Test func statusLine_saysConnecting_untilTheSnapshotArrives() {
    let lines = renderer().render(WatchModel(), columns: 100, rows: 3, now: 0)
    #expect(lines[0].text.hasPrefix("notifyd · connecting to /run/user/1000/notifyd.sock"))
    #expect(!lines[0].text.contains("not reachable"))
  }

  @Test func statusLine_namesTheSocket_whileTheDaemonIsUnreachable() {
    var disconnected = model([notice()])
    disconnected.disconnect()
    let lines = renderer().render(disconnected, columns: 100, rows: 4, now: 0)
    #expect(lines[0].text.hasPrefix("notifyd · not reachable at /run/user/1000/notifyd.sock, retrying"))
    #expect(lines.dropFirst().allSatisfy { $0.text.isEmpty })
  }

  @Test(arguments: [0.0, 0.25, 0.5, 0.875, 1.0])
  func colours_areTheNoticesColoursAtItsOpacityOverTheBackground(opacity: Double) {
    let fading = notice(phase: .fadingIn, opacity: opacity)
    let lines = renderer().render(model([fading]), columns: 60, rows: 8, now: 101)
    let background = palette.background
    #expect(
      foreground(of: "Backup done", in: lines) == palette.title.composited(over: background, opacity: opacity)
    )
    #expect(
      foreground(of: "42 files", in: lines) == palette.body.composited(over: background, opacity: opacity))
    #expect(
      foreground(of: "╭", in: lines) == palette.accent(.normal).composited(over: background, opacity: opacity)
    )
    #expect(
      foreground(of: "normal", in: lines)
        == palette.accent(.normal).composited(over: background, opacity: opacity))
  }

  @Test func fadeInThenHold_changesTheColours_andHoldIsFullColour() {
    let fadingIn = renderer().render(
      model([notice(phase: .fadingIn, opacity: 0.4)]), columns: 60, rows: 8, now: 101)
    let holding = renderer().render(model([notice()]), columns: 60, rows: 8, now: 103)
    #expect(fadingIn[2].encoded(.trueColor) != holding[2].encoded(.trueColor))
    #expect(foreground(of: "Backup done", in: holding) == palette.title)
    #expect(foreground(of: "╭", in: holding) == palette.accent(.normal))
  }

  @Test(arguments: [Urgency.low, .normal, .critical])
  func accent_comesFromTheUrgency(urgency: Urgency) {
    let lines = renderer().render(model([notice(urgency: urgency)]), columns: 60, rows: 8, now: 103)
    #expect(foreground(of: "╰", in: lines) == palette.accent(urgency))
  }

  @Test func blur_isABandAcrossTheWidth_withoutLines_fadingWithTheNotice() {
    let lines = renderer().render(model([notice(style: .blur, opacity: 0.5)]), columns: 40, rows: 7, now: 103)
    let card = lines[2...5]
    let band = palette.band.composited(over: palette.background, opacity: 0.5)
    for line in card {
      #expect(line.columns == 40)
      #expect(line.spans.allSatisfy { $0.style.background == band })
      #expect(!line.text.contains("│") && !line.text.contains("─"))
    }
    #expect(card.first?.text.hasPrefix("   #1 · backup") == true)
  }

  @Test func plainMode_usesNoColour_showsTheFadeAsFaint_andBlurAsShade() {
    let r = renderer(.monochrome)
    let faint = r.render(model([notice(opacity: 0.3)]), columns: 40, rows: 7, now: 103)
    let full = r.render(model([notice(opacity: 1)]), columns: 40, rows: 7, now: 103)
    for line in faint + full {
      let encoded = line.encoded(.monochrome)
      #expect(!encoded.contains("38;") && !encoded.contains("48;"))
    }
    #expect(faint.flatMap(\.spans).first { $0.text.contains("Backup") }?.style.faint == true)
    #expect(full.flatMap(\.spans).first { $0.text.contains("Backup") }?.style == TextStyle(bold: true))
    let blur = r.render(model([notice(style: .blur)]), columns: 40, rows: 7, now: 103)
    #expect(blur[2].text.hasPrefix("░░ #1"))
    #expect(blur[5].text == String(repeating: "░", count: 40))
  }

  @Test func palette256_writesIndexedColoursOnly() {
    let lines = renderer(.palette256).render(model([notice(opacity: 0.5)]), columns: 40, rows: 7, now: 103)
    let encoded = lines.map { $0.encoded(.palette256) }.joined()
    #expect(encoded.contains("38;5;"))
    #expect(!encoded.contains("38;2;"))
  }

  @Test func escapeLadenTitle_reachesTheTerminalOnlyAsPrintableText() {
    let hostile = notice(
      title: "\u{1B}[31mred\u{1B}]0;pwned\u{07}\u{1B}[2J", body: "line\nbreak\u{9B}6n\u{202E}txt",
      app: "app\u{1B}[5m")
    let lines = renderer().render(model([hostile]), columns: 60, rows: 8, now: 103)
    let output = lines.map { strippingSGR($0.encoded(.trueColor)) }.joined(separator: "\n")
    let controls = output.unicodeScalars.filter { scalar in
      (scalar.value < 0x20 && scalar != "\n") || (0x7F..<0xA0).contains(scalar.value)
    }
    #expect(controls.isEmpty)
    #expect(output.contains("\u{FFFD}[31mred\u{FFFD}]0;pwned\u{FFFD}\u{FFFD}[2J"))
    #expect(output.contains("line break\u{FFFD}6n\u{FFFD}txt"))
    #expect(output.contains("app\u{FFFD}[5m"))
    // Every line still fits: the replacement marks were counted.
    #expect(lines.allSatisfy { $0.columns <= 60 })
  }

  @Test(arguments: [40, 61, 100])
  func wideCharacterTitle_linesUp_theRightBorderInTheLastColumn(columns: Int) {
    let wide = notice(title: "백업 완료 — 備份完成", body: "🎉 새 백업 — 新的備份 ready", app: "백업")
    let lines = renderer().render(model([wide]), columns: columns, rows: 8, now: 103)
    let card = lines[2...5]
    for line in card { #expect(line.columns == columns, "\(line.text)") }
    #expect(card.allSatisfy { $0.text.hasSuffix("╮") || $0.text.hasSuffix("│") || $0.text.hasSuffix("╯") })
    #expect(lines[3].text.hasPrefix("│ 백업 완료 — 備份完成 "))
  }

  @Test func longWideTitle_isCutWithAnEllipsis_withoutSplittingACharacter() {
    let wide = notice(title: String(repeating: "備份完成", count: 10), hold: 0)
    let lines = renderer().render(model([wide]), columns: 30, rows: 8, now: 103)
    #expect(lines[3].columns == 30)
    #expect(lines[3].text.contains("…"))
    #expect(lines[3].text.hasPrefix("│ 備份完成備份"))
  }

  @Test func progressIndicator_drawsABarForItsValue() {
    let building = notice(title: "Building", body: nil, kind: .progress, value: 42)
    let lines = renderer().render(model([building]), columns: 34, rows: 7, now: 103)
    // Inner width 30: a bar of 25 cells and " 42%"; 42% of 25 cells is 10.5 cells.
    #expect(lines[2].text.hasSuffix(" normal · progress ─╮"))
    #expect(lines[3].text == "│ Building" + String(repeating: " ", count: 22) + " │")
    let bar = String(repeating: "█", count: 10) + "▌" + String(repeating: "░", count: 14)
    #expect(lines[4].text == "│ \(bar)  42% │")
    #expect(foreground(of: "█", in: lines) == palette.accent(.normal))
  }

  @Test func holdUntilEnded_saysSo_insteadOfATimeLeft() {
    let critical = notice(urgency: .critical, hold: 0)
    let lines = renderer().render(model([critical]), columns: 50, rows: 7, now: 103)
    #expect(lines[3].text.hasSuffix("until ended │"))
  }

  @Test func tooManyNotices_showAsManyAsFit_andCountTheRest() {
    let notices = (1...5).map { notice($0, title: "Notice \($0)", body: nil) }
    let lines = renderer().render(model(notices), columns: 40, rows: 12, now: 103)
    #expect(lines.count == 12)
    // Status line, then two cards of a blank line and 3 lines each, then the count.
    #expect(lines[9].text == "+3 more not shown")
    #expect(lines[3].text.hasPrefix("│ Notice 5"))  // newest first
  }

  @Test func tinyTerminal_stillGetsExactlyItsRows_noneTooWide() {
    for columns in 1...14 {
      let lines = renderer().render(
        model([notice(title: "백업 완료 — 備份完成")]), columns: columns, rows: 3, now: 103)
      #expect(lines.count == 3)
      #expect(lines.allSatisfy { $0.columns <= columns }, "\(columns)")
    }
  }
}
