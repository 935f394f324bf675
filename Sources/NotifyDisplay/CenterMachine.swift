import NotifyCore
import NotifyProtocol

/// What the engine has for the center, read when it opens and again as events come: the live
/// notices, how many finished ones it keeps, and the newest of them handed over by `history` (at
/// most the limit it is given, newest first: `NoticeReading.forEachFinished`).
public struct CenterListing: Sendable {
  public var live: [Notice]
  public var finished: Int
  public var history: @Sendable (_ limit: Int, (Notice) -> Void) -> Void
  /// Do-not-disturb: whether it is on, and the rule that holds it.
  public var suspended: Bool
  public var doNotDisturb: DoNotDisturb?

  public init(
    live: [Notice], finished: Int, suspended: Bool = false, doNotDisturb: DoNotDisturb? = nil,
    history: @escaping @Sendable (_ limit: Int, (Notice) -> Void) -> Void
  ) {
    self.live = live
    self.finished = finished
    self.suspended = suspended
    self.doNotDisturb = doNotDisturb
    self.history = history
  }

  /// `history`, newest first, handed over from an array.
  public init(live: [Notice], history: [Notice], suspended: Bool = false) {
    self.init(live: live, finished: history.count, suspended: suspended) { limit, add in
      history.prefix(limit).forEach(add)
    }
  }
}

/// A change the center asks of the engine: carried out through `NoticeService`.
public enum CenterRequest: Equatable, Sendable {
  /// Do-not-disturb on (`true`) or off.
  case doNotDisturb(Bool)
  /// Every live notice dismissed and the history forgotten ("Clear all").
  case clearAll
  case dismiss(Int)
  case forget(Int)
  case invoke(Int, action: String)
  case restore(Int)
  /// Snooze it for the first of `[Display] Snooze=`'s times ("Remind me").
  case snooze(Int)
  /// Bring a snoozed notice back now.
  case unsnooze(Int)
  /// Finished notices seen in the list: read now (DESIGN §13).
  case read([Int])
}

/// What `CenterMachine` asks its driver to do.
public enum CenterEffect: Equatable, Sendable {
  /// Paint the panel again.
  case redraw
  /// Read what the engine has (`CenterMachine.list`) in `after` seconds; 0 is at once.
  case list(after: Double)
  case request(CenterRequest)
  /// Close the center.
  case close
}

/// Where the center's parts are: `CenterPainter` measures with pango; tests with arithmetic.
public protocol CenterMeasuring {
  var metrics: CenterMetrics { get }
  /// The header's height, with the filter's field while filtering.
  func headerHeight(filtering: Bool) -> Double
  /// What the point (`x`, `y`) of a panel `width` pixels wide is on.
  func target(of model: CenterModel, x: Double, y: Double, width: Double) -> CenterTarget?
}

extension CenterPainter: CenterMeasuring {}

/// The notification center while it is open (DESIGN §13), as a pure value in `DisplayMachine`'s
/// shape: what the engine lists, the panel's size, the pointer, buttons and keys go in; effects
/// come out (paint again, list again, a request to the engine, close). It holds the list
/// (`CenterModel`) and what the header shows (`CenterLook`); it takes no lock and calls nothing.
public struct CenterMachine {
  let measure: any CenterMeasuring
  public private(set) var model: CenterModel
  public private(set) var look = CenterLook()
  /// The panel's size, once the display server gave it.
  public private(set) var size: (width: Int, height: Int)?
  /// Notices asked to be read, so that each is asked once.
  private var readAsked: Set<Int> = []
  /// Whether a listing is asked for and not yet come.
  private var listing = false
  /// When it was listed last (the driver's clock, seconds).
  private var listedAt = -Double.infinity
  /// The row chosen once the list comes again: where a forgotten entry was.
  private var chooseAfterListing: Int?
  private var effects: [CenterEffect] = []

  /// The longest filter typed, in bytes.
  public static let maximumFilterLength = 256
  /// Seconds between two listings as events come: a flood costs a listing or so a frame's time.
  public static let listingInterval = 0.1

  public init(measure: any CenterMeasuring) {
    self.measure = measure
    model = CenterModel(metrics: measure.metrics)
  }

  /// The effects since the last call, in order.
  public mutating func takeEffects() -> [CenterEffect] {
    defer { effects.removeAll(keepingCapacity: true) }
    return effects
  }

  // MARK: - What it lists

