import CLinux
import Dispatch
import Foundation
import NotifyConfig
import NotifyCore
import NotifyDisplay
import NotifyPaths
import NotifyPosix
import NotifyProtocol
import NotifySupport

#if canImport(Glibc)
  import Glibc
#endif

/// Runs the `[Hooks]` commands through `sh -c` as notices are shown and finish, with the notice
/// in `NOTIFYD_*` variables, and plays a notice's sound as it shows (`[Sound] Enabled=yes`):
/// asynchronously, a bounded number at a time, each with a timeout, so a hook or a player never
/// holds up the queue.
///
/// - Important: `OnComplete` runs only for outcome `completed`; a cancelled notice's never runs.
///   Everything mutable is owned by `queue`.
public final class HookRunner: @unchecked Sendable {
  // @unchecked: all mutable state is touched only on `queue`.
  private let queue = DispatchQueue.daemonSerial("notifyd.hooks")
  private let log: Logger
  private var hooks: Hooks
  private var sound: SoundSettings
  /// Where the players are, looked up in `PATH` once.
  private let players: SoundPlayers
  /// Which kinds of event the hooks in force need, readable from any thread: an event no hook
  /// needs costs nothing, not even a hop to `queue`.
  private let wanted: Locked<(shows: Bool, finishes: Bool)>
  private let timeout: Double
  private let maximumRunning: Int
  private var shown: Set<Int> = []
  private var running: [pid_t: (name: String, id: Int, timer: any DispatchSourceTimer)] = [:]
  /// The picker open now (`openMenu`): one at a time.
  private var menu: pid_t?
  /// How long a picker may stay open before it is closed: a person who walked away.
  static let menuTimeout = 300.0
  private var backlog: [(name: String, arguments: [String], notice: Notice)] = []
  private var childSignal: (any DispatchSourceSignal)?
  private let lookup: @Sendable (Int) -> Notice?
  /// Where the graphical session draws, once the daemon follows it to somewhere it was not
  /// started: hooks and the picker run there.
  private let session = Locked<SessionDisplay?>(nil)

  /// Hooks and the picker started from now on run on `display`.
  public func setSession(_ display: SessionDisplay) {
    session.withLock { $0 = display }
  }

  /// A runner for `hooks`; `lookup` finds a notice by id when an event names only the id.
  public init(
    hooks: Hooks, sound: SoundSettings = SoundSettings(), log: Logger, timeout: Double = 30,
    maximumRunning: Int = 16, environment: [String: String] = ProcessInfo.processInfo.environment,
    lookup: @escaping @Sendable (Int) -> Notice?
  ) {
    self.hooks = hooks
    self.sound = sound
    self.players = SoundPlayers(environment: environment)
    self.wanted = Locked(Self.wanted(by: hooks, sound: sound))
    self.log = log
    self.timeout = timeout
    self.maximumRunning = maximumRunning
    self.lookup = lookup
    queue.sync {
      let source = DispatchSource.makeSignalSource(signal: SIGCHLD, queue: queue)
      source.setEventHandler { [unowned self] in reapChildren() }
      source.activate()
      childSignal = source
    }
  }

  /// Puts new hooks and sound settings in force (after a reload).
  public func update(_ hooks: Hooks, sound: SoundSettings) {
    wanted.withLock { $0 = Self.wanted(by: hooks, sound: sound) }
    queue.async {
      self.hooks = hooks
      self.sound = sound
    }
  }

  private static func wanted(by hooks: Hooks, sound: SoundSettings) -> (shows: Bool, finishes: Bool) {
    let shows = hooks.onShow != nil || sound.enabled
    return (shows, hooks.onFinish != nil || hooks.onComplete != nil || shows)
  }

