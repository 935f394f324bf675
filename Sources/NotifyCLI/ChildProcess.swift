import Glibc
import NotifyPosix

/// A command running with `notifyctl`'s own standard input, output and error, whose end we wait for
/// while passing on the signals meant for it.
///
/// From `init` to `deinit` the calling thread blocks `SIGINT`, `SIGTERM`, `SIGHUP`, `SIGQUIT` and
/// `SIGCHLD`, and `waitForExit` takes them with `sigtimedwait(2)`: no handler, no global state.
/// The child starts with the signal mask `notifyctl` had, less the forwarded signals, so that
/// forwarding them has an effect.
///
/// - Important: signals typed at the terminal reach the child through its process group already,
///   so only signals sent by a process (`kill`) are forwarded; a `^C` is not delivered twice.
final class ChildProcess {
  /// The signals passed on to the child.
  static let forwardedSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

  /// The child's process id.
  let pid: pid_t
  /// The signals blocked while the child runs: the forwarded ones and `SIGCHLD`.
  private let watchedSignals: sigset_t
  /// The calling thread's signal mask before `init`, which `deinit` restores.
  private let originalMask: sigset_t
  /// Whether a `SIGINT` came while the child ran, from the terminal (Ctrl-C) or from a process.
  private(set) var wasInterrupted = false

  /// Starts `arguments[0]`, looked up in `PATH`, with `arguments` as its argv (`Posix.spawn`).
  init(arguments: [String]) throws(SpawnError) {
    precondition(!arguments.isEmpty, "a command needs a program")
    // An inherited SIG_IGN for SIGCHLD would have the kernel reap the child before we can wait for it.
    signal(SIGCHLD, SIG_DFL)
    var watched = sigset_t()
    var original = sigset_t()
    sigemptyset(&watched)
    for signal in Self.forwardedSignals + [SIGCHLD] { sigaddset(&watched, signal) }
    pthread_sigmask(SIG_BLOCK, &watched, &original)

    // The child gets the mask we had, except that the signals we forward must reach it.
    var childMask = original
    for signal in Self.forwardedSignals { sigdelset(&childMask, signal) }
    var options = Posix.SpawnOptions()
    options.searchesPath = true
    options.signalMask = childMask
    let pid: pid_t
    do {
      pid = try Posix.spawn(arguments, options)
    } catch {
      pthread_sigmask(SIG_SETMASK, &original, nil)
      throw SpawnError(program: arguments[0], errno: error.errno)
    }
    self.pid = pid
    self.watchedSignals = watched
    self.originalMask = original
  }

  /// Restores the signal mask; a signal that came after the child ended now takes its usual effect.
  deinit {
    var original = originalMask
    pthread_sigmask(SIG_SETMASK, &original, nil)
  }

  /// Waits for the child to end, forwarding signals, and calls `tick` with the time since the
  /// start about every `interval` while it runs.
  func waitForExit(tickEvery interval: Duration, tick: (Duration) -> Void) -> ChildTermination {
    let clock = ContinuousClock()
    let start = clock.now
    var nextTick = start + interval
    while true {
      do {
        if let termination = try Posix.reap(pid) { return termination }
      } catch {
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
      var watched = watchedSignals
      let signal = sigtimedwait(&watched, &info, &timeout)
      if signal == SIGINT { wasInterrupted = true }
      if signal > 0, Self.forwardedSignals.contains(signal), info.si_code <= 0 {
        // si_code ≤ 0 (SI_USER, SI_QUEUE, SI_TKILL): sent by a process, not by the terminal.
        Posix.sendSignal(signal, to: pid)
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