  /// What the engine has now, at `now` on the driver's clock. Entries unread when first listed stay
  /// marked while the center is open.
  public mutating func list(_ listing: CenterListing, at now: Double) {
    self.listing = false
    listedAt = now
    model.load(live: listing.live, finished: listing.finished, history: listing.history)
    var marked = Set<Int>()
    for entry in model.entries
    where look.marked.contains(entry.id) || (entry.unread && !readAsked.contains(entry.id)) {
      marked.insert(entry.id)
    }
    look.marked = marked
    look.suspended = listing.suspended
    look.doNotDisturb = listing.doNotDisturb
    if let row = chooseAfterListing {
      chooseAfterListing = nil
      model.select(row: min(row, model.rows.count - 1))
    }
    effects.append(.redraw)
  }

  /// An engine event at `now`: a live entry changing is taken in place; anything else that changes
  /// the list lists it again, at most once a `listingInterval`.
  public mutating func event(_ event: Event, at now: Double) {
    guard !listing else { return }
    switch event.kind {
    case .frame: return
    // A phase matters only as a notice starts to show: fading in, or holding (a notice without a
    // fade-in may say only that); its finishing comes as `finished`.
    case .phase where event.phase != .fadingIn && event.phase != .holding: return
    // An indicator moving, or a live notice's text changing: its entry alone.
    case .updated where event.notice.map({ model.update($0) }) == true:
      effects.append(.redraw)
      return
    default: break
    }
    listing = true
    effects.append(.list(after: max(listedAt + Self.listingInterval - now, 0)))
  }

  /// The panel was painted: its unread finished entries on screen are read now, each asked once.
  public mutating func painted() {
    var ids: [Int] = []
    for index in model.visibleRows {
      guard case .entry(let position) = model.rows[index] else { continue }
      let entry = model.entries[position]
      if entry.unread && !entry.live && readAsked.insert(entry.id).inserted { ids.append(entry.id) }
    }
    if !ids.isEmpty { effects.append(.request(.read(ids))) }
  }

  // MARK: - The panel

  /// What the display server said of the panel.
  public mutating func handle(_ input: CenterInput) {
    switch input {
    case .resized(let width, let height):
      size = (width, height)
      placeList()
    case .pointerMoved(let x, let y):
      guard size != nil else { return }
      let target = self.target(x: x, y: y)
      guard target != look.hover else { return }
      look.hover = target
      effects.append(.redraw)
    case .pointerLeft:
      guard look.hover != nil else { return }
      look.hover = nil
      effects.append(.redraw)
    case .scrolled(let pixels):
      guard model.scroll(by: pixels) else { return }
      // What was under the pointer moved: the row it is over now is lit on its next move.
      look.hover = nil
      effects.append(.redraw)
    case .pressed(let button, let x, let y):
      guard size != nil, let target = target(x: x, y: y) else { return }
      switch (button, target) {
      case (.left, _): carryOut(target)
      case (.middle, .entry(let id)), (.middle, .forget(let id)), (.middle, .button(let id, _)),
        (.middle, .snooze(let id)):
        carryOut(.forget(id))
      default: break
      }
    case .closed:
      effects.append(.close)
    }
  }

  /// The list's viewport is what the header leaves of the panel.
  private mutating func placeList() {
    guard let size else { return }
    model.setViewport(Double(size.height) - measure.headerHeight(filtering: model.filter != nil))
  }

  private func target(x: Double, y: Double) -> CenterTarget? {
    guard let size else { return nil }
    return measure.target(of: model, x: x, y: y, width: Double(size.width))
  }

  /// Does what a click on `target` asks; what changed in the engine is listed at once, not after
  /// its events come back.
  private mutating func carryOut(_ target: CenterTarget) {
    switch target {
    case .doNotDisturb:
      effects.append(.request(.doNotDisturb(!look.suspended)))
    case .clearAll:
      effects.append(.request(.clearAll))
    case .group(let group):
      model.toggle(group)
      effects.append(.redraw)
      return
    case .forget(let id):
      guard let entry = model.entry(id) else { return }
      effects.append(.request(entry.live ? .dismiss(id) : .forget(id)))
    case .button(let id, let key):
      effects.append(.request(.invoke(id, action: key)))
      return
    case .snooze(let id):
      effects.append(.request(.snooze(id)))
      return
    case .entry(let id):
      guard let entry = model.entry(id) else { return }
      // Its default action while it is live, else it is shown again (a snoozed one now): either
      // way the person goes to it, and the center closes.
      if entry.snoozedUntil != nil {
        effects.append(.request(.unsnooze(id)))
      } else if entry.live {
        guard entry.hasDefaultAction else { return }
        effects.append(.request(.invoke(id, action: Card.defaultActionKey)))
      } else {
        effects.append(.request(.restore(id)))
      }
      effects.append(.close)
      return
    }
    listing = true
    effects.append(.list(after: 0))
  }

