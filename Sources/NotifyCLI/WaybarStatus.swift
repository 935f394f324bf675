import NotifyProtocol

/// The object a Waybar `custom` module with `"return-type": "json"` reads, one per line.
///
/// Text is the most important visible notice's title (with `(+N)` for the others), or with none
/// visible the number of unread notices (empty with none); the tooltip lists every visible notice
/// (or says how many are unread); the classes say its urgency and phase (and `progress`,
/// `suspended` and `dnd`, `quiet-hours`, `unread`, `idle`, `disconnected`); `alt` is one of
/// `none`, `unread`, `dnd-none`, `dnd-unread` for a module's `format-icons` (a bell, with a dot,
/// struck through); the percentage is a progress value or the opacity × 100.
public struct WaybarStatus: Encodable, Sendable, Equatable {
  public var text: String
  public var alt: String
  public var tooltip: String
  public var classes: [String]
  public var percentage: Int

  private enum CodingKeys: String, CodingKey {
    case text, alt, tooltip, percentage
    case classes = "class"
  }

  public init(text: String, alt: String = "none", tooltip: String, classes: [String], percentage: Int) {
    self.text = text
    self.alt = alt
    self.tooltip = tooltip
    self.classes = classes
    self.percentage = percentage
  }

  /// What the bar should show for the queue as `tracker` knows it.
  public init(_ tracker: NoticeTracker) {
    let visible = tracker.visible
    var stateClasses = tracker.suspended ? ["suspended", "dnd"] : []
    if tracker.doNotDisturb?.reason == .schedule { stateClasses.append("quiet-hours") }
    if tracker.unread > 0 { stateClasses.append("unread") }
    let alt = (tracker.suspended ? "dnd-" : "") + (tracker.unread > 0 ? "unread" : "none")
    guard let top = visible.first else {
      var tooltip = tracker.suspended ? [Self.suspendedTooltip(tracker.doNotDisturb)] : []
      if tracker.unread > 0 {
        tooltip.append("\(tracker.unread) unread notice\(tracker.unread == 1 ? "" : "s") (notifyctl restore)")
      }
      self.init(
        text: tracker.unread > 0 ? "\(tracker.unread)" : "", alt: alt,
        tooltip: tooltip.joined(separator: "\n"),
        classes: ["idle"] + stateClasses, percentage: 0)
      return
    }
    let title = TextFormat.sanitized(top.displayTitle)
    let text = visible.count > 1 ? "\(title) (+\(visible.count - 1))" : title
    let tooltip = visible.map { notice in
      let title = TextFormat.sanitized(notice.displayTitle)
      guard let body = notice.body, !body.isEmpty else { return title }
      return "\(title): \(TextFormat.bodyText(body))"
    }.joined(separator: "\n")
    var classes = [top.urgency.rawValue, top.phase.rawValue]
    if top.kind == .progress { classes.append("progress") }
    let percentage: Int
    if top.kind == .progress, let value = top.value {
      percentage = min(max(value, 0), 100)
    } else {
      percentage = Int((min(max(top.opacity, 0), 1) * 100).rounded())
    }
    self.init(
      text: text, alt: alt, tooltip: tooltip, classes: classes + stateClasses, percentage: percentage)
  }

  /// "Notifications suspended by quiet hours until 07:00; critical ones show".
  static func suspendedTooltip(_ dnd: DoNotDisturb?) -> String {
    guard let dnd else { return "Notifications suspended" }
    var text = "Notifications suspended " + (dnd.reason == .schedule ? "by quiet hours" : "by hand")
    if let until = dnd.until { text += " until " + TextFormat.localTime(until, "%H:%M") }
    return text + (dnd.allow == .nothing ? "; nothing shows" : "; critical ones show")
  }

  /// What the bar shows once the daemon has gone away.
  public static let disconnected = WaybarStatus(
    text: "", tooltip: "notifyd is not running", classes: ["disconnected"], percentage: 0)
}
