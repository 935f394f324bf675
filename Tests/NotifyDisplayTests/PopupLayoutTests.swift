import NotifyConfig
import NotifyCore
import NotifyProtocol
import Testing

@testable import NotifyDisplay

@Suite("Popup layout")
struct PopupLayoutTests {
  private func settings(_ anchor: PopupAnchor, margin: Int = 20, gap: Int = 10) -> DisplaySettings {
    var settings = DisplaySettings()
    settings.anchor = anchor
    settings.margin = margin
    settings.gap = gap
    return settings
  }

  /// Cards 300 pixels wide of `heights`, of `urgencies` (normal when not given).
  private func cards(_ heights: [Int], _ urgencies: [Urgency]? = nil) -> [PopupLayout.Item] {
    zip(heights, urgencies ?? heights.map { _ in .normal }).map { (300, $0, $1) }
  }

  @Test func topRight_stacksTheNewestFirstDownwards_withTheGap() {
    let placements = PopupLayout.place(
      cards([80, 60]), settings: settings(.topRight), outputWidth: 1280, outputHeight: 720
    ).compactMap { $0 }
    #expect(placements.map(\.edges) == [[.top, .right], [.top, .right]])
    #expect(placements.map(\.top) == [20, 110])
    #expect(placements.map(\.right) == [20, 20])
    #expect(placements.map(\.x) == [960, 960])
    #expect(placements.map(\.y) == [20, 110])
  }

  @Test func bottomLeft_stacksUpwards_fromTheBottomMargin() {
    let placements = PopupLayout.place(
      cards([80, 60]), settings: settings(.bottomLeft), outputWidth: 1280, outputHeight: 720
    ).compactMap { $0 }
    #expect(placements.map(\.edges) == [[.bottom, .left], [.bottom, .left]])
    #expect(placements.map(\.bottom) == [20, 110])
    #expect(placements.map(\.y) == [620, 550])
    #expect(placements.map(\.x) == [20, 20])
  }

  @Test func topCenter_isCentredHorizontally_withoutSideEdges() {
    let placements = PopupLayout.place(
      cards([50]), settings: settings(.topCenter), outputWidth: 1280, outputHeight: 720)
    #expect(placements.first??.edges == .top)
    #expect(placements.first??.x == 490)
  }

  @Test func center_centresTheWholeStack() {
    let placements = PopupLayout.place(
      cards([100, 100]), settings: settings(.center), outputWidth: 1280, outputHeight: 720)
    // 210 pixels of stack on 720: (720 - 210) / 2 = 255 from the top.
    #expect(placements.map { $0?.y } == [255, 365])
  }

  @Test func cardsThatWouldLeaveTheOutput_areLeftOut_theOldestFirst_butTheNewestAlwaysShows() {
    let placements = PopupLayout.place(
      cards([300, 300, 300]), settings: settings(.topRight), outputWidth: 1280, outputHeight: 720)
    #expect(placements.map { $0?.y } == [20, 330, nil])
    let tall = PopupLayout.place(
      cards([2000, 50]), settings: settings(.topRight), outputWidth: 1280, outputHeight: 720)
    #expect(tall.map { $0?.y } == [20, nil])
  }

  /// Found by the soak (issue 37): a critical notice held until ended, older than a stream of
  /// normal ones, was the one pushed off the screen.
  @Test func whatDoesNotFit_isTheLeastUrgent_oldestFirst_andTheRestCloseUp() {
    let placements = PopupLayout.place(
      cards([250, 250, 250, 250], [.normal, .low, .normal, .critical]),
      settings: settings(.topRight), outputWidth: 1280, outputHeight: 720)
    // 1,030 pixels of stack: the low one goes, then the older normal one; the critical one, the
    // oldest of all, stays, right below the newest.
    #expect(placements.map { $0?.y } == [20, nil, nil, 280])
    let bottom = PopupLayout.place(
      cards([200, 200, 200], [.low, .critical, .normal]),
      settings: settings(.bottomRight), outputWidth: 1280, outputHeight: 500)
    // The newest shows whatever its urgency; the normal one waits.
    #expect(bottom.map { $0?.y } == [280, 70, nil])
  }

  @Test func cardsOfTheirOwnWidths_holdTheAnchorsSide_orAreEachCentred() {
    let cards: [PopupLayout.Item] = [(480, 80, .normal), (300, 60, .normal)]
    let right = PopupLayout.place(
      cards, settings: settings(.topRight), outputWidth: 1280, outputHeight: 720
    ).compactMap { $0 }
    #expect(right.map(\.x) == [780, 960])
    #expect(right.map(\.width) == [480, 300])
    #expect(right.map(\.right) == [20, 20])
    let left = PopupLayout.place(
      cards, settings: settings(.bottomLeft), outputWidth: 1280, outputHeight: 720
    ).compactMap { $0 }
    #expect(left.map(\.x) == [20, 20])
    let centre = PopupLayout.place(
      cards, settings: settings(.topCenter), outputWidth: 1280, outputHeight: 720
    ).compactMap { $0 }
    #expect(centre.map(\.x) == [400, 490])
  }
}
