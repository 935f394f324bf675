import Glibc
import NotifyPosix

/// The write end of the current `SignalPipe`, for its handler, which can reach nothing else.
///
/// `nonisolated(unsafe)`: written only by `SignalPipe.init` and `deinit`, before its handlers are
/// installed and after they are removed; the handler only reads it.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Turns signals into bytes on a pipe that `poll(2)` can wait on beside the socket and the
/// keyboard: the self-pipe trick.
///
/// The handler does one thing, `write(2)` of the signal's number, which is async-signal-safe, and
/// keeps `errno` as it found it; everything else happens in the loop that reads the pipe.
///
/// - Important: one at a time per process. `deinit` puts back the previous handlers.
final class SignalPipe {
  /// The end to poll and read.
  let fileDescriptor: Int32
  private let writeEnd: Int32
  private var previousActions: [(Int32, sigaction)] = []

  /// Installs the handler for `signals` (`Posix.pipe`, and `sigaction(2)`).
  init(signals: [Int32]) throws(TerminalError) {
    // Non-blocking, so that a burst of signals can never block the handler; not inherited by `run`'s children.
    let ends: (read: Int32, write: Int32)
    do {
      ends = try Posix.pipe()
    } catch {
      throw .systemCall("pipe2", errno: error.errno)
    }
    fileDescriptor = ends.read
    writeEnd = ends.write
    signalPipeWriteEnd = writeEnd
    for number in signals { install(number) }
  }

  deinit {
    for (number, action) in previousActions {
      var previous = action
      sigaction(number, &previous, nil)
    }
    signalPipeWriteEnd = -1
    Posix.close(fileDescriptor)
    Posix.close(writeEnd)
  }

  /// The signals that arrived since the last call, oldest first.
  func drain() -> [Int32] {
    var signals: [Int32] = []
    var buffer = [UInt8](repeating: 0, count: 64)
    while true {
      let transfer = buffer.withUnsafeMutableBytes { try? Posix.read(fileDescriptor, into: $0) }
      guard case .bytes(let count) = transfer else { return signals }
      signals += buffer[0..<count].map { Int32($0) }
    }
  }

  /// Handles `number` by writing it to the pipe, as this signal's only effect for now (wraps `sigaction(2)`).
  func install(_ number: Int32) {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { number in
      let saved = errno
      var byte = UInt8(truncatingIfNeeded: number)
      // write(2) itself, not the Posix seam: only async-signal-safe calls belong in a handler.
      _ = write(signalPipeWriteEnd, &byte, 1)
      errno = saved
    }
    sigemptyset(&action.sa_mask)
    action.sa_flags = SA_RESTART
    var previous = sigaction()
    sigaction(number, &action, &previous)
    if !previousActions.contains(where: { $0.0 == number }) { previousActions.append((number, previous)) }
  }

  /// Gives `number` its default action (wraps `signal(3)`), as before stopping for Ctrl-Z.
  func restoreDefault(_ number: Int32) {
    signal(number, SIG_DFL)
  }
}
