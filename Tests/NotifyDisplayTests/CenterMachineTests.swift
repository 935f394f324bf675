import NotifyCore
import NotifyProtocol
import Testing

@testable import NotifyDisplay

/// The center measured by arithmetic: a header 50 pixels high (90 while filtering) whose left half
/// is the do-not-disturb switch and right half "Clear all"; under it the rows, each entry's last 20
/// pixels its ×.
private struct ArithmeticCenter: CenterMeasuring {
  let metrics = CenterMetrics(group: 20, padding: 10, icon: 32, title: 16, body: 30, bar: 14, buttons: 30)

  func headerHeight(filtering: Bool) -> Double { filtering ? 90 : 50 }

  func target(of model: CenterModel, x: Double, y: Double, width: Double) -> CenterTarget? {
    let header = headerHeight(filtering: model.filter != nil)
    if y < header { return x < width / 2 ? .doNotDisturb : .clearAll }
    guard let index = model.row(atViewportY: y - header) else { return nil }
    switch model.rows[index] {
    case .group(let group, _, _): return .group(group)
    case .entry(let position):
      let id = model.entries[position].id
      return x >= width - 20 ? .forget(id) : .entry(id)
    }
  }
}

@Suite("The center as a machine: what it lists, the chosen row, keys and clicks, on a manual clock")
struct CenterMachineTests {
  /// A finished notice of `app` at `time`, unread unless said.
  private func finished(_ id: Int, app: String = "mail", at time: Double, unread: Bool = true) -> Notice {
    var notice = Notice(id: id, kind: .notice, title: "t\(id)", app: app, phase: .finished)
    notice.finished = time
    notice.unread = unread
    return notice
  }

  private func live(_ id: Int, defaultAction: Bool = false) -> Notice {
    var notice = Notice(id: id, kind: .notice, title: "live \(id)", app: "ci", phase: .holding)
    notice.shown = 100
    if defaultAction { notice.actions = [Action(key: Card.defaultActionKey, label: "")] }
    return notice
  }

  /// An open center 400 × 600 listing `history` (and `live`) at time 0.
  private func machine(live: [Notice] = [], history: [Notice]) -> CenterMachine {
    var machine = CenterMachine(measure: ArithmeticCenter())
    machine.handle(.resized(width: 400, height: 600))
    machine.list(CenterListing(live: live, history: history), at: 0)
    _ = machine.takeEffects()
    return machine
  }

  /// Row `index`'s middle, in the panel's coordinates (x 100: not on the ×).
  private func middle(of index: Int, in machine: CenterMachine) -> (x: Double, y: Double) {
    let model = machine.model
    return (100, 50 + (model.tops[index] + model.tops[index + 1]) / 2 - model.offset)
  }

  @Test func aSnoozedEntry_comesBackNowOnEnter_andTheOutlineSaysUntilWhen() {
    var snoozed = Notice(id: 5, kind: .notice, title: "Call back", app: "phone", phase: .waiting)
    snoozed.snoozedUntil = 1_800_000_000
    var center = machine(live: [live(4), snoozed], history: [finished(1, at: 10)])
    let row = center.outline.rows.first { $0.notice == 5 }
    #expect(row?.description == "phone, snoozed until " + CenterPainter.clockTime(1_800_000_000))
    center.act(on: 5, forget: false)
    #expect(center.takeEffects().contains(.request(.unsnooze(5))))
    // Its × dismisses it: it is unfinished.
    center.act(on: 5, forget: true)
    #expect(center.takeEffects().contains(.request(.dismiss(5))))
  }

