/// How a child process ended.
public enum ChildTermination: Sendable, Equatable {
  /// It called `exit` with this status.
  case exited(Int32)
  /// A signal killed it.
  case killed(signal: Int32)

  /// Decodes a `waitpid(2)` status (what the `WIFEXITED`, `WEXITSTATUS` and `WTERMSIG` macros do).
  init(waitStatus status: Int32) {
    let signal = status & 0x7f
    self = signal == 0 ? .exited((status >> 8) & 0xff) : .killed(signal: signal)
  }

  /// The status a shell reports for it: the exit status, or 128 + the signal.
  public var exitStatus: Int32 {
    switch self {
    case .exited(let status): return status
    case .killed(let signal): return 128 + signal
    }
  }

  /// The closing message of `run`'s indicator: `succeeded in 12 s`, `failed (exit 2) after 12 s`.
  public func summary(after seconds: Double) -> String {
    let elapsed = TextFormat.elapsed(seconds)
    switch self {
    case .exited(0): return "succeeded in \(elapsed)"
    case .exited(let status): return "failed (exit \(status)) after \(elapsed)"
    case .killed(let signal): return "killed by signal \(signal) after \(elapsed)"
    }
  }
}
