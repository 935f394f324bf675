import NotifyProtocol

/// The open notification center row by row, for a person who reads it rather than sees it: the
/// display makes it from the center's list (`CenterMachine.outline`) each time it changes, and the
/// accessibility bridge shows it to screen readers as a window with a list, the chosen row focused.
public struct CenterOutline: Equatable, Sendable {
  /// One row: a group's heading, or a notice's entry.
  public struct Row: Equatable, Sendable {
    /// The entry's notice; nil for a heading.
    public var notice: Int?
    /// A heading's group (its label); nil for an entry. With `notice`, what the row is across
    /// listings, whatever its words say.
    public var group: String?
    /// What is read first: a heading's group and count, an entry's "title. body".
    public var name: String
    /// What is read after: an entry's app and whether it is unread or on the screen.
    public var description: String
    /// An entry's notice is live (on the screen, or an indicator running): Enter opens it, Delete
    /// dismisses it; else Enter shows it again, Delete forgets it.
    public var live: Bool
    /// A live entry's buttons.
    public var buttons: [Action]

    public init(
      notice: Int?, group: String? = nil, name: String, description: String, live: Bool = false,
      buttons: [Action] = []
    ) {
      self.notice = notice
      self.group = group
      self.name = name
      self.description = description
      self.live = live
      self.buttons = buttons
    }
  }

  public var rows: [Row]
  /// The chosen row's index (what Up and Down move, Enter and Delete act on).
  public var chosen: Int?

  public init(rows: [Row], chosen: Int?) {
    self.rows = rows
    self.chosen = chosen
  }
}
