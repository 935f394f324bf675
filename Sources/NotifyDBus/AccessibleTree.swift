import NotifyProtocol

/// The roles notifyd's objects take: at-spi2-core's `AtspiRole`.
enum AccessibleRole: UInt32, Sendable {
  case label = 29
  case list = 31
  case listItem = 32
  case progressBar = 42
  case pushButton = 43
  case window = 69
  case application = 75
  case entry = 79
  case heading = 83
  case notification = 101

  /// As libatspi names it (its enumeration's nick, a space for each dash).
  var name: String {
    switch self {
    case .label: "label"
    case .list: "list"
    case .listItem: "list item"
    case .window: "window"
    case .heading: "heading"
    case .progressBar: "progress bar"
    case .pushButton: "push button"
    case .application: "application"
    case .entry: "entry"
    case .notification: "notification"
    }
  }
}

/// An object's states: at-spi2-core's `AtspiStateType`, bit N for state N.
struct AccessibleStates: OptionSet, Sendable, Hashable {
  let rawValue: UInt64

  static let active = AccessibleStates(rawValue: 1 << 1)
  static let defunct = AccessibleStates(rawValue: 1 << 6)
  static let editable = AccessibleStates(rawValue: 1 << 7)
  static let enabled = AccessibleStates(rawValue: 1 << 8)
  static let focusable = AccessibleStates(rawValue: 1 << 11)
  static let focused = AccessibleStates(rawValue: 1 << 12)
  static let selectable = AccessibleStates(rawValue: 1 << 22)
  static let selected = AccessibleStates(rawValue: 1 << 23)
  static let sensitive = AccessibleStates(rawValue: 1 << 24)
  static let showing = AccessibleStates(rawValue: 1 << 25)
  static let singleLine = AccessibleStates(rawValue: 1 << 26)
  static let visible = AccessibleStates(rawValue: 1 << 30)

  /// What every object on the screen has.
  static let onScreen: AccessibleStates = [.enabled, .sensitive, .visible, .showing]

  /// As `GetState` answers: two 32-bit words, the low one first.
  var words: [UInt32] { [UInt32(truncatingIfNeeded: rawValue), UInt32(truncatingIfNeeded: rawValue >> 32)] }
}

/// What an object's action does: a notice's action by its key, dismissing the notice, or sending
/// what its reply field holds; on the center's entry, what Enter or Delete on its row does.
enum AccessibleDeed: Equatable, Sendable {
  case invoke(String)
  case dismiss
  /// Snooze it for the first of `[Display] Snooze=`'s times, as "Remind me" does.
  case snooze
  case reply
  case openEntry
  case forgetEntry
}

/// One action of an object, as the Action interface lists it.
struct AccessibleAction: Equatable, Sendable {
  var name: String
  var description: String
  var deed: AccessibleDeed
}

/// One object of the tree.
struct AccessibleNode: Equatable, Sendable {
  var role: AccessibleRole
  var name: String
  var description = ""
  /// Its parent's path; `nil` for the application, whose parent is the registry's desktop.
  var parent: String?
  var children: [String] = []
  var states: AccessibleStates
  var actions: [AccessibleAction] = []
  /// A progress bar's percentage (the Value interface).
  var value: Double?
  /// A label's or the reply field's text (the Text interface).
  var text: String?
  /// The notice it shows.
  var notice: Int?

  /// The AT-SPI interfaces it implements, as `GetInterfaces` answers.
  var interfaces: [String] {
    var names = [AccessibleTree.Interface.accessible]
    if role == .application { names.append(AccessibleTree.Interface.application) }
    if !actions.isEmpty { names.append(AccessibleTree.Interface.action) }
    if text != nil { names.append(AccessibleTree.Interface.text) }
    if role == .entry { names.append(AccessibleTree.Interface.editableText) }
    if value != nil { names.append(AccessibleTree.Interface.value) }
    return names
  }
}