  /// Feeds one queue event (from any thread); runs the hooks it calls for.
  public func handle(_ event: Event) {
    let wanted = wanted.withLock { $0 }
    switch event.kind {
    case .phase where wanted.shows: break
    case .finished where wanted.finishes: break
    default: return
    }
    queue.async { [self] in
      switch event.kind {
      case .phase:
        guard let id = event.id, let phase = event.phase, phase.isVisible, !shown.contains(id) else { return }
        shown.insert(id)
        guard let notice = lookup(id) else { return }
        if let command = hooks.onShow { run("OnShow", ["/bin/sh", "-c", command], notice) }
        if sound.enabled, let player = players.command(for: notice, default: sound.defaultName) {
          run("Sound", player, notice)
        }
      case .finished:
        guard let notice = event.notice else { return }
        shown.remove(notice.id)
        if let command = hooks.onFinish { run("OnFinish", ["/bin/sh", "-c", command], notice) }
        if let command = hooks.onComplete, notice.outcome == .completed {
          run("OnComplete", ["/bin/sh", "-c", command], notice)
        }
      default:
        return
      }
    }
  }

  /// The variables a hook sees for `notice`.
  static func environment(for notice: Notice) -> [String: String] {
    func clean(_ text: String?) -> String { (text ?? "").replacingOccurrences(of: "\0", with: " ") }
    return [
      "NOTIFYD_ID": "\(notice.id)",
      "NOTIFYD_KIND": notice.kind.rawValue,
      "NOTIFYD_TITLE": clean(notice.title),
      "NOTIFYD_BODY": clean(notice.body),
      "NOTIFYD_APP": clean(notice.app),
      "NOTIFYD_TAG": clean(notice.tag),
      "NOTIFYD_ICON": clean(notice.icon),
      "NOTIFYD_URGENCY": notice.urgency.rawValue,
      "NOTIFYD_OUTCOME": notice.outcome?.rawValue ?? "",
      "NOTIFYD_ACTION": clean(notice.invoked),
      "NOTIFYD_MESSAGE": clean(notice.message),
      "NOTIFYD_VALUE": notice.value.map { "\($0)" } ?? "",
      "NOTIFYD_CATEGORY": clean(notice.hints?.category),
      "NOTIFYD_DESKTOP_ENTRY": clean(notice.hints?.desktopEntry),
      "NOTIFYD_SOUND_FILE": notice.hints?.isSilent == true ? "" : clean(notice.hints?.soundFile),
      "NOTIFYD_SOUND_NAME": notice.hints?.isSilent == true ? "" : clean(notice.hints?.soundName),
    ]
  }

  /// Opens the picker with notice `id`'s actions (a click's `menu`, the "…" button): runs `command`
  /// (`notifyctl menu ID …`) as a hook runs, in a process group of its own with the notice in its
  /// environment, closed after `menuTimeout`. One at a time: a new one closes the one open.
  public func openMenu(for id: Int, command: [String], environment extra: [String: String]) {
    queue.async { [self] in
      if let menu, running[menu] != nil { Posix.sendSignal(SIGTERM, to: -menu) }
      menu = nil
      guard let notice = lookup(id), notice.phase != .finished else { return }
      menu = run("Menu", command, notice, timeout: Self.menuTimeout, extra: extra, queueing: false)
    }
  }

  @discardableResult
  private func run(
    _ name: String, _ arguments: [String], _ notice: Notice, timeout: Double? = nil,
    extra: [String: String] = [:], queueing: Bool = true
  ) -> pid_t? {
    guard running.count < maximumRunning || !queueing else {
      if backlog.count < 1000 {
        backlog.append((name, arguments, notice))
      } else {
        log.warning("\(name) hook for notice \(notice.id) dropped: 1000 hooks are waiting to run, ignoring")
      }
      return nil
    }
    var environment = ProcessInfo.processInfo.environment
    // What systemd handed the daemon is not for its hooks.
    for key in [
      "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
    ] {
      environment.removeValue(forKey: key)
    }
    if let session = session.withLock({ $0 }) { environment = session.applied(to: environment) }
    for (key, value) in Self.environment(for: notice) { environment[key] = value }
    for (key, value) in extra { environment[key] = value }
    let pid: pid_t
    do {
      pid = try spawn(arguments, environment: environment)
    } catch {
      log.warning("\(name) hook for notice \(notice.id) could not start: \(error), ignoring")
      return nil
    }
    let timeout = timeout ?? self.timeout
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(deadline: .now() + timeout)
    timer.setEventHandler { [unowned self] in
      guard running[pid] != nil else { return }
      log.warning("\(name) hook for notice \(notice.id) ran over \(Int(timeout)) s; killing it")
      Posix.sendSignal(SIGKILL, to: -pid)
    }
    timer.activate()
    running[pid] = (name, notice.id, timer)
    log.debug(
      "\(name) hook started for notice \(notice.id) (pid \(pid))", fields: ["NOTICE_ID": "\(notice.id)"])
    return pid
  }