  @Test func downMovesTheChosenRow_enterRestoresAFinishedEntry_andTheCenterCloses() {
    var center = machine(history: [finished(2, at: 20), finished(1, at: 10)])
    // Rows: [mail 2], 2, 1.
    center.key(.down)
    #expect(center.model.selection == .group(.app("mail")))
    center.key(.down)
    #expect(center.model.selection == .entry(2))
    center.key(.text("j"))
    #expect(center.model.selection == .entry(1))
    #expect(center.takeEffects() == [.redraw, .redraw, .redraw])
    center.key(.enter)
    #expect(center.takeEffects() == [.request(.restore(1)), .close])
    // Up past the top stays on the first row.
    center.key(.home)
    center.key(.up)
    #expect(center.model.selection == .group(.app("mail")))
    // Enter on a heading folds its group.
    _ = center.takeEffects()
    center.key(.enter)
    #expect(center.model.rows == [.group(.app("mail"), count: 2, collapsed: true)])
    #expect(center.takeEffects() == [.redraw])
  }

  @Test func enterOnALiveEntry_opensIt_onlyWithADefaultAction() {
    var center = machine(live: [live(7, defaultAction: true), live(8)], history: [])
    // Rows: [Now 2], 8, 7 (shown at once: the higher id first).
    center.key(.down)
    center.key(.down)
    #expect(center.model.selection == .entry(8))
    _ = center.takeEffects()
    center.key(.enter)
    #expect(center.takeEffects().isEmpty)
    center.key(.down)
    _ = center.takeEffects()
    center.key(.enter)
    #expect(center.takeEffects() == [.request(.invoke(7, action: Card.defaultActionKey)), .close])
  }

  @Test func deleteForgetsTheChosenEntry_listsAtOnce_andTheRowAfterItIsChosen() {
    let history = [finished(3, at: 30), finished(2, at: 20), finished(1, at: 10)]
    var center = machine(history: history)
    center.key(.down)
    center.key(.down)
    center.key(.down)
    #expect(center.model.selection == .entry(2))
    _ = center.takeEffects()
    center.key(.delete)
    #expect(center.takeEffects() == [.request(.forget(2)), .list(after: 0), .redraw])
    center.list(CenterListing(live: [], history: [history[0], history[2]]), at: 1)
    #expect(center.model.selection == .entry(1))
    // The last one forgotten: the row above it is chosen.
    center.key(.delete)
    center.list(CenterListing(live: [], history: [history[0]]), at: 2)
    #expect(center.model.selection == .entry(3))
    // A live entry's Delete dismisses it.
    var withLive = machine(live: [live(9)], history: [])
    withLive.key(.end)
    _ = withLive.takeEffects()
    withLive.key(.delete)
    #expect(withLive.takeEffects().first == .request(.dismiss(9)))
  }

  @Test func eventsListAgain_atMostOnceAnInterval_andALiveEntryChangingIsTakenInPlace() {
    var indicator = live(5)
    indicator.kind = .progress
    indicator.value = 10
    var center = machine(live: [indicator], history: [])
    // Listed at 0: an event at 0.03 lists at 0.1.
    center.event(Event(kind: .added, at: 0, id: 6), at: 0.03)
    let first = center.takeEffects()
    #expect(first.count == 1)
    if case .list(let after)? = first.first {
      #expect(abs(after - 0.07) < 1e-9)
    } else {
      Issue.record("\(first)")
    }
    // More events meanwhile: nothing more is asked.
    center.event(Event(kind: .finished, at: 0, id: 6), at: 0.05)
    #expect(center.takeEffects().isEmpty)
    center.list(CenterListing(live: [indicator], history: []), at: 0.1)
    #expect(center.takeEffects() == [.redraw])
    // Long after, at once.
    center.event(Event(kind: .forgotten, at: 0, id: 6), at: 5)
    #expect(center.takeEffects() == [.list(after: 0)])
    center.list(CenterListing(live: [indicator], history: []), at: 5)
    _ = center.takeEffects()
    // The indicator moving: its entry only, no listing.
    indicator.value = 60
    center.event(Event(kind: .updated, at: 0, id: 5, notice: indicator), at: 5.01)
    #expect(center.takeEffects() == [.redraw])
    #expect(center.model.entry(5)?.value == 60)
    // Frames and a fade's later phases change nothing listed.
    center.event(Event(kind: .frame, at: 0, id: 5), at: 6)
    center.event(Event(kind: .phase, at: 0, id: 5, phase: .fadingOut), at: 6)
    #expect(center.takeEffects().isEmpty)
  }

