import NotifyProtocol

/// Lays out the terminal view of `watch`: a status line, then one card per visible notice, each
/// drawn at its opacity. Pure: the same model, size and time always give the same lines.
///
/// ```
/// notifyd · running · 1 visible · 0 queued · 2 waiting                         q to quit
///
/// ╭─ #12 · backup ─────────────────────────────────────────────────────────── normal ─╮
/// │ Backup done                                                            3 s left │
/// │ 42 files copied to /mnt/backup                                                  │
/// │ ████████████████████████████▍░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░  42% │
/// ╰─────────────────────────────────────────────────────────────────────────────────╯
/// ```
///
/// Colours: each notice's foreground and accent colours are composited over the background at the
/// notice's opacity (`RGBColor.composited`), so a fade in the daemon is a fade on screen. A `blur`
/// notice is drawn without lines on a band of its own across the whole width, the band itself
/// fading in and out; without colour its frame is drawn in `░` and a fading notice is faint.
struct TerminalRenderer: Sendable {
  var palette: WatchPalette
  var colorMode: ColorMode
  /// The daemon's socket, named while it cannot be reached.
  var socketPath: String
  /// What the status line says about quitting: `q to quit` when keys can be read.
  var quitHint: String

  /// The most lines of body text a card shows; the rest is cut with an ellipsis.
  static let maximumBodyLines = 2

  /// Exactly `rows` lines, none wider than `columns`, for `model` at wall-clock time `now`.
  func render(_ model: WatchModel, columns: Int, rows: Int, now: Double) -> [StyledLine] {
    guard columns > 0, rows > 0 else { return [] }
    var lines = [statusLine(model, columns: columns)]
    if model.connected {
      let notices = model.visible
      if notices.isEmpty {
        if rows > 2 {
          lines.append(StyledLine())
          lines.append(StyledLine("No notices on screen.", mutedStyle))
        }
      }
      for (index, notice) in notices.enumerated() {
        let card = self.card(notice, model: model, columns: columns, now: now)
        let remaining = notices.count - index - 1
        // Each card is preceded by a blank line; keep a line for "+N more" unless this is the last.
        let needed = 1 + card.count + (remaining > 0 ? 1 : 0)
        if lines.count + needed > rows {
          let hidden = notices.count - index
          if lines.count < rows {
            lines.append(
              StyledLine(DisplayWidth.truncated("+\(hidden) more not shown", toColumns: columns), mutedStyle))
          }
          break
        }
        lines.append(StyledLine())
        lines += card
      }
    }
    while lines.count < rows { lines.append(StyledLine()) }
    return Array(lines.prefix(rows))
  }

  // MARK: - Status line

  private var mutedStyle: TextStyle {
    colorMode == .monochrome ? TextStyle(faint: true) : TextStyle(foreground: palette.muted)
  }

  /// `notifyd · running · 1 visible · 0 queued · 2 waiting · 3 unread`, the quit hint at the right.
  private func statusLine(_ model: WatchModel, columns: Int) -> StyledLine {
    let strong = TextStyle(foreground: colorMode == .monochrome ? nil : palette.title, bold: true)
    let warning = TextStyle(foreground: colorMode == .monochrome ? nil : palette.warning, bold: true)
    var parts: [(String, TextStyle)] = [("notifyd", strong), (" · ", mutedStyle)]
    switch model.connection {
    case .connecting:
      parts.append(("connecting to \(TextFormat.sanitized(socketPath))", mutedStyle))
    case .disconnected:
      parts.append(("not reachable at \(TextFormat.sanitized(socketPath)), retrying", warning))
    case .connected:
      parts.append(model.suspended ? ("suspended", warning) : ("running", mutedStyle))
      let backlog = model.backlog
      let counts = "\(model.visible.count) visible · \(backlog.queued) queued · \(backlog.waiting) waiting"
      parts.append((" · " + counts, mutedStyle))
      if model.unread > 0 { parts.append((" · \(model.unread) unread", strong)) }
    }
    let left = parts.map(\.0).joined()
    let hint = quitHint
    let room = columns - DisplayWidth.columns(of: left)
    var line = StyledLine()
    if room >= DisplayWidth.columns(of: hint) + 2 {
      for (text, style) in parts { line.append(text, style) }
      line.appendSpaces(room - DisplayWidth.columns(of: hint))
      line.append(hint, mutedStyle)
    } else {
      var used = 0
      for (text, style) in parts {
        let fitted = DisplayWidth.truncated(text, toColumns: columns - used)
        line.append(fitted, style)
        used += DisplayWidth.columns(of: fitted)
        if fitted != text { break }
      }
    }
    return line
  }

