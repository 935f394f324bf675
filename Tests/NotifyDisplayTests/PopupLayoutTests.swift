import NotifyConfig
import NotifyCore
import Testing

@testable import NotifyDisplay

@Suite("Popup layout")
struct PopupLayoutTests {
  private func settings(_ anchor: PopupAnchor, margin: Int = 20, width: Int = 300, gap: Int = 10)
    -> DisplaySettings
  {
    var settings = DisplaySettings()
    settings.anchor = anchor
    settings.margin = margin
    settings.width = width
    settings.gap = gap
    return settings
  }

  @Test func topRight_stacksTheNewestFirstDownwards_withTheGap() {
    let placements = PopupLayout.place(
      heights: [80, 60], settings: settings(.topRight), outputWidth: 1280, outputHeight: 720)
    #expect(placements.map(\.edges) == [[.top, .right], [.top, .right]])
    #expect(placements.map(\.top) == [20, 110])
    #expect(placements.map(\.right) == [20, 20])
    #expect(placements.map(\.x) == [960, 960])
    #expect(placements.map(\.y) == [20, 110])
  }

  @Test func bottomLeft_stacksUpwards_fromTheBottomMargin() {
    let placements = PopupLayout.place(
      heights: [80, 60], settings: settings(.bottomLeft), outputWidth: 1280, outputHeight: 720)
    #expect(placements.map(\.edges) == [[.bottom, .left], [.bottom, .left]])
    #expect(placements.map(\.bottom) == [20, 110])
    #expect(placements.map(\.y) == [620, 550])
    #expect(placements.map(\.x) == [20, 20])
  }

  @Test func topCenter_isCentredHorizontally_withoutSideEdges() {
    let placements = PopupLayout.place(
      heights: [50], settings: settings(.topCenter), outputWidth: 1280, outputHeight: 720)
    #expect(placements.first?.edges == .top)
    #expect(placements.first?.x == 490)
  }

  @Test func center_centresTheWholeStack() {
    let placements = PopupLayout.place(
      heights: [100, 100], settings: settings(.center), outputWidth: 1280, outputHeight: 720)
    // 210 pixels of stack on 720: (720 - 210) / 2 = 255 from the top.
    #expect(placements.map(\.y) == [255, 365])
  }

  @Test func cardsThatWouldLeaveTheOutput_areLeftOut_butTheFirstAlwaysShows() {
    let placements = PopupLayout.place(
      heights: [300, 300, 300], settings: settings(.topRight), outputWidth: 1280, outputHeight: 720)
    #expect(placements.count == 2)
    let tall = PopupLayout.place(
      heights: [2000], settings: settings(.topRight), outputWidth: 1280, outputHeight: 720)
    #expect(tall.count == 1)
  }
}
