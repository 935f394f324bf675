#if canImport(Glibc)
  import Glibc
#endif

/// Why a child could not be started.
struct SpawnError: Error, CustomStringConvertible {
  var program: String
  var code: Int32
  var description: String { "cannot start \(program): \(String(cString: strerror(code)))" }
}

/// A child process started with `posix_spawn`, its output sent to a file or `/dev/null`.
struct Spawned {
  let pid: pid_t
  let program: String

  /// Starts `arguments[0]` (a path) with `arguments` and `environment`; stdout and stderr go to
  /// `outputPath` (appended) or `/dev/null`. Wraps `posix_spawn(3)`.
  static func start(
    _ arguments: [String], environment: [String: String], outputPath: String? = nil
  ) throws -> Spawned {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    let output = outputPath ?? "/dev/null"
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // Children start with default signal dispositions and an empty mask, whatever the bench has.
    var defaults = sigset_t()
    sigfillset(&defaults)
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv { free(pointer) }
      for pointer in envp { free(pointer) }
    }
    var pid: pid_t = 0
    let code = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
    guard code == 0 else { throw SpawnError(program: arguments[0], code: code) }
    return Spawned(pid: pid, program: arguments[0])
  }

  /// Waits for the child to exit and answers its exit status (128 + signal when killed);
  /// wraps `waitpid(2)`.
  @discardableResult
  func wait() -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      if errno != EINTR { return -1 }
    }
    let signal = status & 0x7f
    return signal == 0 ? (status >> 8) & 0xff : 128 + signal
  }

  /// Waits at most `timeout` seconds; `nil` if it is still running. Polls `waitpid(WNOHANG)`.
  func wait(timeout: Double) -> Int32? {
    let deadline = Clock.seconds() + timeout
    while Clock.seconds() < deadline {
      var status: Int32 = 0
      let result = waitpid(pid, &status, WNOHANG)
      if result == pid {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
      }
      if result < 0 && errno != EINTR { return -1 }
      // Fine polling at first, so that a short child's wall time is not rounded up.
      Clock.sleep(Clock.seconds() + timeout - deadline < 0.2 ? 0.00005 : 0.002)
    }
    return nil
  }

  /// Sends `signal`; wraps `kill(2)`.
  func signal(_ signal: Int32) { kill(pid, signal) }

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
