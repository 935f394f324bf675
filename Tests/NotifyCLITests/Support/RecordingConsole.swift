@testable import NotifyCLI

/// A console that keeps what was printed.
final class RecordingConsole: Console {
  var output: [String] = []
  var errors: [String] = []

  func print(_ line: String) { output.append(line) }
  func printError(_ line: String) { errors.append(line) }
}
