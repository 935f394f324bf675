import NotifyCore
import NotifyProtocol

/// The open notification center's objects (DESIGN §18): a window "Notification center" under the
/// application, a list in it, a row per heading (role heading) and entry (list item, with its
/// buttons), the chosen row focused and selected — so that a screen reader follows Up, Down, Enter
/// and Delete through it as through any list.
struct CenterObjects: Sendable {
  var window: String
  var list: String
  /// Each row's path, by what it shows (`key(of:)`), in the list's order.
  var rows: [(key: String, path: String, row: CenterOutline.Row)]
  /// The focused row's path.
  var focused: String?
}

extension AccessibleTree {
  /// The window's name, as a screen reader says it.
  static let centerName = "Notification center"

  /// The open center's window, with the center's rows; nil when it is closed. The events tell it:
  /// the window added and activated when it opens, rows added and removed as the list changes, the
  /// focus moved to the chosen row; the window deactivated, removed and defunct when it closes.
  mutating func showCenter(_ outline: CenterOutline?, at now: Double) -> [AccessibleEvent] {
    defer { sweep(at: now) }
    guard let outline else { return closeCenter(at: now) }
    var events: [AccessibleEvent] = []
    if center == nil {
      // Its rows come with the window: a screen reader reads them as it reads the new window.
      events = openCenter()
      _ = followRows(outline.rows, at: now)
    } else {
      events = followRows(outline.rows, at: now)
    }
    events += focus(outline.chosen)
    return events
  }

  private mutating func openCenter() -> [AccessibleEvent] {
    let window = newPath()
    let list = newPath()
    nodes[window] = AccessibleNode(
      role: .window, name: Self.centerName, parent: Self.rootPath, children: [list],
      states: AccessibleStates.onScreen.union(.active))
    nodes[list] = AccessibleNode(role: .list, name: "Notices", parent: window, states: .onScreen)
    let index = nodes[Self.rootPath]!.children.count
    nodes[Self.rootPath]!.children.append(window)
    center = CenterObjects(window: window, list: list, rows: [], focused: nil)
    return [
      .childrenChanged(parent: Self.rootPath, added: true, index: index, child: window),
      .stateChanged(path: window, state: "active", on: true),
      .window(path: window, member: "Activate"),
    ]
  }

  private mutating func closeCenter(at now: Double) -> [AccessibleEvent] {
    guard let objects = center, let index = nodes[Self.rootPath]?.children.firstIndex(of: objects.window)
    else {
      return []
    }
    center = nil
    nodes[Self.rootPath]!.children.remove(at: index)
    let paths =
      [objects.window, objects.list] + objects.rows.flatMap { [$0.path] + (nodes[$0.path]?.children ?? []) }
    for path in paths {
      nodes[path]?.states.subtract([.showing, .visible, .focusable, .focused, .active])
      nodes[path]?.states.insert(.defunct)
    }
    lingering.append((now + Self.linger, paths))
    return [
      .window(path: objects.window, member: "Deactivate"),
      .stateChanged(path: objects.window, state: "showing", on: false),
      .childrenChanged(parent: Self.rootPath, added: false, index: index, child: objects.window),
      .stateChanged(path: objects.window, state: "defunct", on: true),
    ]
  }

  /// What identifies a row across listings: its notice, or its heading's group.
  private static func key(of row: CenterOutline.Row) -> String {
    if let notice = row.notice { return "notice \(notice)" }
    return "heading " + (row.group ?? row.name)
  }