  @Test func entriesOnScreen_areReadOnceEach_andStayMarkedWhileOpen() {
    let history =
      (1...40).reversed().map { finished($0, at: Double($0)) } + [finished(0, at: 0, unread: false)]
    var center = machine(history: history)
    center.painted()
    // 550 pixels under the header: the heading (20) and 15 entries of 36 are on screen.
    let first = center.takeEffects()
    #expect(first == [.request(.read(Array((26...40).reversed())))])
    center.painted()
    #expect(center.takeEffects().isEmpty)
    // Listed again with the engine's word that they are read: still marked while open.
    let read = history.map { notice -> Notice in
      var notice = notice
      if notice.id >= 26 { notice.unread = false }
      return notice
    }
    center.list(CenterListing(live: [], history: read), at: 1)
    #expect(center.look.marked.isSuperset(of: Set(26...40)) && !center.look.marked.contains(0))
    // Scrolled down: the next ones.
    center.handle(.scrolled(360))
    _ = center.takeEffects()
    center.painted()
    #expect(center.takeEffects() == [.request(.read(Array((16...25).reversed())))])
  }

  @Test func clicks_doWhatIsUnderThePointer() {
    var center = machine(live: [live(9)], history: [finished(1, at: 10)])
    // Rows: [Now 1], 9, [mail 1], 1.
    let entry = middle(of: 3, in: center)
    center.handle(.pressed(.left, x: entry.x, y: entry.y))
    #expect(center.takeEffects() == [.request(.restore(1)), .close])
    center.handle(.pressed(.left, x: 390, y: entry.y))
    #expect(center.takeEffects() == [.request(.forget(1)), .list(after: 0)])
    center.list(CenterListing(live: [live(9)], history: [finished(1, at: 10)]), at: 1)
    _ = center.takeEffects()
    center.handle(.pressed(.middle, x: entry.x, y: entry.y))
    #expect(center.takeEffects() == [.request(.forget(1)), .list(after: 0)])
    center.list(CenterListing(live: [live(9)], history: [finished(1, at: 10)]), at: 2)
    _ = center.takeEffects()
    let liveRow = middle(of: 1, in: center)
    center.handle(.pressed(.middle, x: liveRow.x, y: liveRow.y))
    #expect(center.takeEffects() == [.request(.dismiss(9)), .list(after: 0)])
    center.list(CenterListing(live: [live(9)], history: [finished(1, at: 10)], suspended: true), at: 3)
    _ = center.takeEffects()
    // The switch: do-not-disturb is on, so a click turns it off; the right button does nothing.
    center.handle(.pressed(.right, x: 10, y: 10))
    #expect(center.takeEffects().isEmpty)
    center.handle(.pressed(.left, x: 10, y: 10))
    #expect(center.takeEffects() == [.request(.doNotDisturb(false)), .list(after: 0)])
    center.list(CenterListing(live: [live(9)], history: [finished(1, at: 10)]), at: 4)
    center.handle(.pressed(.left, x: 390, y: 10))
    #expect(center.takeEffects() == [.redraw, .request(.clearAll), .list(after: 0)])
    // Under the rows: nothing.
    center.handle(.pressed(.left, x: 100, y: 590))
    #expect(center.takeEffects().isEmpty)
    // The panel closed by a click outside it.
    center.handle(.closed)
    #expect(center.takeEffects() == [.close])
  }

  @Test func thePointer_lightsWhatItIsOver_onceEach_andScrollingPutsTheLightOut() {
    var center = machine(history: (1...40).reversed().map { finished($0, at: Double($0)) })
    let row = middle(of: 2, in: center)
    center.handle(.pointerMoved(x: row.x, y: row.y))
    center.handle(.pointerMoved(x: row.x + 5, y: row.y))
    #expect(center.look.hover == .entry(39) && center.takeEffects() == [.redraw])
    center.handle(.scrolled(100))
    #expect(center.look.hover == nil && center.takeEffects() == [.redraw])
    // At the top already: scrolling up moves nothing.
    center.handle(.scrolled(-1000))
    center.handle(.scrolled(-10))
    #expect(center.takeEffects() == [.redraw])
    center.handle(.pointerMoved(x: row.x, y: row.y))
    center.handle(.pointerLeft)
    center.handle(.pointerLeft)
    #expect(center.look.hover == nil && center.takeEffects() == [.redraw, .redraw])
  }

