import CPangoCairo
import Glibc
import NotifyConfig
import NotifyProtocol
import Testing

@testable import NotifyDisplay

@Suite("The notification center's list: groups, filter, rows, scrolling, the chosen row")
struct CenterModelTests {
  static let metrics = CenterMetrics(
    group: 20, padding: 10, icon: 32, title: 16, body: 30, bar: 14, buttons: 30)

  private func finished(_ id: Int, app: String?, title: String = "t", body: String? = nil, at time: Double)
    -> Notice
  {
    var notice = Notice(id: id, kind: .notice, title: title, body: body, app: app, phase: .finished)
    notice.finished = time
    return notice
  }

  private func model(live: [Notice] = [], history: [Notice], viewport: Double = 1000) -> CenterModel {
    var model = CenterModel(metrics: Self.metrics)
    model.load(live: live, history: history)
    model.setViewport(viewport)
    return model
  }

  @Test func history_isGroupedByApp_groupsByTheirNewest_liveOnesFirstUnderNow() {
    let history = [
      finished(6, app: "mail", at: 60), finished(5, app: "ci", at: 50), finished(4, app: "mail", at: 40),
      finished(3, app: nil, at: 30),
    ]
    var indicator = Notice(id: 9, kind: .progress, title: "Copying", app: "cp", value: 40, phase: .holding)
    indicator.shown = 70
    let model = model(live: [indicator], history: history)
    let rows = model.rows.map { row -> String in
      switch row {
      case .group(let group, let count, _): "[\(group.label) \(count)]"
      case .entry(let index): "\(model.entries[index].id)"
      }
    }
    #expect(rows == ["[Now 1]", "9", "[mail 2]", "6", "4", "[ci 1]", "5", "[Other 1]", "3"])
    // Heights follow from what an entry has: a live indicator's bar.
    #expect(model.height(of: .entry(0)) == 2 * 10 + 16 + 14)
    #expect(model.tops.count == model.rows.count + 1)
    let headings = 4.0 * 20
    let bar = 2.0 * 10 + 16 + 14
    let plain = 4.0 * (2 * 10 + 16)
    #expect(model.contentHeight == headings + bar + plain)
  }

  @Test func collapsing_hidesAGroupsEntries_andExpandingBringsThemBack() {
    var model = model(history: [finished(2, app: "mail", at: 2), finished(1, app: "mail", at: 1)])
    #expect(model.rows.count == 3)
    model.toggle(.app("mail"))
    #expect(model.rows == [.group(.app("mail"), count: 2, collapsed: true)])
    model.toggle(.app("mail"))
    #expect(model.rows.count == 3)
  }

  @Test func theFilter_matchesAppTitleAndBodyText_caseBlind_notMarkup() {
    var model = model(history: [
      finished(3, app: "Mail", title: "Lunch", at: 3),
      finished(2, app: "ci", title: "Build", body: "<b>red</b> tests", at: 2),
      finished(1, app: "backup", title: "Done", at: 1),
    ])
    model.setFilter("mail")
    #expect(model.rows.count == 2)
    model.setFilter("RED T")
    #expect(model.rows.count == 2 && model.entries[model.rows.last!.index!].id == 2)
    model.setFilter("<b>")
    #expect(model.rows.isEmpty)
    model.setFilter(nil)
    #expect(model.rows.count == 6)
  }

  @Test func tenThousandEntries_onlyTheRowsInTheViewportAreVisible_foundByBisection() {
    let history = (0..<10_000).map { finished(10_000 - $0, app: "app\($0 % 7)", at: Double(10_000 - $0)) }
    var model = model(history: history, viewport: 700)
    #expect(model.rows.count == 10_007)
    #expect(model.visibleRows == 0..<20)  // a heading of 20 and 19 entries of 36 reach 704
    model.scroll(by: 1e9)
    #expect(model.offset == model.contentHeight - 700)
    let visible = model.visibleRows
    #expect(visible.upperBound == model.rows.count && visible.count <= 21)
    // Every row that shows is in the range, and only those.
    for index in [visible.lowerBound - 1, visible.lowerBound, visible.upperBound - 1] {
      let shows = model.tops[index + 1] > model.offset && model.tops[index] < model.offset + 700
      #expect(shows == visible.contains(index), "row \(index)")
    }
    let atEnd = model.scroll(by: 10)
    #expect(!atEnd)  // at the end already
    let moved = model.scroll(by: -1e9)
    #expect(moved && model.offset == 0)
  }

