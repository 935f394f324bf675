#if canImport(Glibc)
  import Glibc
#endif

/// D-Bus `Notify` served by notifyd (`[DBus] Mode=server`, on a bus of its own) against dunst on
/// the peer's bus: the same call from a desktop program (a markup body; `urgency`, `category` and
/// `desktop-entry` hints), 1 and 16 clients, not pipelined and pipelined ×32. Each server's CPU
/// counts its bus daemon's too: a `Notify` crosses the bus twice.
enum DBusServerFigure {
  static func run(_ bench: Bench) throws {
    bench.report.add(.section("D-Bus Notify served: notifyd's server vs dunst (markup body, 3 hints)"))
    let window = bench.seconds(2)
    let directory = try makeScratchDirectory("notifyd-bench-bus")
    defer { removeTree(directory) }
    let bus = try PrivateBus(directory: directory)
    defer { bus.stop() }
    for pipeline in [1, ThroughputFigure.depth] {
      for clients in [1, 16] {
        let address = bus.address
        let ours = try bench.withDaemon(
          "dbus-server-\(clients)-\(pipeline)", config: DaemonUnderTest.config(dbus: "server"),
          environment: ["DBUS_SESSION_BUS_ADDRESS": address]
        ) { daemon in
          try bus.waitForOwner(of: Peer.name, timeout: 10)
          return LoadRunner.run(
            clients: clients, pipeline: pipeline, window: window, measuring: [daemon.pid, bus.pid]
          ) {
            try DBusNotifyClient(address: address, index: $0, desktop: true)
          }
        }
        var peerResult: LoadResult?
        if let peer = bench.peer {
          let pids = [try peer.freshDunst()] + [peer.busDaemon].compactMap { $0 }
          let address = peer.busAddress
          peerResult = LoadRunner.run(clients: clients, pipeline: pipeline, window: window, measuring: pids) {
            try DBusNotifyClient(address: address, index: $0, desktop: true)
          }
        }
        bench.report.add(row(ours, peerResult))
      }
    }
  }

  private static func row(_ ours: LoadResult, _ peer: LoadResult?) -> Row {
    let shape =
      "\(ours.clients) client\(ours.clients == 1 ? "" : "s"), "
      + (ours.pipeline > 1 ? "pipelined ×\(ours.pipeline)" : "not pipelined")
    var row = Row(
      figure: "Notify to notifyd, \(shape)",
      value: ours.failure.map { "failed: \($0)" }
        ?? ThroughputFigure.summary(ours, cpuLabel: "notifyd+bus CPU"))
    if let peer {
      row.peer =
        peer.failure.map { "failed: \($0)" } ?? "dunst "
        + ThroughputFigure.summary(peer, cpuLabel: "dunst+bus CPU")
      row.ratio =
        peer.failure == nil && ours.failure == nil ? Format.ratio(ours.throughput / peer.throughput) : "n/a"
    } else {
      row.peer = "no peer in this run"
    }
    return row
  }
}

/// A dbus-daemon of the bench's own, on a socket in `directory`, with no service directories (so
/// nothing is started by activation).
final class PrivateBus {
  let address: String
  private let process: Spawned
  var pid: pid_t { process.pid }

  init(directory: String) throws {
    let socket = directory + "/bus"
    address = "unix:path=\(socket)"
    let config = directory + "/bus.conf"
    try writeFile(
      config,
      """
      <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
       "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
      <busconfig>
        <type>session</type>
        <listen>\(address)</listen>
        <auth>EXTERNAL</auth>
        <policy context="default">
          <allow send_destination="*"/>
          <allow receive_sender="*"/>
          <allow own="*"/>
        </policy>
      </busconfig>

      """)
    guard let daemon = findExecutable("dbus-daemon") else { throw BenchError("dbus-daemon is not installed") }
    process = try Spawned.start(
      [daemon, "--config-file=\(config)", "--nofork"], environment: Environment.current,
      outputPath: directory + "/bus.log")
    let deadline = Clock.seconds() + 10
    while access(socket, F_OK) != 0 {
      guard Clock.seconds() < deadline else { throw BenchError("dbus-daemon did not listen on \(socket)") }
      Clock.sleep(0.01)
    }
  }

  /// Waits until `name` has an owner on this bus.
  func waitForOwner(of name: String, timeout: Double) throws {
    let client = try DBusNotifier(address: address)
    let deadline = Clock.seconds() + timeout
    while (try? client.callBus("NameHasOwner", name: name, replyType: "b")) != 1 {
      guard Clock.seconds() < deadline else { throw BenchError("nothing took \(name) on the bench's bus") }
      Clock.sleep(0.01)
    }
  }

  func stop() { _ = process.stop() }
}
