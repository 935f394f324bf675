import Dispatch
import Foundation
import NotifyCore
import NotifyProtocol
import NotifyWayland

#if canImport(Glibc)
  import Glibc
#endif

/// How the daemon was asked to run, from its command line and environment.
public struct DaemonOptions: Sendable {
  public var socketPath: String?
  /// `--config PATH`: the only file read; else the XDG lookup of `ConfigLoader.locate`.
  public var configPath: String?
  public var logLevel: LogLevel = .info

  public init() {}

  /// The store: `[Store] Path=`, else `$XDG_STATE_HOME/notifyd/notifyd.db`, else
  /// `~/.local/state/notifyd/notifyd.db`.
  public func resolvedStorePath(
    config: Config, environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    if let path = config.storePath { return expandingHome(path, environment: environment) }
    if let state = environment["XDG_STATE_HOME"], !state.isEmpty { return state + "/notifyd/notifyd.db" }
    return (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state/notifyd/notifyd.db"
  }

  /// The socket path: `--socket`, else `NOTIFYD_SOCKET`, else `[Socket] Path=`, else
  /// `$XDG_RUNTIME_DIR/notifyd.sock`, else `/run/user/UID/notifyd.sock`.
  public func resolvedSocketPath(
    config: Config = Config(), environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    if let socketPath { return socketPath }
    if let path = environment["NOTIFYD_SOCKET"], !path.isEmpty { return path }
    if let path = config.socketPath { return expandingHome(path, environment: environment) }
    return SocketPath.runtimeDefault(environment: { environment[$0] }, uid: getuid())
  }
}

/// `~/x` with the home directory in front.
func expandingHome(_ path: String, environment: [String: String]) -> String {
  guard path.hasPrefix("~/") else { return path }
  return (environment["HOME"] ?? NSHomeDirectory()) + path.dropFirst()
}

/// The daemon: makes the queue, serves the socket, tells systemd how it is doing, and stops
/// cleanly on SIGTERM or SIGINT.
public final class Daemon: @unchecked Sendable {
  // @unchecked: mutable state is touched only on `control`, the server's serial queue.
  private let options: DaemonOptions
  private let log: Logger
  private let control = DispatchQueue.daemonSerial("notifyd.server")
  private var watchdogTimer: (any DispatchSourceTimer)?
  private var statusTimer: (any DispatchSourceTimer)?
  private var lastStatus = ""
  private var server: VarlinkServer?
  private var socket: ListeningSocket?
  private var queue: NoticeQueue?
  private var store: NoticeStore?
  private var subscription: NoticeQueue.Subscription?
  private var hookSubscription: NoticeQueue.Subscription?
  private var hooks: HookRunner?
  private var bridge: DBusBridge?
  private var popups: WaylandPopups? {
    get { currentPopups.withLock { $0 } }
    set { currentPopups.withLock { $0 = newValue } }
  }
  /// The popups in force, for the bus's queue to reach across a reload.
  private let currentPopups = Locked<WaylandPopups?>(nil)
  private var config = Config()
  private var configSource: String?
  private let memory = MemoryReclaimer()

  public init(options: DaemonOptions, log: Logger) {
    self.options = options
    self.log = log
  }

  /// Starts everything, reports `READY=1`, and serves until a signal stops it. Never returns.
  public func run() throws -> Never {
    MemoryReclaimer.configure()
    // Before any file is made: the store, its journal files and the socket hold notices.
    Posix.umask(0o077)
    Posix.ignoreSIGPIPE()
    let openFileLimit = Posix.raiseOpenFileLimit()
    // Block the stop and reload signals before any thread exists, so that every thread inherits
    // the block and they stay pending until `serveSignals()` takes them.
    var handled = Self.handledSignals
    pthread_sigmask(SIG_BLOCK, &handled, nil)
    let environment = ProcessInfo.processInfo.environment
    configSource = ConfigLoader.locate(explicit: options.configPath, environment: environment)
    config = try ConfigLoader.load(configSource)
    log.info("config: \(configSource ?? "built-in defaults")")
    // The socket first: a second daemon must find the first one before it touches the store,
    // restores the queue or runs a hook.
    let socket = try openSocket()
    self.socket = socket
    do {
      try serve(on: socket, openFileLimit: openFileLimit, environment: environment)
    } catch {
      socket.removeOwnedPath()
      throw error
    }
    log.info("listening on \(socket.displayPath)")
    Systemd.notify("READY=1\nSTATUS=\(queue.map { statusText($0.status()) } ?? "")")
    serveSignals()
  }

