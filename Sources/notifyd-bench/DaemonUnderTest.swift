#if canImport(Glibc)
  import Glibc
#endif

/// A notifyd process on a private runtime directory, started the way systemd starts it
/// (`NOTIFY_SOCKET`), with a bench config and its own store.
final class DaemonUnderTest {
  let directory: String
  let socketPath: String
  let process: Spawned
  /// Nanoseconds from `posix_spawn` to `READY=1`.
  let readyNanoseconds: UInt64

  var pid: pid_t { process.pid }
  var logPath: String { directory + "/notifyd.log" }

  /// The config every bench daemon gets: no D-Bus (the peer's bus is in the environment), room
  /// for every notice a run accepts, plus `extra` lines.
  static func config(
    capacity: Int = 1_000_000, sync: String = "normal", extra: String = "", dbus: String = "off"
  ) -> String {
    """
    [Queue]
    Capacity=\(capacity)
    HistorySize=1000
    # Each load client repeats one title: the figures measure accepting notices, not merging them.
    StackDuplicates=no
    \(extra)
    [Store]
    Sync=\(sync)

    [DBus]
    Mode=\(dbus)

    """
  }

  /// Starts `binary` in `directory` (made if missing; its store kept if there) and waits for
  /// `READY=1`.
  init(
    binary: String, directory: String, config: String, environment extra: [String: String] = [:],
    timeout: Double = 20
  ) throws {
    self.directory = directory
    mkdir(directory, 0o700)
    mkdir(directory + "/state", 0o700)
    socketPath = directory + "/notifyd.sock"
    let configPath = directory + "/notifyd.conf"
    try writeFile(configPath, config)
    // Listened to only until READY=1: the daemon keeps sending STATUS= lines, and a datagram socket
    // nobody reads fills after a few, after which sd_notify would block the daemon's queue (systemd
    // always reads). The listener closes when `init` returns.
    let listener = try NotifyListener(path: directory + "/notify.sock")
    var environment = Environment.current
    for name in [
      "DBUS_SESSION_BUS_ADDRESS", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID",
      "LISTEN_FDNAMES", "NOTIFYD_SOCKET", "DISPLAY",
    ] {
      environment.removeValue(forKey: name)
    }
    environment["XDG_RUNTIME_DIR"] = directory
    environment["XDG_STATE_HOME"] = directory + "/state"
    environment["XDG_CONFIG_HOME"] = directory + "/config"
    environment["NOTIFY_SOCKET"] = listener.path
    for (name, value) in extra { environment[name] = value }
    let started = Clock.nanoseconds()
    process = try Spawned.start(
      [binary, "--socket", socketPath, "--config", configPath, "--log", "stderr", "--log-level", "warning"],
      environment: environment, outputPath: directory + "/notifyd.log")
    guard let ready = listener.waitFor(line: "READY=1", timeout: timeout) else {
      process.signal(SIGKILL)
      process.wait()
      throw BenchError(
        "notifyd did not report READY=1 within \(Int(timeout)) s; see \(directory)/notifyd.log")
    }
    readyNanoseconds = ready - started
  }

  /// SIGTERM and wait; answers the exit status.
  @discardableResult
  func stop() -> Int32 { process.stop() }

  /// A new connection to the daemon.
  func connect() throws -> RawVarlinkConnection { try RawVarlinkConnection(path: socketPath) }
}

/// Writes `text` to `path`, replacing it.
func writeFile(_ path: String, _ text: String) throws {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
  guard fd >= 0 else { throw BenchError("cannot write \(path): \(String(cString: strerror(errno)))") }
  defer { close(fd) }
  let bytes = Array(text.utf8)
  var offset = 0
  while offset < bytes.count {
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
    if written < 0 {
      if errno == EINTR { continue }
      throw BenchError("cannot write \(path): \(String(cString: strerror(errno)))")
    }
    offset += written
  }
}

/// A fresh private directory under `/tmp` (short, for socket paths); wraps `mkdtemp(3)`.
func makeScratchDirectory(_ prefix: String) throws -> String {
  var template = Array("/tmp/\(prefix).XXXXXX".utf8CString)
  guard let result = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
    throw BenchError("mkdtemp: \(String(cString: strerror(errno)))")
  }
  return String(cString: result)
}

/// Removes a directory tree the bench made (`rm -rf`, through posix_spawn).
func removeTree(_ path: String) {
  guard path.hasPrefix("/tmp/") else { return }
  if let spawned = try? Spawned.start(["/bin/rm", "-rf", path], environment: Environment.current) {
    spawned.wait()
  }
}