/// What a change of the tree tells the screen readers (`org.a11y.atspi.Event.Object`).
enum AccessibleEvent: Equatable, Sendable {
  /// `ChildrenChanged` "add" or "remove", from the parent, with the child's index then.
  case childrenChanged(parent: String, added: Bool, index: Int, child: String)
  /// `StateChanged` of `state` (its nick: "showing", "defunct") to on or off, from the object.
  case stateChanged(path: String, state: String, on: Bool)
  /// `PropertyChange` of the name or description ("accessible-name"), from the object.
  case propertyChanged(path: String, property: String, value: String)
  /// `PropertyChange` "accessible-value": a progress bar moved.
  case valueChanged(path: String)
  /// `org.a11y.atspi.Event.Focus.Focus` from the object now focused.
  case focused(path: String)
  /// `org.a11y.atspi.Event.Window.<member>` ("Activate", "Deactivate") from a window.
  case window(path: String, member: String)
}

/// notifyd's AT-SPI2 tree (DESIGN §18) as a value: the application, and under it one object of
/// role notification per card on the screen — its name the app's, its description the body, a
/// label "title. body", a push button per action button, the reply field as an entry, a progress
/// bar with its value. Handed the notices whose cards are on the screen, it changes and lists the
/// events that tell it: a card that first shows is added and announced once (`showing`), not per
/// frame; one whose text a replacement changed is announced again at most once an
/// `announceInterval`; one that leaves is unannounced, removed and `defunct`, and keeps answering
/// for `linger` seconds, so that a screen reader asking late gets an answer.
struct AccessibleTree: Sendable {
  /// The application's path: libatspi takes an application's root to be there.
  static let rootPath = "/org/a11y/atspi/accessible/root"
  /// Where the other objects are: the prefix, then a number never used twice.
  static let pathPrefix = "/org/a11y/atspi/accessible/"
  /// Seconds a finished card's objects keep answering, defunct.
  static let linger = 5.0
  /// Seconds between two announcements of one card whose text changes.
  static let announceInterval = 2.0
  /// The most finished cards kept answering at once (the oldest go first past it): a flood of
  /// replacements holds no more.
  static let maximumLingering = 256

  /// The interfaces' names.
  enum Interface {
    static let accessible = "org.a11y.atspi.Accessible"
    static let application = "org.a11y.atspi.Application"
    static let action = "org.a11y.atspi.Action"
    static let text = "org.a11y.atspi.Text"
    static let editableText = "org.a11y.atspi.EditableText"
    static let value = "org.a11y.atspi.Value"
  }

  /// A card's objects and what they show.
  private struct CardObjects: Sendable {
    var path: String
    var shows: Shown
    var announced: Double
  }

  /// What a card's objects are made from: a change in it makes them again.
  private struct Shown: Equatable, Sendable {
    var app: String
    var title: String
    var body: String
    var actions: [Action]
    var hasDefault: Bool
    var reply: String?
    var value: Int?

    init(_ notice: Notice) {
      app = notice.app.flatMap { $0.isEmpty ? nil : $0 } ?? "notifyd"
      title = BodyMarkup.plainText(notice.displayTitle)
      body = notice.body.map(BodyMarkup.plainText) ?? ""
      actions = notice.actions?.filter { $0.key != AccessibleTree.defaultAction } ?? []
      hasDefault = notice.actions?.contains { $0.key == AccessibleTree.defaultAction } ?? false
      reply = notice.reply
      value = notice.kind == .progress ? notice.value : nil
    }

    /// The label's text: "title. body".
    var label: String { BodyMarkup.sentences([title, body], closingLast: false) }
  }

  static let defaultAction = "default"

  /// Every object answering, by path (the center's too: `AccessibleTree+Center.swift`).
  var nodes: [String: AccessibleNode]
  private var cards: [Int: CardObjects] = [:]
  /// Finished cards' paths (each with its descendants), and until when they answer.
  var lingering: [(until: Double, paths: [String])] = []
  private var nextNumber = 1
  /// The open center's objects.
  var center: CenterObjects?

  init(name: String = "notifyd") {
    nodes = [Self.rootPath: AccessibleNode(role: .application, name: name, parent: nil, states: .onScreen)]
  }

