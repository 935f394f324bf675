import CPangoCairo
import Dispatch
import Glibc
import NotifyCore
import NotifyPosix
import NotifyProtocol
import NotifyService

/// The notification center while it is open: what it lists, how it looks, and the timers it keeps.
/// Made on opening and let go on closing, so that a closed center holds nothing and wakes nothing.
final class CenterSession {
  var model: CenterModel
  var look = CenterLook()
  /// The panel's size, once the display server gave it.
  var size: (width: Int, height: Int)?
  /// Notices asked to be marked read, so that each is asked once.
  var readAsked: Set<Int> = []
  /// Whether the list is loaded from the engine again once the events queued so far are applied.
  var reloadScheduled = false
  /// When it was loaded last (`Posix.monotonicNow()`).
  var lastLoad = 0.0
  /// Tells the times again once a minute; cancelled as the session goes.
  var clock: (any DispatchSourceTimer)?

  init(metrics: CenterMetrics) {
    model = CenterModel(metrics: metrics)
  }

  deinit { clock?.cancel() }
}

/// The failure `PopupDisplay.center` answers with: why nothing is drawn.
public struct CenterFailure: Error, Sendable {
  public var reason: String
}

// The notification center (DESIGN §13): a panel the backend shows on an edge of the output, drawn
// by `CenterPainter`, listing what the engine has now and following its events while it is open.
extension PopupDisplay {
  /// The longest filter typed, in bytes.
  static let maximumFilterLength = 256
  /// Seconds between two loads of the list as events come.
  static let reloadInterval = 0.1

  /// Opens, closes or toggles the center; `done` is told (on the display's queue) whether it is
  /// open now, or why nothing is drawn.
  public func center(
    _ action: CenterAction, done: @escaping @Sendable (Result<Bool, CenterFailure>) -> Void
  ) {
    queue.async { [self] in
      let open: Bool
      switch action {
      case .open: open = true
      case .close: open = false
      case .toggle: open = center == nil
      }
      guard open else {
        closeCenter()
        done(.success(false))
        return
      }
      guard connected else {
        done(.failure(CenterFailure(reason: notices.status().display?.detail ?? "no display")))
        return
      }
      guard !isSuppressed else {
        done(.failure(CenterFailure(reason: "notices go to another server, which shows them")))
        return
      }
      if center == nil {
        if let why = backend.openCenter() {
          done(.failure(CenterFailure(reason: why)))
          return
        }
        openCenter()
      }
      done(.success(true))
    }
  }

  private func openCenter() {
    let session = CenterSession(metrics: centerPainter.metrics)
    center = session
    reloadCenter()
    // The times say "5 min ago": told again once a minute, only while open.
    let clock = DispatchSource.makeTimerSource(queue: queue)
    clock.schedule(deadline: .now() + 60, repeating: 60, leeway: .seconds(1))
    clock.setEventHandler { [weak self] in self?.redrawCenter() }
    clock.resume()
    session.clock = clock
    tellCenter()
    log.info("display: the center is open")
    // The popups stand aside.
    run(.center(true))
  }

  /// Closes the center (the command, Escape, a click outside, the display going): the popups come
  /// back. Nothing happens when it is closed.
  public func closeCenter() {
    // The session goes, and its clock with it.
    guard center != nil else { return }
    center = nil
    backend.closeCenter()
    if connected { tellCenter() }
    run(.center(false))
    log.info("display: the center is closed")
  }

  /// `Status.display` says whether the center is open now.
  private func tellCenter() {
    service.setDisplay(
      DisplayState(backend: backend.name, drawing: true, detail: drawingOn, center: center != nil))
  }

  // MARK: - What it lists

  /// Loads what the engine has now: the live notices (shown, or indicators running) and history.
  private func reloadCenter() {
    guard let session = center else { return }
    let live = notices.list().filter { $0.phase.isVisible || $0.kind == .progress }
    let status = notices.status()
    session.model.load(live: live, finished: status.finished) { limit, add in
      notices.forEachFinished(limit: limit, add)
    }
    session.lastLoad = Posix.monotonicNow()
    // Marked unread: those unread when first listed, while the center stays open (and listed).
    var marked = Set<Int>()
    for entry in session.model.entries
    where session.look.marked.contains(entry.id) || (entry.unread && !session.readAsked.contains(entry.id)) {
      marked.insert(entry.id)
    }
    session.look.marked = marked
    session.look.suspended = status.suspended
    session.look.doNotDisturbDetail = Self.doNotDisturbDetail(status)
    redrawCenter()
  }

