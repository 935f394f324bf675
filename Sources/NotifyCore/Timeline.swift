import NotifyProtocol

/// A notice's appearance over time on screen: its phase and opacity as a pure function of the
/// seconds elapsed since it started fading in.
///
/// A timeline is a list of segments (fade-in, hold, fade-out) laid end to end. Cancelling, ending
/// or updating a visible notice rewrites the segments from a given instant onwards without
/// changing anything before it, so opacity never jumps.
public struct Timeline: Sendable, Equatable {
  /// One stretch of the timeline, in which opacity moves from `from` to `to` along `easing` over
  /// `duration` seconds. A segment cut short keeps its curve and only ends earlier, at `end`.
  public struct Segment: Sendable, Equatable {
    public var phase: Phase
    public var start: Double
    /// The length of the curve in seconds; `.infinity` for a hold that lasts until ended.
    public var duration: Double
    public var from: Double
    public var to: Double
    public var easing: Easing
    /// Where the segment stops: `start + duration` unless it was cut short.
    public var end: Double

    init(phase: Phase, start: Double, duration: Double, from: Double, to: Double, easing: Easing) {
      self.phase = phase
      self.start = start
      self.duration = duration
      self.from = from
      self.to = to
      self.easing = easing
      self.end = start + duration
    }

    func opacity(at elapsed: Double) -> Double {
      guard duration.isFinite else { return from }
      guard duration > 0 else { return to }
      return from + (to - from) * easing.progress((elapsed - start) / duration)
    }
  }

  /// The timing a timeline is built from.
  public struct Timing: Sendable, Equatable {
    public var fadeIn: Double
    /// How long to hold at full opacity; `nil` holds until ended.
    public var hold: Double?
    public var fadeOut: Double
    public var easeIn: Easing
    public var easeOut: Easing

    public init(fadeIn: Double, hold: Double?, fadeOut: Double, easeIn: Easing, easeOut: Easing) {
      self.fadeIn = fadeIn
      self.hold = hold
      self.fadeOut = fadeOut
      self.easeIn = easeIn
      self.easeOut = easeOut
    }
  }

  /// The timing in force: what it was built from, or what a replacement gave it since.
  public private(set) var timing: Timing
  public private(set) var segments: [Segment]

  /// A timeline that fades in, holds and fades out as `timing` says.
  public init(_ timing: Timing) {
    self.timing = timing
    segments = []
    appendFadeIn(at: 0, from: 0)
    appendHold(for: timing.hold)
    appendFadeOut(from: 1)
  }

  /// The instant the notice is gone, or `nil` while something holds until ended.
  public var end: Double? {
    let last = segments.last!
    return last.end.isFinite ? last.end : nil
  }

  /// The phase at `elapsed` seconds.
  public func phase(at elapsed: Double) -> Phase {
    segment(at: elapsed)?.phase ?? .finished
  }

  /// The phase and opacity at `elapsed` seconds; `nil` once it has ended.
  public func appearance(at elapsed: Double) -> (phase: Phase, opacity: Double)? {
    let phase = phase(at: elapsed)
    return phase == .finished ? nil : (phase, opacity(at: elapsed))
  }

  /// The opacity at `elapsed` seconds, 0...1.
  public func opacity(at elapsed: Double) -> Double {
    guard let segment = segment(at: elapsed) else { return 0 }
    return min(max(segment.opacity(at: elapsed), 0), 1)
  }

  /// The first instant after `elapsed` at which the phase changes, or `nil` if it never does.
  public func nextBoundary(after elapsed: Double) -> Double? {
    guard let index = segmentIndex(at: elapsed) else { return nil }
    let current = segments[index].phase
    for segment in segments[index...] {
      if segment.end.isInfinite { return nil }
      if phase(at: segment.end) != current { return segment.end }
    }
    return nil
  }

  /// The seconds of hold left at `elapsed`: all of it while fading in, what remains while holding,
  /// none once fading out or ended; `nil` for a hold that lasts until ended.
  public func holdLeft(at elapsed: Double) -> Double? {
    guard let index = segmentIndex(at: elapsed) else { return 0 }
    guard let hold = segments[index...].first(where: { $0.phase == .holding }) else { return 0 }
    return hold.end.isFinite ? hold.end - max(elapsed, hold.start) : nil
  }

  /// Starts fading out at `elapsed` from the opacity shown then, over `fadeOut × opacity`, or at
  /// once when `immediately`. Returns `false` if there was nothing left to fade.
  @discardableResult
  public mutating func fadeOut(at elapsed: Double, immediately: Bool = false) -> Bool {
    guard let index = segmentIndex(at: elapsed) else { return false }
    if segments[index].phase == .fadingOut && !immediately { return true }
    let opacity = self.opacity(at: elapsed)
    cut(at: elapsed, index: index)
    if !immediately { appendFadeOut(from: opacity) }
    return true
  }

  /// Holds for `hold` seconds more (until ended when `nil`), counted from `elapsed`, then fades out.
  ///
  /// During fade-in the fade-in runs on and the new hold follows it; during fade-out the notice
  /// fades back in from the opacity shown then. With `timing` (a replacement's), the fades that
  /// follow take its lengths and curves. Returns `false` if the timeline had ended.
  @discardableResult
  public mutating func restartHold(at elapsed: Double, hold: Double?, timing: Timing? = nil) -> Bool {
    guard let index = segmentIndex(at: elapsed) else { return false }
    if let timing { self.timing = timing }
    switch segments[index].phase {
    case .fadingIn:
      segments.removeSubrange((index + 1)...)
    case .fadingOut:
      let opacity = self.opacity(at: elapsed)
      cut(at: elapsed, index: index)
      appendFadeIn(at: elapsed, from: opacity)
    default:
      cut(at: elapsed, index: index)
    }
    appendHold(for: hold)
    appendFadeOut(from: 1)
    return true
  }

  // MARK: - Building segments

  private func segmentIndex(at elapsed: Double) -> Int? {
    segments.firstIndex { elapsed < $0.end }
  }

  private func segment(at elapsed: Double) -> Segment? {
    segmentIndex(at: elapsed).map { segments[$0] }
  }

  /// Ends segment `index` at `elapsed` and drops everything after it.
  private mutating func cut(at elapsed: Double, index: Int) {
    segments.removeSubrange((index + 1)...)
    if elapsed <= segments[index].start {
      segments.remove(at: index)
    } else {
      segments[index].end = elapsed
    }
  }

  private var tail: Double { segments.last?.end ?? 0 }

  private mutating func appendFadeIn(at start: Double, from opacity: Double) {
    let duration = timing.fadeIn * (1 - opacity)
    segments.append(
      Segment(phase: .fadingIn, start: start, duration: duration, from: opacity, to: 1, easing: timing.easeIn)
    )
  }

  private mutating func appendHold(for hold: Double?) {
    segments.append(
      Segment(phase: .holding, start: tail, duration: hold ?? .infinity, from: 1, to: 1, easing: .linear))
  }

  private mutating func appendFadeOut(from opacity: Double) {
    segments.append(
      Segment(
        phase: .fadingOut, start: tail, duration: timing.fadeOut * opacity, from: opacity, to: 0,
        easing: timing.easeOut))
  }
}
