import NotifyProtocol
import Testing

@testable import NotifyCLI

@Suite("Exit statuses")
struct ExitStatusTests {
  @Test(arguments: [
    (Outcome?.some(.completed), Int32(0)), (.cancelled, 3), (.timedOut, 4), (.replaced, 5), (.dismissed, 6),
    (nil, 0),
  ])
  func outcome_mapsToTheDocumentedStatus(outcome: Outcome?, status: Int32) {
    #expect(ExitStatus(outcome: outcome).rawValue == status)
  }

  @Test(arguments: [
    (ChildTermination.exited(0), Int32(0)), (.exited(2), 2), (.killed(signal: 2), 130),
    (.killed(signal: 9), 137),
  ])
  func childTermination_exitsAsAShellWould(termination: ChildTermination, status: Int32) {
    #expect(termination.exitStatus == status)
  }

  @Test(arguments: [
    (0x0200 as Int32, ChildTermination.exited(2)), (0, .exited(0)), (0x0f, .killed(signal: 15)),
  ])
  func childTermination_decodesWaitStatus(status: Int32, expected: ChildTermination) {
    #expect(ChildTermination(waitStatus: status) == expected)
  }

  @Test(arguments: [
    (ChildTermination.exited(0), 12.2, "succeeded in 12 s"),
    (.exited(2), 12, "failed (exit 2) after 12 s"),
    (.killed(signal: 9), 125, "killed by signal 9 after 2 min 5 s"),
    (.exited(0), 3720, "succeeded in 1 h 2 min"),
  ])
  func childTermination_summaryReadsAsDocumented(
    termination: ChildTermination, seconds: Double, summary: String
  ) {
    #expect(termination.summary(after: seconds) == summary)
  }
}
