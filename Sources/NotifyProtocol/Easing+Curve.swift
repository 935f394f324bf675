// Pure math, kept beside the `Easing` type so that the daemon's timeline (NotifyCore) and the
// terminal view of `notifyctl watch` (NotifyCLI) share one definition of each curve.

extension Easing {
  /// Maps linear progress `p` in 0...1 to eased progress in 0...1 along this cubic curve.
  ///
  /// Values outside 0...1 are clamped, so a late timer never overshoots.
  public func progress(_ p: Double) -> Double {
    let t = min(max(p, 0), 1)
    switch self {
    case .linear:
      return t
    case .easeIn:
      return t * t * t
    case .easeOut:
      let u = 1 - t
      return 1 - u * u * u
    case .easeInOut:
      if t < 0.5 { return 4 * t * t * t }
      let u = -2 * t + 2
      return 1 - u * u * u / 2
    }
  }
}