  @Test func typingFilters_slashStartsAnEmptyFilter_escapeEndsItThenCloses_andItsLengthIsBounded() {
    var center = machine(history: [finished(2, app: "mail", at: 20), finished(1, app: "ci", at: 10)])
    #expect(center.model.viewport == 550)
    center.key(.text("/"))
    #expect(center.model.filter == "" && center.model.viewport == 510)
    // j and k type while filtering.
    center.key(.text("c"))
    center.key(.text("i"))
    #expect(center.model.filter == "ci" && center.model.entries.count == 2 && center.model.rows.count == 2)
    center.key(.backspace)
    #expect(center.model.filter == "c")
    center.key(.escape)
    #expect(center.model.filter == nil && center.model.viewport == 550)
    _ = center.takeEffects()
    center.key(.escape)
    #expect(center.takeEffects() == [.close])
    center.key(.text(String(repeating: "x", count: CenterMachine.maximumFilterLength)))
    #expect(center.model.filter?.utf8.count == CenterMachine.maximumFilterLength)
    center.key(.text("y"))
    #expect(center.model.filter?.utf8.count == CenterMachine.maximumFilterLength)
    // Backspace on an empty filter ends it.
    var other = machine(history: [])
    other.key(.text("/"))
    other.key(.backspace)
    #expect(other.model.filter == nil)
  }

  @Test func theOutline_readsEachRow_theChosenOneAmongThem_andAScreenReadersActionsDoWhatEnterAndDeleteDo() {
    var withButton = live(3)
    withButton.actions = [Action(key: "yes", label: "Approve")]
    withButton.body = "<b>ready</b>"
    var center = machine(
      live: [withButton], history: [finished(2, at: 20), finished(1, at: 10, unread: false)])
    var outline = center.outline
    #expect(
      outline.rows == [
        CenterOutline.Row(notice: nil, group: "Now", name: "Now, 1 notice", description: ""),
        CenterOutline.Row(
          notice: 3, name: "live 3. ready", description: "ci, on the screen", live: true,
          buttons: [Action(key: "yes", label: "Approve")]),
        CenterOutline.Row(notice: nil, group: "mail", name: "mail, 2 notices", description: ""),
        CenterOutline.Row(notice: 2, name: "t2", description: "mail, unread"),
        CenterOutline.Row(notice: 1, name: "t1", description: "mail"),
      ])
    #expect(outline.chosen == nil)
    center.key(.down)
    center.key(.down)
    #expect(center.outline.chosen == 1)
    // Its action "forget" on entry 2: as Delete on its row (the row after it chosen once listed).
    _ = center.takeEffects()
    center.act(on: 2, forget: true)
    #expect(center.takeEffects() == [.redraw, .request(.forget(2)), .list(after: 0)])
    center.list(CenterListing(live: [withButton], history: [finished(1, at: 10, unread: false)]), at: 1)
    #expect(center.model.selection == .entry(1))
    // "restore" on entry 1: as Enter on it.
    _ = center.takeEffects()
    center.act(on: 1, forget: false)
    #expect(center.takeEffects() == [.redraw, .request(.restore(1)), .close])
    // Past its bound, the outline is the rows around the chosen one.
    let many = (1...1_000).reversed().map { finished($0, at: Double($0)) }
    center = machine(history: many)
    #expect(center.model.rows.count > CenterMachine.maximumOutlineRows)
    center.key(.end)
    outline = center.outline
    #expect(outline.rows.count == CenterMachine.maximumOutlineRows)
    #expect(outline.chosen.map { outline.rows[$0].notice } == 1)
  }
}
