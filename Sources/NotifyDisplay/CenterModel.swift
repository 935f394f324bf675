import NotifyCore
import NotifyProtocol

/// One notice as the notification center lists it: what its row shows, and nothing else, so that
/// 10,000 of them stay small (the strings are the engine's own, shared).
public struct CenterEntry: Equatable, Sendable {
  public var id: Int
  public var app: String?
  public var title: String
  public var body: String?
  public var icon: String?
  public var urgency: Urgency
  /// Wall-clock seconds its time is told from: when it finished, else when it showed or came.
  public var time: Double
  /// The host it was relayed from.
  public var host: String?
  /// Unfinished: shown now, or an indicator still running.
  public var live: Bool
  /// An indicator's bar: its percentage, nil while it has none.
  public var value: Int?
  public var isIndicator: Bool
  public var hasDefaultAction: Bool
  /// A live notice's actions but `default`: its buttons.
  public var buttons: [Action]
  /// The engine counts it unread.
  public var unread: Bool
  /// Snoozed: the wall-clock time it comes back (DESIGN §19); a click brings it back now.
  public var snoozedUntil: Double?
  /// Shown now, unsnoozed: "Remind me" at its foot snoozes it.
  public var snoozable: Bool

  public init(_ notice: Notice) {
    id = notice.id
    app = notice.app
    title = notice.displayTitle
    body = notice.body
    icon = notice.icon
    urgency = notice.urgency
    time = notice.finished ?? notice.shown ?? notice.created
    host = notice.origin?.host
    live = notice.phase != .finished
    value = notice.value
    isIndicator = notice.kind == .progress
    hasDefaultAction = notice.actions?.contains { $0.key == Card.defaultActionKey } ?? false
    snoozedUntil = notice.snoozedUntil
    // A snoozed notice's actions answer once it is back: none of its buttons meanwhile.
    buttons =
      live && snoozedUntil == nil ? notice.actions?.filter { $0.key != Card.defaultActionKey } ?? [] : []
    snoozable = notice.phase.isVisible && notice.snoozedUntil == nil && notice.kind == .notice
    unread = notice.unread == true
  }

  /// Whether its row has buttons at its foot: its actions, or "Remind me".
  public var hasButtons: Bool { !buttons.isEmpty || snoozable }

  /// Whether `needle` (lowercased) is in its app, title or body.
  func matches(_ needle: String) -> Bool {
    title.lowercased().contains(needle) || app?.lowercased().contains(needle) == true
      || body.map { BodyMarkup.runs($0).map(\.text).joined().lowercased().contains(needle) } == true
  }
}

/// A heading of the center's list: what is live now, or one app's history.
public enum CenterGroup: Hashable, Sendable {
  case now
  /// Snoozed notices, the soonest back first.
  case snoozed
  case app(String)

  /// What its heading says.
  public var label: String {
    switch self {
    case .now: "Now"
    case .snoozed: "Snoozed"
    case .app(let name): name.isEmpty ? "Other" : name
    }
  }
}

/// One row of the center's list.
public enum CenterRow: Hashable, Sendable {
  /// A heading: its group, how many entries it has (shown or not), and whether they are hidden.
  case group(CenterGroup, count: Int, collapsed: Bool)
  /// The entry at this index of `entries`.
  case entry(Int)
}

/// The sizes the rows are laid out with, measured once from the fonts: a row's height follows from
/// what it has (an icon, a body, a bar, buttons), never from laying its text out, so that 10,000
/// entries are placed without a single layout.
public struct CenterMetrics: Sendable, Equatable {
  /// A heading's height.
  public var group: Double
  /// Above and below an entry's content.
  public var padding: Double
  /// An entry's icon's side.
  public var icon: Double
  /// The title's line.
  public var title: Double
  /// What two lines of body add under it.
  public var body: Double
  /// What an indicator's bar adds.
  public var bar: Double
  /// What a row of buttons adds.
  public var buttons: Double

  public init(
    group: Double, padding: Double, icon: Double, title: Double, body: Double, bar: Double, buttons: Double
  ) {
    self.group = group
    self.padding = padding
    self.icon = icon
    self.title = title
    self.body = body
    self.bar = bar
    self.buttons = buttons
  }

  /// The height of an entry's row.
  public func height(of entry: CenterEntry) -> Double {
    var text = title
    if entry.body?.isEmpty == false { text += body }
    if entry.isIndicator && entry.live { text += bar }
    let content = max(text, entry.icon == nil ? 0 : icon)
    return 2 * padding + content + (entry.hasButtons ? buttons : 0)
  }
}

