import Glibc
import NotifyProtocol
import Testing

@testable import NotifyCLI

/// What a run of `notifyctl` left behind.
private struct Result {
  var status: Int32
  var output: [String]
  var errors: [String]
  var calls: [FakeDaemon.Call]
}

/// Runs `notifyctl words` against a fake daemon that answers with `respond`.
private func notifyctl(
  _ words: [String], respond: @escaping @Sendable (FakeDaemon.Call) -> [FakeDaemon.Response]
) throws -> Result {
  let daemon = try FakeDaemon(respond: respond)
  defer { daemon.stop() }
  let console = RecordingConsole()
  let status = NotifyCtl.main(["--socket", daemon.path] + words, console: console, environment: { _ in nil })
  return Result(status: status, output: console.output, errors: console.errors, calls: daemon.calls)
}

private func reply(_ value: some Encodable) -> FakeDaemon.Response {
  .reply(try! JSONValue(encoding: value))
}

private func finished(_ id: Int, _ outcome: Outcome, invoked: String? = nil) -> Notice {
  Notice(id: id, kind: .notice, title: "t", invoked: invoked, phase: .finished, outcome: outcome)
}

@Suite("Running commands against a daemon")
struct CommandRunnerTests {
  @Test func show_sendsShowWithTheOptions_andPrintsTheNewId() throws {
    let result = try notifyctl(["show", "Backup done", "--hold", "2s", "--urgency", "low"]) { _ in
      [reply(ShowReply(id: 17))]
    }
    #expect(result.status == 0)
    #expect(result.output == ["17"])
    #expect(result.calls.map(\.method) == ["io.notifyd.Queue.Show"])
    let parameters = try #require(result.calls.first?.parameters)
    #expect(
      parameters == .object(["title": .string("Backup done"), "hold": .number(2), "urgency": .string("low")]))
  }

  @Test func showWait_printsOnlyTheInvokedActionKey_andExitsZero() throws {
    let result = try notifyctl(["show", "Deploy?", "--action", "yes=Deploy", "--wait"]) { call in
      call.method.hasSuffix(".Show")
        ? [reply(ShowReply(id: 5))] : [reply(NoticeReply(notice: finished(5, .completed, invoked: "yes")))]
    }
    #expect(result.status == 0)
    #expect(result.output == ["yes"])
    #expect(result.calls.map(\.method) == ["io.notifyd.Queue.Show", "io.notifyd.Queue.Wait"])
    #expect(result.calls.last?.parameters == .object(["id": .number(5)]))
  }

  @Test(arguments: [
    (Outcome.cancelled, Int32(3)), (.timedOut, 4), (.replaced, 5), (.dismissed, 6), (.completed, 0),
  ])
  func wait_exitsByTheNoticesOutcome(outcome: Outcome, status: Int32) throws {
    let result = try notifyctl(["wait", "9"]) { _ in [reply(NoticeReply(notice: finished(9, outcome)))] }
    #expect(result.status == status)
    #expect(result.output.isEmpty)
  }

  @Test func errorReply_printsOneLineNamingTheField_andExitsOne() throws {
    let result = try notifyctl(["show", "t", "--hold", "1"]) { _ in
      [.error(.invalidArgument("hold", "must be at most a day"))]
    }
    #expect(result.status == 1)
    #expect(result.errors == ["notifyctl: InvalidArgument: hold: must be at most a day"])
  }

  @Test func unreachableDaemon_namesTheSocketPath_andExitsOne() {
    let console = RecordingConsole()
    let status = NotifyCtl.main(
      ["status"], console: console,
      environment: { $0 == "NOTIFYD_SOCKET" ? "/nonexistent/notifyd.sock" : nil })
    #expect(status == 1)
    #expect(
      console.errors == [
        "notifyctl: cannot connect to notifyd at /nonexistent/notifyd.sock: No such file or directory"
      ])
  }

  @Test func usageError_exitsTwo_withoutContactingTheDaemon() throws {
    let result = try notifyctl(["show", "t", "--hold", "soon"]) { _ in [] }
    #expect(result.status == 2)
    #expect(result.errors == ["notifyctl: --hold: 'soon' is not a duration (like 1.5, 1.5s, 300ms, 2m, 1h)"])
    #expect(result.calls.isEmpty)
  }

  @Test func cancelSeveralIds_sendsOneCancelEach_andPrintsTheCancelledIds() throws {
    let result = try notifyctl(["cancel", "3", "4", "--now"]) { call in
      [reply(CancelReply(cancelled: [Int(call.parameters["id"]?.numberValue ?? 0)]))]
    }
    #expect(result.status == 0)
    #expect(result.output == ["3", "4"])
    #expect(
      result.calls.map(\.parameters) == [
        .object(["id": .number(3), "now": .bool(true)]), .object(["id": .number(4), "now": .bool(true)]),
      ])
  }

  @Test func statusJson_printsTheReplyWithSortedKeys() throws {
    let status = StatusReply(
      version: "0.1.0", suspended: false, suspendedUntil: nil, waiting: 0, queued: 1, visible: 2, finished: 3,
      unread: 1)
    let result = try notifyctl(["status", "--json"]) { _ in [reply(status)] }
    #expect(
      result.output.joined().filter { !$0.isWhitespace }
        == #"{"finished":3,"queued":1,"snoozed":0,"suspended":false,"unread":1,"version":"0.1.0","visible":2,"waiting":0}"#
    )
  }

  @Test func status_printsStateAndCounts() throws {
    let status = StatusReply(
      version: "0.1.0", suspended: true, suspendedUntil: nil, waiting: 2, queued: 1, visible: 0, finished: 7,
      unread: 0)
    let result = try notifyctl(["status"]) { _ in [reply(status)] }
    #expect(
      result.output == [
        "State:    suspended", "Notices:  2 waiting, 1 queued, 0 visible, 7 finished", "Version:  0.1.0",
      ])
    var counted = status
    counted.unread = 3
    let missed = counted
    #expect(
      try notifyctl(["status"]) { _ in [reply(missed)] }.output[1]
        == "Notices:  2 waiting, 1 queued, 0 visible, 7 finished (3 unread)")
  }

  @Test func status_saysWhatDrawsThePopups_andWhetherThePersonIsAway() throws {
    func lines(idle: IdleState?, display: DisplayState) throws -> [String] {
      let status = StatusReply(
        version: "0.1.0", suspended: false, suspendedUntil: nil, idle: idle, display: display, waiting: 0,
        queued: 0, visible: 1, finished: 0, unread: 0)
      return try notifyctl(["status"]) { _ in [reply(status)] }.output
    }
    let away = try lines(
      idle: IdleState(idle: true, source: "org_kde_kwin_idle"),
      display: DisplayState(backend: "wayland", drawing: true, detail: "Wayland (HEADLESS-1)"))
    #expect(away.contains("Popups:   drawn on Wayland (HEADLESS-1)"))
    #expect(away.contains("Idle:     away, holds stand still (org_kde_kwin_idle)"))
    let none = try lines(
      idle: nil,
      display: DisplayState(
        backend: nil, drawing: false, detail: "neither WAYLAND_DISPLAY nor DISPLAY is set"))
    #expect(none.contains("Popups:   none: neither WAYLAND_DISPLAY nor DISPLAY is set"))
    #expect(!none.contains { $0.hasPrefix("Idle:") })
    let noSource = try lines(
      idle: IdleState(noSourceBecause: "no display to ask"),
      display: DisplayState(backend: nil, drawing: false, detail: "[Display] Mode=off"))
    #expect(noSource.contains("Idle:     no source: no display to ask (holds run on)"))
    let lost = try lines(
      idle: nil, display: DisplayState(backend: "x11", drawing: false, detail: "cannot open DISPLAY=:9"))
    #expect(lost.contains("Popups:   x11, not drawing: cannot open DISPLAY=:9"))
  }

  @Test func call_sendsTheQualifiedMethod_andPrintsEachReplyUntilTheLast() throws {
    let result = try notifyctl(["call", "Watch", #"{"frames":false}"#, "--more"]) { _ in
      [.reply(.object(["n": .number(1)]), continues: true), .reply(.object(["n": .number(2)]))]
    }
    #expect(result.status == 0)
    #expect(
      result.calls == [
        FakeDaemon.Call(
          method: "io.notifyd.Queue.Watch", parameters: .object(["frames": .bool(false)]), more: true)
      ])
    #expect(result.output.count == 2)
    #expect(result.output.last?.contains("\"n\" : 2") == true)
  }

  @Test func watchWaybar_printsAnObjectPerChange_andDisconnectedWhenTheDaemonCloses() throws {
    let shown = Notice(id: 1, kind: .notice, title: "Hi", phase: .holding, opacity: 1)
    let result = try notifyctl(["watch", "--format", "waybar"]) { _ in
      [
        .reply(
          try! JSONValue(encoding: EventReply(event: Event(kind: .snapshot, at: 0, notices: []))),
          continues: true),
        .reply(
          try! JSONValue(encoding: EventReply(event: Event(kind: .added, at: 1, id: 1, notice: shown))),
          continues: true),
        .reply(
          try! JSONValue(encoding: EventReply(event: Event(kind: .frame, at: 1.1, id: 1, opacity: 1))),
          continues: true),
        .close,
      ]
    }
    #expect(result.status == 0)
    #expect(result.calls.first?.more == true)
    #expect(
      result.output == [
        #"{"alt":"none","class":["idle"],"percentage":0,"text":"","tooltip":""}"#,
        #"{"alt":"none","class":["normal","holding"],"percentage":100,"text":"Hi","tooltip":"Hi"}"#,
        #"{"alt":"none","class":["disconnected"],"percentage":0,"text":"","tooltip":"notifyd is not running"}"#,
      ])
  }

  @Test func watchI3bar_printsTheHeader_thenOneStatusLinePerChange_thenNotRunning() throws {
    let shown = Notice(id: 1, kind: .notice, title: "Hi", phase: .holding, opacity: 1)
    let result = try notifyctl(["watch", "--format", "i3bar"]) { _ in
      [
        .reply(
          try! JSONValue(encoding: EventReply(event: Event(kind: .snapshot, at: 0, notices: []))),
          continues: true),
        .reply(
          try! JSONValue(encoding: EventReply(event: Event(kind: .added, at: 1, id: 1, notice: shown))),
          continues: true),
        .reply(
          try! JSONValue(encoding: EventReply(event: Event(kind: .frame, at: 1.1, id: 1, opacity: 1))),
          continues: true),
        .close,
      ]
    }
    #expect(result.status == 0)
    #expect(
      result.output == [
        #"{"version":1}"#, "[", "[]",
        ##",[{"color":"#4fa8ff","full_text":"Hi","name":"notifyd","short_text":"Hi"}]"##,
        #",[{"full_text":"notifyd is not running","name":"notifyd","urgent":true}]"#,
      ])
  }

  @Test func watch_onAPipe_printsLines_evenWhenTheFormatIsLeftToChoose() throws {
    let result = try notifyctl(["watch"]) { _ in
      [.reply(try! JSONValue(encoding: EventReply(event: Event(kind: .snapshot, at: 0, notices: []))))]
    }
    #expect(result.status == 0)
    #expect(result.output.count == 1)
    #expect(result.output.first?.hasSuffix(" snapshot 0 notices") == true)
  }

  @Test func watchLines_printTimeKindIdPhaseOpacityAndTitle() throws {
    let shown = Notice(id: 3, kind: .notice, title: "Build\u{1B}[2J", phase: .fadingIn, opacity: 0)
    let result = try notifyctl(["watch"]) { _ in
      [
        .reply(
          try! JSONValue(encoding: EventReply(event: Event(kind: .added, at: 0, id: 3, notice: shown))),
          continues: true),
        .reply(try! JSONValue(encoding: EventReply(event: Event(kind: .frame, at: 0, id: 3, opacity: 0.5)))),
      ]
    }
    #expect(
      result.output.map { $0.split(separator: " ", maxSplits: 1).last.map(String.init) } == [
        "added #3 fadingIn/0.00 Build\u{FFFD}[2J", "frame #3 fadingIn/0.50 Build\u{FFFD}[2J",
      ])
  }

  @Test func run_withoutDaemon_stillRunsTheCommand_andExitsWithItsStatus() {
    let console = RecordingConsole()
    let status = NotifyCtl.main(
      ["--socket", "/nonexistent/notifyd.sock", "run", "--", "/bin/sh", "-c", "exit 3"], console: console,
      environment: { _ in nil })
    #expect(status == 3)
    #expect(console.errors.count == 1)
    #expect(
      console.errors.first?.hasPrefix("notifyctl: cannot connect to notifyd at /nonexistent/notifyd.sock")
        == true)
  }

  @Test func run_showsProgressWithTheCommandLine_andEndsItWithTheFailure() throws {
    let result = try notifyctl(["run", "/bin/sh", "-c", "exit 2"]) { call in
      call.method.hasSuffix(".Progress")
        ? [reply(ProgressReply(id: 8, existing: false))]
        : [reply(NoticeReply(notice: finished(8, .completed)))]
    }
    #expect(result.status == 2)
    #expect(result.calls.map(\.method) == ["io.notifyd.Queue.Progress", "io.notifyd.Queue.End"])
    #expect(result.calls.first?.parameters["title"] == .string("/bin/sh -c 'exit 2'"))
    #expect(result.calls.last?.parameters["message"] == .string("failed (exit 2) after 0 s"))
  }

  @Test func run_forwardsSIGINTToTheCommand_endsTheIndicatorAsCancelled_andExits130() throws {
    // The signal is sent to this thread by the first Update, when the command surely runs: as
    // `kill` would, but without reaching the test runner's other threads. Only that once: a
    // second one, sent after the command ended, would stay pending on this pool thread and
    // interrupt whichever test runs a command on it next.
    let runner = pthread_self()
    let result = try notifyctl(["run", "--", "sleep", "10"]) { call in
      switch call.method {
      case "io.notifyd.Queue.Progress": return [reply(ProgressReply(id: 8, existing: false))]
      case "io.notifyd.Queue.Update":
        if case .string(let body) = call.parameters["body"], body.hasPrefix("running") {
          pthread_kill(runner, SIGINT)
        }
        return [reply(NoticeReply(notice: Notice(id: 8, kind: .progress, title: "sleep 10")))]
      default: return [reply(CancelReply(cancelled: [8]))]
      }
    }
    #expect(result.status == 130)
    #expect(
      result.calls.map(\.method) == [
        "io.notifyd.Queue.Progress", "io.notifyd.Queue.Update", "io.notifyd.Queue.Update",
        "io.notifyd.Queue.Cancel",
      ])
    #expect(result.calls[1].parameters["body"] == .string("running for 1 s"))
    #expect(result.calls[2].parameters["body"] == .string("cancelled after 1 s"))
    #expect(result.calls.last?.parameters == .object(["id": .number(8)]))
  }

  @Test func run_withMissingProgram_exits127_andEndsTheIndicator() throws {
    let result = try notifyctl(["run", "notifyctl-test-no-such-program"]) { call in
      call.method.hasSuffix(".Progress")
        ? [reply(ProgressReply(id: 8, existing: false))]
        : [reply(NoticeReply(notice: finished(8, .completed)))]
    }
    #expect(result.status == 127)
    #expect(
      result.errors == ["notifyctl: cannot run 'notifyctl-test-no-such-program': No such file or directory"])
    #expect(result.calls.last?.parameters["message"] == .string("could not start: No such file or directory"))
  }
}