  /// An engine event while open: the list is loaded again once the events queued so far are
  /// applied, not once per event.
  func centerEvent(_ event: Event) {
    guard let session = center, !session.reloadScheduled else { return }
    switch event.kind {
    case .frame: return
    // A phase matters only as a notice starts to show: fading in, or holding (a notice without a
    // fade-in may say only that); its finishing comes as `finished`.
    case .phase where event.phase != .fadingIn && event.phase != .holding: return
    // An indicator moving, or a live notice's text changing: its entry alone.
    case .updated where event.notice.map({ session.model.update($0) }) == true:
      redrawCenter()
      return
    default: break
    }
    session.reloadScheduled = true
    // At most one load a `reloadInterval`: a flood of events costs a load or so a frame's time.
    let wait = max(session.lastLoad + Self.reloadInterval - Posix.monotonicNow(), 0)
    queue.asyncAfter(deadline: .now() + wait) { [weak self] in
      self?.center?.reloadScheduled = false
      self?.reloadCenter()
    }
  }

  /// What the header says of do-not-disturb beside its switch.
  static func doNotDisturbDetail(_ status: StatusReply) -> String? {
    guard let rule = status.doNotDisturb else { return nil }
    var parts: [String] = []
    if rule.reason == .schedule { parts.append("quiet hours") }
    if let until = rule.until { parts.append("until " + clockTime(until)) }
    parts.append(rule.allow == .critical ? "critical shows" : "nothing shows")
    return parts.joined(separator: ", ")
  }

  /// `wall` (seconds since the epoch) as the local time of day, "07:00".
  static func clockTime(_ wall: Double) -> String {
    var seconds = time_t(wall)
    var parts = tm()
    localtime_r(&seconds, &parts)
    let hour = Int(parts.tm_hour)
    let minute = Int(parts.tm_min)
    return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
  }

  // MARK: - Drawing

  private func redrawCenter() {
    guard center != nil, connected else { return }
    backend.redrawCenter()
  }

  /// The backend gave the panel its size.
  func centerResized(width: Int, height: Int) {
    guard let session = center else { return }
    session.size = (width, height)
    let header = centerPainter.headerHeight(filtering: session.model.filter != nil)
    session.model.setViewport(Double(height) - header)
  }

  /// Paints the center's frame into `target` (`width` × `height` logical pixels, premultiplied ARGB,
  /// its pixels that size at `scale`); the entries it shows are read from now on.
  public func paintCenter(into target: OpaquePointer, width: Int, height: Int, scale: Double) {
    cairo_surface_set_device_scale(target, scale, scale)
    guard let session = center else { return }
    if session.size.map({ $0 != (width, height) }) ?? true { centerResized(width: width, height: height) }
    session.look.now = notices.wallTime
    centerPainter.paint(session.model, look: session.look, into: target, width: width, height: height)
    markShownRead(session)
  }

  /// The finished entries on screen that are unread are read now (DESIGN §13): asked once each.
  private func markShownRead(_ session: CenterSession) {
    var ids: [Int] = []
    for index in session.model.visibleRows {
      guard case .entry(let position) = session.model.rows[index] else { continue }
      let entry = session.model.entries[position]
      if entry.unread && !entry.live && session.readAsked.insert(entry.id).inserted { ids.append(entry.id) }
    }
    guard !ids.isEmpty else { return }
    if service.read(ReadParameters(ids: ids), done: asking("center: reading \(ids.count) notices")) == nil {
      // One went meanwhile (forgotten): the rest one by one.
      for id in ids { service.read(ReadParameters(ids: [id]), done: asking("center: reading notice \(id)")) }
    }
  }

  /// The header's height changed (the filter's field came or went): the list's viewport follows.
  private func headerChanged(_ session: CenterSession) {
    if let size = session.size { centerResized(width: size.width, height: size.height) }
  }

  // MARK: - Input

  /// What the backend says of the center's panel.
  public func input(_ input: CenterInput) {
    switch input {
    case .resized(let width, let height): centerResized(width: width, height: height)
    case .pointerMoved(let x, let y): centerPointerMoved(x: x, y: y)
    case .pointerLeft: centerPointerLeft()
    case .scrolled(let pixels): centerScrolled(by: pixels)
    case .pressed(let button, let x, let y): centerPressed(button, x: x, y: y)
    case .closed: closeCenter()
    }
  }

  /// The open center, once it has a size, and what the point (`x`, `y`) of its panel is on.
  private func centerTarget(x: Double, y: Double) -> (session: CenterSession, target: CenterTarget?)? {
    guard let session = center, let size = session.size else { return nil }
    return (session, centerPainter.target(of: session.model, x: x, y: y, width: Double(size.width)))
  }

  func centerPointerMoved(x: Double, y: Double) {
    guard let (session, target) = centerTarget(x: x, y: y), target != session.look.hover else { return }
    session.look.hover = target
    redrawCenter()
  }

