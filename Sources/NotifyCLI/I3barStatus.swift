import NotifyProtocol

/// The status line `watch --format i3bar` prints for i3bar and swaybar: the blocks of one update.
///
/// The protocol is a header line, `{"version":1}`, then an endless JSON array whose elements are
/// status lines, each an array of blocks (i3bar-protocol(7)). Idle, the line is empty but for
/// "notifications suspended" and "N unread" when they are so; otherwise
/// one block shows the most important visible notice (with `(+N)` for the others), coloured by its
/// urgency at its opacity over the bar's background, and urgent when it is critical.
struct I3barStatus: Sendable, Equatable {
  /// One block of a status line, with i3bar's keys.
  struct Block: Encodable, Sendable, Equatable {
    var name = "notifyd"
    var fullText: String
    var shortText: String?
    var color: String?
    var urgent: Bool?

    private enum CodingKeys: String, CodingKey {
      case name, color, urgent
      case fullText = "full_text"
      case shortText = "short_text"
    }
  }

  /// The header line that starts the stream.
  static let header = #"{"version":1}"#
  /// The line that opens the endless array.
  static let opening = "["
  /// The longest `short_text`, which i3bar shows when space is short.
  static let shortTextColumns = 24

  var blocks: [Block]

  init(blocks: [Block]) {
    self.blocks = blocks
  }

  /// The status line for the queue as `tracker` knows it, in `palette`'s colours.
  init(_ tracker: NoticeTracker, palette: WatchPalette) {
    let visible = tracker.visible
    guard let top = visible.first else {
      var words = tracker.suspended ? ["notifications suspended"] : []
      if tracker.unread > 0 { words.append("\(tracker.unread) unread") }
      blocks =
        words.isEmpty
        ? []
        : [
          Block(
            fullText: words.joined(separator: ", "),
            color: palette.muted.composited(over: palette.background, opacity: 1).hex)
        ]
      return
    }
    var title = TextFormat.sanitized(top.displayTitle)
    if top.kind == .progress, let value = top.value { title += " \(min(max(value, 0), 100))%" }
    let text = visible.count > 1 ? "\(title) (+\(visible.count - 1))" : title
    let color = palette.accent(top.urgency).composited(over: palette.background, opacity: top.opacity)
    blocks = [
      Block(
        fullText: text, shortText: DisplayWidth.truncated(title, toColumns: Self.shortTextColumns),
        color: color.hex, urgent: top.urgency == .critical ? true : nil)
    ]
  }

  /// What the bar shows once the daemon has gone away.
  static let disconnected = I3barStatus(blocks: [Block(fullText: "notifyd is not running", urgent: true)])

  /// The line to print: the array of blocks, after a comma unless it is the first.
  func line(first: Bool) -> String {
    (first ? "" : ",") + JSONText.encode(blocks, pretty: false)
  }
}