  /// Starts `arguments` in a process group of its own, stdin from /dev/null, and no descriptor of
  /// the daemon's but stdout and stderr (every one is close-on-exec too; this also covers those a
  /// library opened without the flag).
  private func spawn(_ arguments: [String], environment: [String: String]) throws(SystemError) -> pid_t {
    var options = Posix.SpawnOptions()
    options.environment = environment
    options.searchesPath = !arguments[0].contains("/")
    options.input = .null
    options.closesOtherDescriptors = true
    options.newProcessGroup = true
    options.defaultSignals = [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD]
    options.signalMask = Posix.signalSet([])
    return try Posix.spawn(arguments, options)
  }

  private func reapChildren() {
    for (pid, hook) in running {
      guard let termination = try? Posix.reap(pid) else { continue }
      hook.timer.cancel()
      running.removeValue(forKey: pid)
      if pid == menu { menu = nil }
      switch termination {
      case .exited(0): break
      case .exited(let code) where hook.name == "Menu":
        // notifyctl menu: 9 nothing chosen; anything else it has said on its standard error.
        if code != 9 { log.warning("the picker for notice \(hook.id) failed with exit status \(code)") }
      case .killed where hook.name == "Menu":
        break  // closed for a newer one, or after menuTimeout (said then)
      case .exited(let code):
        log.warning("\(hook.name) hook for notice \(hook.id) failed with exit status \(code)")
      case .killed(let signal):
        log.warning("\(hook.name) hook for notice \(hook.id) was killed by signal \(signal)")
      }
    }
    while running.count < maximumRunning, !backlog.isEmpty {
      let next = backlog.removeFirst()
      run(next.name, next.arguments, next.notice)
    }
  }
}

/// The programs that play a notice's sound: `canberra-gtk-play` (files, and names from the
/// desktop's sound theme) when a display is there for it (it is a GTK program and will not start
/// without one), else `paplay` — a name then found as a file of the freedesktop sound theme
/// (`$XDG_DATA_DIRS/sounds/freedesktop/stereo/NAME.oga`, `.ogg` or `.wav`).
struct SoundPlayers: Sendable {
  let canberra: String?
  let paplay: String?
  /// Where sound themes are: `$XDG_DATA_HOME/sounds`, then each `$XDG_DATA_DIRS/sounds`.
  let soundDirectories: [String]

  init(environment: [String: String]) {
    let directories = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(
      String.init)
    func find(_ name: String) -> String? {
      directories.lazy.map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }
    let display = !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
    canberra = display ? find("canberra-gtk-play") : nil
    paplay = find("paplay")
    soundDirectories = ConfigLocation.dataDirectories(environment: environment).map { "\($0)/sounds" }
  }

  /// The command that plays `notice`'s sound: its file, else its name, else `defaultName`; nil
  /// when it is silent, names nothing, or nothing here can play it.
  func command(for notice: Notice, default defaultName: String?) -> [String]? {
    let hints = notice.hints
    if hints?.isSilent == true { return nil }
    if let file = hints?.soundFile {
      if let canberra { return [canberra, "--file=\(file)", "--description=notifyd"] }
      if let paplay { return [paplay, file] }
      return nil
    }
    guard let name = hints?.soundName ?? defaultName else { return nil }
    if let canberra { return [canberra, "--id=\(name)", "--description=notifyd"] }
    guard let paplay, let file = themeFile(named: name) else { return nil }
    return [paplay, file]
  }

  /// The freedesktop sound theme's file for sound `name`, if there is one.
  func themeFile(named name: String) -> String? {
    guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else { return nil }
    for directory in soundDirectories {
      for suffix in ["oga", "ogg", "wav"] {
        let path = "\(directory)/freedesktop/stereo/\(name).\(suffix)"
        if access(path, R_OK) == 0 { return path }
      }
    }
    return nil
  }
}