/// What the notification center lists (DESIGN §13), as a value: the live notices, then history
/// grouped by app, newest first; which groups are collapsed, the filter typed, the row chosen by
/// keys, and how far the list is scrolled. The painter draws it; nothing here touches a display.
public struct CenterModel: Sendable {
  public let metrics: CenterMetrics
  /// Live entries first (newest first), then finished ones (newest first).
  public private(set) var entries: [CenterEntry] = []
  public private(set) var rows: [CenterRow] = []
  /// Each entry's group's number in the last rebuild (-1: filtered out).
  private var groupOf: [Int32] = []
  /// The entries' indices grouped, in the last rebuild.
  private var order: [Int32] = []
  /// Each row's top in the list, and the list's height last (`rows.count + 1` values).
  public private(set) var tops: [Double] = [0]
  public private(set) var collapsed: Set<CenterGroup> = []
  /// The text typed to filter by app, title and body; nil while not filtering.
  public private(set) var filter: String?
  /// The row chosen with the keys (Up, Down), by what it shows.
  public private(set) var selection: CenterSelection?
  /// How far the list is scrolled, in pixels.
  public private(set) var offset = 0.0
  /// The list's visible height.
  public private(set) var viewport = 0.0

  /// Finished notices beyond `maximumEntries`, not listed: the list's foot says how many.
  public private(set) var older = 0
  /// The most finished notices listed, newest first: what the center holds stays bounded however
  /// long `[Queue] HistorySize=` keeps them (`notifyctl history` lists the rest).
  public static let maximumEntries = 10_000

  public init(metrics: CenterMetrics) {
    self.metrics = metrics
  }

  /// Where the rows end.
  public var rowsEnd: Double { tops.last ?? 0 }

  /// The list's height: its rows, and the line under them that counts the older notices.
  public var contentHeight: Double { rowsEnd + (older > 0 ? metrics.group : 0) }

  /// Takes the notices the engine has now: `live` (unfinished) and `history` (finished, newest
  /// first). What is collapsed, filtered and chosen stays.
  public mutating func load(live: [Notice], history: [Notice]) {
    load(live: live, finished: history.count) { limit, add in history.prefix(limit).forEach(add) }
  }

  /// Takes the notices the engine has now: `live`, and of the `finished` ones the newest
  /// `maximumEntries`, which `history` hands over newest first when given that limit
  /// (`NoticeQueue.forEachFinished`). The list's storage is made once at its size and kept from one
  /// load to the next: loading again as events come allocates nothing new.
  public mutating func load(
    live: [Notice], finished: Int, history: (_ limit: Int, (Notice) -> Void) -> Void
  ) {
    let listed = min(finished, Self.maximumEntries)
    entries.removeAll(keepingCapacity: true)
    entries.reserveCapacity(live.count + listed)
    // What shows now, newest first; then what is snoozed, the soonest back first.
    let now = live.filter { $0.snoozedUntil == nil }.map(CenterEntry.init)
    let later = live.filter { $0.snoozedUntil != nil }.map(CenterEntry.init)
    entries.append(contentsOf: now.sorted { ($0.time, $0.id) > ($1.time, $1.id) })
    entries.append(contentsOf: later.sorted { ($0.snoozedUntil!, $0.id) < ($1.snoozedUntil!, $1.id) })
    history(Self.maximumEntries) { entries.append(CenterEntry($0)) }
    older = max(finished - (entries.count - live.count), 0)
    rebuild()
  }

  /// A live notice changed (an indicator's value, its text): its entry takes it where it stands,
  /// the rows placed again only if its height changed. Answers false when it is not listed live
  /// (the list must be loaded again).
  public mutating func update(_ notice: Notice) -> Bool {
    guard notice.phase != .finished,
      let index = entries.firstIndex(where: { $0.id == notice.id && $0.live })
    else { return false }
    let entry = CenterEntry(notice)
    // Snoozed or back: it changes groups, so the list is read again.
    guard entry.snoozedUntil == entries[index].snoozedUntil else { return false }
    let moved =
      metrics.height(of: entry) != metrics.height(of: entries[index])
      || (filter != nil && entry != entries[index])
    entries[index] = entry
    if moved { rebuild() }
    return true
  }

  /// The entry of notice `id`, if listed.
  public func entry(_ id: Int) -> CenterEntry? {
    entries.first { $0.id == id }
  }

  // MARK: - Rows

