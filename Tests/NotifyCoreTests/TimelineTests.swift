import NotifyCore
import NotifyProtocol
import Testing

@Suite("Timeline, a pure function of elapsed time")
struct TimelineTests {
  static func timing(
    fadeIn: Double = 1, hold: Double? = 2, fadeOut: Double = 1, easeIn: Easing = .linear,
    easeOut: Easing = .linear
  ) -> Timeline.Timing {
    Timeline.Timing(fadeIn: fadeIn, hold: hold, fadeOut: fadeOut, easeIn: easeIn, easeOut: easeOut)
  }

  static func isClose(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-9 }

  // MARK: - Phases

  @Test func phases_changeExactlyAtTheirBoundaries() {
    let timeline = Timeline(Self.timing(fadeIn: 1, hold: 2, fadeOut: 0.5))
    #expect(timeline.phase(at: 0) == .fadingIn)
    #expect(timeline.phase(at: 0.999_999) == .fadingIn)
    #expect(timeline.phase(at: 1) == .holding)
    #expect(timeline.phase(at: 2.999_999) == .holding)
    #expect(timeline.phase(at: 3) == .fadingOut)
    #expect(timeline.phase(at: 3.499_999) == .fadingOut)
    #expect(timeline.phase(at: 3.5) == .finished)
    #expect(timeline.phase(at: 1000) == .finished)
    #expect(timeline.end == 3.5)
  }

  @Test func nextBoundary_namesEachPhaseChangeThenNil() {
    let timeline = Timeline(Self.timing(fadeIn: 1, hold: 2, fadeOut: 0.5))
    #expect(timeline.nextBoundary(after: 0) == 1)
    #expect(timeline.nextBoundary(after: 0.5) == 1)
    #expect(timeline.nextBoundary(after: 1) == 3)
    #expect(timeline.nextBoundary(after: 3) == 3.5)
    #expect(timeline.nextBoundary(after: 3.5) == nil)
  }

  // MARK: - Opacity

  /// (curve, instant, expected opacity) during a 2 s fade-in: the instants are ¼, ½ and ¾ of it.
  static let fadeInTable: [(Easing, Double, Double)] = [
    (.linear, 0.5, 0.25), (.linear, 1, 0.5), (.linear, 1.5, 0.75),
    (.easeIn, 0.5, 0.015625), (.easeIn, 1, 0.125), (.easeIn, 1.5, 0.421875),
    (.easeOut, 0.5, 0.578125), (.easeOut, 1, 0.875), (.easeOut, 1.5, 0.984375),
    (.easeInOut, 0.5, 0.0625), (.easeInOut, 1, 0.5), (.easeInOut, 1.5, 0.9375),
  ]

  @Test("opacity during fade-in follows the fade-in curve", arguments: fadeInTable)
  func opacity_duringFadeIn(curve: Easing, instant: Double, expected: Double) {
    let timeline = Timeline(Self.timing(fadeIn: 2, hold: 1, fadeOut: 2, easeIn: curve, easeOut: .linear))
    #expect(Self.isClose(timeline.opacity(at: instant), expected))
  }

  /// (curve, instant, expected opacity) during a 2 s fade-out that starts at 3 s.
  static let fadeOutTable: [(Easing, Double, Double)] = [
    (.linear, 3.5, 0.75), (.linear, 4, 0.5), (.linear, 4.5, 0.25),
    (.easeIn, 3.5, 0.984375), (.easeIn, 4, 0.875), (.easeIn, 4.5, 0.578125),
    (.easeOut, 3.5, 0.421875), (.easeOut, 4, 0.125), (.easeOut, 4.5, 0.015625),
    (.easeInOut, 3.5, 0.9375), (.easeInOut, 4, 0.5), (.easeInOut, 4.5, 0.0625),
  ]

  @Test("opacity during fade-out follows the fade-out curve", arguments: fadeOutTable)
  func opacity_duringFadeOut(curve: Easing, instant: Double, expected: Double) {
    let timeline = Timeline(Self.timing(fadeIn: 2, hold: 1, fadeOut: 2, easeIn: .linear, easeOut: curve))
    #expect(Self.isClose(timeline.opacity(at: instant), expected))
  }

  @Test func opacity_isZeroBeforeFadeIn_oneWhileHolding_zeroWhenFinished() {
    let timeline = Timeline(Self.timing(fadeIn: 1, hold: 2, fadeOut: 1))
    #expect(timeline.opacity(at: 0) == 0)
    #expect(timeline.opacity(at: 1) == 1)
    #expect(timeline.opacity(at: 2.5) == 1)
    #expect(timeline.opacity(at: 4) == 0)
    #expect(timeline.opacity(at: 50) == 0)
  }

