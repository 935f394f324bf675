import NotifyPosix

#if canImport(Glibc)
  import Glibc
#endif

/// Parses the command line, runs the figures asked for and prints the table.
enum BenchCommand {
  static let usage = """
    Usage: notifyd-bench [--bin DIR] [--quick] [--only FIGURE,...]

    Prints the figures of DESIGN §8 beside their budgets, and the peer (dunst on a private
    session bus, as bench/with-peer.sh starts it) measured in the same run.

      --bin DIR     where notifyd and notifyctl are (default: beside this program)
      --quick       shorter windows and fewer runs, for a smoke test
      --only LIST   some of: cli, throughput, dbus, scaling, timing, idle, steady,
                    flood, relay, snooze
      --load SOCKET CLIENTS PIPELINE SECONDS
                    only drive Show load at a running daemon (for a profiler) and print
                    its throughput and latency

    """

  static let figures: [(name: String, run: @Sendable (Bench) throws -> Void)] = [
    ("cli", CLIStartupFigure.run), ("throughput", ThroughputFigure.run), ("dbus", DBusServerFigure.run),
    ("scaling", ScalingFigure.run),
    ("timing", TimingFigure.run), ("idle", IdleFigure.run), ("steady", SteadyMemoryFigure.run),
    ("flood", FloodFigure.run), ("relay", RelayFigure.run), ("snooze", SnoozeFigure.run),
  ]

  static func main() {
    var arguments = CommandLine.arguments.dropFirst()
    var binDirectory = directory(of: CommandLine.arguments[0])
    var quick = false
    var only: Set<String>?
    while let argument = arguments.popFirst() {
      switch argument {
      case "--bin": binDirectory = arguments.popFirst() ?? binDirectory
      case "--quick": quick = true
      case "--only": only = Set((arguments.popFirst() ?? "").split(separator: ",").map(String.init))
      case "--load":
        let values = Array(arguments.prefix(4))
        guard values.count == 4, let clients = Int(values[1]), let pipeline = Int(values[2]),
          let seconds = Double(values[3])
        else {
          log("notifyd-bench: --load needs SOCKET CLIENTS PIPELINE SECONDS")
          exit(2)
        }
        signal(SIGPIPE, SIG_IGN)
        let path = values[0]
        let result = LoadRunner.run(clients: clients, pipeline: pipeline, window: seconds, measuring: []) {
          try VarlinkShowClient(path: path, index: $0)
        }
        print(result.failure.map { "failed: \($0)" } ?? ThroughputFigure.summary(result))
        exit(result.failure == nil ? 0 : 1)
      case "--help", "-h":
        print(usage, terminator: "")
        exit(0)
      default:
        log("notifyd-bench: unknown argument '\(argument)'\n\(usage)")
        exit(2)
      }
    }
    // A dead client connection must not kill the bench.
    signal(SIGPIPE, SIG_IGN)
    let peer = Peer.fromEnvironment()
    if peer == nil {
      log("notifyd-bench: no peer (run inside bench/with-peer.sh for dunst); peer columns stay empty")
    }
    let bench = Bench(
      notifyd: binDirectory + "/notifyd", notifyctl: binDirectory + "/notifyctl", peer: peer, quick: quick,
      report: Report())
    let started = Clock.seconds()
    var failed = false
    for figure in figures where only?.contains(figure.name) ?? true {
      log("== \(figure.name)")
      do {
        try figure.run(bench)
      } catch {
        failed = true
        bench.report.add(Row(figure: "\(figure.name): failed", value: "\(error)", verdict: .missed))
      }
    }
    bench.report.note("whole run \(Format.fixed(Clock.seconds() - started, 0)) s\(quick ? ", --quick" : "")")
    print(Machine.describe())
    print("")
    print(bench.report.rendered(), terminator: "")
    exit(failed ? 1 : 0)
  }

  private static func directory(of path: String) -> String {
    var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let full =
      realpath(path, &resolved).map { _ in
        String(decoding: resolved.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      } ?? path
    guard let slash = full.lastIndex(of: "/") else { return "." }
    return String(full[..<slash])
  }
}

/// The machine the figures were measured on.
enum Machine {
  static func describe() -> String {
    let cpu =
      ProcessStats.readFile("/proc/cpuinfo")?.split(separator: "\n")
      .first { $0.hasPrefix("model name") }
      .map { $0.split(separator: ":", maxSplits: 1).last!.trimmingSpaces } ?? "unknown CPU"
    let memory =
      ProcessStats.readFile("/proc/meminfo")?.split(separator: "\n")
      .first { $0.hasPrefix("MemTotal:") }
      .flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Double($0) } }
      .map { "\(Format.fixed($0 / 1_048_576, 1)) GiB RAM" } ?? "unknown RAM"
    var name = utsname()
    uname(&name)
    let kernel = withUnsafeBytes(of: name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    let load =
      ProcessStats.readFile("/proc/loadavg")?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
    return
      "Machine: \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs (\(cpu)), \(memory), Linux \(kernel); load average at the end \(load)"
  }
}
