import NotifyPosix

#if canImport(Glibc)
  import Glibc
#endif

/// A child process started with `Posix.spawn`, its output sent to a file or `/dev/null`.
struct Spawned {
  let pid: pid_t
  let program: String

  /// Starts `arguments[0]` (a path) with `arguments` and `environment`; stdout and stderr go to
  /// `outputPath` (appended) or `/dev/null`. Children start with default signal dispositions and
  /// an empty mask, whatever the bench has.
  static func start(
    _ arguments: [String], environment: [String: String], outputPath: String? = nil
  ) throws -> Spawned {
    var options = Posix.SpawnOptions()
    options.environment = environment
    options.input = .null
    options.output = outputPath.map { .appending(to: $0) } ?? .null
    options.defaultSignals = Array(1..<32)
    options.signalMask = Posix.signalSet([])
    return Spawned(pid: try Posix.spawn(arguments, options), program: arguments[0])
  }

  /// Waits for the child to exit and answers its exit status (128 + signal when killed).
  @discardableResult
  func wait() -> Int32 {
    (try? Posix.waitForExit(pid))?.exitStatus ?? -1
  }

  /// Waits at most `timeout` seconds; `nil` if it is still running. Polls `Posix.reap`.
  func wait(timeout: Double) -> Int32? {
    let deadline = Clock.seconds() + timeout
    while Clock.seconds() < deadline {
      do {
        if let termination = try Posix.reap(pid) { return termination.exitStatus }
      } catch {
        return -1
      }
      // Fine polling at first, so that a short child's wall time is not rounded up.
      Clock.sleep(Clock.seconds() + timeout - deadline < 0.2 ? 0.00005 : 0.002)
    }
    return nil
  }

  /// Sends `signal`.
  func signal(_ signal: Int32) { Posix.sendSignal(signal, to: pid) }

  /// SIGTERM, then SIGKILL if it has not exited within `grace` seconds; answers the exit status.
  @discardableResult
  func stop(grace: Double = 10) -> Int32 {
    signal(SIGTERM)
    if let status = wait(timeout: grace) { return status }
    signal(SIGKILL)
    return wait()
  }
}

/// The bench's own environment.
enum Environment {
  static var current: [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
      let text = String(cString: entry)
      if let equals = text.firstIndex(of: "=") {
        result[String(text[..<equals])] = String(text[text.index(after: equals)...])
      }
      pointer += 1
    }
    return result
  }
}

/// Searches `$PATH` for `name`.
func findExecutable(_ name: String) -> String? {
  let path = Environment.current["PATH"] ?? "/usr/bin:/bin"
  for directory in path.split(separator: ":") {
    let candidate = "\(directory)/\(name)"
    if access(candidate, X_OK) == 0 { return candidate }
  }
  return nil
}
