/// The options of `watch`.
public struct WatchOptions: Sendable, Equatable {
  /// How `watch` prints what it sees.
  public enum Format: String, Sendable, Equatable, CaseIterable {
    /// One readable line per event.
    case lines
    /// One `Event` as JSON per line.
    case json
    /// One Waybar custom-module object per change.
    case waybar
  }

  public var format: Format
  public var frames: Bool
  public var fps: Int?

  public init(format: Format = .lines, frames: Bool = false, fps: Int? = nil) {
    self.format = format
    self.frames = frames
    self.fps = fps
  }
}
