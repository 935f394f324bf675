import CPangoCairo
import CWayland
import Dispatch
import Glibc
import NotifyCore
import NotifyDisplay
import NotifyProtocol

/// notifyd's popups on a Wayland compositor with layer-shell (DESIGN §9): one layer surface per
/// visible notice, drawn at the engine's opacity.
///
/// The engine's events (a `Watch` without frames) say which notices are visible and what they
/// show. While a card fades or its activity indicator spins, its surface asks the compositor for
/// `wl_surface.frame` callbacks and every callback draws the next frame at the opacity the engine
/// gives for that instant (`NoticeQueue.appearances`); once every card holds, no callback is asked
/// for and nothing wakes up.
///
/// The compositor going away (crash, logout) is logged; the popups are forgotten, the notices keep
/// their timing in the engine, and the display reconnects with a backoff from 0.25 s to 30 s.
///
/// - Important: everything mutable, and the Wayland connection, belongs to `displayQueue`.
public final class WaylandPopups: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on `displayQueue`.
  private let settings: DisplaySettings
  private let queue: NoticeQueue
  private let log: @Sendable (String) -> Void
  /// A thread of its own: painting a card takes a millisecond or more, which the request path
  /// should not wait behind.
  private let displayQueue = DispatchQueue(label: "notifyd.display", qos: .userInitiated)
  private var painter: CardPainter?
  private var subscription: NoticeQueue.Subscription?

  /// Every unfinished notice the engine told us of, and its phase.
  private var cards: [Int: Card] = [:]
  private var phases: [Int: Phase] = [:]
  /// Visible notices, newest first.
  private var visible: [Int] = []

  private var connection: WaylandConnection?
  private var readSource: (any DispatchSourceRead)?
  private var popups: [Int: Popup] = [:]
  /// Notices whose surface the compositor closed (its output went): made again only when the
  /// outputs change, so that a compositor closing every new surface cannot make us spin.
  private var closedByCompositor: Set<Int> = []
  private var retryDelay = WaylandPopups.firstRetryDelay
  private var retryTimer: (any DispatchSourceTimer)?
  private var stopped = false

  /// Popups stand aside (none drawn) while notices are forwarded to another server.
  private var suppressed = false
  /// Told (on the display's queue) when popups become drawable, or stop being: connected to a
  /// compositor with layer-shell, or not. Set before `start()`.
  public var onDrawable: (@Sendable (Bool) -> Void)?

  private static let firstRetryDelay = 0.25
  private static let longestRetryDelay = 30.0

  public init(settings: DisplaySettings, queue: NoticeQueue, log: @escaping @Sendable (String) -> Void) {
    self.settings = settings
    self.queue = queue
    self.log = log
  }

  /// Follows the engine and connects in the background; returns at once.
  public func start() {
    displayQueue.async { [self] in
      painter = CardPainter(settings: settings)
      let displayQueue = displayQueue
      subscription = try? queue.watch { [weak self] event in
        guard let self else { return }
        displayQueue.async { self.handle(event) }
      }
      connect()
    }
  }

  /// Takes the popups down and closes the connection; waits until it is done.
  public func stop() {
    displayQueue.sync {
      stopped = true
      subscription?.cancel()
      subscription = nil
      retryTimer?.cancel()
      retryTimer = nil
      disconnect()
    }
  }

  /// Takes every popup down and draws none while `suppressed` (notices are forwarded to another
  /// server, which shows them); draws the visible ones again after. Only `[Display] Mode=auto`
  /// stands aside; `wayland` draws regardless.
  public func setSuppressed(_ suppressed: Bool) {
    guard settings.mode == .auto else { return }
    displayQueue.async { [self] in
      guard suppressed != self.suppressed else { return }
      self.suppressed = suppressed
      log(
        suppressed
          ? "display: notices go to another server; no popups meanwhile" : "display: drawing popups again")
      reconcile()
    }
  }

  // MARK: - Engine events

  private func handle(_ event: Event) {
    switch event.kind {
    case .snapshot:
      cards.removeAll()
      phases.removeAll()
      visible.removeAll()
      let notices = (event.notices ?? []).sorted { ($0.shown ?? 0, $0.id) > ($1.shown ?? 0, $1.id) }
      for notice in notices {
        cards[notice.id] = Card(notice)
        phases[notice.id] = notice.phase
        if notice.phase.isVisible { visible.append(notice.id) }
      }
    case .added, .updated:
      guard let notice = event.notice else { return }
      cards[notice.id] = Card(notice)
      setPhase(notice.phase, of: notice.id)
    case .phase:
      guard let id = event.id, let phase = event.phase else { return }
      setPhase(phase, of: id)
    case .finished:
      guard let id = event.id ?? event.notice?.id else { return }
      cards[id] = nil
      phases[id] = nil
      visible.removeAll { $0 == id }
    case .frame, .invoked, .suspended, .resumed:
      return
    }
    scheduleReconcile()
  }

  /// Whether a `reconcile()` is queued behind the events already handed to the display queue.
  private var reconcileScheduled = false

  /// Reconciles once the events queued so far are applied, not once per event: when the display
  /// falls behind a burst, a notice that came and went meanwhile gets no surface at all, and the
  /// compositor is not flooded with surfaces made and destroyed at once (a client that cannot read
  /// the compositor's events as fast as they come is disconnected).
  private func scheduleReconcile() {
    guard !reconcileScheduled else { return }
    reconcileScheduled = true
    displayQueue.async { [self] in
      reconcileScheduled = false
      reconcile()
    }
  }

  private func setPhase(_ phase: Phase, of id: Int) {
    phases[id] = phase
    if phase.isVisible {
      if !visible.contains(id) { visible.insert(id, at: 0) }
    } else {
      visible.removeAll { $0 == id }
    }
    popups[id]?.dirty = true
  }

  // MARK: - Popups

  /// Makes the surfaces match the visible cards: new ones created, gone ones destroyed, changed
  /// ones re-rendered, all placed, and those that need a frame drawn.
  private func reconcile() {
    guard let connection, let painter, let compositor = connection.compositor,
      let layerShell = connection.layerShell
    else { return }
    // With no output there is nowhere to draw: the notices keep their timing meanwhile.
    let nowhere = connection.outputs.isEmpty
    for (id, popup) in popups where !visible.contains(id) || suppressed || nowhere {
      popup.destroy()
      discardImage(popup)
      popups[id] = nil
    }
    closedByCompositor.formIntersection(visible)
    guard !nowhere else {
      flush()
      return
    }
    let output = connection.output(named: settings.output)
    for id in visible where !suppressed && !closedByCompositor.contains(id) {
      guard let card = cards[id] else { continue }
      if let popup = popups[id] {
        if popup.card != card {
          popup.card = card
          popup.height = painter.height(of: card)
          discardImage(popup)
          popup.dirty = true
        }
      } else {
        let popup = Popup(
          owner: self, id: id, card: card, height: painter.height(of: card), compositor: compositor,
          layerShell: layerShell, output: output?.proxy)
        popups[id] = popup
      }
    }
    let size = connection.layoutSize(for: output)
    let shown = visible.compactMap { popups[$0] }
    let placements = PopupLayout.place(
      heights: shown.map(\.height), settings: settings, outputWidth: size.width, outputHeight: size.height)
    for (index, popup) in shown.enumerated() {
      // A card that does not fit waits, drawn nowhere, until those before it go.
      guard index < placements.count else { continue }
      let moved = popup.place(placements[index])
      if !popup.started {
        popup.start()
      } else if moved && popup.configured && !popup.dirty {
        wl_surface_commit(popup.surface)
      }
      if popup.dirty { draw(popup) }
    }
    flush()
  }

  /// Draws `popup`'s next frame at the engine's opacity for now, unless the compositor has not
  /// shown the last one yet (then the frame callback draws it).
  private func draw(_ popup: Popup) {
    guard popup.configured, popup.frameCallback == nil, let connection, let shm = connection.shm,
      let painter
    else { return }
    guard let appearance = queue.appearances(of: [popup.id])[popup.id] else { return }
    let elapsed = ContinuousClock.now - popup.appeared
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    if popup.image == nil {
      popup.image = painter.render(popup.card, height: popup.height)
    }
    guard let buffer = popup.freeBuffer(shm: shm, width: settings.width), let image = popup.image else {
      // No buffer free: the next release or frame brings another try.
      return
    }
    painter.composite(
      image, of: popup.card, into: buffer.image, opacity: appearance.opacity, activity: seconds)
    wl_surface_attach(popup.surface, buffer.proxy, 0, 0)
    wl_surface_damage_buffer(popup.surface, 0, 0, Int32(buffer.width), Int32(buffer.height))
    buffer.busy = true
    let moving = appearance.phase == .fadingIn || appearance.phase == .fadingOut || popup.card.isAnimated
    if moving { popup.requestFrame() }
    popup.dirty = false
    wl_surface_commit(popup.surface)
    // A card that holds is drawn again only when it changes or starts to fade out: until then it
    // keeps the one buffer on screen, and its image is rendered again when needed.
    popup.still = !moving
    if !moving { discardImage(popup) }
  }

  private func discardImage(_ popup: Popup) {
    if let image = popup.image { cairo_surface_destroy(image) }
    popup.image = nil
  }

  // MARK: - Connection

  private func connect() {
    guard !stopped, connection == nil else { return }
    guard let connection = WaylandConnection() else {
      retry(
        because:
          "no Wayland compositor at WAYLAND_DISPLAY=\(getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? "")"
      )
      return
    }
    guard connection.start() else {
      connection.disconnect()
      retry(because: "the compositor closed the connection while it was described")
      return
    }
    guard connection.layerShell != nil, connection.compositor != nil, connection.shm != nil else {
      connection.disconnect()
      retry(because: "the compositor offers no wlr-layer-shell; popups need it")
      return
    }
    connection.pointerDelegate = self
    connection.outputsChanged = { [weak self] in
      guard let self else { return }
      closedByCompositor.removeAll()
      // From inside the registry's handler: reconcile once it has returned.
      displayQueue.async { self.reconcile() }
    }
    self.connection = connection
    let source = DispatchSource.makeReadSource(fileDescriptor: connection.fileDescriptor, queue: displayQueue)
    source.setEventHandler { [weak self] in self?.readable() }
    source.resume()
    readSource = source
    retryDelay = Self.firstRetryDelay
    log(
      "display: drawing popups on Wayland (\(connection.outputs.compactMap(\.name).joined(separator: ", ")))")
    onDrawable?(true)
    reconcile()
  }

  private func readable() {
    guard let connection else { return }
    if !connection.dispatch() {
      lost()
      return
    }
    flush()
  }

  private func flush() {
    guard let connection else { return }
    if !connection.flush() { lost() }
  }

  /// The compositor went away: forget every popup and connect again later.
  private func lost() {
    disconnect()
    onDrawable?(false)
    retry(because: "the connection to the compositor was lost")
  }

  private func disconnect() {
    for popup in popups.values {
      popup.destroy()
      discardImage(popup)
    }
    popups.removeAll()
    guard let connection else { return }
    self.connection = nil
    // The descriptor closes with the connection: only once the read source has let go of it.
    if let readSource {
      readSource.setCancelHandler { connection.disconnect() }
      readSource.cancel()
      self.readSource = nil
    } else {
      connection.disconnect()
    }
  }

  private func retry(because reason: String) {
    guard !stopped else { return }
    if retryDelay == Self.firstRetryDelay {
      log("display: \(reason); trying again with a backoff up to \(Int(Self.longestRetryDelay)) s")
    }
    let timer = DispatchSource.makeTimerSource(queue: displayQueue)
    timer.schedule(deadline: .now() + retryDelay)
    timer.setEventHandler { [weak self] in
      guard let self else { return }
      retryTimer = nil
      connect()
    }
    timer.resume()
    retryTimer = timer
    retryDelay = min(retryDelay * 2, Self.longestRetryDelay)
  }
}

