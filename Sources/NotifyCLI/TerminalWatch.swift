import Glibc
import NotifyPosix
import NotifyProtocol

/// `notifyctl watch` on a terminal: a live view of the visible notices and their fades, redrawn
/// as `Watch` events arrive (frames included), until `q`, Ctrl-C or a terminating signal.
///
/// The loop waits in `poll(2)` for the socket, the signal pipe and the keyboard, with a timeout
/// only when a countdown on screen is due to change or a reconnection is due: with nothing fading
/// and nothing counting down it sleeps. It redraws after a batch of events, only the lines that
/// changed; after a resize (`SIGWINCH`) it lays everything out again. When the daemon goes away
/// it says so and reconnects every second.
///
/// - Important: every way out (return, error, signal) passes through `TerminalScreen.leave`.
final class TerminalWatch {
  /// Signals that end the view: it restores the terminal and exits.
  static let quitSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
  /// How long to wait before reconnecting to a daemon that went away.
  static let reconnectDelay = 1.0

  private let socketPath: String
  private let parameters: WatchParameters
  private let renderer: TerminalRenderer
  private let now: () -> Double
  private let device: TerminalDevice
  private let screen: TerminalScreen
  private var model = WatchModel()
  private var stream: EventStream?
  private var reconnectAt: Double?

  init(
    socketPath: String, options: WatchOptions, environment: (String) -> String?, now: @escaping () -> Double
  ) {
    self.socketPath = socketPath
    // Frames are what make a fade visible; `--fps` sets their rate, else the daemon's FrameRate.
    parameters = WatchParameters(frames: true, fps: options.fps)
    device = TerminalDevice()
    screen = TerminalScreen(device: device)
    renderer = TerminalRenderer(
      palette: WatchPalette.detect(environment: environment),
      colorMode: ColorMode.detect(environment: environment),
      socketPath: socketPath, quitHint: device.input != nil ? "q to quit" : "Ctrl-C to quit")
    self.now = now
  }

  /// Runs the view and returns the exit status: 0 for `q` or Ctrl-C, 128 + the signal for a
  /// terminating signal.
  ///
  /// - Throws: `ClientError` when the daemon cannot be reached at the start (before the screen is
  ///   taken over), `VarlinkError` for an error reply.
  func run() throws -> Int32 {
    stream = try EventStream(client: VarlinkClient(path: socketPath), parameters: parameters)
    let signals = try SignalPipe(signals: Self.quitSignals + [SIGWINCH, SIGTSTP, SIGCONT])
    screen.enter()
    defer {
      screen.leave()
      // The handlers stay until the terminal is restored, so that a late Ctrl-C cannot kill us first.
      withExtendedLifetime(signals) {}
    }

    var size = device.size
    var dirty = true
    while true {
      if dirty {
        let lines = renderer.render(model, columns: size.columns, rows: size.rows, now: now())
        screen.show(lines, mode: renderer.colorMode, columns: size.columns)
        dirty = false
      }

      var descriptors = [pollfd(fd: signals.fileDescriptor, events: Int16(POLLIN), revents: 0)]
      if let stream {
        descriptors.append(pollfd(fd: stream.fileDescriptor, events: Int16(POLLIN), revents: 0))
      }
      if let input = device.input { descriptors.append(pollfd(fd: input, events: Int16(POLLIN), revents: 0)) }
      let ready: Int
      do {
        ready = try Posix.poll(&descriptors, timeout: pollTimeout())
      } catch {
        throw TerminalError.systemCall("poll", errno: error.errno)
      }
      if ready == 0 {
        // A countdown changed, or a reconnection is due.
        dirty = true
        reconnectIfDue()
        continue
      }

      for descriptor in descriptors where descriptor.revents != 0 {
        if descriptor.fd == signals.fileDescriptor {
          for number in signals.drain() {
            if let status = handle(signal: number, signals: signals, size: &size) { return status }
          }
          dirty = true
        } else if descriptor.fd == device.input {
          guard let keys = device.readKeys() else { return ExitStatus.success.rawValue }
          if keys.contains(where: { $0 == UInt8(ascii: "q") || $0 == UInt8(ascii: "Q") }) {
            return ExitStatus.success.rawValue
          }
          if keys.contains(0x0C) {  // Ctrl-L: draw everything again
            screen.invalidate()
            dirty = true
          }
        } else {
          dirty = try receiveEvents() || dirty
        }
      }
    }
  }

  /// Acts on a signal; returns the exit status when it ends the view.
  private func handle(signal number: Int32, signals: SignalPipe, size: inout (columns: Int, rows: Int))
    -> Int32?
  {
    switch number {
    case SIGWINCH, SIGCONT:
      size = device.size
      screen.invalidate()
    case SIGTSTP:
      // Give the terminal back, stop as Ctrl-Z asks, and take it again when continued.
      screen.leave()
      signals.restoreDefault(SIGTSTP)
      raise(SIGTSTP)
      signals.install(SIGTSTP)
      screen.enter()
      size = device.size
    case SIGINT:
      return ExitStatus.success.rawValue
    default:
      return 128 + number
    }
    return nil
  }

  /// Applies what the daemon sent; returns whether anything changed. When the daemon has gone,
  /// shows so and arranges a reconnection.
  private func receiveEvents() throws -> Bool {
    guard let stream else { return false }
    do {
      let events = try stream.readAvailable()
      for event in events { model.apply(event) }
      return !events.isEmpty
    } catch is ClientError {
      self.stream = nil
      model.disconnect()
      reconnectAt = now() + Self.reconnectDelay
      return true
    }
  }

  /// Connects again if the time has come; on failure, tries again a second later.
  private func reconnectIfDue() {
    guard stream == nil, let due = reconnectAt, now() >= due else { return }
    do {
      stream = try EventStream(client: VarlinkClient(path: socketPath), parameters: parameters)
      model.connection = .connecting
      reconnectAt = nil
    } catch {
      reconnectAt = now() + Self.reconnectDelay
    }
  }

  /// Milliseconds until the next countdown change or reconnection; -1 (forever) when none is due.
  private func pollTimeout() -> Int32 {
    let current = now()
    var wait: Double?
    if let change = model.nextCountdownChange(now: current) { wait = change }
    if stream == nil, let due = reconnectAt { wait = min(wait ?? .infinity, max(due - current, 0)) }
    guard let wait else { return -1 }
    // Rounded up, plus a millisecond, so that the label has changed by the time we look.
    return Int32(min((wait * 1000).rounded(.up) + 1, 60_000))
  }
}
