import Glibc
import NotifyPosix

/// The terminal `watch` draws on: standard output for drawing, standard input for keys when it is
/// a terminal too, the window size, and the input modes, which it changes and gives back.
///
/// - Important: not thread-safe; the watch loop owns it.
final class TerminalDevice {
  /// Where drawing goes.
  let output: Int32
  /// Where keys come from, when standard input is a terminal.
  let input: Int32?
  /// The input modes before `enterKeyMode`, to restore.
  private var savedInputMode: termios?

  init(output: Int32 = STDOUT_FILENO, input: Int32 = STDIN_FILENO) {
    self.output = output
    self.input = isatty(input) == 1 ? input : nil
  }

  /// Whether `fd` is a terminal (wraps `isatty(3)`).
  static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

  /// The window size in columns and rows (wraps `ioctl(2)` `TIOCGWINSZ`); 80×24 when unknown.
  var size: (columns: Int, rows: Int) {
    var window = winsize()
    let result = withUnsafeMutablePointer(to: &window) { ioctl(output, UInt(TIOCGWINSZ), $0) }
    guard result == 0, window.ws_col > 0, window.ws_row > 0 else { return (80, 24) }
    return (Int(window.ws_col), Int(window.ws_row))
  }

  /// Writes all of `text` (`Posix.writeAll`), after signals and short writes too; a failed write
  /// is dropped, as there is nowhere to report it.
  func write(_ text: String) {
    Array(text.utf8).withUnsafeBytes { _ = try? Posix.writeAll(output, $0) }
  }

  /// Turns off echo and line editing on the input terminal (wraps `tcsetattr(3)`), so that keys
  /// arrive one by one and typing does not scribble over the view. `ISIG` stays on: Ctrl-C,
  /// Ctrl-\ and Ctrl-Z still become signals.
  func enterKeyMode() {
    guard let input, savedInputMode == nil else { return }
    var mode = termios()
    guard tcgetattr(input, &mode) == 0 else { return }
    savedInputMode = mode
    mode.c_lflag &= ~tcflag_t(ECHO | ICANON)
    withUnsafeMutableBytes(of: &mode.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
    tcsetattr(input, TCSANOW, &mode)
  }

  /// Gives the input terminal back its modes from before `enterKeyMode` (wraps `tcsetattr(3)`).
  func restoreInputMode() {
    guard let input, var mode = savedInputMode else { return }
    tcsetattr(input, TCSANOW, &mode)
    savedInputMode = nil
  }

  /// The bytes typed so far (`Posix.read`); empty when nothing waits, `nil` at end of input.
  func readKeys() -> [UInt8]? {
    guard let input else { return [] }
    var buffer = [UInt8](repeating: 0, count: 64)
    switch buffer.withUnsafeMutableBytes({ try? Posix.read(input, into: $0) }) {
    case .bytes(let count): return Array(buffer[0..<count])
    case .wouldBlock: return []
    case .endOfFile, nil: return nil
    }
  }
}