  /// The object at `path`.
  func node(_ path: String) -> AccessibleNode? { nodes[path] }

  /// How many objects answer, the root's included.
  var nodeCount: Int { nodes.count }

  /// The cards on the screen, in the application's order.
  var cardPaths: [String] {
    (nodes[Self.rootPath]?.children ?? []).filter { nodes[$0]?.role == .notification }
  }

  /// When the next lingering card stops answering.
  var nextSweep: Double? { lingering.first?.until }

  // MARK: - Following the screen

  /// The notices whose cards are on the screen now, at `now` (seconds): what changed, as events.
  mutating func show(_ notices: [Notice], at now: Double) -> [AccessibleEvent] {
    var events: [AccessibleEvent] = []
    let shown = Set(notices.map(\.id))
    for id in cards.keys.sorted() where !shown.contains(id) {
      events += remove(id, at: now)
    }
    for notice in notices {
      let wanted = Shown(notice)
      guard let card = cards[notice.id] else {
        events += add(notice.id, wanted, at: now)
        continue
      }
      guard card.shows != wanted else { continue }
      events += change(notice.id, to: wanted, at: now)
    }
    sweep(at: now)
    return events
  }

  /// Lets the lingering cards whose time is up go: they no longer answer.
  mutating func sweep(at now: Double) {
    while let first = lingering.first, first.until <= now || lingering.count > Self.maximumLingering {
      lingering.removeFirst()
      for path in first.paths { nodes[path] = nil }
    }
  }

  mutating func newPath() -> String {
    defer { nextNumber += 1 }
    return Self.pathPrefix + "\(nextNumber)"
  }

  private mutating func add(_ id: Int, _ shown: Shown, at now: Double) -> [AccessibleEvent] {
    let path = newPath()
    var card = AccessibleNode(
      role: .notification, name: shown.app, description: shown.body, parent: Self.rootPath, states: .onScreen,
      notice: id)
    if shown.hasDefault {
      card.actions.append(
        AccessibleAction(name: "open", description: "Opens the notice", deed: .invoke(Self.defaultAction)))
    }
    card.actions.append(
      AccessibleAction(name: "dismiss", description: "Dismisses the notice", deed: .dismiss))
    card.actions.append(
      AccessibleAction(
        name: "remind me", description: "Snoozes the notice: it comes back later", deed: .snooze))
    nodes[path] = card
    makeChildren(of: path, id, shown)
    let index = nodes[Self.rootPath]!.children.count
    nodes[Self.rootPath]!.children.append(path)
    cards[id] = CardObjects(path: path, shows: shown, announced: now)
    return [
      .childrenChanged(parent: Self.rootPath, added: true, index: index, child: path),
      .stateChanged(path: path, state: "showing", on: true),
    ]
  }

  /// A card's children: its label, its buttons, its reply field, its progress bar.
  private mutating func makeChildren(of path: String, _ id: Int, _ shown: Shown) {
    var children: [String] = []
    func child(_ node: AccessibleNode) {
      let childPath = newPath()
      var node = node
      node.parent = path
      node.notice = id
      nodes[childPath] = node
      children.append(childPath)
    }
    child(AccessibleNode(role: .label, name: shown.label, states: .onScreen, text: shown.label))
    if let value = shown.value {
      var bar = AccessibleNode(role: .progressBar, name: "\(value)%", states: .onScreen)
      bar.value = Double(value)
      child(bar)
    }
    if let placeholder = shown.reply {
      var field = AccessibleNode(
        role: .entry, name: placeholder.isEmpty ? "Reply" : placeholder,
        states: AccessibleStates.onScreen.union([.editable, .focusable, .singleLine]), text: "")
      field.actions = [AccessibleAction(name: "send", description: "Sends the reply typed", deed: .reply)]
      child(field)
    }
    for action in shown.actions {
      var button = AccessibleNode(
        role: .pushButton, name: action.label.isEmpty ? action.key : action.label,
        states: AccessibleStates.onScreen.union(.focusable))
      button.actions = [AccessibleAction(name: "click", description: "", deed: .invoke(action.key))]
      child(button)
    }
    nodes[path]!.children = children
  }