  @Test func beyondTenThousand_theOlderAreCountedNotListed_underTheRows() {
    let history = (0..<10_050).map { finished(20_000 - $0, app: "a", at: Double(20_000 - $0)) }
    var model = model(history: history, viewport: 500)
    #expect(model.entries.count == CenterModel.maximumEntries && model.older == 50)
    #expect(model.entries.last?.id == 20_000 - 9_999)
    #expect(model.contentHeight == model.rowsEnd + Self.metrics.group)
    model.scroll(by: 1e9)
    // The foot's line shows at the bottom; no row is under it.
    #expect(model.offset == model.contentHeight - 500)
    #expect(model.row(atViewportY: 499) == nil && model.row(atViewportY: 499 - Self.metrics.group) != nil)
  }

  @Test func theChosenRow_movesWithTheKeys_scrollsIntoView_andFollowsWhatItShows() {
    var model = model(
      history: (1...30).reversed().map { finished($0, app: "a", at: Double($0)) }, viewport: 100)
    model.moveSelection(by: 1)
    #expect(model.selection == .group(.app("a")))
    model.moveSelection(by: 5)
    #expect(model.selection == .entry(26))
    // Row 5 ends at 20 + 5 × 36 = 200: scrolled so that it ends at the viewport's foot.
    #expect(model.offset == 200 - 100)
    model.moveSelection(by: -100)
    #expect(model.selection == .group(.app("a")) && model.offset == 0)
    model.select(row: 3)
    #expect(model.selection == .entry(28))
    // New notices above it: it stays chosen.
    model.load(
      live: [],
      history: [finished(31, app: "a", at: 31)]
        + (1...30).reversed().map {
          finished($0, app: "a", at: Double($0))
        })
    #expect(model.selection == .entry(28) && model.index(of: .entry(28)) == 4)
    // Gone: nothing is chosen.
    model.load(live: [], history: [finished(31, app: "a", at: 31)])
    #expect(model.selection == nil)
  }

  @Test func rowAtAPoint_isTheOneUnderIt() {
    var model = model(history: [finished(2, app: "a", at: 2), finished(1, app: "a", at: 1)], viewport: 60)
    #expect(model.row(atViewportY: 0) == 0)
    #expect(model.row(atViewportY: 19.9) == 0)
    #expect(model.row(atViewportY: 20) == 1)
    #expect(model.row(atViewportY: 56) == 2)
    model.scroll(by: 30)
    #expect(model.row(atViewportY: 0) == 1)
    #expect(model.row(atViewportY: 200) == nil)
  }

