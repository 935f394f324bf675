import NotifyProtocol
import Testing

@testable import NotifyCLI

private func tracker(_ notices: [Notice], suspended: Bool = false) -> NoticeTracker {
  var tracker = NoticeTracker()
  tracker.apply(Event(kind: .snapshot, at: 0, notices: notices, suspended: suspended))
  return tracker
}

@Suite("i3bar status lines from Watch events")
struct I3barStatusTests {
  private let palette = WatchPalette.dark()

  @Test func idle_isAnEmptyLine_andSuspendedSaysSo() {
    #expect(I3barStatus(tracker([]), palette: palette).line(first: true) == "[]")
    #expect(
      I3barStatus(tracker([], suspended: true), palette: palette).line(first: false)
        == ##",[{"color":"#8a8a8a","full_text":"notifications suspended","name":"notifyd"}]"##)
  }

  @Test func visibleNotice_isOneBlock_inItsAccentAtItsOpacity() {
    let notices = [
      Notice(
        id: 1, kind: .notice, title: "Disk \u{1B}[2Jfull", urgency: .critical, phase: .fadingIn, opacity: 0.5),
      Notice(id: 2, kind: .notice, title: "Low", urgency: .low, phase: .holding, opacity: 1),
    ]
    let status = I3barStatus(tracker(notices), palette: palette)
    let red = palette.accent(.critical).composited(over: palette.background, opacity: 0.5)
    #expect(
      status.line(first: true)
        == #"[{"color":"\#(red.hex)","full_text":"Disk �[2Jfull (+1)","name":"notifyd","short_text":"Disk �[2Jfull","urgent":true}]"#
    )
  }

  @Test func progress_showsItsValue() {
    let building = Notice(id: 1, kind: .progress, title: "Build", value: 40, phase: .holding, opacity: 1)
    #expect(I3barStatus(tracker([building]), palette: palette).blocks.first?.fullText == "Build 40%")
  }

  @Test func streamStartsWithTheHeaderAndAnOpenArray() {
    #expect(I3barStatus.header == #"{"version":1}"#)
    #expect(I3barStatus.opening == "[")
    #expect(
      I3barStatus.disconnected.line(first: false).hasPrefix(#",[{"full_text":"notifyd is not running""#))
  }
}
