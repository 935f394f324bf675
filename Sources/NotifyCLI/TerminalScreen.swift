/// The alternate screen that the terminal view draws on, redrawing only the lines that changed.
///
/// `enter` switches to the alternate screen, hides the cursor, turns off auto-wrap (so that
/// writing the last column never scrolls) and stops echo; `leave` undoes each of these, so the
/// shell's screen comes back as it was.
///
/// - Important: call `leave` on every way out (normal exit, error, signal); `TerminalWatch` does.
final class TerminalScreen {
  /// Switches to the alternate screen (saving the cursor), hides the cursor, turns off auto-wrap.
  static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l\u{1B}[H\u{1B}[2J"
  /// Resets attributes, turns auto-wrap back on, shows the cursor, returns to the normal screen.
  static let leaveSequence = "\u{1B}[0m\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l"

  private let device: TerminalDevice
  /// The encoded lines on screen now; `nil` when the screen must be drawn afresh.
  private var shown: [String]?
  /// Whether the alternate screen is on.
  private(set) var isActive = false

  init(device: TerminalDevice) {
    self.device = device
  }

  /// Switches to the view's screen.
  func enter() {
    guard !isActive else { return }
    device.write(Self.enterSequence)
    device.enterKeyMode()
    shown = nil
    isActive = true
  }

  /// Gives the terminal back as it was before `enter`.
  func leave() {
    guard isActive else { return }
    device.write(Self.leaveSequence)
    device.restoreInputMode()
    isActive = false
  }

  /// Makes the next `show` clear the screen and draw every line, as after a resize.
  func invalidate() { shown = nil }

  /// Draws `lines`, writing only those that differ from what is on screen, in one `write(2)`.
  func show(_ lines: [StyledLine], mode: ColorMode, columns: Int) {
    guard isActive else { return }
    let update = Self.changes(from: shown, to: lines, mode: mode, columns: columns)
    if !update.output.isEmpty { device.write(update.output) }
    shown = update.shown
  }

  /// The bytes that turn a screen showing `old` (encoded lines; `nil` for unknown) into one
  /// showing `new`, and the encoded lines shown afterwards.
  ///
  /// A changed line is written from its first column, then erased to the end unless it fills the
  /// width; a line count that differs from `old`'s means a resize, and everything is drawn afresh.
  static func changes(
    from old: [String]?, to new: [StyledLine], mode: ColorMode, columns: Int
  ) -> (output: String, shown: [String]) {
    let encoded = new.map { $0.encoded(mode) }
    var output = ""
    let previous: [String]
    if let old, old.count == encoded.count {
      previous = old
    } else {
      output += "\u{1B}[H\u{1B}[2J"
      previous = Array(repeating: "", count: encoded.count)
    }
    for (row, line) in encoded.enumerated() where line != previous[row] {
      output += "\u{1B}[\(row + 1);1H" + line
      if new[row].columns < columns { output += "\u{1B}[K" }
    }
    return (output, encoded)
  }
}
