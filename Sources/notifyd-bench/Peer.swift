#if canImport(Glibc)
  import Glibc
#endif

/// dunst on a private session bus under Xvfb, as `bench/with-peer.sh` started it: the bus address
/// and the processes whose CPU time counts as the peer's. The bus starts dunst on demand, so each
/// run can have a fresh one.
struct Peer {
  static let name = "org.freedesktop.Notifications"
  var busAddress: String
  var busDaemon: pid_t?
  var notifySend: String?

  /// The peer the environment describes, or `nil` when the bench runs without one.
  static func fromEnvironment() -> Peer? {
    let environment = Environment.current
    guard environment["NOTIFYD_BENCH_PEER"] == "1", let address = environment["DBUS_SESSION_BUS_ADDRESS"]
    else {
      return nil
    }
    return Peer(
      busAddress: address, busDaemon: environment["NOTIFYD_BENCH_BUS_PID"].flatMap { pid_t($0) },
      notifySend: findExecutable("notify-send"))
  }

  /// dunst's pid, if it runs.
  func dunst() -> pid_t? {
    guard let bus = try? DBusNotifier(address: busAddress),
      (try? bus.callBus("NameHasOwner", name: Self.name, replyType: "b")) == 1,
      let pid = try? bus.callBus("GetConnectionUnixProcessID", name: Self.name)
    else { return nil }
    return pid_t(pid)
  }

  /// The processes a D-Bus `Notify` runs through: dunst (if it runs) and the bus.
  func pids() -> [pid_t] { [dunst(), busDaemon].compactMap { $0 } }

  /// Stops dunst, so that it draws nothing while notifyd is measured and the next peer run starts
  /// without the last one's backlog.
  func stopDunst() throws {
    guard let pid = dunst() else { return }
    // SIGTERM first; a dunst still working through a backlog may not get to it, so then SIGKILL.
    kill(pid, SIGTERM)
    let deadline = Clock.seconds() + 15
    var killed = false
    while dunst() != nil || kill(pid, 0) == 0 {
      guard Clock.seconds() < deadline else { throw BenchError("dunst (pid \(pid)) did not stop") }
      if !killed && Clock.seconds() > deadline - 13 {
        kill(pid, SIGKILL)
        killed = true
      }
      Clock.sleep(0.01)
    }
  }

  /// Stops dunst and has the bus start a fresh one; answers its pid once it has settled (uses no
  /// CPU for 200 ms).
  func freshDunst() throws -> pid_t {
    try stopDunst()
    let bus = try DBusNotifier(address: busAddress)
    _ = try bus.callBus("StartServiceByName", name: Self.name, flags: 0)
    guard let pid = dunst() else { throw BenchError("the bus did not start dunst") }
    settle([pid])
    return pid
  }

  /// Waits (at most 5 s) until `pids` used no CPU for 200 ms.
  func settle(_ pids: [pid_t]) {
    let deadline = Clock.seconds() + 5
    var last = pids.map { ProcessStats.cpuSeconds($0) ?? 0 }.reduce(0, +)
    while Clock.seconds() < deadline {
      Clock.sleep(0.2)
      let now = pids.map { ProcessStats.cpuSeconds($0) ?? 0 }.reduce(0, +)
      if now == last { return }
      last = now
    }
  }

  /// The environment `notify-send` needs to reach this peer.
  var clientEnvironment: [String: String] {
    var environment = Environment.current
    environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
    return environment
  }
}

/// What every figure needs: the binaries under test, the peer, and the report to add rows to.
struct Bench {
  var notifyd: String
  var notifyctl: String
  var peer: Peer?
  var quick: Bool
  var report: Report

  /// A window length, shorter in `--quick` runs.
  func seconds(_ full: Double) -> Double { quick ? max(0.5, full / 4) : full }
  /// A repetition count, smaller in `--quick` runs.
  func runs(_ full: Int) -> Int { quick ? max(3, full / 10) : full }

  /// Starts a daemon on a fresh directory with `config`, runs `body`, stops it and checks that it
  /// exited 0. dunst is stopped first, so that it draws nothing meanwhile.
  func withDaemon<T>(
    _ name: String, config: String = DaemonUnderTest.config(), environment: [String: String] = [:],
    _ body: (DaemonUnderTest) throws -> T
  ) throws -> T {
    try peer?.stopDunst()
    let directory = try makeScratchDirectory("notifyd-bench-\(name)")
    let daemon = try DaemonUnderTest(
      binary: notifyd, directory: directory, config: config, environment: environment)
    let result: T
    do {
      result = try body(daemon)
    } catch {
      daemon.stop()
      log("  daemon log kept in \(daemon.logPath)")
      throw error
    }
    let status = daemon.stop()
    guard status == 0 else {
      throw BenchError("notifyd exited \(status) after \(name); see \(daemon.logPath)")
    }
    removeTree(directory)
    return result
  }
}
