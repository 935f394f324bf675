/// Durable `Show` throughput and latency with 1, 16 and 256 clients, pipelined and not, each
/// client on its own connection, against D-Bus `Notify` to dunst in the same shapes; then the
/// store's single commit per notice against group commit.
enum ThroughputFigure {
  /// Calls in flight per client when pipelined: sent together, then their replies read.
  static let depth = 32

  static func run(_ bench: Bench) throws {
    bench.report.add(.section("Show throughput, durable (acknowledged after commit), [Store] Sync=normal"))
    let window = bench.seconds(2)
    for pipeline in [1, depth] {
      for clients in [1, 16, 256] {
        let ours = try bench.withDaemon("load-\(clients)-\(pipeline)") { daemon in
          let path = daemon.socketPath
          return LoadRunner.run(clients: clients, pipeline: pipeline, window: window, measuring: [daemon.pid])
          {
            try VarlinkShowClient(path: path, index: $0)
          }
        }
        var peerResult: LoadResult?
        if let peer = bench.peer {
          // A fresh dunst for each run, without the previous run's backlog.
          let pids = [try peer.freshDunst()] + [peer.busDaemon].compactMap { $0 }
          let address = peer.busAddress
          peerResult = LoadRunner.run(clients: clients, pipeline: pipeline, window: window, measuring: pids) {
            try DBusNotifyClient(address: address, index: $0)
          }
        }
        bench.report.add(row(ours, peerResult, budgeted: clients == 16))
      }
    }

    bench.report.add(.section("Store: one commit per Show (1 client) vs group commit (16 clients)"))
    for sync in ["normal", "full"] {
      var single: LoadResult?
      for clients in [1, 16] {
        let result = try bench.withDaemon(
          "commit-\(sync)-\(clients)", config: DaemonUnderTest.config(sync: sync)
        ) {
          daemon in
          let path = daemon.socketPath
          return LoadRunner.run(clients: clients, pipeline: 1, window: window, measuring: [daemon.pid]) {
            try VarlinkShowClient(path: path, index: $0)
          }
        }
        try check(result)
        var row = Row(
          figure:
            "Sync=\(sync), \(clients) client\(clients == 1 ? " (a commit per Show)" : "s (group commit)")",
          value: summary(result))
        if let single {
          row.ratio = Format.ratio(result.throughput / single.throughput)
          row.peer = "vs 1 client"
        }
        bench.report.add(row)
        single = single ?? result
      }
    }
  }

  private static func check(_ result: LoadResult) throws {
    if let failure = result.failure { throw BenchError("load run failed: \(failure)") }
  }

  static func summary(_ result: LoadResult, cpuLabel: String = "daemon CPU") -> String {
    "\(Format.grouped(result.throughput))/s; p50 \(Format.fixed(result.latency.median / 1000, 2)) ms, "
      + "p99 \(Format.fixed(result.latency.p99 / 1000, 2)) ms; \(cpuLabel) \(Format.fixed(result.cpuPerCall, 1)) µs/call"
  }

  /// DESIGN §8, second round, for 16 clients: not pipelined ≥ 20,000/s at ≤ 50 µs of daemon CPU per
  /// call and ≥ 100× D-Bus `Notify` to dunst; pipelined ×32 ≥ 50,000/s.
  private static func row(_ ours: LoadResult, _ peer: LoadResult?, budgeted: Bool) -> Row {
    let shape =
      "\(ours.clients) client\(ours.clients == 1 ? "" : "s"), "
      + (ours.pipeline > 1 ? "pipelined ×\(ours.pipeline)" : "not pipelined")
    var row = Row(figure: "Show, \(shape)", value: ours.failure.map { "failed: \($0)" } ?? summary(ours))
    let pipelined = ours.pipeline > 1
    let floor = pipelined ? 50_000.0 : 20_000.0
    if budgeted {
      row.budget = pipelined ? "≥ 50,000/s" : "≥ 20,000/s, ≤ 50 µs CPU/call, ≥ 100× D-Bus Notify"
    }
    var met = ours.failure == nil && ours.throughput >= floor && (pipelined || ours.cpuPerCall <= 50)
    if let peer {
      row.peer = peer.failure.map { "failed: \($0)" } ?? "Notify " + summary(peer, cpuLabel: "dunst+bus CPU")
      // A peer run that failed (dunst timed out) has no throughput to compare with.
      let ratio = peer.failure == nil ? ours.throughput / peer.throughput : .nan
      row.ratio = peer.failure == nil ? Format.ratio(ratio) : "n/a"
      if !pipelined { met = met && !(ratio < 100) }
    } else if budgeted {
      row.peer = "no peer in this run"
    }
    if budgeted { row.verdict = met ? .met : .missed }
    return row
  }
}