  /// Opens the store, restores the queue, starts hooks, the bus and the Varlink server on `socket`.
  private func serve(on socket: ListeningSocket, openFileLimit: Int, environment: [String: String]) throws {
    let storePath = options.resolvedStorePath(config: config, environment: environment)
    let (store, saved) = try NoticeStore.open(
      path: storePath, sync: config.storeSync, historySize: config.queue.historySize, log: log)
    self.store = store
    log.info(
      "store: \(storePath) (\(saved.unfinished.count) unfinished, \(saved.history.count) in history\(saved.suspended ? ", suspended" : ""))"
    )
    let scheduler = DispatchScheduler()
    let queue = NoticeQueue(settings: config.queue, scheduler: scheduler, journal: store)
    queue.restore(saved)
    self.queue = queue
    let hooks = HookRunner(hooks: config.hooks, log: log) { id in try? queue.get(id) }
    self.hooks = hooks
    hookSubscription = try? queue.watch { event in hooks.handle(event) }
    let bridge = DBusBridge(mode: config.dbusMode, queue: queue, store: store, log: log)
    self.bridge = bridge
    let currentPopups = currentPopups
    bridge.onForwardingChanged = { forwarding in
      currentPopups.withLock { $0 }?.setSuppressed(forwarding)
    }
    startPopups(environment: environment)
    bridge.start()
    let service = QueueService(queue: queue, store: store) { [unowned self] in
      dispatchPrecondition(condition: .onQueue(control))
      return reload()
    }
    let reclaimer = memory
    let server = VarlinkServer(
      socket: socket, service: service, queue: control, log: log,
      maximumClients: VarlinkServer.maximumClients(openFileLimit: openFileLimit)
    ) { reclaimer.memoryMayHaveBeenFreed() }
    self.server = server
    server.start()
    control.sync {
      subscription = try? queue.watch { [weak self] event in
        guard let self else { return }
        if event.kind == .finished, let notice = event.notice, let outcome = notice.outcome {
          log.info(
            "notice \(notice.id) finished: \(outcome.rawValue)",
            fields: ["NOTICE_ID": "\(notice.id)", "OUTCOME": outcome.rawValue])
          // What a finished notice held goes once it leaves history: trim now and then.
          if notice.id % 256 == 0 { memory.memoryMayHaveBeenFreed() }
        }
        statusMayHaveChanged()
      }
      startWatchdog()
    }
  }

  private func openSocket() throws -> ListeningSocket {
    let passed = Systemd.listenedSockets()
    if let chosen = passed.first(where: { $0.name == "varlink" }) ?? passed.first {
      return ListeningSocket.inherited(
        fd: chosen.fd, name: "\(Posix.socketPath(chosen.fd) ?? "socket \(chosen.fd)") (from systemd)")
    }
    return try ListeningSocket.create(at: options.resolvedSocketPath(config: config))
  }

