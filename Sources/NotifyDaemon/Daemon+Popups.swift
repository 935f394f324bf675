import Foundation
import NotifyConfig
import NotifyCore
import NotifyDBus
import NotifyDisplay
import NotifyPaths
import NotifyPosix
import NotifyProtocol
import NotifyRelay
import NotifyService
import NotifySpeech
import NotifyStore
import NotifySupport
import NotifyVarlink
import NotifyWayland
import NotifyX11
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The popups: which backend the session and `[Display] Mode=` choose, following the session as it
/// moves, and standing aside when there is none.
extension Daemon {
  /// Starts drawing popups when `[Display] Mode=` and the session allow it (DESIGN §9): `wayland`
  /// and `x11` always (connecting with a backoff until the display answers); `auto` on Wayland when
  /// a compositor with layer-shell answers at `WAYLAND_DISPLAY`, else on X11 when `DISPLAY` is set,
  /// unless notices are forwarded to another server.
  func startPopups(environment: [String: String]) {
    guard let queue, let service else { return }
    let backend: PopupBackend
    switch Self.popupChoice(config, environment: environment) {
    case .off:
      popupKind = nil
      log.debug("display: [Display] Mode=off, no popups")
      noPopups(because: "[Display] Mode=off", queue: queue)
      return
    case .none(let why):
      // A daemon that follows the session says what it waits for.
      let waits = sessionFollower != nil && !SessionDisplay(environment: environment).namesADisplay
      let reason = waits ? "\(why): drawing once the session exports them" : why
      log.info("display: \(reason), no popups ([Display] Mode=auto)")
      popupKind = nil
      noPopups(because: reason, queue: queue)
      return
    case .wayland:
      popupKind = .wayland
      backend = WaylandBackend(display: environment["WAYLAND_DISPLAY"])
    case .x11(let insteadOfWayland):
      popupKind = .x11
      if insteadOfWayland {
        log.info("display: no layer-shell compositor at WAYLAND_DISPLAY; drawing on X11 instead")
      }
      backend = X11Backend(session: SessionDisplay(environment: environment))
    }
    let popups = PopupDisplay(
      settings: config.display, service: service, backend: backend,
      host: config.relay.host ?? RelaySubjects.localHost(), log: log)
    // Until the display tells (or whenever it cannot), logind does.
    logindIdle?.stop()
    popups.idleFallback = logindIdle.map(LogindFallback.init)
    // With [DBus] Mode=auto, the bus may serve for the popups, and the popups stand aside while
    // the bus forwards to another server (Mode=wayland and x11 draw regardless).
    let bridge = self.bridge
    let follower = sessionFollower
    popups.onDrawable = { drawable in
      bridge?.setPopupsDrawable(drawable)
      follower?.setDrawing(drawable)
    }
    if let bridge, config.display.mode == .auto { bridge.reportForwarding() }
    // `menu` and "…": notifyctl menu, beside this binary, runs the picker as a client of ours.
    if let hooks, let socket {
      let command = [Self.companion("notifyctl"), "menu"]
      let picker = config.display.picker
      let path = Posix.socketPath(socket.fd) ?? socket.displayPath
      popups.onMenu = { id in
        hooks.openMenu(
          for: id, command: command + ["\(id)"] + (picker.map { ["--picker", $0] } ?? []),
          environment: ["NOTIFYD_SOCKET": path])
      }
    }
    // What a screen reader reads: the cards on the screen, and the center while it is open.
    if let accessibility {
      popups.onShown = { notices in accessibility.show(notices) }
      popups.onCenter = { outline in accessibility.showCenter(outline) }
    }
    // What is spoken as a card shows, unless a screen reader reads it itself.
    if let speech = speaker(environment: environment) {
      let accessibility = accessibility
      let log = log
      popups.onSpeak = { text, critical in
        guard accessibility?.screenReaderListens != true else {
          log.debug("speech: a screen reader reads the cards; notifyd says nothing")
          return
        }
        speech.speak(text, critical: critical)
      }
    }
    self.popups = popups
    popups.start()
  }

  /// speech-dispatcher's client, while `[Speech] Speak=` or a rule's asks for anything to be spoken
  /// (made again when its socket changes); nil when nothing is, or no socket is known.
  func speaker(environment: [String: String]) -> SpeechDispatcher? {
    let wanted =
      config.display.speech.speak != .no || config.queue.rules.contains { $0.speak != nil && $0.speak != .no }
    let path = SpeechDispatcher.socketPath(configured: config.display.speech.socket, environment: environment)
    guard wanted, let path else {
      if wanted {
        log.notice("speech: no speech-dispatcher socket (XDG_RUNTIME_DIR is unset); nothing is spoken")
      }
      speech?.stop()
      speech = nil
      return nil
    }
    if speech?.path != path {
      speech?.stop()
      speech = SpeechDispatcher(path: path, log: log)
    }
    return speech
  }

  /// For a daemon the user's service manager started (`INVOCATION_ID` set), perhaps before the
  /// graphical session: follows where the session draws as it exports its variables to the manager
  /// (DESIGN §15); also with `[Display] Mode=off`, which a reload may change. Started by the caller
  /// once the popups are, which tell it whether they draw.
  func followSession(environment: [String: String]) {
    guard environment["INVOCATION_ID"] != nil else { return }
    let loop = loop!
    let follower = SessionFollower(
      started: session, environment: environment, log: log,
      changed: { [weak self] display in
        guard let self else { return }
        loop.execute { self.sessionChanged(display) }
      },
      socketAppeared: { [weak self] kind in
        guard let self else { return }
        loop.execute { self.displaySocketAppeared(kind) }
      })
    sessionFollower = follower
  }