  @Test func snoozedNotices_areUnderSnoozed_afterNow_theSoonestBackFirst_withoutButtons() {
    var shown = Notice(id: 1, kind: .notice, title: "shown", app: "chat", phase: .holding)
    shown.shown = 10
    shown.actions = [Action(key: "reply", label: "Reply")]
    var later = Notice(id: 2, kind: .notice, title: "later", app: "chat", phase: .waiting)
    later.snoozedUntil = 900
    later.actions = [Action(key: "reply", label: "Reply")]
    var sooner = Notice(id: 3, kind: .notice, title: "sooner", app: "mail", phase: .fadingOut)
    sooner.snoozedUntil = 600
    let model = model(live: [later, shown, sooner], history: [finished(4, app: "mail", at: 5)])
    let rows = model.rows.map { row -> String in
      switch row {
      case .group(let group, let count, _): "[\(group.label) \(count)]"
      case .entry(let index): "\(model.entries[index].id)"
      }
    }
    #expect(rows == ["[Now 1]", "1", "[Snoozed 2]", "3", "2", "[mail 1]", "4"])
    // What shows has its buttons and Remind me; a snoozed one neither, its actions answering once back.
    let (now, snoozed) = (CenterEntry(shown), CenterEntry(later))
    #expect(now.snoozable && now.hasButtons && now.buttons.map(\.key) == ["reply"])
    #expect(!snoozed.snoozable && !snoozed.hasButtons && snoozed.live && snoozed.snoozedUntil == 900)
    #expect(model.height(of: .entry(0)) == 2 * 10 + 16 + 30)
    #expect(model.height(of: .entry(1)) == 2 * 10 + 16)
  }

  @Test func anEntry_keepsWhatItsRowShows_buttonsOnlyWhileLive_andARelayedOnesHost() {
    var relayed = finished(7, app: "ci", title: "Deploy", at: 70)
    relayed.origin = NoticeOrigin(host: "build-box", store: "s", id: 3, sent: 69)
    relayed.actions = [Action(key: "default", label: "Open"), Action(key: "retry", label: "Retry")]
    relayed.unread = true
    let entry = CenterEntry(relayed)
    #expect(entry.host == "build-box" && entry.unread && !entry.live && entry.time == 70)
    #expect(entry.hasDefaultAction && entry.buttons.isEmpty)
    relayed.phase = .holding
    relayed.finished = nil
    relayed.shown = 68
    let live = CenterEntry(relayed)
    #expect(live.live && live.buttons == [Action(key: "retry", label: "Retry")] && live.time == 68)
  }

