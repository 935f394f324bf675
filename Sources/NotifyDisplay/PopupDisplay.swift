import CPangoCairo
import Dispatch
import Glibc
import NotifyConfig
import NotifyCore
import NotifyPosix
import NotifyProtocol
import NotifyService
import NotifySupport

/// notifyd's popups (DESIGN §9): the driver of the `DisplayMachine`. It hands the machine the
/// engine's events and presentations and what the backend reads, carries out the machine's actions
/// (surfaces through the backend, requests through `NoticeService`), and keeps what is not the
/// machine's: the connection and its reconnecting, the idle source, and the center.
///
/// The display going away (compositor or X server exit, logout) is logged; the popups are
/// forgotten, the notices keep their timing in the engine, and the display reconnects with a
/// backoff from 0.25 s to 30 s.
///
/// - Important: everything mutable, and the backend, belongs to `queue`.
public final class PopupDisplay: DisplayHost, @unchecked Sendable {
  // @unchecked: every mutable property is touched only on `queue`.
  public let settings: DisplaySettings
  /// The one door into the engine: every change a person makes on a card or in the center goes
  /// through it, and what went wrong is logged (`asking`).
  public let service: NoticeService
  /// The engine, to read: the center's lists, and the clock presentations are timed by.
  public var notices: any NoticeReading { service.notices }
  public let log: Logger
  /// A thread of its own: painting a card takes a millisecond or more, which the request path
  /// should not wait behind.
  public let queue = DispatchQueue(label: "notifyd.display", qos: .userInitiated)
  let backend: PopupBackend
  public private(set) var painter: CardPainter!
  /// The popups' rules: which cards show where, and what input means.
  public private(set) var machine: DisplayMachine!
  private let host: String
  private var subscription: NoticeQueue.Subscription?

