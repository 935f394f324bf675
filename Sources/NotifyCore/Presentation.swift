import NotifyProtocol

/// What the popups need of a shown notice beyond its record, resolved by the engine whenever it
/// changes, so that the display never asks the engine: the rules it matches (its look and its
/// clicks), what it does under a fullscreen window, and its timeline, from which its phase and
/// opacity at any instant follow.
public struct Presentation: Sendable, Equatable {
  /// The rules the notice matches, in the file's order (`QueueMachine.matchingRules(of:)`).
  public var rules: [Rule]
  /// What it does under a fullscreen window, as the engine holds it to.
  public var fullscreen: FullscreenPolicy
  /// Its appearance over time since it was shown.
  public var timeline: Timeline
  /// The instant (the scheduler's `now`) its timeline starts at.
  public var startedAt: Double

  public init(rules: [Rule], fullscreen: FullscreenPolicy, timeline: Timeline, startedAt: Double) {
    self.rules = rules
    self.fullscreen = fullscreen
    self.timeline = timeline
    self.startedAt = startedAt
  }

  /// Its phase and opacity at `now` (the scheduler's clock); `nil` once its timeline has ended.
  public func appearance(at now: Double) -> (phase: Phase, opacity: Double)? {
    timeline.appearance(at: max(now - startedAt, 0))
  }
}
