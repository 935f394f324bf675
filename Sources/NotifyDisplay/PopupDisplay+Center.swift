import CPangoCairo
import Dispatch
import NotifyCore
import NotifyPosix
import NotifyProtocol
import NotifyService

/// The failure `PopupDisplay.center` answers with: why nothing is drawn.
public struct CenterFailure: Error, Sendable {
  public var reason: String
}

// The notification center (DESIGN §13): a panel the backend shows on an edge of the output, drawn
// by `CenterPainter`. Its rules are `CenterMachine`'s; here it is driven: what the engine lists,
// the panel's inputs and keys go in, and its effects are carried out.
extension PopupDisplay {
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
    center = CenterMachine(measure: centerPainter)
    // The times say "5 min ago": told again once a minute, only while open.
    let clock = DispatchSource.makeTimerSource(queue: queue)
    clock.schedule(deadline: .now() + 60, repeating: 60, leeway: .seconds(1))
    clock.setEventHandler { [weak self] in self?.redrawCenter() }
    clock.resume()
    centerClock = clock
    listCenter()
    tellCenter()
    log.info("display: the center is open")
    // The popups stand aside.
    run(.center(true))
  }

  /// Closes the center (the command, Escape, a click outside, the display going): the popups come
  /// back. Nothing happens when it is closed.
  public func closeCenter() {
    guard center != nil else { return }
    center = nil
    centerClock?.cancel()
    centerClock = nil
    if toldOutline != nil {
      toldOutline = nil
      onCenter?(nil)
    }
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

  /// Hands the open center what the engine has now: the live notices (shown, or indicators
  /// running) and history.
  private func listCenter() {
    guard center != nil else { return }
    let notices = notices
    let status = notices.status()
    let live = notices.list().filter { $0.phase.isVisible || $0.kind == .progress || $0.snoozedUntil != nil }
    let listing = CenterListing(
      live: live, finished: status.finished, suspended: status.suspended,
      doNotDisturb: status.doNotDisturb
    ) { limit, add in notices.forEachFinished(limit: limit, add) }
    steerCenter { $0.list(listing, at: Posix.monotonicNow()) }
  }

  /// An engine event while the center is open.
  func centerEvent(_ event: Event) {
    // Only an entry changed in place changes the rows now; other events list again first.
    steerCenter(changesRows: event.kind == .updated) { $0.event(event, at: Posix.monotonicNow()) }
  }

  /// A key while the center is open; the keyboard leaving closes it.
  func centerKey(_ key: KeyInput?) {
    guard let key else {
      closeCenter()
      return
    }
    steerCenter { $0.key(key) }
  }

  /// What the backend says of the center's panel.
  public func input(_ input: CenterInput) {
    // The pointer over it, a scroll or its size change neither its rows nor the chosen one.
    let changesRows: Bool
    switch input {
    case .pressed, .closed: changesRows = true
    case .pointerMoved, .pointerLeft, .scrolled, .resized: changesRows = false
    }
    steerCenter(changesRows: changesRows) { $0.handle(input) }
  }

  /// A screen reader acted on entry `id` of the open center: as Enter on its row, or Delete.
  public func centerEntry(_ id: Int, forget: Bool) {
    queue.async { [self] in steerCenter { $0.act(on: id, forget: forget) } }
  }

  /// Hands the open center an input and carries out its effects; tells `onCenter` its rows when
  /// they or the chosen one changed (`changesRows`: the input may have changed them).
  private func steerCenter(changesRows: Bool = true, _ input: (inout CenterMachine) -> Void) {
    guard center != nil else { return }
    input(&center!)
    if changesRows, let onCenter, let outline = center?.outline, outline != toldOutline {
      toldOutline = outline
      onCenter(outline)
    }
    for effect in center?.takeEffects() ?? [] {
      switch effect {
      case .redraw: redrawCenter()
      case .list(let after) where after <= 0: listCenter()
      case .list(let after):
        queue.asyncAfter(deadline: .now() + after) { [weak self] in self?.listCenter() }
      case .request(let request): ask(request)
      case .close: closeCenter()
      }
    }
  }

  /// Carries out what the center asks of the engine, through the service.
  private func ask(_ request: CenterRequest) {
    switch request {
    case .doNotDisturb(true): service.suspend(SuspendParameters(), done: asking("center: do-not-disturb"))
    case .doNotDisturb(false): service.resume(done: asking("center: resuming"))
    case .clearAll:
      service.dismiss(DismissParameters(all: true), done: asking("center: dismissing every notice"))
      service.forget(ForgetParameters(all: true), done: asking("center: forgetting every notice"))
    case .dismiss(let id):
      service.dismiss(DismissParameters(id: id), done: asking("center: dismissing notice \(id)"))
    case .forget(let id):
      service.forget(ForgetParameters(ids: [id]), done: asking("center: forgetting notice \(id)"))
    case .invoke(let id, let key):
      let what = key == Card.defaultActionKey ? "opening notice \(id)" : "action '\(key)' of notice \(id)"
      service.invoke(InvokeParameters(id: id, action: key), done: asking("center: " + what))
    case .restore(let id):
      service.restore(RestoreParameters(ids: [id]), done: asking("center: restoring notice \(id)"))
    case .snooze(let id):
      guard let time = settings.snooze.first else { return }
      service.snooze(id, until: time, done: asking("center: snoozing notice \(id)"))
    case .unsnooze(let id):
      service.unsnooze(IDParameters(id: id), done: asking("center: bringing notice \(id) back"))
    case .read(let ids):
      if service.read(ReadParameters(ids: ids), done: asking("center: reading \(ids.count) notices")) == nil {
        // One went meanwhile (forgotten): the rest one by one.
        for id in ids {
          service.read(ReadParameters(ids: [id]), done: asking("center: reading notice \(id)"))
        }
      }
    }
  }

  private func redrawCenter() {
    guard center != nil, connected else { return }
    backend.redrawCenter()
  }

  /// Paints the center's frame into `target` (`width` × `height` logical pixels, premultiplied ARGB,
  /// its pixels that size at `scale`); the entries it shows are read from now on.
  public func paintCenter(into target: OpaquePointer, width: Int, height: Int, scale: Double) {
    cairo_surface_set_device_scale(target, scale, scale)
    guard let machine = center else { return }
    if machine.size.map({ $0 != (width, height) }) ?? true {
      steerCenter(changesRows: false) { $0.handle(.resized(width: width, height: height)) }
    }
    guard let machine = center else { return }
    var look = machine.look
    look.now = notices.wallTime
    centerPainter.paint(machine.model, look: look, into: target, width: width, height: height)
    steerCenter(changesRows: false) { $0.painted() }
  }
}