  /// A screen reader acts on entry `id` (its accessible object's actions): as Enter on its row
  /// (`forget` false), or Delete (true).
  public mutating func act(on id: Int, forget: Bool) {
    guard let index = model.index(of: .entry(id)) else { return }
    model.select(row: index)
    effects.append(.redraw)
    if forget { chooseAfterListing = index }
    carryOut(forget ? .forget(id) : .entry(id))
  }

  // MARK: - What a screen reader reads

  /// The most rows the outline holds: around the chosen row, when there are more.
  public static let maximumOutlineRows = 500

  /// The list as a screen reader reads it: at most `maximumOutlineRows` rows, the chosen one among
  /// them.
  public var outline: CenterOutline {
    let rows = model.rows
    let chosen = model.selection.flatMap(model.index(of:))
    let limit = Self.maximumOutlineRows
    let first = rows.count <= limit ? 0 : min(max((chosen ?? 0) - limit / 2, 0), rows.count - limit)
    let window = rows[first..<min(first + limit, rows.count)]
    return CenterOutline(
      rows: window.map { row in
        switch row {
        case .group(let group, let count, let collapsed):
          let words = "\(group.label), \(count) \(count == 1 ? "notice" : "notices")"
          return CenterOutline.Row(
            notice: nil, group: group.label, name: words + (collapsed ? ", collapsed" : ""), description: "")
        case .entry(let index):
          let entry = model.entries[index]
          var about = [entry.app.flatMap { $0.isEmpty ? nil : $0 } ?? "Other"]
          if entry.unread { about.append("unread") }
          if let until = entry.snoozedUntil {
            about.append("snoozed until " + CenterPainter.clockTime(until))
          } else if entry.live {
            about.append(entry.isIndicator ? "running" : "on the screen")
          }
          return CenterOutline.Row(
            notice: entry.id,
            name: BodyMarkup.sentences(
              [BodyMarkup.plainText(entry.title), entry.body.map(BodyMarkup.plainText) ?? ""],
              closingLast: false),
            description: about.joined(separator: ", "), live: entry.live, buttons: entry.buttons)
        }
      }, chosen: chosen.map { $0 - first })
  }

  // MARK: - Keys

  /// A key while the center is open: Up, Down (j, k), Page Up, Page Down, Home, End move; Enter
  /// does what a click on the chosen row does; Delete forgets it (and the row after it is chosen);
  /// text filters ("/" starts an empty filter, so that one can begin with j or k); Escape ends the
  /// filter, else closes.
  public mutating func key(_ key: KeyInput) {
    let filtering = model.filter != nil
    switch key {
    case .up: model.moveSelection(by: -1)
    case .down: model.moveSelection(by: 1)
    case .text("k") where !filtering: model.moveSelection(by: -1)
    case .text("j") where !filtering: model.moveSelection(by: 1)
    case .pageUp: model.scroll(by: -model.viewport * 0.9)
    case .pageDown: model.scroll(by: model.viewport * 0.9)
    case .home: model.select(row: 0)
    case .end: model.select(row: model.rows.count - 1)
    case .enter:
      switch model.selection {
      case .group(let group)?: carryOut(.group(group))
      case .entry(let id)?: carryOut(.entry(id))
      case nil: break
      }
      return
    case .delete:
      guard case .entry(let id)? = model.selection, let index = model.selection.flatMap(model.index(of:))
      else { return }
      chooseAfterListing = index
      carryOut(.forget(id))
    case .escape:
      guard filtering else {
        effects.append(.close)
        return
      }
      model.setFilter(nil)
      placeList()
    case .backspace:
      guard let filter = model.filter else { return }
      model.setFilter(filter.isEmpty ? nil : String(filter.dropLast()))
      placeList()
    case .text(let text):
      let typed = text == "/" && !filtering ? "" : (model.filter ?? "") + text
      guard typed.utf8.count <= Self.maximumFilterLength else { return }
      model.setFilter(typed)
      placeList()
    }
    effects.append(.redraw)
  }
}