  /// SIGTERM, SIGINT and SIGHUP: blocked in every thread from the start of `run()`.
  private static var handledSignals: sigset_t {
    var set = sigset_t()
    sigemptyset(&set)
    for signalNumber in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, signalNumber) }
    return set
  }

  /// Takes SIGTERM, SIGINT and SIGHUP on the main thread with `sigwait(3)` and hands each to the
  /// server's queue. Not Dispatch signal sources: on Linux, libdispatch drops a signal that comes
  /// before its source is registered (SIGTERM just after READY=1), and `dispatchMain()` waits in
  /// `sigsuspend` with every signal unblocked, so one can be taken by the wrong thread and lost.
  private func serveSignals() -> Never {
    var handled = Self.handledSignals
    while true {
      var signalNumber: Int32 = 0
      guard sigwait(&handled, &signalNumber) == 0 else { continue }
      control.async { [self, signalNumber] in
        if signalNumber == SIGHUP {
          _ = reload()
        } else {
          stop(signal: signalNumber)
        }
      }
    }
  }

  /// Re-reads the config file and puts it in force for every notice accepted from now on; a bad
  /// file is refused and the old config stays. Tells systemd `RELOADING=1` … `READY=1`.
  func reload() -> Result<Void, VarlinkError> {
    Systemd.notifyReloading()
    defer {
      let status = queue.map { statusText($0.status()) } ?? ""
      Systemd.notify("READY=1\nSTATUS=\(status)")
    }
    let source = ConfigLoader.locate(
      explicit: options.configPath, environment: ProcessInfo.processInfo.environment)
    let fresh: Config
    do {
      fresh = try ConfigLoader.load(source)
    } catch {
      log.error("reload refused, keeping the old config: \(error)")
      return .failure(.invalidArgument("config", "\(error)"))
    }
    if fresh.socketPath != config.socketPath || fresh.storePath != config.storePath
      || fresh.storeSync != config.storeSync || fresh.dbusMode != config.dbusMode
    {
      log.notice("[Socket], [Store] and [DBus] changes take effect when notifyd restarts")
    }
    queue?.apply(fresh.queue)
    store?.setHistorySize(fresh.queue.historySize)
    if fresh.display != config.display {
      popups?.stop()
      popups = nil
      config.display = fresh.display
      startPopups(environment: ProcessInfo.processInfo.environment)
    }
    hooks?.update(fresh.hooks)
    config = fresh
    configSource = source
    log.info("reloaded config from \(source ?? "built-in defaults")")
    return .success(())
  }

  /// Starts drawing popups when `[Display] Mode=` and the session allow it (DESIGN §9): `wayland`
  /// always (connecting with a backoff until a compositor answers), `auto` when `WAYLAND_DISPLAY`
  /// names one and notices are not forwarded to another server.
  private func startPopups(environment: [String: String]) {
    guard let queue else { return }
    switch config.display.mode {
    case .off:
      log.debug("display: [Display] Mode=off, no popups")
      return
    case .auto:
      guard environment["WAYLAND_DISPLAY"].map({ !$0.isEmpty }) == true else {
        log.info("display: no WAYLAND_DISPLAY, no popups ([Display] Mode=auto)")
        return
      }
      guard config.dbusMode != .forward else {
        log.info("display: notices are forwarded ([DBus] Mode=forward), no popups of our own")
        return
      }
    case .wayland:
      break
    }
    let log = self.log
    let popups = WaylandPopups(settings: config.display, queue: queue) { message in log.info(message) }
    // With [DBus] Mode=auto, the bus may serve for the popups, and the popups stand aside while
    // the bus forwards to another server (Mode=wayland draws regardless).
    if let bridge {
      popups.onDrawable = { drawable in bridge.setPopupsDrawable(drawable) }
      if config.display.mode == .auto { bridge.reportForwarding() }
    }
    self.popups = popups
    popups.start()
  }

  /// `notifyd --check-config`: prints the effective config and answers 0, or the first problem
  /// as `file:line: Key: reason` on stderr and answers 1.
  public static func checkConfig(_ options: DaemonOptions) -> Int32 {
    let source = ConfigLoader.locate(
      explicit: options.configPath, environment: ProcessInfo.processInfo.environment)
    do {
      let config = try ConfigLoader.load(source)
      print("# effective configuration from \(source ?? "built-in defaults")")
      print(config.rendered(), terminator: "")
      return 0
    } catch {
      FileHandle.standardError.write(Data("notifyd: \(error)\n".utf8))
      return 1
    }
  }

  /// Stops serving, removes the socket file the daemon made, and exits 0.
  private func stop(signal: Int32) {
    Systemd.notify("STOPPING=1")
    log.info("\(signal == SIGTERM ? "SIGTERM" : "SIGINT"): stopping")
    subscription?.cancel()
    server?.stop()
    socket?.removeOwnedPath()
    if let store {
      let flushed = DispatchSemaphore(value: 0)
      store.sync { error in
        if let error { self.log.error("the store could not be flushed: \(error)") }
        flushed.signal()
      }
      if flushed.wait(timeout: .now() + 10) == .timedOut { log.error("the store did not flush within 10 s") }
    }
    exit(0)
  }

  // MARK: - systemd status and watchdog

  /// A status line such as "2 queued, 1 visible" or "suspended until 14:05, 3 queued".
  func statusText(_ status: StatusReply) -> String {
    var parts: [String] = []
    if status.suspended {
      if let until = status.suspendedUntil {
        let date = Date(timeIntervalSince1970: until)
        var calendar = Calendar.current
        calendar.timeZone = .current
        let components = calendar.dateComponents([.hour, .minute], from: date)
        parts.append(
          String(format: "suspended until %02d:%02d", components.hour ?? 0, components.minute ?? 0))
      } else {
        parts.append("suspended")
      }
    }
    if status.waiting > 0 { parts.append("\(status.waiting) waiting") }
    parts.append("\(status.queued) queued")
    parts.append("\(status.visible) visible")
    return parts.joined(separator: ", ")
  }

  /// Coalesces status updates: at most one `STATUS=` per 100 ms.
  private func statusMayHaveChanged() {
    control.async { [self] in
      guard statusTimer == nil else { return }
      let timer = DispatchSource.makeTimerSource(queue: control)
      timer.schedule(deadline: .now() + .milliseconds(100))
      timer.setEventHandler { [unowned self] in
        statusTimer?.cancel()
        statusTimer = nil
        guard let queue else { return }
        let text = statusText(queue.status())
        if text != lastStatus {
          lastStatus = text
          Systemd.notify("STATUS=\(text)")
        }
      }
      statusTimer = timer
      timer.activate()
    }
  }

  /// Pings the watchdog every half interval from the server's queue, so a stuck queue stops the pings.
  private func startWatchdog() {
    guard let usec = Systemd.watchdogInterval() else { return }
    let timer = DispatchSource.makeTimerSource(queue: control)
    let interval = DispatchTimeInterval.microseconds(Int(usec / 2))
    timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(10))
    timer.setEventHandler { Systemd.notify("WATCHDOG=1") }
    watchdogTimer = timer
    timer.activate()
  }
}
