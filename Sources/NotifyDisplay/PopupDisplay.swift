import CPangoCairo
import Dispatch
import Glibc
import NotifyConfig
import NotifyCore
import NotifyPosix
import NotifyProtocol
import NotifyService
import NotifySupport

/// notifyd's popups (DESIGN §9): follows the engine, keeps the stack of visible cards, and has a
/// backend (Wayland or X11) get them to the screen.
///
/// The engine's events (a `Watch`) say which notices are visible and what they show; the backend
/// draws each frame at the opacity the engine gives for that instant (`NoticeQueue.appearances`).
/// The display going away (compositor or X server exit, logout) is logged; the popups are
/// forgotten, the notices keep their timing in the engine, and the display reconnects with a
/// backoff from 0.25 s to 30 s.
///
/// - Important: everything mutable, and the backend, belongs to `queue`.
public final class PopupDisplay: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on `queue`.
  public let settings: DisplaySettings
  /// The one door into the engine: every change a person makes on a card or in the center goes
  /// through it, and what went wrong is logged (`asking`).
  public let service: NoticeService
  /// The engine, to read.
  public var notices: any NoticeReading { service.notices }
  public let log: Logger
  /// A thread of its own: painting a card takes a millisecond or more, which the request path
  /// should not wait behind.
  public let queue = DispatchQueue(label: "notifyd.display", qos: .userInitiated)
  let backend: PopupBackend
  var painter: CardPainter!
  public private(set) var stack: PopupStack
  private var subscription: NoticeQueue.Subscription?

  var connected = false
  /// The notification center, while it is open (`PopupDisplay+Center.swift`).
  var center: CenterSession?
  /// The center's painter, made with the cards' painter when the center first opens.
  lazy var centerPainter = CenterPainter(cards: painter)
  /// What the connected backend draws on ("Wayland (HEADLESS-1)"), for `Status`.
  var drawingOn = ""
  private var readSource: (any DispatchSourceRead)?
  private lazy var retryTimer = RetryTimer(queue: queue)
  private var stopped = false
  /// Whether the last failure to connect was logged (said once until a connection succeeds).
  private var failureLogged = false
  /// How the connected backend tells that the person is away, with `[Idle] After=`.
  private var idleWatch: IdleWatch?
  /// What the idle source said last.
  private var away = false
  /// With a polled idle source: the next look, armed only while a popup is visible.
  private var idlePoll: (any DispatchSourceTimer)?
  /// How often a polled source is asked while the person is away, to see them back soon.
  static let awayPollInterval = 1.0

  /// Popups stand aside (none drawn) while notices are forwarded to another server.
  public private(set) var isSuppressed = false
  /// Whether the visible cards are drawn: not while the popups stand aside or the center is open.
  public var drawsCards: Bool { !isSuppressed && center == nil }
  /// Told (on the display's queue) when popups become drawable, or stop being. Set before
  /// `start()`.
  public var onDrawable: (@Sendable (Bool) -> Void)?
  /// Tells whether the person is away while the display cannot: no idle protocol, or not
  /// connected. Set before `start()`.
  public var idleFallback: (any FallbackIdleSource)?

  /// `host` is the name `Format=`'s `%h` gives notices not relayed from another host.
  public init(
    settings: DisplaySettings, service: NoticeService, backend: PopupBackend,
    host: String = RelaySubjects.localHost(), log: Logger
  ) {
    self.settings = settings
    self.service = service
    self.backend = backend
    self.log = log
    stack = PopupStack { notice in
      Card(notice, look: Self.look(of: notice, settings: settings, engine: service.notices), host: host)
    }
  }

  /// The look of `notice`'s card: its urgency's, then that of each rule it matches (as the engine
  /// matched it: by the urgency its client asked for), in the file's order; what it does under a
  /// fullscreen window as the engine holds it to (resolved when it was accepted, or `show` for a
  /// notice restored by hand), so that the two never disagree.
  static func look(of notice: Notice, settings: DisplaySettings, engine: any NoticeReading) -> CardLook {
    var look =
      settings.ruleLooks.isEmpty
      ? settings.look(for: notice.urgency)
      : settings.look(for: notice.urgency, rules: engine.matchingRules(of: notice.id).map(\.name))
    if let policy = engine.fullscreenPolicy(of: notice.id) { look.fullscreen = policy }
    return look
  }

  /// Follows the engine and connects in the background; returns at once.
  public func start() {
    queue.async { [self] in
      painter = CardPainter(settings: settings)
      let queue = queue
      subscription = try? notices.watch(frames: backend.pacedByEngineFrames) { [weak self] event in
        guard let self else { return }
        queue.async { self.handle(event) }
      }
      connect()
    }
  }

  /// Takes the popups down and closes the connection; waits until it is done. `onDrawable` hears
  /// that they no longer draw.
  public func stop() {
    queue.sync {
      stopped = true
      subscription?.cancel()
      subscription = nil
      retryTimer.cancel()
      let wasConnected = connected
      disconnect()
      if wasConnected { onDrawable?(false) }
    }
    idleFallback?.stop()
  }

  /// Takes every popup down and draws none while `suppressed` (notices are forwarded to another
  /// server, which shows them); draws the visible ones again after. Only `[Display] Mode=auto`
  /// stands aside; `wayland` and `x11` draw regardless.
  public func setSuppressed(_ suppressed: Bool) {
    guard settings.mode == .auto else { return }
    queue.async { [self] in
      guard suppressed != isSuppressed else { return }
      isSuppressed = suppressed
      if suppressed, center != nil { closeCenter() }
      log.info(
        suppressed
          ? "display: notices go to another server; no popups meanwhile" : "display: drawing popups again")
      if connected {
        service.setPresenter(.popups, !suppressed)
        backend.reconcile()
      }
    }
  }

  // MARK: - Pointer

  /// `onMenu`'s argument: the notice whose actions go to the picker.
  public typealias MenuRequest = @Sendable (Int) -> Void
  /// Told (on the display's queue) when a click asks for the picker with a notice's actions
  /// (`menu`, "…"). Set before `start()`.
  public var onMenu: MenuRequest?

  /// The card the pointer is over, and the part of it: its button is drawn highlighted.
  public private(set) var pointer: (id: Int, target: CardTarget)?

  /// The pointer is at (`x`, `y`) of `popup` (its own pixels): the button under it is highlighted
  /// and, with `HoverHolds=`, the notice's hold stands still while it stays. A move that changes
  /// neither the card nor the part of it draws nothing and asks nothing of the engine.
  public func pointerMoved(over popup: some PopupSurface, x: Double, y: Double) {
    let target = painter.target(of: popup.card, height: popup.height, x: x, y: y)
    let entered = pointer?.id != popup.id
    guard entered || pointer?.target != target else { return }
    pointer = (popup.id, target)
    if entered && settings.hoverHolds { service.pointer(over: popup.id) }
    reconcileSoon()
  }

  /// The pointer left the popups: the hold of the card it was over goes on.
  public func pointerLeft() {
    guard pointer != nil else { return }
    pointer = nil
    if settings.hoverHolds { service.pointer(over: nil) }
    reconcileSoon()
  }

  /// What `button` pressed at (`x`, `y`) of `popup` asks (`CardPress`), by the binding of that
  /// button for its notice. A backend asks for an activation token before an `invoke` on Wayland,
  /// then hands it to `carryOut`.
  public func press(_ button: PopupButton, on popup: some PopupSurface, x: Double, y: Double) -> CardPress {
    let target = painter.target(of: popup.card, height: popup.height, x: x, y: y)
    return CardPress(button, on: target, of: popup.card, binding: binding(of: button, for: popup.id))
  }

  /// A `done` for a change a person asked for here, through `service`: nobody waits on it, so what
  /// went wrong is logged, never dropped (a notice that finished meanwhile refuses a click; a store
  /// that could not commit the change).
  func asking<Value>(_ what: String) -> @Sendable (Result<Value, ServiceError>) -> Void {
    logFailure(of: what, to: log)
  }

  /// Carries out `press` on the card of notice `id`.
  public func carryOut(_ press: CardPress, on id: Int, activationToken: String? = nil) {
    switch press {
    case .invoke(let key):
      service.invoke(
        InvokeParameters(id: id, action: key, activationToken: activationToken),
        done: asking("popups: action '\(key)' of notice \(id)"))

    case .dismiss:
      service.dismiss(DismissParameters(id: id), done: asking("popups: dismissing notice \(id)"))
    case .dismissAll:
      service.dismiss(DismissParameters(all: true), done: asking("popups: dismissing every notice"))
    case .menu:
      onMenu?(id)
    case .focusField:
      guard editing?.id != id else { return }
      editing = (id, "")
      service.typing(in: id)
      backend.setKeyboardFocus(on: id)
      reconcileSoon()
    case .nothing:
      break
    }
  }

  // MARK: - The reply field

  /// The card whose reply field has the keyboard, and what is typed into it.
  public private(set) var editing: (id: Int, text: String)?

  /// A key pressed while a reply field has the keyboard: text is typed (up to
  /// `RequestLimits.maximumReplyLength` bytes), Backspace takes the last character back, Enter
  /// sends what is typed (`Reply`), Escape gives up.
  public func keyPressed(_ key: KeyInput) {
    if center != nil {
      centerKeyPressed(key)
      return
    }
    guard var editing else { return }
    switch key {
    case .text(let text):
      guard (editing.text + text).utf8.count <= RequestLimits.maximumReplyLength else { return }
      editing.text += text
    case .backspace:
      guard !editing.text.isEmpty else { return }
      editing.text.removeLast()
    case .escape:
      stopEditing()
      return
    case .enter:
      guard !editing.text.isEmpty else { return }
      let request = ReplyParameters(id: editing.id, text: editing.text)
      stopEditing()
      service.reply(request, done: asking("popups: the reply to notice \(request.id)"))
      return
    case .up, .down, .pageUp, .pageDown, .home, .end, .delete:
      return
    }
    self.editing = editing
    reconcileSoon()
  }

  /// The field lost the keyboard (the person clicked elsewhere): nothing is sent.
  public func keyboardLeft() {
    guard center == nil else {
      closeCenter()
      return
    }
    guard editing != nil else { return }
    stopEditing()
  }

  private func stopEditing() {
    editing = nil
    service.typing(in: nil)
    if connected { backend.setKeyboardFocus(on: nil) }
    reconcileSoon()
  }

  /// What `button` does on the card of notice `id`: the last matching rule's `LeftClick=`,
  /// `MiddleClick=` or `RightClick=`, else `[Display]`'s.
  func binding(of button: PopupButton, for id: Int) -> ClickAction {
    let path: KeyPath<Rule, ClickAction?>
    let fallback: ClickAction
    switch button {
    case .left: (path, fallback) = (\.leftClick, settings.leftClick)
    case .middle: (path, fallback) = (\.middleClick, settings.middleClick)
    case .right: (path, fallback) = (\.rightClick, settings.rightClick)
    }
    return notices.matchingRules(of: id).compactMap { $0[keyPath: path] }.last ?? fallback
  }

  /// Whether a visible card that is drawn nowhere yet (none of `drawn`) is to be drawn: a card
  /// appearing, when the backend chooses again where the focused output's cards go.
  public func showsNewCard(drawn: Set<Int>) -> Bool {
    drawsCards && stack.visible.contains { !drawn.contains($0) && !isPushedBack($0) }
  }

  // MARK: - Fullscreen

  /// Whether the window with the keyboard is fullscreen, as the backend last said.
  public private(set) var fullscreen = false

  /// The backend says whether the window with the keyboard is fullscreen (Wayland's
  /// `wlr-foreign-toplevel-management`, X11's `_NET_WM_STATE_FULLSCREEN`): the engine holds back
  /// what `Fullscreen=` delays, cards it pushes back leave the screen, and those shown there go
  /// over the window.
  public func fullscreenChanged(_ on: Bool) {
    // Told to the engine even when this display thought so already: a display made anew (a
    // reload) starts from "not fullscreen" while the engine may still hold notices back.
    service.setFullscreen(on)
    guard on != fullscreen else { return }
    fullscreen = on
    reconcileSoon()
  }

  /// Whether the card of notice `id` is kept off the screen: its look says `Fullscreen=pushback`
  /// and the window with the keyboard is fullscreen.
  func isPushedBack(_ id: Int) -> Bool {
    fullscreen && stack.cards[id]?.look.fullscreen == .pushback
  }

  /// The layer `card` goes on (Wayland): its look's, but overlay while a fullscreen window has the
  /// keyboard and the card shows there (`Fullscreen=show`), so that it shows over that window.
  public func layer(of card: Card) -> CardLayer {
    fullscreen && card.look.fullscreen == .show ? .overlay : card.look.layer
  }

  /// Makes a backend's popups, kept per output (`stacks`, by output name), match the visible cards
  /// each output shows (`PopupStack.byOutput` for `outputs` and the `focused` one): a stack whose
  /// output shows nothing is taken down, and each is matched as `match` does, its popups made by
  /// `make` (the output, the id, the card, its height) and only those `allowed` there. With
  /// `movable`, a popup whose card left its output for another where it has none goes there
  /// instead of being made again (an X11 window moves; a Wayland surface is made for one output).
  /// Answers each output's popups, newest first.
  public func matchByOutput<Surface: PopupSurface>(
    _ stacks: inout [String?: [Int: Surface]], outputs: [String], focused: String?, movable: Bool = false,
    allowed: (String?, Int) -> Bool = { _, _ in true }, make: (String?, Int, Card, Int) -> Surface,
    destroy: (Surface) -> Void
  ) -> [(output: String?, shown: [Surface])] {
    let groups = stack.byOutput(outputs, focused: focused)
    var wanted: [String?: Set<Int>] = [:]
    for group in groups { wanted[group.output] = Set(group.ids) }
    if movable {
      for (output, popups) in stacks {
        for (id, popup) in popups where wanted[output]?.contains(id) != true {
          guard let target = wanted.first(where: { $0.value.contains(id) && stacks[$0.key]?[id] == nil })?.key
          else { continue }
          stacks[output]?[id] = nil
          stacks[target, default: [:]][id] = popup
        }
      }
    }
    for (output, popups) in stacks where wanted[output] == nil {
      for popup in popups.values { destroy(popup) }
      stacks[output] = nil
    }
    return groups.map { group in
      let ids = wanted[group.output] ?? []
      let shown = match(
        &stacks[group.output, default: [:]], allowed: { ids.contains($0) && allowed(group.output, $0) },
        make: { make(group.output, $0, $1, $2) }, destroy: destroy)
      return (group.output, shown)
    }
  }

  /// Makes a backend's `popups` match the visible cards it may show (none while suppressed, and
  /// only those `allowed`): those gone are `destroy`ed, changed ones take their card and height and
  /// are drawn again, new ones are `make`d (from the id, the card and its height). Answers the
  /// popups newest first.
  public func match<Surface: PopupSurface>(
    _ popups: inout [Int: Surface], allowed: (Int) -> Bool = { _ in true },
    make: (Int, Card, Int) -> Surface, destroy: (Surface) -> Void
  ) -> [Surface] {
    // While the center is open it shows them: the popups stand aside.
    let wanted = drawsCards ? stack.visible.filter { allowed($0) && !isPushedBack($0) } : []
    for (id, popup) in popups where !wanted.contains(id) {
      destroy(popup)
      popups[id] = nil
    }
    var shown: [Surface] = []
    for id in wanted {
      guard var card = stack.cards[id] else { continue }
      if let pointer, pointer.id == id, pointer.target.isButton { card.highlighted = pointer.target }
      if let editing, editing.id == id { card.typed = editing.text }
      if let popup = popups[id] {
        if popup.card != card {
          // The pointer lighting a button, or a key typed: only that part is painted again.
          let redrawn = popup.image.map {
            painter.redrawInput($0, from: popup.card, to: card, height: popup.height)
          }
          if redrawn != true {
            popup.height = painter.height(of: card)
            popup.discardImages()
          }
          popup.card = card
          popup.dirty = true
        }
        shown.append(popup)
      } else {
        let popup = make(id, card, painter.height(of: card))
        popups[id] = popup
        shown.append(popup)
      }
    }
    return shown
  }

  /// Paints `popup`'s frame into `target` (its size in device pixels at `popup.scale`, premultiplied
  /// ARGB) at `opacity`: its card rendered first if its image went, its activity indicator as far
  /// into its sweep as the popup is old.
  public func paint(_ popup: some PopupSurface, into target: OpaquePointer, opacity: Double) {
    if popup.image == nil {
      popup.image = painter.render(popup.card, height: popup.height, scale: popup.scale)
    }
    cairo_surface_set_device_scale(target, popup.scale, popup.scale)
    painter.composite(
      popup.image!, of: popup.card, into: target, opacity: opacity,
      activity: Posix.monotonicNow() - popup.appeared)
  }

  /// The backend found the connection broken (a failed write): the popups are forgotten once the
  /// handler running now has returned.
  public func connectionBroken() {
    queue.async { [self] in
      guard connected else { return }
      lost()
    }
  }

  // MARK: - Engine events

  private func handle(_ event: Event) {
    if event.kind == .frame {
      scheduleFrame()
      return
    }
    centerEvent(event)
    let (changed, phaseOf) = stack.apply(event)
    guard changed else { return }
    // The card whose field has the keyboard went: the keyboard goes back.
    if let editing, stack.cards[editing.id] == nil { stopEditing() }
    if let phaseOf, connected { backend.phaseChanged(of: phaseOf) }
    reconcileSoon()
    if idlePoll == nil, !stack.visible.isEmpty, case .polled? = idleWatch { pollIdle() }
  }

  // MARK: - Idle

  /// The backend's idle source says the person went away (`true`) or came back.
  public func idleChanged(_ idle: Bool) {
    guard connected, let source = idleWatch?.source, idle != away else { return }
    away = idle
    log.info(
      idle ? "display: you are away (\(source)); holds stand still" : "display: you are back (\(source))")
    service.setIdle(IdleState(idle: idle, source: source))
  }

  private func startIdleWatch() {
    guard let after = settings.idleAfter else {
      idleFallback?.stop()
      service.setIdle(nil)
      return
    }
    let watch = backend.watchIdle(after: after)
    if case .unavailable(let why) = watch {
      log.info("display: \(why)\(idleFallback == nil ? "; holds run on while you are away" : "")")
      noIdleSource(because: why)
      return
    }
    idleFallback?.stop()
    idleWatch = watch
    away = false
    service.setIdle(IdleState(idle: false, source: watch.source!))
    if !stack.visible.isEmpty { pollIdle() }
  }

  private func stopIdleWatch() {
    idlePoll?.cancel()
    idlePoll = nil
    idleWatch = nil
    away = false
    if settings.idleAfter != nil { noIdleSource(because: "the display is not connected") }
  }

  /// The display cannot tell whether the person is away, for `reason`: the fallback source tells
  /// if there is one, else nothing does.
  private func noIdleSource(because reason: String) {
    if let idleFallback {
      idleFallback.start(because: reason)
    } else {
      service.setIdle(IdleState(noSourceBecause: reason))
    }
  }

  /// Asks a polled source how long since the last input, and looks again while a popup shows: when
  /// `[Idle] After=` would pass if nothing happens meanwhile, or soon while the person is away.
  /// With nothing visible nothing is asked; the next popup asks at once.
  private func pollIdle() {
    idlePoll?.cancel()
    idlePoll = nil
    guard connected, let after = settings.idleAfter, case .polled? = idleWatch,
      let since = backend.secondsSinceInput()
    else { return }
    let idle = since >= after
    idleChanged(idle)
    guard !stack.visible.isEmpty else { return }
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(deadline: .now() + (idle ? Self.awayPollInterval : max(after - since, 0.05)))
    timer.setEventHandler { [weak self] in self?.pollIdle() }
    timer.resume()
    idlePoll = timer
  }

  /// Whether a `reconcile()` is queued behind the events already handed to the display queue.
  private var reconcileScheduled = false
  private var frameScheduled = false

  /// Reconciles once the events queued so far are applied (and the handler running now, such as
  /// a backend's, has returned), not once per event: when the display falls behind a burst, a
  /// notice that came and went meanwhile gets no popup at all, and the server is not flooded with
  /// windows made and destroyed at once.
  public func reconcileSoon() {
    guard !reconcileScheduled else { return }
    reconcileScheduled = true
    queue.async { [self] in
      reconcileScheduled = false
      if connected { backend.reconcile() }
    }
  }

  /// Draws one frame for the engine's frames queued so far: a display that falls behind skips
  /// frames rather than drawing each late.
  private func scheduleFrame() {
    guard !frameScheduled else { return }
    frameScheduled = true
    queue.async { [self] in
      frameScheduled = false
      if connected { backend.frame() }
    }
  }

  // MARK: - Connection

  /// Tries to connect now rather than at the backoff's next try: the display server's socket has
  /// just appeared. Nothing happens while connected.
  public func connectNow() {
    queue.async { [self] in
      guard !stopped, !connected else { return }
      retryTimer.cancel()
      retryTimer.reset()
      connect()
    }
  }

  private func connect() {
    guard !stopped, !connected else { return }
    let description: String
    do {
      description = try backend.connect(for: self)
    } catch {
      retry(because: error.reason)
      return
    }
    connected = true
    let source = DispatchSource.makeReadSource(fileDescriptor: backend.fileDescriptor, queue: queue)
    source.setEventHandler { [weak self] in
      guard let self, connected else { return }
      if !backend.readable() { lost() }
    }
    source.resume()
    readSource = source
    retryTimer.reset()
    failureLogged = false
    log.info("display: drawing popups on \(description)")
    drawingOn = description
    service.setDisplay(DisplayState(backend: backend.name, drawing: true, detail: description))
    service.setPresenter(.popups, !isSuppressed)
    onDrawable?(true)
    startIdleWatch()
    backend.reconcile()
  }

  /// The display server went away: forget every popup and connect again later.
  private func lost() {
    disconnect()
    onDrawable?(false)
    retry(because: "the connection to the display server was lost")
  }

  private func disconnect() {
    guard connected else { return }
    if center != nil { closeCenter() }
    if editing != nil { stopEditing() }
    stopIdleWatch()
    connected = false
    service.setPresenter(.popups, false)
    // The connection lost (the compositor restarting, the session ending), notices that wait for a
    // fullscreen window keep waiting: the next connection says whether one still is.
    // The descriptor closes with the connection: only once the read source has let go of it.
    let backend = backend
    if let readSource {
      readSource.setCancelHandler { backend.disconnect() }
      readSource.cancel()
      self.readSource = nil
    } else {
      backend.disconnect()
    }
  }

  private func retry(because reason: String) {
    guard !stopped else { return }
    service.setDisplay(DisplayState(backend: backend.name, drawing: false, detail: reason))
    // Until it connects, the display cannot tell whether the person is away.
    if !failureLogged, settings.idleAfter != nil { noIdleSource(because: "the display is not connected") }
    if !failureLogged {
      failureLogged = true
      log.info("display: \(reason); trying again with a backoff up to \(Int(RetryTimer.longestDelay)) s")
    }
    retryTimer.schedule { [weak self] in self?.connect() }
  }
}