  // MARK: - Cards

  /// The styles and frame characters of one notice at its opacity.
  private struct Ink {
    var frame: TextStyle
    var title: TextStyle
    var body: TextStyle
    var muted: TextStyle
    var filled: TextStyle
    var track: TextStyle
    /// Spaces inside the card: the band's colour for `blur`, else the terminal's own.
    var fill: TextStyle
    var glyphs: FrameGlyphs
  }

  /// The characters a card's frame is drawn with.
  struct FrameGlyphs: Sendable, Equatable {
    var topLeft: String, topRight: String, bottomLeft: String, bottomRight: String
    var horizontal: String, vertical: String

    static let lines = FrameGlyphs(
      topLeft: "╭", topRight: "╮", bottomLeft: "╰", bottomRight: "╯", horizontal: "─", vertical: "│")
    static let band = FrameGlyphs(
      topLeft: " ", topRight: " ", bottomLeft: " ", bottomRight: " ", horizontal: " ", vertical: " ")
    static let shade = FrameGlyphs(
      topLeft: "░", topRight: "░", bottomLeft: "░", bottomRight: "░", horizontal: "░", vertical: "░")
  }

  private func ink(for notice: Notice) -> Ink {
    let opacity = min(max(notice.opacity.isNaN ? 0 : notice.opacity, 0), 1)
    let blur = notice.style == .blur
    if colorMode == .monochrome {
      let faint = opacity < 0.5
      let style = TextStyle(faint: faint)
      return Ink(
        frame: style, title: TextStyle(bold: !faint, faint: faint), body: style,
        muted: TextStyle(faint: true),
        filled: style, track: TextStyle(faint: true), fill: .plain, glyphs: blur ? .shade : .lines)
    }
    let background = palette.background
    let band = blur ? palette.band.composited(over: background, opacity: opacity) : nil
    func style(_ color: RGBColor, bold: Bool = false) -> TextStyle {
      TextStyle(
        foreground: color.composited(over: background, opacity: opacity), background: band, bold: bold)
    }
    let accent = palette.accent(notice.urgency)
    return Ink(
      frame: style(accent), title: style(palette.title, bold: true), body: style(palette.body),
      muted: style(palette.muted), filled: style(accent), track: style(palette.track),
      fill: TextStyle(background: band), glyphs: blur ? .band : .lines)
  }