  private mutating func rebuild() {
    let needle = filter.map { $0.lowercased() } ?? ""
    // The groups in order of their newest entry, each entry's group, and how many each has.
    var groups: [CenterGroup] = []
    var numbers: [CenterGroup: Int] = [:]
    groupOf.removeAll(keepingCapacity: true)
    groupOf.reserveCapacity(entries.count)
    var counts: [Int] = []
    for entry in entries {
      guard needle.isEmpty || entry.matches(needle) else {
        groupOf.append(-1)
        continue
      }
      let group =
        entry.snoozedUntil != nil ? CenterGroup.snoozed : entry.live ? .now : .app(entry.app ?? "")
      let number: Int
      if let known = numbers[group] {
        number = known
      } else {
        number = groups.count
        numbers[group] = number
        groups.append(group)
        counts.append(0)
      }
      groupOf.append(Int32(number))
      counts[number] += 1
    }
    rows.removeAll(keepingCapacity: true)
    tops.removeAll(keepingCapacity: true)
    rows.reserveCapacity(entries.count + groups.count)
    tops.reserveCapacity(entries.count + groups.count + 1)
    var y = 0.0
    func add(_ row: CenterRow) {
      rows.append(row)
      tops.append(y)
      y += height(of: row)
    }
    // Each group's entries in order, by a counting sort on the group numbers.
    var starts = [0]
    for count in counts { starts.append(starts.last! + count) }
    var next = starts
    order.removeAll(keepingCapacity: true)
    order.append(contentsOf: repeatElement(0, count: starts.last!))
    for (index, number) in groupOf.enumerated() where number >= 0 {
      order[next[Int(number)]] = Int32(index)
      next[Int(number)] += 1
    }
    for (number, group) in groups.enumerated() {
      let folded = collapsed.contains(group)
      add(.group(group, count: counts[number], collapsed: folded))
      guard !folded else { continue }
      for slot in starts[number]..<starts[number + 1] { add(.entry(Int(order[slot]))) }
    }
    tops.append(y)
    if let selection, index(of: selection) == nil { self.selection = nil }
    clampOffset()
  }

  /// The height of `row`.
  public func height(of row: CenterRow) -> Double {
    guard case .entry(let index) = row else { return metrics.group }
    return metrics.height(of: entries[index])
  }

  /// The rows that show, at least partly, in the viewport: found by bisection, so a list of 10,000
  /// costs no more to draw than one of ten.
  public var visibleRows: Range<Int> {
    guard !rows.isEmpty else { return 0..<0 }
    let first = lastRow(startingAtOrAbove: offset)
    var last = first
    while last < rows.count && tops[last] < offset + viewport { last += 1 }
    return first..<max(last, first + 1)
  }

  /// The row at list position `y`, or the last one that starts above it.
  private func lastRow(startingAtOrAbove y: Double) -> Int {
    var low = 0
    var high = rows.count - 1
    while low < high {
      let middle = (low + high + 1) / 2
      if tops[middle] <= y { low = middle } else { high = middle - 1 }
    }
    return low
  }

  /// The row at `y` pixels below the viewport's top, if any.
  public func row(atViewportY y: Double) -> Int? {
    let position = offset + y
    guard !rows.isEmpty, position >= 0, position < rowsEnd else { return nil }
    return lastRow(startingAtOrAbove: position)
  }

  // MARK: - Scrolling

  /// The viewport is `height` pixels high.
  public mutating func setViewport(_ height: Double) {
    viewport = max(height, 0)
    clampOffset()
  }

  /// Scrolls by `pixels` (down when positive); answers whether the list moved.
  @discardableResult
  public mutating func scroll(by pixels: Double) -> Bool {
    let before = offset
    offset += pixels
    clampOffset()
    return offset != before
  }

  private mutating func clampOffset() {
    offset = min(max(offset, 0), max(contentHeight - viewport, 0))
  }

  // MARK: - Groups and filter

  /// Collapses `group`'s entries under its heading, or shows them again.
  public mutating func toggle(_ group: CenterGroup) {
    if collapsed.remove(group) == nil { collapsed.insert(group) }
    rebuild()
  }

  /// Starts filtering (`""`), changes the text, or stops (`nil`): the list shows only what matches.
  public mutating func setFilter(_ text: String?) {
    guard text != filter else { return }
    filter = text
    offset = 0
    rebuild()
  }

  // MARK: - Selection

  /// The index of the row `selection` names.
  public func index(of selection: CenterSelection) -> Int? {
    rows.indices.first { CenterSelection(rows[$0], entries: entries) == selection }
  }

  /// Chooses the row `by` rows below the chosen one (above when negative; the first row when none
  /// is chosen), and scrolls it into view.
  public mutating func moveSelection(by step: Int) {
    guard !rows.isEmpty else { return }
    let current = selection.flatMap(index(of:))
    let next = current.map { min(max($0 + step, 0), rows.count - 1) } ?? (step >= 0 ? 0 : rows.count - 1)
    select(row: next)
  }

  /// Chooses row `index` and scrolls it into view.
  public mutating func select(row index: Int) {
    guard rows.indices.contains(index) else { return }
    selection = CenterSelection(rows[index], entries: entries)
    if tops[index] < offset {
      offset = tops[index]
    } else if tops[index + 1] > offset + viewport {
      offset = tops[index + 1] - viewport
    }
    clampOffset()
  }
}

/// A row chosen by keys, by what it shows, so that it stays chosen as rows come and go.
public enum CenterSelection: Hashable, Sendable {
  case group(CenterGroup)
  case entry(Int)

  init(_ row: CenterRow, entries: [CenterEntry]) {
    switch row {
    case .group(let group, _, _): self = .group(group)
    case .entry(let index): self = .entry(entries[index].id)
    }
  }
}