  private mutating func remove(_ id: Int, at now: Double) -> [AccessibleEvent] {
    guard let card = cards.removeValue(forKey: id),
      let index = nodes[Self.rootPath]?.children.firstIndex(of: card.path)
    else {
      return []
    }
    nodes[Self.rootPath]!.children.remove(at: index)
    let paths = [card.path] + (nodes[card.path]?.children ?? [])
    for path in paths {
      nodes[path]?.states.subtract([.showing, .visible, .focusable])
      nodes[path]?.states.insert(.defunct)
    }
    lingering.append((now + Self.linger, paths))
    return [
      .stateChanged(path: card.path, state: "showing", on: false),
      .childrenChanged(parent: Self.rootPath, added: false, index: index, child: card.path),
      .stateChanged(path: card.path, state: "defunct", on: true),
    ]
  }

  /// A card whose notice changed: its words in place (announced again if its text changed, at
  /// most once an `announceInterval`), its value, and its children again if its buttons or field
  /// did.
  private mutating func change(_ id: Int, to shown: Shown, at now: Double) -> [AccessibleEvent] {
    guard var card = cards[id], let node = nodes[card.path] else { return [] }
    var events: [AccessibleEvent] = []
    let before = card.shows
    if before.app != shown.app {
      nodes[card.path]!.name = shown.app
      events.append(.propertyChanged(path: card.path, property: "accessible-name", value: shown.app))
    }
    if before.body != shown.body {
      nodes[card.path]!.description = shown.body
      events.append(.propertyChanged(path: card.path, property: "accessible-description", value: shown.body))
    }
    let sameParts =
      before.actions == shown.actions && before.reply == shown.reply
      && (before.value == nil) == (shown.value == nil)
      && before.hasDefault == shown.hasDefault
    if sameParts {
      for path in node.children {
        if nodes[path]?.role == .label, before.label != shown.label {
          nodes[path]!.name = shown.label
          nodes[path]!.text = shown.label
          events.append(.propertyChanged(path: path, property: "accessible-name", value: shown.label))
        }
        if nodes[path]?.role == .progressBar, let value = shown.value, before.value != value {
          nodes[path]!.value = Double(value)
          nodes[path]!.name = "\(value)%"
          events.append(.valueChanged(path: path))
        }
      }
    } else {
      // Its parts changed: the old children go (answering a while), new ones come.
      for (index, path) in node.children.enumerated().reversed() {
        nodes[path]?.states.subtract([.showing, .visible])
        nodes[path]?.states.insert(.defunct)
        events.append(.childrenChanged(parent: card.path, added: false, index: index, child: path))
      }
      lingering.append((now + Self.linger, node.children))
      nodes[card.path]!.actions.removeAll { $0.deed == .invoke(Self.defaultAction) }
      if shown.hasDefault {
        nodes[card.path]!.actions.insert(
          AccessibleAction(name: "open", description: "Opens the notice", deed: .invoke(Self.defaultAction)),
          at: 0)
      }
      makeChildren(of: card.path, id, shown)
      for (index, path) in nodes[card.path]!.children.enumerated() {
        events.append(.childrenChanged(parent: card.path, added: true, index: index, child: path))
      }
    }
    card.shows = shown
    if (before.title, before.body) != (shown.title, shown.body), now - card.announced >= Self.announceInterval
    {
      card.announced = now
      events.append(.stateChanged(path: card.path, state: "showing", on: true))
    }
    cards[id] = card
    return events
  }

  // MARK: - What a screen reader does

  /// The text typed into the reply field at `path` (`EditableText`); false when it is none, or the
  /// text is longer than a reply may be (`RequestLimits.maximumReplyLength` bytes).
  mutating func setText(_ text: String, at path: String) -> Bool {
    guard nodes[path]?.role == .entry, nodes[path]?.states.contains(.defunct) == false,
      text.utf8.count <= RequestLimits.maximumReplyLength
    else { return false }
    nodes[path]!.text = text
    return true
  }
}