  /// The session draws somewhere else now (or nowhere): the popups start over there, and the hooks
  /// and the engine's settings follow. On the loop.
  private func sessionChanged(_ display: SessionDisplay) {
    guard display != session else { return }
    let before = session
    session = display
    let environment = sessionEnvironment
    hooks?.setSession(display)
    queue?.apply(Self.queueSettings(config, environment: environment))
    // Popups that draw on what did not change go on (a session exporting DISPLAY for XWayland
    // after WAYLAND_DISPLAY does not take the cards down).
    let unchanged: Bool
    switch popupKind {
    case .wayland: unchanged = display.wayland == before.wayland
    case .x11:
      unchanged =
        display.x11 == before.x11 && display.xauthority == before.xauthority
        && display.wayland == before.wayland
    case nil: unchanged = false
    }
    guard !unchanged || popups == nil else { return }
    restartPopups(environment: environment)
  }

  /// The popups start over, chosen anew for `environment`.
  private func restartPopups(environment: [String: String]) {
    popups?.stop()
    popups = nil
    startPopups(environment: environment)
  }

  /// The socket of a display the session names appeared again (its server started anew): the
  /// popups connect at once; ones drawing on X11 for want of the Wayland compositor start over on
  /// it. On the loop.
  private func displaySocketAppeared(_ kind: SessionFollower.DisplayKind) {
    log.info(
      "session: the \(kind == .wayland ? "Wayland compositor" : "X server")'s socket appeared; connecting")
    if kind == .wayland, popupKind == .x11, config.display.mode == .auto {
      restartPopups(environment: sessionEnvironment)
    } else {
      popups?.connectNow()
    }
  }

  /// The path of notifyd's companion program `name` (notifyctl): beside this executable, as every
  /// install puts them, else looked up in `PATH`.
  static func companion(_ name: String) -> String {
    guard let executable = try? Posix.readLink("/proc/self/exe"), let slash = executable.lastIndex(of: "/")
    else { return name }
    let path = executable[..<slash] + "/" + name
    return Posix.isExecutable(String(path)) ? String(path) : name
  }

  /// What `Status` says with no popups: no display to ask whether the person is away, so logind
  /// tells (with `[Idle] After=` not `off`); nor whether a window is fullscreen, so none is.
  private func noPopups(because why: String, queue: NoticeQueue) {
    queue.setDisplay(DisplayState(backend: nil, drawing: false, detail: why))
    queue.setFullscreen(false)
    if config.display.idleAfter != nil, let logindIdle {
      logindIdle.start(because: "no display to ask")
    } else {
      logindIdle?.stop()
      queue.setIdle(nil)
    }
  }

  /// Where `[Display] Mode=` draws in this session (DESIGN §9).
  enum PopupChoice {
    case off
    /// `Mode=auto` draws nothing, for the reason given.
    case none(String)
    /// On Wayland; `reachable` when `Mode=auto` asked a compositor with layer-shell, and it answered.
    case wayland(reachable: Bool?)
    /// On X11; `insteadOfWayland` when `WAYLAND_DISPLAY` was set but named no layer-shell compositor.
    case x11(insteadOfWayland: Bool)
  }

  /// `[Display] Mode=`'s choice: `wayland` and `x11` as said; `auto` Wayland when a layer-shell
  /// compositor answers, else X11 when `DISPLAY` is set (XWayland too), else Wayland when
  /// `WAYLAND_DISPLAY` is set (its compositor may come later), else none; never while forwarding.
  static func popupChoice(_ config: Config, environment: [String: String]) -> PopupChoice {
    switch config.display.mode {
    case .off: return .off
    case .wayland: return .wayland(reachable: nil)
    case .x11: return .x11(insteadOfWayland: false)
    case .auto:
      if config.dbusMode == .forward { return .none("notices are forwarded ([DBus] Mode=forward)") }
      let wayland = environment["WAYLAND_DISPLAY"].map { !$0.isEmpty } == true
      let x11 = environment["DISPLAY"].map { !$0.isEmpty } == true
      if wayland, !x11 { return .wayland(reachable: nil) }
      if wayland, WaylandBackend.isReachable(display: environment["WAYLAND_DISPLAY"]) {
        return .wayland(reachable: true)
      }
      if x11 { return .x11(insteadOfWayland: wayland) }
      return .none("neither WAYLAND_DISPLAY nor DISPLAY is set")
    }
  }

  /// Where popups would be drawn now and how, for `--check-config`: the choice of `[Display]
  /// Mode=` in this session, and on X11 whether they fade (a compositing manager runs) or why not.
  static func displayReport(_ config: Config, environment: [String: String]) -> String {
    let socket = environment["WAYLAND_DISPLAY"] ?? ""
    switch popupChoice(config, environment: environment) {
    case .off: return "none ([Display] Mode=off)"
    case .none(let why): return "none: \(why)"
    case .wayland(let reachable):
      return reachable ?? WaylandBackend.isReachable(display: socket)
        ? "Wayland with layer-shell at WAYLAND_DISPLAY=\(socket), popups fade"
        : "no layer-shell compositor answers at WAYLAND_DISPLAY=\(socket)"
    case .x11: return X11Backend.describeDisplay(session: SessionDisplay(environment: environment))
    }
  }
}

/// logind's `IdleHint` as the popups' fallback idle source: the D-Bus adapter and the display do
/// not know each other, so the daemon joins them.
private final class LogindFallback: FallbackIdleSource {
  let logind: LogindIdle

  init(_ logind: LogindIdle) { self.logind = logind }

  func start(because reason: String) { logind.start(because: reason) }
  func stop() { logind.stop() }
}