  @Test func doNotDisturb_isToldBesideTheSwitch() {
    var status = StatusReply(
      version: "0", suspended: true, waiting: 0, queued: 0, visible: 0, finished: 0, unread: 0)
    #expect(CenterPainter.doNotDisturbDetail(status.doNotDisturb) == nil)
    status.doNotDisturb = DoNotDisturb(reason: .hand, allow: .critical)
    #expect(CenterPainter.doNotDisturbDetail(status.doNotDisturb) == "critical shows")
    let seven = Double(Self.localSeconds(hour: 7, minute: 5))
    status.doNotDisturb = DoNotDisturb(reason: .schedule, allow: .nothing, until: seven)
    #expect(
      CenterPainter.doNotDisturbDetail(status.doNotDisturb) == "quiet hours, until 07:05, nothing shows")
  }

  /// Seconds since the epoch of today's `hour`:`minute`, local time.
  private static func localSeconds(hour: Int32, minute: Int32) -> Int {
    var now = time(nil)
    var parts = tm()
    localtime_r(&now, &parts)
    parts.tm_hour = hour
    parts.tm_min = minute
    parts.tm_sec = 0
    return mktime(&parts)
  }

  @Test func aLiveNoticeChanging_takesItsEntryInPlace_placingRowsAgainOnlyWhenItsHeightChanged() {
    var indicator = Notice(id: 9, kind: .progress, title: "Copying", app: "cp", value: 10, phase: .holding)
    indicator.shown = 5
    var model = model(live: [indicator], history: [finished(1, app: "a", at: 1)])
    let tops = model.tops
    indicator.value = 70
    let moved = model.update(indicator)
    #expect(moved && model.entries[0].value == 70 && model.tops == tops)
    indicator.body = "3 of 5 files"
    let grown = model.update(indicator)
    #expect(grown && model.tops[2] == tops[2] + Self.metrics.body)
    // Not listed live: the list must be loaded again.
    let notLive = model.update(Notice(id: 1, kind: .notice, title: "t", phase: .holding))
    indicator.phase = .finished
    let finished = model.update(indicator)
    #expect(!notLive && !finished)
  }

  @Test func relativeTimes() {
    #expect(CenterPainter.relativeTime(-5) == "now")
    #expect(CenterPainter.relativeTime(59) == "now")
    #expect(CenterPainter.relativeTime(60) == "1 min ago")
    #expect(CenterPainter.relativeTime(3599) == "59 min ago")
    #expect(CenterPainter.relativeTime(3 * 3600 + 5) == "3 h ago")
    #expect(CenterPainter.relativeTime(30 * 3600) == "yesterday")
    #expect(CenterPainter.relativeTime(5 * 86400) == "5 days ago")
  }

  @Test func thePainter_hitTestAgreesWithItsDrawing_andTheButtonUnderThePointerIsLit() {
    var settings = DisplaySettings()
    settings.look.font = "DejaVu Sans 11"
    let painter = CenterPainter(cards: CardPainter(settings: settings))
    var live = Notice(
      id: 50, kind: .notice, title: "Deploy", app: "ci", actions: [Action(key: "later", label: "Later")],
      phase: .holding)
    live.shown = 100
    var model = CenterModel(metrics: painter.metrics)
    model.load(
      live: [live], history: (1...20).map { finished($0, app: "a", title: "Job \($0)", at: Double($0)) })
    let width = 400
    let height = 600
    let header = painter.headerHeight(filtering: false)
    model.setViewport(Double(height) - header)
    // The live entry's row: below the "Now" heading; its button at its foot, its × at its top right.
    let entryTop = header + model.tops[1]
    let entryBottom = header + model.tops[2]
    #expect(painter.target(of: model, x: 200, y: header + 5, width: 400) == .group(.now))
    #expect(painter.target(of: model, x: 100, y: entryTop + 12, width: 400) == .entry(50))
    // Its button on the left, "Remind me" on the right.
    #expect(painter.target(of: model, x: 120, y: entryBottom - 16, width: 400) == .button(50, "later"))
    #expect(painter.target(of: model, x: 300, y: entryBottom - 16, width: 400) == .snooze(50))
    #expect(painter.target(of: model, x: 400 - 12 - 8, y: entryTop + 18, width: 400) == .forget(50))
    #expect(painter.target(of: model, x: 20, y: 5, width: 400) == nil)
    #expect(painter.target(of: model, x: 400 - 40, y: 20, width: 400) == .clearAll)
    #expect(painter.target(of: model, x: 20, y: header - 20, width: 400) == .doNotDisturb)

    // Drawn: the button's fill where the hit-test finds it, the panel's background between rows.
    let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))!
    defer { cairo_surface_destroy(surface) }
    var look = CenterLook()
    look.now = 200
    painter.paint(model, look: look, into: surface, width: width, height: height)
    func pixel(_ x: Int, _ y: Int) -> UInt32 {
      let stride = Int(cairo_image_surface_get_stride(surface))
      return cairo_image_surface_get_data(surface)!.withMemoryRebound(
        to: UInt8.self, capacity: stride * height
      ) {
        UnsafeRawPointer($0 + y * stride + x * 4).loadUnaligned(as: UInt32.self)
      }
    }
    #expect(pixel(30, Int(entryBottom) - 16) != pixel(30, Int(entryTop) + 30))
    // Lit under the pointer: the button's fill changes, nothing else in its row's text.
    look.hover = .button(50, "later")
    let lit = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))!
    defer { cairo_surface_destroy(lit) }
    painter.paint(model, look: look, into: lit, width: width, height: height)
    let stride = Int(cairo_image_surface_get_stride(lit))
    let offset = (Int(entryBottom) - 16) * stride + 30 * 4
    let litPixel = UnsafeRawPointer(cairo_image_surface_get_data(lit)! + offset).loadUnaligned(
      as: UInt32.self)
    #expect(litPixel != pixel(30, Int(entryBottom) - 16))
  }
}

extension CenterRow {
  fileprivate var index: Int? {
    if case .entry(let index) = self { return index }
    return nil
  }
}
