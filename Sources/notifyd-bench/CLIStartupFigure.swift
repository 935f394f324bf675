#if canImport(Glibc)
  import Glibc
#endif

/// `notifyctl show` whole-process wall time against `notify-send` to dunst: each spawned with
/// `posix_spawn` and waited for, alternately, the median of many runs.
enum CLIStartupFigure {
  static func run(_ bench: Bench) throws {
    bench.report.add(.section("notifyctl show vs notify-send (whole process, posix_spawn → exit)"))
    let runs = bench.runs(200)
    try bench.withDaemon("cli") { daemon in
      var environment = Environment.current
      environment["NOTIFYD_SOCKET"] = daemon.socketPath
      let ours = [bench.notifyctl, "show", "bench", "from notifyctl"]
      var peerArguments: [String]?
      if let peer = bench.peer, let notifySend = peer.notifySend {
        peerArguments = [notifySend, "bench", "from notify-send"]
      }
      // A few unmeasured runs first, so that both start from a warm page cache.
      for _ in 0..<5 {
        _ = try time(ours, environment)
        if let peerArguments, let peer = bench.peer { _ = try time(peerArguments, peer.clientEnvironment) }
      }
      var ourTimes: [Double] = []
      var peerTimes: [Double] = []
      for _ in 0..<runs {
        ourTimes.append(try time(ours, environment))
        if let peerArguments, let peer = bench.peer {
          peerTimes.append(try time(peerArguments, peer.clientEnvironment))
        }
      }
      let sample = Sample(ourTimes)
      var row = Row(
        figure: "notifyctl show, median of \(runs)",
        value: "\(Format.fixed(sample.median, 2)) ms (p90 \(Format.fixed(sample.percentile(90), 2)))",
        budget: "≤ 0.5× notify-send")
      if !peerTimes.isEmpty {
        let peerSample = Sample(peerTimes)
        let ratio = sample.median / peerSample.median
        row.peer =
          "notify-send \(Format.fixed(peerSample.median, 2)) ms (p90 \(Format.fixed(peerSample.percentile(90), 2)))"
        row.ratio = Format.ratio(ratio)
        row.verdict = ratio <= 0.5 ? .met : .missed
      }
      bench.report.add(row)
    }
  }

  /// Milliseconds from `posix_spawn` to the child's exit; a non-zero exit is an error.
  private static func time(_ arguments: [String], _ environment: [String: String]) throws -> Double {
    let started = Clock.nanoseconds()
    let child = try Spawned.start(arguments, environment: environment)
    guard let status = child.wait(timeout: 30) else {
      child.signal(SIGKILL)
      child.wait()
      throw BenchError("\(arguments.joined(separator: " ")) did not exit within 30 s")
    }
    let elapsed = Double(Clock.nanoseconds() - started) / 1e6
    guard status == 0 else { throw BenchError("\(arguments.joined(separator: " ")) exited \(status)") }
    return elapsed
  }
}
