/// A colour as 8-bit sRGB channels, with the blending and palette mapping the terminal view needs.
struct RGBColor: Sendable, Hashable {
  var red: UInt8
  var green: UInt8
  var blue: UInt8

  init(red: UInt8, green: UInt8, blue: UInt8) {
    self.red = red
    self.green = green
    self.blue = blue
  }

  /// A colour written `#rrggbb` (the `#` is optional), or `nil` when `text` is not one.
  init?(hex text: String) {
    let digits = text.hasPrefix("#") ? text.dropFirst() : text[...]
    guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else {
      return nil
    }
    self.init(
      red: UInt8(truncatingIfNeeded: value >> 16), green: UInt8(truncatingIfNeeded: value >> 8),
      blue: UInt8(truncatingIfNeeded: value))
  }

  /// `#rrggbb`, lower case.
  var hex: String {
    func pair(_ channel: UInt8) -> String {
      let digits = String(channel, radix: 16)
      return digits.count == 1 ? "0" + digits : digits
    }
    return "#" + pair(red) + pair(green) + pair(blue)
  }

  // MARK: - Blending

  /// This colour drawn at `opacity` over `background`: `background` at 0, this colour at 1, and
  /// in between each channel moves in proportion (`background + (self − background) × opacity`).
  ///
  /// This is how the view fades: the daemon has already applied the notice's easing to the
  /// opacity, so the colour follows the curve exactly and needs no easing of its own. Opacity
  /// outside 0...1 (or NaN) is clamped.
  func composited(over background: RGBColor, opacity: Double) -> RGBColor {
    let alpha = opacity.isNaN ? 0 : min(max(opacity, 0), 1)
    func channel(_ front: UInt8, _ back: UInt8) -> UInt8 {
      UInt8((Double(back) + (Double(front) - Double(back)) * alpha).rounded())
    }
    return RGBColor(
      red: channel(red, background.red), green: channel(green, background.green),
      blue: channel(blue, background.blue))
  }

  /// Relative luminance in 0...1 (sRGB coefficients on the gamma-encoded channels, which is enough
  /// to tell a light background from a dark one).
  var luminance: Double {
    (0.2126 * Double(red) + 0.7152 * Double(green) + 0.0722 * Double(blue)) / 255
  }

  // MARK: - The xterm 256-colour palette

  /// The levels of each channel in the 6×6×6 colour cube (indices 16...231).
  private static let cubeLevels: [Int] = [0, 95, 135, 175, 215, 255]

  /// The index of the closest colour in xterm's 256-colour palette, among the colour cube and the
  /// grey ramp (232...255); the 16 system colours are left out because terminals redefine them.
  var paletteIndex: UInt8 {
    func cubeStep(_ channel: UInt8) -> Int {
      let value = Int(channel)
      return value < 48 ? 0 : value < 115 ? 1 : (value - 35) / 40
    }
    let r = cubeStep(red)
    let g = cubeStep(green)
    let b = cubeStep(blue)
    let cube = RGBColor(
      red: UInt8(Self.cubeLevels[r]), green: UInt8(Self.cubeLevels[g]), blue: UInt8(Self.cubeLevels[b]))

    let average = (Int(red) + Int(green) + Int(blue)) / 3
    let greyStep = average > 238 ? 23 : max(average - 3, 0) / 10
    let level = UInt8(8 + 10 * greyStep)
    let grey = RGBColor(red: level, green: level, blue: level)

    return distance(to: grey) < distance(to: cube) ? UInt8(232 + greyStep) : UInt8(16 + 36 * r + 6 * g + b)
  }

  /// The colour xterm shows for palette index `index` in 16...255.
  static func palette(_ index: UInt8) -> RGBColor {
    precondition(index >= 16, "the 16 system colours have no fixed value")
    if index >= 232 {
      let level = UInt8(8 + 10 * (Int(index) - 232))
      return RGBColor(red: level, green: level, blue: level)
    }
    let cube = Int(index) - 16
    return RGBColor(
      red: UInt8(cubeLevels[cube / 36]), green: UInt8(cubeLevels[cube / 6 % 6]),
      blue: UInt8(cubeLevels[cube % 6]))
  }

  /// Squared distance in RGB space, weighted toward green as the eye is.
  private func distance(to other: RGBColor) -> Int {
    let dr = Int(red) - Int(other.red)
    let dg = Int(green) - Int(other.green)
    let db = Int(blue) - Int(other.blue)
    return 2 * dr * dr + 4 * dg * dg + 3 * db * db
  }
}