  /// The list's rows as `rows` has them: a row whose words alone changed keeps its object (its
  /// name and description told); one whose actions changed, or that went, is removed; new ones are
  /// added where they stand.
  private mutating func followRows(_ rows: [CenterOutline.Row], at now: Double) -> [AccessibleEvent] {
    guard var objects = center else { return [] }
    var events: [AccessibleEvent] = []
    let keys = rows.map(Self.key(of:))
    let wanted = Dictionary(zip(keys, rows), uniquingKeysWith: { first, _ in first })
    var kept: [String: (path: String, row: CenterOutline.Row)] = [:]
    // Going first, from the last, so that each index is the list's as it is then.
    for (index, old) in objects.rows.enumerated().reversed() {
      if let new = wanted[old.key], new.live == old.row.live, new.buttons == old.row.buttons {
        kept[old.key] = (old.path, old.row)
        continue
      }
      events += retire(old.path, index: index, in: objects.list, at: now)
      if objects.focused == old.path { objects.focused = nil }
    }
    var made: [(key: String, path: String, row: CenterOutline.Row)] = []
    for (index, (key, row)) in zip(keys, rows).enumerated() {
      if let (path, before) = kept.removeValue(forKey: key) {
        if before.name != row.name {
          nodes[path]!.name = row.name
          events.append(.propertyChanged(path: path, property: "accessible-name", value: row.name))
        }
        if before.description != row.description {
          nodes[path]!.description = row.description
          events.append(
            .propertyChanged(path: path, property: "accessible-description", value: row.description))
        }
        made.append((key, path, row))
      } else {
        let path = makeRow(row, in: objects.list)
        made.append((key, path, row))
        events.append(.childrenChanged(parent: objects.list, added: true, index: index, child: path))
      }
    }
    nodes[objects.list]!.children = made.map(\.path)
    objects.rows = made
    center = objects
    return events
  }

  /// A row's object: a heading, or an entry with its actions and its buttons.
  private mutating func makeRow(_ row: CenterOutline.Row, in list: String) -> String {
    let path = newPath()
    let states = AccessibleStates.onScreen.union([.focusable, .selectable])
    guard let id = row.notice else {
      nodes[path] = AccessibleNode(role: .heading, name: row.name, parent: list, states: states)
      return path
    }
    var entry = AccessibleNode(
      role: .listItem, name: row.name, description: row.description, parent: list, states: states, notice: id)
    entry.actions = [
      AccessibleAction(
        name: row.live ? "open" : "restore",
        description: row.live ? "Opens the notice" : "Shows the notice again", deed: .openEntry),
      AccessibleAction(
        name: row.live ? "dismiss" : "forget",
        description: row.live ? "Dismisses the notice" : "Forgets the notice", deed: .forgetEntry),
    ]
    nodes[path] = entry
    var buttons: [String] = []
    for action in row.buttons {
      let buttonPath = newPath()
      var button = AccessibleNode(
        role: .pushButton, name: action.label.isEmpty ? action.key : action.label, parent: path,
        states: AccessibleStates.onScreen.union(.focusable), notice: id)
      button.actions = [AccessibleAction(name: "click", description: "", deed: .invoke(action.key))]
      nodes[buttonPath] = button
      buttons.append(buttonPath)
    }
    nodes[path]!.children = buttons
    return path
  }

  /// A row that went: removed from the list, defunct, answering a while.
  private mutating func retire(_ path: String, index: Int, in list: String, at now: Double)
    -> [AccessibleEvent]
  {
    let paths = [path] + (nodes[path]?.children ?? [])
    for each in paths {
      nodes[each]?.states.subtract([.showing, .visible, .focusable, .focused, .selected])
      nodes[each]?.states.insert(.defunct)
    }
    lingering.append((now + Self.linger, paths))
    return [
      .childrenChanged(parent: list, added: false, index: index, child: path),
      .stateChanged(path: path, state: "defunct", on: true),
    ]
  }

  /// The chosen row focused and selected (the one before no longer), and the focus told.
  private mutating func focus(_ chosen: Int?) -> [AccessibleEvent] {
    guard var objects = center else { return [] }
    let path = chosen.flatMap { objects.rows.indices.contains($0) ? objects.rows[$0].path : nil }
    guard path != objects.focused else { return [] }
    var events: [AccessibleEvent] = []
    if let old = objects.focused, nodes[old] != nil {
      nodes[old]!.states.subtract([.focused, .selected])
      events.append(.stateChanged(path: old, state: "focused", on: false))
    }
    if let path {
      nodes[path]!.states.formUnion([.focused, .selected])
      events += [.stateChanged(path: path, state: "focused", on: true), .focused(path: path)]
    }
    objects.focused = path
    center = objects
    return events
  }
}
