import NotifyProtocol
import Testing

@testable import NotifyCLI

private let black = RGBColor(red: 0, green: 0, blue: 0)
private let white = RGBColor(red: 255, green: 255, blue: 255)
private let blue = RGBColor(red: 0x4F, green: 0xA8, blue: 0xFF)

@Suite("Colour blending and palettes")
struct RGBColorTests {
  @Test func composited_isTheBackgroundAtZero_theColourAtOne_andProportionalBetween() {
    #expect(blue.composited(over: black, opacity: 0) == black)
    #expect(blue.composited(over: black, opacity: 1) == blue)
    #expect(blue.composited(over: black, opacity: 0.5) == RGBColor(red: 40, green: 84, blue: 128))
    #expect(blue.composited(over: white, opacity: 0.5) == RGBColor(red: 167, green: 212, blue: 255))
  }

  @Test(arguments: [-1.0, 2.0, Double.nan, -Double.infinity])
  func composited_clampsOpacityOutsideZeroToOne(opacity: Double) {
    let result = blue.composited(over: black, opacity: opacity)
    #expect(result == (opacity > 1 ? blue : black))
  }

  @Test(arguments: Easing.allCases)
  func fadeColours_followTheEasedOpacity_stepByStep(curve: Easing) {
    // The daemon sends opacity with the easing applied; each frame's colour is that opacity's
    // blend, so the colour's channels trace the curve (within rounding) and never go backwards.
    var previous = -1
    for step in 0...20 {
      let opacity = curve.progress(Double(step) / 20)
      let color = blue.composited(over: black, opacity: opacity)
      #expect(abs(Double(color.blue) - 255 * opacity) <= 0.5)
      #expect(Int(color.blue) >= previous)
      previous = Int(color.blue)
    }
  }

  @Test func easeOutFadeIn_isBrighterEarlyThanLinear() {
    let easeOut = blue.composited(over: black, opacity: Easing.easeOut.progress(0.25))
    let linear = blue.composited(over: black, opacity: Easing.linear.progress(0.25))
    #expect(easeOut.blue > linear.blue)
    #expect(easeOut.blue == 147)  // 255 × 0.578125, rounded
  }

  @Test(arguments: [
    ("#4fa8ff", RGBColor(red: 0x4F, green: 0xA8, blue: 0xFF)),
    ("000000", RGBColor(red: 0, green: 0, blue: 0)),
  ])
  func hex_parsesSixDigits(text: String, expected: RGBColor) {
    #expect(RGBColor(hex: text) == expected)
    #expect(expected.hex == (text.hasPrefix("#") ? text : "#" + text))
  }

  @Test(arguments: ["#fff", "#12345g", "", "#1234567", "light"])
  func hex_rejectsAnythingElse(text: String) {
    #expect(RGBColor(hex: text) == nil)
  }

  static let paletteTable: [(RGBColor, UInt8)] = [
    (RGBColor(red: 0, green: 0, blue: 0), 16),
    (RGBColor(red: 255, green: 255, blue: 255), 231),
    (RGBColor(red: 255, green: 0, blue: 0), 196),
    (RGBColor(red: 0x5F, green: 0x87, blue: 0xFF), 69),
    (RGBColor(red: 0x80, green: 0x80, blue: 0x80), 244),  // grey ramp, not the cube
    (RGBColor(red: 0x12, green: 0x12, blue: 0x12), 233),
  ]

  @Test(arguments: paletteTable)
  func paletteIndex_picksTheNearestOfTheCubeAndGreyRamp(color: RGBColor, index: UInt8) {
    #expect(color.paletteIndex == index)
  }

  @Test func paletteIndex_roundTripsEveryPaletteColour() {
    for index in UInt8(16)...UInt8(255) {
      let color = RGBColor.palette(index)
      #expect(RGBColor.palette(color.paletteIndex) == color, "\(index)")
    }
  }

  @Test func fadeIn256Colours_movesThroughDarkerEntriesToTheAccent() {
    let indices = stride(from: 0.0, through: 1.0, by: 0.25).map {
      blue.composited(over: black, opacity: $0).paletteIndex
    }
    #expect(indices.first == 16)
    #expect(indices.last == blue.paletteIndex)
    #expect(Set(indices).count == indices.count)
  }
}

@Suite("Colour mode and background from the environment")
struct ColorEnvironmentTests {
  private func environment(_ values: [String: String]) -> (String) -> String? { { values[$0] } }

  @Test(arguments: [
    ([String: String](), ColorMode.palette256),
    (["COLORTERM": "truecolor"], .trueColor),
    (["COLORTERM": "24bit"], .trueColor),
    (["COLORTERM": "yes"], .palette256),
    (["COLORTERM": "truecolor", "NO_COLOR": "1"], .monochrome),
    (["NO_COLOR": ""], .palette256),  // set but empty does not count (no-color.org)
  ])
  func colorMode_followsNO_COLORThenCOLORTERM(values: [String: String], expected: ColorMode) {
    #expect(ColorMode.detect(environment: environment(values)) == expected)
  }

  @Test func background_defaultsToBlack() {
    #expect(WatchPalette.detect(environment: environment([:])) == .dark())
  }

  @Test func background_fromNOTIFYD_WATCH_BACKGROUND() {
    #expect(WatchPalette.detect(environment: environment(["NOTIFYD_WATCH_BACKGROUND": "light"])) == .light())
    #expect(WatchPalette.detect(environment: environment(["NOTIFYD_WATCH_BACKGROUND": "dark"])) == .dark())
    let solarized = RGBColor(red: 0xFD, green: 0xF6, blue: 0xE3)
    #expect(
      WatchPalette.detect(environment: environment(["NOTIFYD_WATCH_BACKGROUND": "#fdf6e3"]))
        == .light(background: solarized))
    let navy = RGBColor(red: 0x00, green: 0x2B, blue: 0x36)
    #expect(
      WatchPalette.detect(environment: environment(["NOTIFYD_WATCH_BACKGROUND": "#002b36"]))
        == .dark(background: navy))
  }

  @Test func background_fromCOLORFGBG_whenNotSetExplicitly() {
    #expect(WatchPalette.detect(environment: environment(["COLORFGBG": "0;15"])) == .light())
    #expect(WatchPalette.detect(environment: environment(["COLORFGBG": "15;default;0"])) == .dark())
    #expect(
      WatchPalette.detect(
        environment: environment(["COLORFGBG": "0;15", "NOTIFYD_WATCH_BACKGROUND": "dark"]))
        == .dark())
  }
}