  func centerPointerLeft() {
    guard let session = center, session.look.hover != nil else { return }
    session.look.hover = nil
    redrawCenter()
  }

  func centerScrolled(by pixels: Double) {
    guard let session = center, session.model.scroll(by: pixels) else { return }
    // What was under the pointer moved: the row it is over now is lit on its next move.
    session.look.hover = nil
    redrawCenter()
  }

  /// A button pressed at (`x`, `y`) of the panel: left does what is there, middle forgets an entry.
  func centerPressed(_ button: PopupButton, x: Double, y: Double) {
    guard let target = centerTarget(x: x, y: y)?.target else { return }
    switch (button, target) {
    case (.left, _): carryOut(target)
    case (.middle, .entry(let id)), (.middle, .forget(let id)), (.middle, .button(let id, _)):
      carryOut(.forget(id))
    default: break
    }
  }

  /// Does what a click on `target` asks.
  private func carryOut(_ target: CenterTarget) {
    guard let session = center else { return }
    switch target {
    case .doNotDisturb:
      if session.look.suspended {
        service.resume(done: asking("center: resuming"))
      } else {
        service.suspend(SuspendParameters(), done: asking("center: do-not-disturb"))
      }
    case .clearAll:
      service.dismiss(DismissParameters(all: true), done: asking("center: dismissing every notice"))
      service.forget(ForgetParameters(all: true), done: asking("center: forgetting every notice"))
    case .group(let group):
      session.model.toggle(group)
      redrawCenter()
      return
    case .forget(let id):
      guard let entry = session.model.entry(id) else { return }
      if entry.live {
        service.dismiss(DismissParameters(id: id), done: asking("center: dismissing notice \(id)"))
      } else {
        service.forget(ForgetParameters(ids: [id]), done: asking("center: forgetting notice \(id)"))
      }
    case .button(let id, let key):
      service.invoke(
        InvokeParameters(id: id, action: key), done: asking("center: action '\(key)' of notice \(id)"))
      return
    case .entry(let id):
      guard let entry = session.model.entry(id) else { return }
      // Its default action while it is live, else it is shown again: either way the person goes
      // to it, and the center closes.
      if entry.live {
        guard entry.hasDefaultAction else { return }
        service.invoke(
          InvokeParameters(id: id, action: Card.defaultActionKey),
          done: asking("center: opening notice \(id)"))
      } else {
        service.restore(RestoreParameters(ids: [id]), done: asking("center: restoring notice \(id)"))
      }
      closeCenter()
      return
    }
    // What changed in the engine shows at once, not after its events come back.
    reloadCenter()
  }

  /// A key while the center is open: Up, Down (j, k), Page Up, Page Down, Home, End move; Enter
  /// does what a click on the chosen row does; Delete forgets it; text filters ("/" starts an empty
  /// filter, so that one can begin with j or k); Escape ends the filter, else closes.
  func centerKeyPressed(_ key: KeyInput) {
    guard let session = center else { return }
    let filtering = session.model.filter != nil
    switch key {
    case .up: session.model.moveSelection(by: -1)
    case .down: session.model.moveSelection(by: 1)
    case .text("k") where !filtering: session.model.moveSelection(by: -1)
    case .text("j") where !filtering: session.model.moveSelection(by: 1)
    case .pageUp: session.model.scroll(by: -session.model.viewport * 0.9)
    case .pageDown: session.model.scroll(by: session.model.viewport * 0.9)
    case .home: session.model.select(row: 0)
    case .end: session.model.select(row: session.model.rows.count - 1)
    case .enter:
      switch session.model.selection {
      case .group(let group)?: carryOut(.group(group))
      case .entry(let id)?: carryOut(.entry(id))
      case nil: break
      }
      return
    case .delete:
      guard case .entry(let id)? = session.model.selection,
        let index = session.model.selection.flatMap(session.model.index(of:))
      else { return }
      carryOut(.forget(id))
      // The row after it is chosen.
      session.model.select(row: min(index, session.model.rows.count - 1))
    case .escape:
      guard filtering else {
        closeCenter()
        return
      }
      session.model.setFilter(nil)
      headerChanged(session)
    case .backspace:
      guard let filter = session.model.filter else { return }
      session.model.setFilter(filter.isEmpty ? nil : String(filter.dropLast()))
      headerChanged(session)
    case .text(let text):
      let typed = text == "/" && !filtering ? "" : (session.model.filter ?? "") + text
      guard typed.utf8.count <= Self.maximumFilterLength else { return }
      session.model.setFilter(typed)
      headerChanged(session)
    }
    redrawCenter()
  }
}
