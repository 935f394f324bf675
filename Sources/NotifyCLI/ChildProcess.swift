import Glibc

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

/// Why a command could not be started.
public struct SpawnError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The program that was to run.
  public var program: String
  /// What `posix_spawnp(3)` returned.
  public var errno: Int32

  public var description: String {
    "cannot run '\(program)': \(String(cString: strerror(errno)))"
  }

  /// The status a shell uses for it: 127 when the program was not found, else 126.
  public var exitStatus: Int32 { errno == ENOENT ? 127 : 126 }
}

/// A command running with `notifyctl`'s own standard input, output and error, whose end we wait for
/// while passing on the signals meant for it.
///
/// From `init` to `deinit` the calling thread blocks `SIGINT`, `SIGTERM`, `SIGHUP`, `SIGQUIT` and
/// `SIGCHLD`, and `waitForExit` takes them with `sigtimedwait(2)`: no handler, no global state.
/// The child starts with the signal mask `notifyctl` had, so it sees the signals as usual.
///
/// - Important: signals typed at the terminal reach the child through its process group already,
///   so only signals sent by a process (`kill`) are forwarded; a `^C` is not delivered twice.
final class ChildProcess {
  /// The signals passed on to the child.
  static let forwardedSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

  /// The child's process id.
  let pid: pid_t
  private var watchedSignals = sigset_t()
  private var originalMask = sigset_t()

  /// Starts `arguments[0]`, looked up in `PATH`, with `arguments` as its argv (wraps `posix_spawnp(3)`).
  init(arguments: [String]) throws(SpawnError) {
    precondition(!arguments.isEmpty, "a command needs a program")
    // An inherited SIG_IGN for SIGCHLD would have the kernel reap the child before we can wait for it.
    signal(SIGCHLD, SIG_DFL)
    sigemptyset(&watchedSignals)
    for signal in Self.forwardedSignals + [SIGCHLD] { sigaddset(&watchedSignals, signal) }
    pthread_sigmask(SIG_BLOCK, &watchedSignals, &originalMask)

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setsigmask(&attributes, &originalMask)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))

    let argv = arguments.map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    var pid: pid_t = 0
    let result = posix_spawnp(&pid, arguments[0], nil, &attributes, argv, environ)
    guard result == 0 else {
      pthread_sigmask(SIG_SETMASK, &originalMask, nil)
      throw SpawnError(program: arguments[0], errno: result)
    }
    self.pid = pid
  }

  /// Restores the signal mask; a signal that came after the child ended now takes its usual effect.
  deinit {
    pthread_sigmask(SIG_SETMASK, &originalMask, nil)
  }

  /// Waits for the child to end, forwarding signals, and calls `tick` with the time since the
  /// start about every `interval` while it runs.
  func waitForExit(tickEvery interval: Duration, tick: (Duration) -> Void) -> ChildTermination {
    let clock = ContinuousClock()
    let start = clock.now
    var nextTick = start + interval
    while true {
      var status: Int32 = 0
      let reaped = waitpid(pid, &status, WNOHANG)
      if reaped == pid { return ChildTermination(waitStatus: status) }
      if reaped < 0, errno != EINTR {
        // Only possible if someone else reaped our child; report it as the shell would a lost job.
        return .exited(127)
      }

      var now = clock.now
      if now >= nextTick {
        tick(now - start)
        now = clock.now
        nextTick = now + interval
      }
      // SIGCHLD normally wakes us at once; the cap covers threads that might have taken it.
      let pause = min(nextTick - now, .milliseconds(250))
      var timeout = timespec(pause)
      var info = siginfo_t()
      let signal = sigtimedwait(&watchedSignals, &info, &timeout)
      if signal > 0, Self.forwardedSignals.contains(signal), info.si_code <= 0 {
        // si_code ≤ 0 (SI_USER, SI_QUEUE, SI_TKILL): sent by a process, not by the terminal.
        kill(pid, signal)
      }
    }
  }
}

extension timespec {
  /// A `timespec` for a non-negative `Duration`.
  fileprivate init(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    self.init(tv_sec: Int(max(seconds, 0)), tv_nsec: seconds < 0 ? 0 : Int(attoseconds / 1_000_000_000))
  }
}
