import NotifyPosix

/// How a child process ended: `Posix.Termination`, which decodes the `waitpid(2)` status.
public typealias ChildTermination = Posix.Termination

extension Posix.Termination {
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
