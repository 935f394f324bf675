/// The options of `watch`.
public struct WatchOptions: Sendable, Equatable {
  /// How `watch` prints what it sees.
  public enum Format: String, Sendable, Equatable, CaseIterable {
    /// The live view on a terminal; `lines` when standard output is not one.
    case auto
    /// One readable line per event.
    case lines
    /// One `Event` as JSON per line.
    case json
    /// One Waybar custom-module object per change.
    case waybar
    /// The i3bar protocol (also swaybar's): a header, then an endless array of status lines.
    case i3bar
  }

  public var format: Format
  public var frames: Bool
  public var fps: Int?

  public init(format: Format = .auto, frames: Bool = false, fps: Int? = nil) {
    self.format = format
    self.frames = frames
    self.fps = fps
  }
}
