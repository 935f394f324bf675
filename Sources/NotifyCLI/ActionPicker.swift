import Glibc
import NotifyPosix
import NotifyProtocol

/// The picker `notifyctl menu` hands a notice's actions to: a dmenu-style program that reads
/// labels on its standard input, one a line, and prints the one chosen.
struct ActionPicker {
  /// A shell command line, run through `sh -c`.
  var command: String

  /// The most a picker's answer is read: one label is at most 256 bytes.
  static let maximumAnswer = 64 * 1024

  /// The pickers tried when none is given, in order, with the display each needs.
  static let candidates: [(command: String, program: String, display: String)] = [
    ("fuzzel --dmenu", "fuzzel", "WAYLAND_DISPLAY"),
    ("wofi --dmenu", "wofi", "WAYLAND_DISPLAY"),
    ("rofi -dmenu", "rofi", "DISPLAY"),
    ("dmenu", "dmenu", "DISPLAY"),
  ]

  /// The first picker of `candidates` installed (in `PATH`) whose display is in use (its variable
  /// set); `nil` when none is.
  static func firstFound(
    environment: (String) -> String?, isExecutable: (String) -> Bool = Posix.isExecutable
  ) -> ActionPicker? {
    let directories = (environment("PATH") ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
    for candidate in candidates where !(environment(candidate.display) ?? "").isEmpty {
      if directories.contains(where: { isExecutable("\($0)/\(candidate.program)") }) {
        return ActionPicker(command: candidate.command)
      }
    }
    return nil
  }

  /// The lines a picker is given for `actions`: each label (its key when it has none), on one
  /// line, without control characters.
  static func lines(for actions: [Action]) -> [String] {
    actions.map { action in
      TextFormat.sanitized((action.label.isEmpty ? action.key : action.label).replacingNewlines)
    }
  }

  /// The line a picker is given for snoozing until `time`: `Remind me in 10 min`.
  static func snoozeLine(_ time: SnoozeTime) -> String { "Remind me \(time.phrase)" }

  /// The snooze choices `[Display] Snooze=` lists (`value`, as the config file has it), or the
  /// built-in ones when it says none; none when it cannot be read (the daemon refuses such a file).
  static func snoozeChoices(_ value: String?) -> [SnoozeTime] {
    guard let value, !value.isEmpty else { return SnoozeTime.defaultChoices }
    return SnoozeTime.choices(value) ?? []
  }

  /// The key of the action `answer` (the line the picker printed) names: by its line, else by its
  /// key (a dmenu lets a person type one); `nil` for an empty answer or one that names none.
  static func chosenKey(_ answer: String, of actions: [Action]) -> String? {
    guard !answer.isEmpty else { return nil }
    if let index = lines(for: actions).firstIndex(of: answer) { return actions[index].key }
    return actions.first { $0.key == answer }?.key
  }

  /// Runs the picker with `lines` on its standard input and answers the first line it printed;
  /// `nil` when it printed nothing or exited with a failure (the person gave up).
  func choose(from lines: [String]) throws(SpawnError) -> String? {
    // An inherited SIG_IGN for SIGCHLD would have the kernel reap the picker before we wait for it;
    // a picker that exits without reading its labels must not kill us with SIGPIPE (the write fails,
    // and is ignored: it chose nothing, or chose without them).
    signal(SIGCHLD, SIG_DFL)
    Posix.ignoreSIGPIPE()
    let input: (read: Int32, write: Int32)
    let output: (read: Int32, write: Int32)
    do {
      // The child's ends block, as a program expects of its standard input and output; ours do not.
      input = try Posix.pipe(nonBlocking: false)
      output = try Posix.pipe(nonBlocking: false)
      try Posix.makeNonBlockingAndCloseOnExec(output.read)
    } catch {
      throw SpawnError(program: command, errno: error.errno)
    }
    var options = Posix.SpawnOptions()
    options.input = .descriptor(input.read)
    options.output = .standardOutput(output.write)
    options.defaultSignals = [SIGPIPE]
    let pid: pid_t
    do {
      pid = try Posix.spawn(["/bin/sh", "-c", command], options)
    } catch {
      for fd in [input.read, input.write, output.read, output.write] { Posix.close(fd) }
      throw SpawnError(program: command, errno: error.errno)
    }
    Posix.close(input.read)
    Posix.close(output.write)
    // A few labels fit in the pipe at once; a picker that reads none of them only loses them.
    let text = lines.map { $0 + "\n" }.joined()
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { try? Posix.write(input.write, UnsafeRawBufferPointer($0)) }
    Posix.close(input.write)
    let answer = readAll(output.read)
    Posix.close(output.read)
    let termination = (try? Posix.waitForExit(pid)) ?? .exited(127)
    guard termination == .exited(0) else { return nil }
    let line = answer.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    return line.isEmpty ? nil : String(line)
  }

  /// Reads `fd` (non-blocking) until end of file, keeping at most `maximumAnswer` bytes.
  private func readAll(_ fd: Int32) -> String {
    var kept: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    var descriptors = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
    while true {
      let transfer = buffer.withUnsafeMutableBytes { try? Posix.read(fd, into: $0) }
      switch transfer {
      case .bytes(let count)?:
        if kept.count < Self.maximumAnswer { kept += buffer[..<min(count, Self.maximumAnswer - kept.count)] }
      case .wouldBlock?:
        descriptors[0].revents = 0
        _ = try? Posix.poll(&descriptors, timeout: -1)
      case .endOfFile?, nil:
        return String(decoding: kept, as: UTF8.self)
      }
    }
  }
}

extension String {
  /// The text with line breaks as spaces: one line of a picker.
  fileprivate var replacingNewlines: String {
    String(map { $0 == "\n" || $0 == "\r" ? " " : $0 })
  }
}