  // MARK: - Fading out early (cancel, end)

  @Test func fadeOut_midFadeIn_continuesFromCurrentOpacity_overFadeOutTimesOpacity() {
    var timeline = Timeline(Self.timing(fadeIn: 2, hold: 5, fadeOut: 2))
    #expect(timeline.opacity(at: 1) == 0.5)
    let changed = timeline.fadeOut(at: 1)
    #expect(changed)
    #expect(timeline.opacity(at: 1) == 0.5)  // no jump
    #expect(timeline.phase(at: 1) == .fadingOut)
    #expect(timeline.end == 2)  // 1 + fadeOut 2 × opacity 0.5
    #expect(Self.isClose(timeline.opacity(at: 1.5), 0.25))
    #expect(timeline.phase(at: 1.999) == .fadingOut)
    #expect(timeline.phase(at: 2) == .finished)
    // The past is not rewritten.
    #expect(timeline.opacity(at: 0.5) == 0.25)
    #expect(timeline.phase(at: 0.5) == .fadingIn)
  }

  @Test func fadeOut_midFadeIn_withEasedCurve_scalesTheFadeOutByTheOpacityShown() {
    var timeline = Timeline(Self.timing(fadeIn: 1, hold: 5, fadeOut: 1, easeIn: .easeOut, easeOut: .easeIn))
    timeline.fadeOut(at: 0.5)
    #expect(timeline.opacity(at: 0.5) == 0.875)
    #expect(Self.isClose(timeline.end!, 0.5 + 0.875))
  }

  @Test func fadeOut_whileHolding_fadesFromFullOpacityOverTheWholeFadeOut() {
    var timeline = Timeline(Self.timing(fadeIn: 1, hold: 10, fadeOut: 2))
    let changed = timeline.fadeOut(at: 4)
    #expect(changed)
    #expect(timeline.phase(at: 3.999) == .holding)
    #expect(timeline.phase(at: 4) == .fadingOut)
    #expect(timeline.opacity(at: 4) == 1)
    #expect(timeline.opacity(at: 5) == 0.5)
    #expect(timeline.end == 6)
  }

  @Test func fadeOut_whileFadingOut_leavesTheFadeAsItIs() {
    var timeline = Timeline(Self.timing(fadeIn: 1, hold: 1, fadeOut: 2))
    let before = timeline
    let changed = timeline.fadeOut(at: 2.5)
    #expect(changed)
    #expect(timeline == before)
    #expect(timeline.end == 4)
  }

  @Test(arguments: [0.5, 1.5, 2.5])
  func fadeOut_immediately_vanishesAtThatInstant(at instant: Double) {
    var timeline = Timeline(Self.timing(fadeIn: 1, hold: 1, fadeOut: 2))
    let changed = timeline.fadeOut(at: instant, immediately: true)
    #expect(changed)
    #expect(timeline.phase(at: instant) == .finished)
    #expect(timeline.opacity(at: instant) == 0)
    #expect(timeline.end == instant)
    #expect(timeline.phase(at: instant - 0.01) != .finished)
  }

  @Test func rewrites_afterTheEnd_reportNothingLeft() {
    var timeline = Timeline(Self.timing(fadeIn: 1, hold: 1, fadeOut: 1))
    let fadedAtEnd = timeline.fadeOut(at: 3)
    let vanishedAfterEnd = timeline.fadeOut(at: 5, immediately: true)
    let restartedAtEnd = timeline.restartHold(at: 3, hold: 1)
    #expect(!fadedAtEnd)
    #expect(!vanishedAfterEnd)
    #expect(!restartedAtEnd)
    #expect(timeline.end == 3)
  }

  // MARK: - Restarting the hold (update, end with a hold)

  @Test func restartHold_duringFadeIn_letsTheFadeInRunOn_thenHoldsAnew() {
    var timeline = Timeline(Self.timing(fadeIn: 1, hold: 2, fadeOut: 1))
    let changed = timeline.restartHold(at: 0.5, hold: 4)
    #expect(changed)
    #expect(timeline.opacity(at: 0.75) == 0.75)
    #expect(timeline.phase(at: 0.999) == .fadingIn)
    #expect(timeline.phase(at: 1) == .holding)
    #expect(timeline.phase(at: 4.999) == .holding)
    #expect(timeline.phase(at: 5) == .fadingOut)
    #expect(timeline.end == 6)
  }