extension WaylandPopups: PopupOwner {
  func popupConfigured(_ popup: Popup) {
    popup.dirty = true
    draw(popup)
  }

  func popupClosed(_ popup: Popup) {
    // The compositor took it away (its output went): made again when the outputs change.
    popup.destroy()
    discardImage(popup)
    popups[popup.id] = nil
    closedByCompositor.insert(popup.id)
  }

  func popupFrameDone(_ popup: Popup) {
    popup.dirty = true
    draw(popup)
  }
}

extension WaylandPopups: PointerDelegate {
  func pointerPressed(_ button: UInt32, on surface: OpaquePointer) {
    guard let popup = popups.values.first(where: { $0.surface == surface }) else { return }
    let id = popup.id
    let card = popup.card
    // Left: the default action if there is one, else dismiss; right: dismiss.
    if button == WaylandPopups.leftButton, card.hasDefaultAction {
      _ = try? queue.invoke(InvokeParameters(id: id, action: Card.defaultActionKey))
    } else if button == WaylandPopups.leftButton || button == WaylandPopups.rightButton {
      try? queue.dismiss(id)
    }
  }

  /// `BTN_LEFT` and `BTN_RIGHT` of linux/input-event-codes.h.
  static let leftButton: UInt32 = 0x110
  static let rightButton: UInt32 = 0x111
}
