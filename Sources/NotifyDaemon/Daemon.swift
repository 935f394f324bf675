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
    return ConfigLocation.stateDirectory(environment: { environment[$0] }) + "/notifyd.db"
  }

  /// The socket path, by the rule `notifyctl` follows too (`SocketPath.resolve`).
  public func resolvedSocketPath(
    config: Config = Config(), environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    SocketPath.resolve(
      option: socketPath, environment: { environment[$0] }, configured: config.socketPath, uid: getuid())
  }
}

/// `~/x` with the home directory in front.
func expandingHome(_ path: String, environment: [String: String]) -> String {
  SocketPath.expandingHome(path, environment: { environment[$0] })
}

/// The daemon: makes the queue, serves the socket, tells systemd how it is doing, and stops
/// cleanly on SIGTERM or SIGINT.
///
/// One `EventLoop` thread serves every client, runs the store's commits and the daemon's own
/// timers (status, watchdog); signals are taken with `sigwait(3)` on the main thread and handed to it.
public final class Daemon: @unchecked Sendable {
  // @unchecked: mutable state is set up before the loop starts and then touched only on the loop.
  let options: DaemonOptions
  let log: Logger
  var loop: EventLoop!
  var lastStatus = ""
  /// Set while a `STATUS=` update is due: changes in between share it.
  let statusDue = Atomic<Bool>(false)
  var server: VarlinkServer?
  var socket: ListeningSocket?
  var queue: NoticeQueue?
  /// The one door into `queue` that every adapter is handed (the composition alone holds the queue).
  var service: NoticeService?
  var store: NoticeStore?
  /// The timer of the next commit attempt after a failed one.
  var commitRetry: EventLoop.Timer?
  var subscription: NoticeQueue.Subscription?
  var hookSubscription: NoticeQueue.Subscription?
  var hooks: HookRunner?
  var bridge: DBusBridge?
  /// notifyd on the accessibility bus: the cards as objects a screen reader reads (DESIGN §18).
  var accessibility: AccessibilityBridge?
  /// speech-dispatcher, while `[Speech]` or a rule asks for notices to be spoken.
  var speech: SpeechDispatcher?
  var relay: NoticeRelay?
  /// logind's `IdleHint`, the idle source while the display cannot tell (or with no popups).
  var logindIdle: LogindIdle?
  var popups: PopupDisplay? {
    get { currentPopups.withLock { $0 } }
    set { currentPopups.withLock { $0 = newValue } }
  }
  /// The popups in force, for the bus's queue to reach across a reload.
  let currentPopups = Locked<PopupDisplay?>(nil)
  var config = Config()
  var configSource: String?
  /// Where the graphical session draws: where the daemon was started, or, for one the user's
  /// service manager started, what the session exported to it since (`SessionFollower`).
  var session = SessionDisplay(environment: ProcessInfo.processInfo.environment)
  var sessionFollower: SessionFollower?
  /// What the popups in force draw on: chosen by `[Display] Mode=` and the session, nil for none.
  var popupKind: SessionFollower.DisplayKind?
  /// The process's environment with the session's display variables: what the popups, the hooks
  /// and the engine's settings are chosen by.
  var sessionEnvironment: [String: String] {
    session.applied(to: ProcessInfo.processInfo.environment)
  }
  var memory: MemoryReclaimer!

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
    Posix.blockSignals(Self.handledSignals)
    let environment = ProcessInfo.processInfo.environment
    configSource = ConfigLoader.locate(explicit: options.configPath, environment: environment)
    config = try ConfigLoader.load(configSource)
    log.info("config: \(configSource ?? "built-in defaults")")
    loop = try EventLoop(name: "notifyd.server")
    memory = MemoryReclaimer(loop: loop)
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
    loop.start()
    Systemd.notify("READY=1\nSTATUS=\(queue.map { statusText($0.status()) } ?? "")")
    // Start-up ran code that serving never runs again (Foundation's and the libraries' set-up, the
    // config parser, the store's migrations): its pages go with the trim a second from now, once
    // the threads started meanwhile (the loop's first turns, the bus, the display) have settled;
    // what serving needs comes back.
    let memory = self.memory!
    loop.execute { memory.memoryMayHaveBeenFreed() }
    serveSignals()
  }

  /// Opens the store, restores the queue, starts hooks, the bus and the Varlink server on `socket`;
  /// the loop is not running yet, so what is registered here needs no hop to it.
  private func serve(on socket: ListeningSocket, openFileLimit: Int, environment: [String: String]) throws {
    let storePath = options.resolvedStorePath(config: config, environment: environment)
    let loop = loop!
    let (store, saved) = try NoticeStore.open(path: storePath, sync: config.storeSync, log: log) {
      // A change from another thread (a timer finishing a notice, the bus): commit it this turn.
      loop.execute {}
    }
    self.store = store
    log.info(
      "store: \(storePath) (\(saved.unfinished.count) unfinished, \(saved.history.count) in history\(saved.hand != nil ? ", do-not-disturb by hand" : ""))"
    )
    let queue = NoticeQueue(
      settings: Self.queueSettings(config, environment: environment), scheduler: TimingThread(),
      journal: store)
    queue.restore(saved)
    self.queue = queue
    let service = NoticeService(queue: queue, journal: store)
    self.service = service
    let hooks = HookRunner(hooks: config.hooks, sound: config.sound, log: log) { id in try? queue.get(id) }
    self.hooks = hooks
    hookSubscription = try? queue.watch { event in hooks.handle(event) }
    // The bus keeps the icons that come as pixels where the popups draw them from.
    let icons = IconCache(directory: IconCache.defaultDirectory(environment: environment))
    let bridge = DBusBridge(
      mode: config.dbusMode, settings: DBusServerSettings(config: config), service: service, icons: icons,
      log: log)
    self.bridge = bridge
    let currentPopups = currentPopups
    bridge.onForwardingChanged = { forwarding in
      // The server forwarded to shows what is visible: a person sees it there.
      queue.setPresenter(.forwarded, forwarding)
      currentPopups.withLock { $0 }?.setSuppressed(forwarding)
    }
    logindIdle = LogindIdle(service: service, log: log)
    // The cards read by a screen reader: on the accessibility bus, found through the session bus,
    // which [DBus] Mode=off keeps notifyd off altogether.
    if config.dbusMode != .off {
      let accessibility = AccessibilityBridge(log: log, environment: environment)
      accessibility.onRequest = { request in
        guard let popups = currentPopups.withLock({ $0 }) else { return }
        switch request {
        case .invoke(let id, let action): popups.invoke(id, action: action)
        case .dismiss(let id): popups.dismiss(id)
        case .snooze(let id): popups.snooze(id)
        case .reply(let id, let text): popups.reply(to: id, text: text)
        case .centerEntry(let id, let forget): popups.centerEntry(id, forget: forget)
        }
      }
      self.accessibility = accessibility
    }
    followSession(environment: environment)
    startPopups(environment: environment)
    accessibility?.start()
    sessionFollower?.start()
    bridge.start()
    if config.relay.isEnabled { try startRelay(store: store, service: service, queue: queue) }
    let table = QueueMethods.table(
      service: service, reload: { [unowned self] in reload() },
      center: { [unowned self] action, done in
        guard let popups else {
          // Nothing is drawn, so nothing is open: closing is done.
          done(
            action == .close
              ? .success(false)
              : .failure(.noDisplay(queue.status().display?.detail ?? "no popups are drawn")))
          return
        }
        popups.center(action) { done($0.mapError { .noDisplay($0.reason) }) }
      })
    let reclaimer = memory!
    let server = VarlinkServer(
      socket: socket, table: table, loop: loop, log: log,
      maximumClients: VarlinkServer.maximumClients(openFileLimit: openFileLimit)
    ) { reclaimer.memoryMayHaveBeenFreed() }
    self.server = server
    try server.start()
    // The end of every turn: calls that waited start, the store commits what the turn accepted,
    // and the replies that commit released go out, one write per connection.
    loop.atEndOfTurn { server.takeUpPendingCalls() }
    loop.atEndOfTurn { [unowned self] in commit() }
    loop.atEndOfTurn { server.flushConnections() }
    subscription = try? queue.watch { [weak self] event in
      guard let self else { return }
      if event.kind == .finished, let notice = event.notice, let outcome = notice.outcome {
        log.info(
          "notice \(notice.id) finished: \(outcome.rawValue)",
          fields: ["NOTICE_ID": "\(notice.id)", "OUTCOME": outcome.rawValue])
        // What a finished notice held goes once it leaves history: trim now and then.
        if notice.id % 256 == 0 { loop.execute { reclaimer.memoryMayHaveBeenFreed() } }
      }
      // A notice with nowhere to draw it: the session may have exported its display by now
      // without anything saying so.
      if event.kind == .added { sessionFollower?.noticeAdded() }
      statusMayHaveChanged()
    }
    startWatchdog()
  }

  /// The relay (DESIGN §10): the outbox the store kept, the marks of what came from each origin, and
  /// its state in `Status`; it publishes what the store queues from now on.
  private func startRelay(store: NoticeStore, service: NoticeService, queue: NoticeQueue) throws {
    let settings = config.relay
    let host = settings.host ?? RelaySubjects.localHost()
    let subjects = RelaySubjects(base: settings.subject ?? RelaySubjects.defaultBase())
    let current = Locked<NoticeRelay?>(nil)
    let place = RelayPlace(host: host, store: store.identity, subjects: subjects)
    let publishing = RelayPublishing(place: place, publishesNotices: settings.publish)
    let outbox = try store.relay(queueing: publishing.message(for:isNew:finished:sequence:)) { queued in
      current.withLock { $0 }?.enqueue(queued)
    }
    let relay = NoticeRelay(
      settings: settings, place: place,
      service: service, outbox: outbox, marks: try store.relayMarks(), log: log,
      onPublished: { id in store.recordPublished(id) },
      onChange: { [weak self] state in
        queue.setRelay(state)
        self?.statusMayHaveChanged()
      })
    current.withLock { $0 = relay }
    self.relay = relay
    log.info(
      "relay: \(settings.urls.joined(separator: ", ")) as \(host) on \(subjects.base).>"
        + " (\(settings.publish ? "publishing" : "not publishing"), \(settings.subscribe ? "subscribing" : "not subscribing")\(outbox.isEmpty ? "" : ", \(outbox.count) to publish"))"
    )
    relay.start()
  }

  /// The engine's settings: `config.engineSettings`, and on a host that publishes through the relay but draws
  /// no popups, notices that wait for the desk's answer (`RelaySettings.answerWait`) before their
  /// own timeline runs, so that `Wait` and `show --wait` return what happened on the desk.
  static func queueSettings(_ config: Config, environment: [String: String]) -> QueueSettings {
    var settings = config.engineSettings
    guard config.relay.isEnabled, config.relay.publish else { return settings }
    switch popupChoice(config, environment: environment) {
    case .off, .none: settings.answerWait = RelaySettings.answerWait
    case .wayland, .x11: break
    }
    return settings
  }

  /// The store's group commit, at the end of the loop's turn; after a failed one, the next attempt
  /// waits for its timer.
  private func commit() -> Bool {
    guard let store else { return false }
    switch store.commitPending() {
    case .idle: return false
    case .committed: return true
    case .failed(let delay), .waiting(let delay):
      if commitRetry == nil {
        commitRetry = loop.schedule(after: delay) { [unowned self] in commitRetry = nil }
      }
      return false
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
  private static var handledSignals: sigset_t { Posix.signalSet([SIGTERM, SIGINT, SIGHUP]) }

  /// Takes SIGTERM, SIGINT and SIGHUP on the main thread with `sigwait(3)` and hands each to the
  /// loop. Not Dispatch signal sources: on Linux, libdispatch drops a signal that comes before its
  /// source is registered (SIGTERM just after READY=1).
  private func serveSignals() -> Never {
    while true {
      let signalNumber = Posix.waitForSignal(Self.handledSignals)
      loop.execute { [self, signalNumber] in
        if signalNumber == SIGHUP {
          _ = reload()
        } else {
          stop(signal: signalNumber)
        }
      }
    }
  }

  /// Re-reads the config file and puts it in force for every notice accepted from now on; a bad
  /// file is refused and the old config stays. Tells systemd `RELOADING=1` … `READY=1`. On the loop.
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
      || fresh.relay != config.relay
    {
      log.notice("[Socket], [Store], [DBus] and [Relay] changes take effect when notifyd restarts")
    }
    queue?.apply(Self.queueSettings(fresh, environment: sessionEnvironment))
    if fresh.display != config.display {
      popups?.stop()
      popups = nil
      config.display = fresh.display
      startPopups(environment: sessionEnvironment)
    }
    hooks?.update(fresh.hooks, sound: fresh.sound)
    bridge?.update(DBusServerSettings(config: fresh))
    config = fresh
    configSource = source
    log.info("reloaded config from \(source ?? "built-in defaults")")
    return .success(())
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
      print("# display: \(displayReport(config, environment: ProcessInfo.processInfo.environment))")
      return 0
    } catch {
      FileHandle.standardError.write(Data("notifyd: \(error)\n".utf8))
      return 1
    }
  }

  /// Stops serving, commits what is pending, removes the socket file the daemon made, and exits 0.
  private func stop(signal: Int32) {
    Systemd.notify("STOPPING=1")
    log.info("\(signal == SIGTERM ? "SIGTERM" : "SIGINT"): stopping")
    subscription?.cancel()
    server?.stop()
    accessibility?.stop()
    speech?.stop()
    socket?.removeOwnedPath()
    if let store {
      // The last changes: a failed commit gets as many more tries as fit in 10 s.
      let deadline = Posix.monotonicNow() + 10
      while true {
        let outcome = store.commitPending()
        if case .committed = outcome { continue }
        if case .idle = outcome { break }
        if Posix.monotonicNow() > deadline {
          log.error("the store could not be flushed within 10 s")
          break
        }
        Posix.sleep(0.05)
      }
    }
    exit(0)
  }
}
