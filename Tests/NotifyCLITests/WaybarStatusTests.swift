import NotifyProtocol
import Testing

@testable import NotifyCLI

private func notice(
  _ id: Int, _ title: String, body: String? = nil, kind: Kind = .notice, urgency: Urgency = .normal,
  value: Int? = nil, phase: Phase = .queued, opacity: Double = 0
) -> Notice {
  Notice(
    id: id, kind: kind, title: title, body: body, urgency: urgency, value: value, phase: phase,
    opacity: opacity)
}

/// The Waybar objects a watcher prints for `events`: one per change.
private func waybarObjects(_ events: [Event]) -> [WaybarStatus] {
  var tracker = NoticeTracker()
  var printed: [WaybarStatus] = []
  for event in events {
    tracker.apply(event)
    let status = WaybarStatus(tracker)
    if status != printed.last { printed.append(status) }
  }
  return printed
}

@Suite("Waybar objects from Watch events")
struct WaybarStatusTests {
  @Test func emptySnapshot_isIdleWithNoText() {
    let objects = waybarObjects([Event(kind: .snapshot, at: 0, notices: [], suspended: false)])
    #expect(objects == [WaybarStatus(text: "", tooltip: "", classes: ["idle"], percentage: 0)])
  }

  @Test func noticeLife_printsOneObjectPerChange_fromFadeInToIdle() {
    let objects = waybarObjects([
      Event(kind: .snapshot, at: 0, notices: []),
      Event(kind: .added, at: 1, id: 1, notice: notice(1, "Backup done", body: "42 files")),
      Event(kind: .phase, at: 2, id: 1, phase: .fadingIn, opacity: 0),
      Event(kind: .frame, at: 2.5, id: 1, opacity: 0.5),
      Event(kind: .phase, at: 3, id: 1, phase: .holding),
      Event(kind: .frame, at: 3.1, id: 1, opacity: 1),
      Event(kind: .finished, at: 9, id: 1),
    ])
    #expect(
      objects == [
        WaybarStatus(text: "", tooltip: "", classes: ["idle"], percentage: 0),
        WaybarStatus(
          text: "Backup done", tooltip: "Backup done: 42 files", classes: ["normal", "fadingIn"],
          percentage: 0),
        WaybarStatus(
          text: "Backup done", tooltip: "Backup done: 42 files", classes: ["normal", "fadingIn"],
          percentage: 50),
        WaybarStatus(
          text: "Backup done", tooltip: "Backup done: 42 files", classes: ["normal", "holding"],
          percentage: 100),
        WaybarStatus(text: "", tooltip: "", classes: ["idle"], percentage: 0),
      ])
  }

  @Test func progressIndicator_usesItsValueAsPercentage_andUpdatesTrackIt() {
    let building = notice(4, "Building", kind: .progress, value: 10, phase: .holding, opacity: 1)
    var updated = building
    updated.value = 60
    let objects = waybarObjects([
      Event(kind: .snapshot, at: 0, notices: [building]),
      Event(kind: .updated, at: 1, id: 4, notice: updated),
    ])
    #expect(objects.map(\.percentage) == [10, 60])
    #expect(objects.last?.classes == ["normal", "holding", "progress"])
  }

  @Test func severalVisible_showsTheMostUrgentFirst_withCountOfTheOthers() {
    let objects = waybarObjects([
      Event(
        kind: .snapshot, at: 0,
        notices: [
          notice(1, "Low", urgency: .low, phase: .holding, opacity: 1),
          notice(2, "Disk full", urgency: .critical, phase: .fadingIn, opacity: 0.25),
          notice(3, "Waiting", phase: .waiting),
        ])
    ])
    #expect(
      objects == [
        WaybarStatus(
          text: "Disk full (+1)", tooltip: "Disk full\nLow", classes: ["critical", "fadingIn"], percentage: 25
        )
      ])
  }

  @Test func suspendAndResume_addAndRemoveTheSuspendedClass() {
    let objects = waybarObjects([
      Event(kind: .snapshot, at: 0, notices: []),
      Event(kind: .suspended, at: 1, suspended: true),
      Event(kind: .resumed, at: 2, suspended: false),
    ])
    #expect(objects.map(\.classes) == [["idle"], ["idle", "suspended", "dnd"], ["idle"]])
  }

  @Test func phaseFinished_removesTheNotice_evenWithoutAFinishedEvent() {
    let objects = waybarObjects([
      Event(kind: .snapshot, at: 0, notices: [notice(1, "A", phase: .fadingOut, opacity: 0.4)]),
      Event(kind: .phase, at: 1, id: 1, phase: .finished),
    ])
    #expect(objects.map(\.text) == ["A", ""])
  }

  @Test func encodedObject_usesWaybarsKeys() {
    let status = WaybarStatus(text: "t", tooltip: "tip", classes: ["normal", "holding"], percentage: 100)
    #expect(
      JSONText.encode(status, pretty: false)
        == #"{"alt":"none","class":["normal","holding"],"percentage":100,"text":"t","tooltip":"tip"}"#)
  }

  @Test func titlesWithControlCharacters_areSanitizedForTheBar() {
    let objects = waybarObjects([
      Event(
        kind: .snapshot, at: 0, notices: [notice(1, "a\u{1B}]0;pwned\u{07}", phase: .holding, opacity: 1)])
    ])
    #expect(objects.first?.text == "a\u{FFFD}]0;pwned\u{FFFD}")
  }
}
