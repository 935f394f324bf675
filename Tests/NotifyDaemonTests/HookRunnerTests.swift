import NotifyProtocol
import Testing

@testable import NotifyDaemon

@Suite("HookRunner")
struct HookRunnerTests {
  @Test func hookEnvironment_namesEveryField() {
    let notice = NotifyProtocol.Notice(
      id: 7, kind: .notice, title: "T\0x", body: "B", app: "A", urgency: .critical, outcome: .completed)
    let environment = HookRunner.environment(for: notice)
    #expect(environment["NOTIFYD_ID"] == "7")
    #expect(environment["NOTIFYD_TITLE"] == "T x")
    #expect(environment["NOTIFYD_BODY"] == "B")
    #expect(environment["NOTIFYD_APP"] == "A")
    #expect(environment["NOTIFYD_URGENCY"] == "critical")
    #expect(environment["NOTIFYD_OUTCOME"] == "completed")
    #expect(environment["NOTIFYD_ACTION"] == "")
  }
}