  @Test func restartHold_whileHolding_holdsForTheNewHoldFromThatInstant() {
    var timeline = Timeline(Self.timing(fadeIn: 1, hold: 2, fadeOut: 1))
    let changed = timeline.restartHold(at: 2, hold: 3)
    #expect(changed)
    #expect(timeline.phase(at: 3.5) == .holding)  // the old hold would have ended at 3
    #expect(timeline.phase(at: 4.999) == .holding)
    #expect(timeline.phase(at: 5) == .fadingOut)
    #expect(timeline.end == 6)
  }

  @Test func restartHold_duringFadeOut_fadesBackInFromTheOpacityShown() {
    var timeline = Timeline(Self.timing(fadeIn: 1, hold: 1, fadeOut: 1))
    #expect(timeline.opacity(at: 2.5) == 0.5)
    let changed = timeline.restartHold(at: 2.5, hold: 1)
    #expect(changed)
    #expect(timeline.phase(at: 2.5) == .fadingIn)
    #expect(timeline.opacity(at: 2.5) == 0.5)
    #expect(timeline.opacity(at: 2.75) == 0.75)  // fade-in of 1 s × (1 − 0.5)
    #expect(timeline.phase(at: 3) == .holding)
    #expect(timeline.phase(at: 4) == .fadingOut)
    #expect(timeline.end == 5)
  }

  @Test func restartHold_withNilHold_holdsUntilEnded() {
    var timeline = Timeline(Self.timing(fadeIn: 1, hold: 2, fadeOut: 1))
    timeline.restartHold(at: 2, hold: nil)
    #expect(timeline.end == nil)
    #expect(timeline.phase(at: 10_000) == .holding)
  }

  // MARK: - Holding until ended

  @Test func nilHold_holdsUntilEnded_untilFadedOut() {
    var timeline = Timeline(Self.timing(fadeIn: 1, hold: nil, fadeOut: 2))
    #expect(timeline.end == nil)
    #expect(timeline.phase(at: 1_000_000) == .holding)
    #expect(timeline.opacity(at: 1_000_000) == 1)
    #expect(timeline.nextBoundary(after: 0) == 1)
    #expect(timeline.nextBoundary(after: 1) == nil)
    timeline.fadeOut(at: 100)
    #expect(timeline.phase(at: 100) == .fadingOut)
    #expect(timeline.end == 102)
    #expect(timeline.nextBoundary(after: 100) == 102)
  }

  // MARK: - Zero-length fades

  @Test func zeroFadeIn_startsAtFullOpacityWhileHolding() {
    let timeline = Timeline(Self.timing(fadeIn: 0, hold: 2, fadeOut: 1))
    #expect(timeline.phase(at: 0) == .holding)
    #expect(timeline.opacity(at: 0) == 1)
    #expect(timeline.nextBoundary(after: 0) == 2)
  }

  @Test func zeroFadeOut_finishesTheInstantTheHoldEnds() {
    let timeline = Timeline(Self.timing(fadeIn: 1, hold: 2, fadeOut: 0))
    #expect(timeline.phase(at: 2.999) == .holding)
    #expect(timeline.phase(at: 3) == .finished)
    #expect(timeline.opacity(at: 3) == 0)
    #expect(timeline.end == 3)
  }

  @Test func allZero_isFinishedFromTheStart() {
    let timeline = Timeline(Self.timing(fadeIn: 0, hold: 0, fadeOut: 0))
    #expect(timeline.phase(at: 0) == .finished)
    #expect(timeline.end == 0)
  }

  @Test func fadeOut_withZeroFadeOut_finishesAtOnce() {
    var timeline = Timeline(Self.timing(fadeIn: 1, hold: 5, fadeOut: 0))
    timeline.fadeOut(at: 2)
    #expect(timeline.phase(at: 2) == .finished)
    #expect(timeline.end == 2)
  }

  // MARK: - Continuity

  @Test("no rewrite changes the opacity at the instant it happens", arguments: Easing.allCases)
  func rewrites_neverMakeOpacityJump(curve: Easing) {
    let timing = Self.timing(fadeIn: 1, hold: 1, fadeOut: 1, easeIn: curve, easeOut: curve)
    for step in 0..<30 {
      let instant = Double(step) / 10
      let original = Timeline(timing)
      let shown = original.opacity(at: instant)
      var cancelled = original
      cancelled.fadeOut(at: instant)
      #expect(Self.isClose(cancelled.opacity(at: instant), shown), "fadeOut at \(instant)")
      var restarted = original
      restarted.restartHold(at: instant, hold: 1)
      #expect(Self.isClose(restarted.opacity(at: instant), shown), "restartHold at \(instant)")
    }
  }
}
