import NotifyConfig
import NotifyCore
import NotifyProtocol
import NotifyService
import NotifySupport
import NotifyTestSupport
import Testing

@testable import NotifyDisplay

/// What a person does on a card reaches the engine through `NoticeService`, and a change the
/// engine refuses is logged, not dropped (DESIGN §17). (That a click invokes, dismisses or replies
/// is the end-to-end suites' to show, on sway and X11.)
@Suite("A person's changes from the popups")
struct PersonChangesTests {
  private func display() -> (PopupDisplay, RecordingSink) {
    let engine = NoticeQueue(scheduler: ManualScheduler())
    let sink = RecordingSink()
    let display = PopupDisplay(
      settings: DisplaySettings(), service: NoticeService(queue: engine, journal: nil),
      backend: StandInBackend(), log: sink.logger())
    return (display, sink)
  }

  @Test func aClickOnANoticeThatFinishedMeanwhile_isLogged() {
    let (display, sink) = display()
    display.ask(.invoke(id: 42, action: "open", from: SurfaceKey(id: 42, output: nil)))
    display.ask(.dismiss(43))
    #expect(
      sink.lines == [
        .init(.notice, "popups: action 'open' of notice 42: no notice 42"),
        .init(.notice, "popups: dismissing notice 43: no notice 43"),
      ])
  }
}