  var connected = false
  /// The notification center, while it is open (`PopupDisplay+Center.swift`): made on opening and
  /// let go on closing, so that a closed center holds nothing and wakes nothing.
  var center: CenterMachine?
  /// Tells the center's times again once a minute while it is open.
  var centerClock: (any DispatchSourceTimer)?
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
    self.host = host
  }

  /// Follows the engine and connects in the background; returns at once.
  public func start() {
    queue.async { [self] in
      painter = CardPainter(settings: settings)
      machine = DisplayMachine(settings: settings, measure: painter, host: host)
      let queue = queue
      subscription = try? notices.present(
        frames: backend.pacedByEngineFrames,
        sink: { [weak self] event in
          guard let self else { return }
          queue.async { self.handle(event) }
        },
        presentations: { [weak self] presentations in
          guard let self else { return }
          queue.async { self.run(.presentations(presentations)) }
        })
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
      if !toldShown.isEmpty {
        toldShown = []
        onShown?([])
      }
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
      run(.suppressed(suppressed))
      if connected { service.setPresenter(.popups, !suppressed) }
    }
  }

  /// Told (on the display's queue) the notices whose cards are on the screen, newest first, each
  /// time that changes: what a screen reader reads (`AccessibilityBridge`). Set before `start()`.
  public var onShown: (@Sendable ([Notice]) -> Void)?
  /// What `onShown` was told last.
  private var toldShown: [Notice] = []
  /// Told (on the display's queue) the open center's rows and chosen row each time they change,
  /// and nil when it closes: what a screen reader reads of it. Set before `start()`.
  public var onCenter: (@Sendable (CenterOutline?) -> Void)?
  /// What `onCenter` was told last.
  var toldOutline: CenterOutline?
  /// Told (on the display's queue) what to say of a card that has just shown, as `[Speech]` and
  /// the rules it matches ask (`Speak=`), and whether it is critical (it interrupts). Set before
  /// `start()`.
  public var onSpeak: (@Sendable (_ text: String, _ critical: Bool) -> Void)?

  /// `onMenu`'s argument: the notice whose actions go to the picker.
  public typealias MenuRequest = @Sendable (Int) -> Void
  /// Told (on the display's queue) when a click asks for the picker with a notice's actions
  /// (`menu`, "…"). Set before `start()`.
  public var onMenu: MenuRequest?

  // MARK: - The machine

  /// What the backend read: handed to the machine, whose actions are carried out.
  public func input(_ input: DisplayInput) {
    if center != nil, case .key(let key) = input {
      centerKey(key)
      return
    }
    if center != nil, case .keyboardLeft = input {
      centerKey(nil)
      return
    }
    run(input)
  }

  /// Hands `input` to the machine now, carries out its actions, and settles the surfaces soon.
  func run(_ input: DisplayInput) {
    guard machine != nil else { return }
    machine.handle(input, at: notices.now)
    carryOut(machine.takeActions())
    if machine.needsSettle { settleSoon() }
    // A frame draws what is mapped already: what is on the screen is as it was.
    if case .frame = input { return }
    tellShown()
  }

  /// Tells `onShown` the cards on the screen, when they changed.
  private func tellShown() {
    guard onShown != nil || onSpeak != nil else { return }
    let shown = machine?.onScreen ?? []
    guard shown != toldShown else { return }
    let before = Set(toldShown.map(\.id))
    toldShown = shown
    onShown?(shown)
    guard let onSpeak, let machine else { return }
    for notice in shown.reversed() where !before.contains(notice.id) {
      let choice = machine.speech(of: notice.id)
      guard let words = Self.words(of: notice, choice) else { continue }
      onSpeak(words, notice.urgency == .critical)
    }
  }

  /// What is said of `notice` as `choice` asks: its app, title and body (or not the body), as
  /// plain text; nil for nothing.
  static func words(of notice: Notice, _ choice: SpeechChoice) -> String? {
    guard choice != .no else { return nil }
    var parts = [notice.app ?? "", BodyMarkup.plainText(notice.displayTitle)]
    if choice == .yes, let body = notice.body { parts.append(BodyMarkup.plainText(body)) }
    return BodyMarkup.sentences(parts, closingLast: true)
  }

  /// A screen reader chose action `key` of notice `id` (a button, or `default`): as a click on its
  /// card would, with the activation token of the surface it shows on.
  public func invoke(_ id: Int, action key: String) {
    queue.async { [self] in
      guard let surface = machine?.surfaceKeys(of: id).first else {
        service.invoke(
          InvokeParameters(id: id, action: key), done: asking("reader: action '\(key)' of notice \(id)"))
        return
      }
      ask(.invoke(id: id, action: key, from: surface))
    }
  }

  /// A screen reader dismissed notice `id`, or sent `text` as its reply: as the card would.
  public func dismiss(_ id: Int) { queue.async { [self] in ask(.dismiss(id)) } }

  /// A screen reader asked to be reminded of notice `id` later: as its "Remind me" would.
  public func snooze(_ id: Int) {
    guard let time = settings.snooze.first else { return }
    queue.async { [self] in ask(.snooze(id, until: time)) }
  }

  public func reply(to id: Int, text: String) { queue.async { [self] in ask(.reply(id: id, text: text)) } }

  private func handle(_ event: Event) {
    if event.kind == .frame {
      frameSoon()
      return
    }
    centerEvent(event)
    run(.event(event))
    if idlePoll == nil, !machine.visible.isEmpty, case .polled? = idleWatch { pollIdle() }
  }

  /// Whether a `settle` is queued behind the events already handed to the display queue.
  private var settleScheduled = false
  private var frameScheduled = false

  /// Settles the surfaces once the events queued so far are applied (and the handler running now,
  /// such as a backend's, has returned), not once per event: when the display falls behind a
  /// burst, a notice that came and went meanwhile gets no popup at all, and the server is not
  /// flooded with windows made and destroyed at once.
  private func settleSoon() {
    guard !settleScheduled else { return }
    settleScheduled = true
    queue.async { [self] in
      settleScheduled = false
      settle()
    }
  }

  private func settle() {
    guard connected else { return }
    // A card about to appear takes the focused output's stack to where the focus is now.
    if machine.showsNewCard { machine.handle(.outputs(backend.readOutputs()), at: notices.now) }
    machine.settle(at: notices.now)
    carryOut(machine.takeActions())
    tellShown()
  }

  /// Draws one frame for the engine's frames queued so far: a display that falls behind skips
  /// frames rather than drawing each late.
  private func frameSoon() {
    guard !frameScheduled else { return }
    frameScheduled = true
    queue.async { [self] in
      frameScheduled = false
      if connected { run(.frame(nil, ready: true)) }
    }
  }

  /// A `done` for a change a person asked for here, through `service`: nobody waits on it, so what
  /// went wrong is logged, never dropped (a notice that finished meanwhile refuses a click; a store
  /// that could not commit the change).
  func asking<Value>(_ what: String) -> @Sendable (Result<Value, ServiceError>) -> Void {
    logFailure(of: what, to: log)
  }

  /// Carries out the machine's actions: its requests through the service (or the picker), the
  /// rest by the backend.
  private func carryOut(_ actions: [DisplayAction]) {
    var surfaces: [DisplayAction] = []
    for action in actions {
      guard case .request(let request) = action else {
        surfaces.append(action)
        continue
      }
      if !surfaces.isEmpty, connected { backend.perform(surfaces) }
      surfaces.removeAll()
      ask(request)
    }
    if !surfaces.isEmpty, connected { backend.perform(surfaces) }
  }

  /// Asks the engine what a person's input on a card asks.
  func ask(_ request: DisplayRequest) {
    switch request {
    case .invoke(let id, let key, let surface):
      // The action's program may want the focus: it gets the click's activation token.
      let service = service
      let done: @Sendable (Result<Notice, ServiceError>) -> Void = asking(
        "popups: action '\(key)' of notice \(id)")
      guard connected else {
        service.invoke(InvokeParameters(id: id, action: key), done: done)
        return
      }
      backend.activationToken(for: surface) { token in
        service.invoke(InvokeParameters(id: id, action: key, activationToken: token), done: done)
      }
    case .dismiss(let id):
      service.dismiss(DismissParameters(id: id), done: asking("popups: dismissing notice \(id)"))
    case .dismissAll:
      service.dismiss(DismissParameters(all: true), done: asking("popups: dismissing every notice"))
    case .reply(let id, let text):
      service.reply(ReplyParameters(id: id, text: text), done: asking("popups: the reply to notice \(id)"))
    case .pointer(let id):
      service.pointer(over: id)
    case .typing(let id):
      service.typing(in: id)
    case .menu(let id):
      onMenu?(id)
    case .snooze(let id, let time):
      service.snooze(id, until: time, done: asking("popups: snoozing notice \(id)"))
    case .fullscreen(let on):
      service.setFullscreen(on)
    }
  }

  /// The backend found the connection broken (a failed write): the popups are forgotten once the
  /// handler running now has returned.
  public func connectionBroken() {
    queue.async { [self] in
      guard connected else { return }
      lost()
    }
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
    if !machine.visible.isEmpty { pollIdle() }
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
    guard !machine.visible.isEmpty else { return }
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(deadline: .now() + (idle ? Self.awayPollInterval : max(after - since, 0.05)))
    timer.setEventHandler { [weak self] in self?.pollIdle() }
    timer.resume()
    idlePoll = timer
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
    let traits: DisplayTraits
    do {
      (description, traits) = try backend.connect(to: self)
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
    run(.connected(traits, backend.readOutputs()))
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
    stopIdleWatch()
    connected = false
    run(.disconnected)
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