  /// The lines of one notice's card, `columns` wide.
  func card(_ notice: Notice, model: WatchModel, columns: Int, now: Double) -> [StyledLine] {
    let ink = ink(for: notice)
    let title = TextFormat.sanitized(notice.displayTitle)
    let inner = columns - 4  // "│ " and " │"
    guard inner >= 8 else {
      // Too narrow for a frame: the title alone.
      return [StyledLine(DisplayWidth.truncated(title, toColumns: columns), ink.title)]
    }
    var lines: [StyledLine] = []
    let glyphs = ink.glyphs

    // ╭─ #12 · app ───── normal ─╮
    var label = "#\(notice.id)"
    if let app = notice.app.map(TextFormat.sanitized), !app.isEmpty { label += " · " + app }
    let urgency = notice.kind == .progress ? "\(notice.urgency.rawValue) · progress" : notice.urgency.rawValue
    let fixed = 3 + 1 + DisplayWidth.columns(of: urgency) + 1 + 3  // "╭─ " " " urgency " " "─╮", fill ≥ 1
    let fittedLabel = DisplayWidth.truncated(label, toColumns: max(columns - fixed - 1, 0))
    var top = StyledLine()
    top.append(glyphs.topLeft + glyphs.horizontal, ink.frame)
    top.append(" ", ink.fill)
    top.append(fittedLabel, ink.muted)
    top.append(" ", ink.fill)
    let fill =
      columns - 3 - DisplayWidth.columns(of: fittedLabel) - 1 - 1 - DisplayWidth.columns(of: urgency) - 3
    if fill >= 1 {
      top.append(String(repeating: glyphs.horizontal, count: fill), ink.frame)
      top.append(" ", ink.fill)
      top.append(urgency, ink.frame)
      top.append(" ", ink.fill)
      top.append(glyphs.horizontal + glyphs.topRight, ink.frame)
    } else {
      top.append(String(repeating: glyphs.horizontal, count: max(columns - top.columns - 1, 0)), ink.frame)
      top.append(glyphs.topRight, ink.frame)
    }
    lines.append(top)

    // │ Title                3 s left │
    let timeLabel = self.timeLabel(notice, model: model, now: now)
    let timeColumns = DisplayWidth.columns(of: timeLabel)
    let titleRoom = timeColumns > 0 && inner - timeColumns - 2 >= 8 ? inner - timeColumns - 2 : inner
    var titleLine = StyledLine()
    let fittedTitle = DisplayWidth.truncated(title, toColumns: titleRoom)
    titleLine.append(fittedTitle, ink.title)
    if titleRoom < inner {
      titleLine.appendSpaces(inner - titleLine.columns - timeColumns, ink.fill)
      titleLine.append(timeLabel, ink.muted)
    }
    lines.append(framed(titleLine, inner: inner, ink: ink))

    // │ body, up to two lines │
    if let text = (notice.message ?? notice.body).map(TextFormat.bodyText), !text.isEmpty {
      for row in DisplayWidth.wrapped(text, toColumns: inner, maximumLines: Self.maximumBodyLines) {
        lines.append(framed(StyledLine(row, ink.body), inner: inner, ink: ink))
      }
    }

    // │ ██████▍░░░░░░  42% │
    if notice.kind == .progress, let value = notice.value {
      lines.append(framed(progressBar(value, columns: inner, ink: ink), inner: inner, ink: ink))
    }

    // │ Actions: Deploy (yes) · Later (no) │
    if let actions = notice.actions, !actions.isEmpty {
      let list = actions.map { "\(TextFormat.sanitized($0.label)) (\(TextFormat.sanitized($0.key)))" }
      let text = DisplayWidth.truncated("Actions: " + list.joined(separator: " · "), toColumns: inner)
      lines.append(framed(StyledLine(text, ink.muted), inner: inner, ink: ink))
    }

    // ╰──────╯
    var bottom = StyledLine()
    bottom.append(
      glyphs.bottomLeft + String(repeating: glyphs.horizontal, count: columns - 2) + glyphs.bottomRight,
      ink.frame)
    lines.append(bottom)
    return lines
  }

  /// `content` padded to `inner` columns between the card's sides.
  private func framed(_ content: StyledLine, inner: Int, ink: Ink) -> StyledLine {
    var line = StyledLine()
    line.append(ink.glyphs.vertical, ink.frame)
    line.append(" ", ink.fill)
    for span in content.spans { line.append(span.text, span.style) }
    line.appendSpaces(inner - content.columns, ink.fill)
    line.append(" ", ink.fill)
    line.append(ink.glyphs.vertical, ink.frame)
    return line
  }

  /// A bar of `columns` cells for `value` percent, in eighths of a cell, and the percentage.
  private func progressBar(_ value: Int, columns: Int, ink: Ink) -> StyledLine {
    let percent = min(max(value, 0), 100)
    let label = "\(percent)%"
    let width = columns - 5  // " 100%"
    var line = StyledLine()
    guard width >= 4 else {
      line.append(label, ink.body)
      return line
    }
    let eighths = percent * width * 8 / 100
    let full = eighths / 8
    let partial = eighths % 8
    line.append(String(repeating: "█", count: full), ink.filled)
    if partial > 0 { line.append(String(Self.partialBlocks[partial - 1]), ink.filled) }
    line.append(String(repeating: "░", count: width - full - (partial > 0 ? 1 : 0)), ink.track)
    line.appendSpaces(5 - label.count, ink.fill)
    line.append(label, ink.body)
    return line
  }

  /// Blocks one to seven eighths wide.
  private static let partialBlocks: [Character] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉"]

  /// `3 s left`, `until ended` for a notice that holds until ended, or nothing.
  private func timeLabel(_ notice: Notice, model: WatchModel, now: Double) -> String {
    if let left = model.timeLeft(of: notice, now: now) {
      guard left > 0 else { return "" }
      return TextFormat.elapsed(left.rounded(.up)) + " left"
    }
    if notice.kind == .notice, notice.hold == 0, notice.phase != .fadingOut { return "until ended" }
    return ""
  }
}
