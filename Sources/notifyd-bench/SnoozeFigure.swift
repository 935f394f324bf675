import NotifyProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Snoozed notices at rest (DESIGN §19): the memory each costs, and the wakeups while they wait
/// (none: the engine's one timer is armed for the earliest due time). No peer has snooze.
enum SnoozeFigure {
  /// As many as may be snoozed at once (`QueueMachine.maximumSnoozed`), ten apps' worth.
  static let count = 1_000

  static func run(_ bench: Bench) throws {
    bench.report.add(.section("Snooze"))
    let config = DaemonUnderTest.config(extra: "[Display]\nMode=off")
    try bench.withDaemon("snooze", config: config) { daemon in
      let control = try daemon.connect()
      // Start-up settles: the memory trim a second after READY=1 is over.
      Clock.sleep(3)
      let rest = ProcessStats.residentBytes(daemon.pid) ?? 0
      // Not due for an hour: each waits, holding no slot and drawn nowhere.
      var ids: [Int] = []
      for index in 0..<count {
        let show = ShowParameters(
          title: "Reminder \(index)", body: "Call back about the invoice", app: "app\(index % 10)",
          delay: 3600,
          actions: [Action(key: "open", label: "Open")])
        ids.append(try control.call(Interface.Method.show.qualifiedName, show, returning: ShowReply.self).id)
      }
      Clock.sleep(3)
      let waiting = ProcessStats.residentBytes(daemon.pid) ?? 0
      for id in ids {
        _ = try control.call(
          Interface.Method.snooze.qualifiedName, SnoozeParameters(id: id, duration: 7200),
          returning: NoticeReply.self)
      }
      let status = try control.call(
        Interface.Method.status.qualifiedName, NoParameters(), returning: StatusReply.self)
      guard status.snoozed == count else { throw BenchError("\(status.snoozed) of \(count) snoozed") }
      Clock.sleep(3)
      let snoozed = ProcessStats.residentBytes(daemon.pid) ?? 0
      // What snoozing adds to a notice the daemon already holds (its record, text and store pages
      // are counted in both): the figure judged; the whole per notice beside it.
      let added = Double(snoozed - waiting) / Double(count)
      let each = Double(snoozed - rest) / Double(count)
      bench.report.add(
        Row(
          figure: "memory a snooze adds to a notice, \(count) snoozed (RSS, snoozed over waiting)",
          value:
            "\(Format.fixed(added / 1024, 2)) KiB (each snoozed notice in all \(Format.fixed(each / 1024, 2)) KiB, with its text, a button and its store pages)",
          budget: "≤ 1 KiB", peer: "no peer has snooze", verdict: added <= 1024 ? .met : .missed))
      // While they wait: no wakeup at all.
      try IdleFigure.measure(
        bench, daemon, [], window: bench.seconds(5), what: "while \(count) snoozed notices wait")
    }
  }
}
