import NotifyCore
import NotifyProtocol
import Testing

@Suite("Easing curves")
struct EasingTests {
  /// Expected eased progress of each curve at a few instants, worked out by hand from the cubic
  /// formulas (`t³`, `1 − (1 − t)³`, and the two halves of the in-out curve).
  static let table: [(Easing, Double, Double)] = [
    (.linear, 0.25, 0.25), (.linear, 0.5, 0.5), (.linear, 0.75, 0.75),
    (.easeIn, 0.25, 0.015625), (.easeIn, 0.5, 0.125), (.easeIn, 0.75, 0.421875),
    (.easeOut, 0.25, 0.578125), (.easeOut, 0.5, 0.875), (.easeOut, 0.75, 0.984375),
    (.easeInOut, 0.25, 0.0625), (.easeInOut, 0.5, 0.5), (.easeInOut, 0.75, 0.9375),
  ]

  @Test("each curve at chosen instants", arguments: table)
  func progress_atChosenInstants(curve: Easing, p: Double, expected: Double) {
    #expect(abs(curve.progress(p) - expected) < 1e-12)
  }

  @Test("every curve starts at 0 and ends at 1", arguments: Easing.allCases)
  func progress_endpoints(curve: Easing) {
    #expect(curve.progress(0) == 0)
    #expect(curve.progress(1) == 1)
  }

  @Test("progress outside 0...1 is clamped, so a late timer never overshoots", arguments: Easing.allCases)
  func progress_outsideRange_isClamped(curve: Easing) {
    #expect(curve.progress(-0.5) == 0)
    #expect(curve.progress(1.5) == 1)
    #expect(curve.progress(.infinity) == 1)
  }

  @Test("every curve rises monotonically", arguments: Easing.allCases)
  func progress_isMonotonic(curve: Easing) {
    var previous = 0.0
    for step in 0...1000 {
      let value = curve.progress(Double(step) / 1000)
      #expect(value >= previous)
      previous = value
    }
  }

  @Test func easeOut_mirrorsEaseIn() {
    for step in 0...100 {
      let p = Double(step) / 100
      #expect(abs(Easing.easeOut.progress(p) - (1 - Easing.easeIn.progress(1 - p))) < 1e-12)
    }
  }

  @Test func easeInOut_isSymmetricAboutItsMiddle() {
    for step in 0...100 {
      let p = Double(step) / 100
      #expect(abs(Easing.easeInOut.progress(p) - (1 - Easing.easeInOut.progress(1 - p))) < 1e-12)
    }
  }
}
