import NotifyConfig
import NotifyCore
import NotifyProtocol
import NotifyService
import NotifySupport
import Testing

@testable import NotifyDisplay

/// What a person does on a card reaches the engine through `NoticeService`, and a change the
/// engine refuses is logged, not dropped (DESIGN §17). (That a click invokes, dismisses or replies
/// is the end-to-end suites' to show, on sway and X11.)
@Suite("A person's changes from the popups")
struct PersonChangesTests {
  private func display() -> (PopupDisplay, Locked<[String]>) {
    let engine = NoticeQueue(scheduler: ManualScheduler())
    let said = Locked<[String]>([])
    let display = PopupDisplay(
      settings: DisplaySettings(), service: NoticeService(queue: engine, journal: nil),
      backend: StandInBackend()
    ) { line in said.withLock { $0.append(line) } }
    return (display, said)
  }

  @Test func aClickOnANoticeThatFinishedMeanwhile_isLogged() {
    let (display, said) = display()
    display.carryOut(.invoke("open"), on: 42)
    display.carryOut(.dismiss, on: 43)
    #expect(
      said.withLock { $0 } == [
        "popups: action 'open' of notice 42: no notice 42", "popups: dismissing notice 43: no notice 43",
      ])
  }
}
