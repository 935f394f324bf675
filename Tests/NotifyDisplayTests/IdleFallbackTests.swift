import Glibc
import NotifyConfig
import NotifyCore
import NotifyProtocol
import NotifyService
import NotifySupport
import NotifyTestSupport
import Synchronization
import Testing

@testable import NotifyDisplay

/// A display backend that connects or fails as told, and whose idle source is `idle`.
final class StandInBackend: PopupBackend {
  let name = "stand-in"
  let pacedByEngineFrames = false
  let failure: String?
  let idle: IdleWatch
  /// A pipe nothing is written to: the display's read source on it never fires.
  private var pipe: [Int32] = [-1, -1]

  init(failure: String? = nil, idle: IdleWatch = .unavailable("no idle protocol")) {
    self.failure = failure
    self.idle = idle
    _ = Glibc.pipe(&pipe)
  }

  deinit { for fd in pipe { close(fd) } }

  func connect(to host: any DisplayHost) throws(PopupDisplayFailure) -> (
    description: String, traits: DisplayTraits
  ) {
    if let failure { throw PopupDisplayFailure(failure) }
    return ("a stand-in display", DisplayTraits(windows: false, blends: true))
  }
  var fileDescriptor: Int32 { pipe[0] }
  func readable() -> Bool { true }
  func readOutputs() -> DisplayOutputs { DisplayOutputs([], focus: nil) }
  func perform(_ actions: [DisplayAction]) {}
  func activationToken(for surface: SurfaceKey, _ done: @escaping (String?) -> Void) { done(nil) }
  func disconnect() {}
  func watchIdle(after seconds: Double) -> IdleWatch { idle }
  func secondsSinceInput() -> Double? { nil }
  func openCenter() -> String? { "a stand-in draws no center" }
  func closeCenter() {}
  func redrawCenter() {}
}

/// Records what the display asks of its fallback idle source.
private final class RecordingFallback: FallbackIdleSource {
  let calls = Mutex<[String]>([])
  func start(because reason: String) { calls.withLock { $0.append("start: \(reason)") } }
  func stop() { calls.withLock { $0.append("stop") } }
}

@Suite("The fallback idle source (logind) tells whenever the display cannot")
struct IdleFallbackTests {
  private func display(_ backend: StandInBackend, fallback: RecordingFallback) -> (PopupDisplay, NoticeQueue)
  {
    let engine = NoticeQueue(scheduler: ManualScheduler())
    var settings = DisplaySettings()
    settings.idleAfter = 60
    let display = PopupDisplay(
      settings: settings, service: NoticeService(queue: engine, journal: nil), backend: backend,
      log: Logger(sink: DiscardingSink()))
    display.idleFallback = fallback
    return (display, engine)
  }

  @Test func aDisplayThatCannotConnect_startsTheFallback_andStoppingTheDisplayStopsIt() {
    let fallback = RecordingFallback()
    let (display, _) = display(StandInBackend(failure: "nothing listens"), fallback: fallback)
    display.start()
    display.queue.sync {}
    #expect(fallback.calls.withLock { $0 } == ["start: the display is not connected"])
    display.stop()
    #expect(fallback.calls.withLock { $0 } == ["start: the display is not connected", "stop"])
  }

  @Test func aDisplayWithNoIdleProtocol_startsTheFallbackWithItsReason_andSaysNothingItself() {
    let fallback = RecordingFallback()
    let (display, engine) = display(
      StandInBackend(idle: .unavailable("no idle protocol")), fallback: fallback)
    display.start()
    display.queue.sync {}
    #expect(fallback.calls.withLock { $0 } == ["start: no idle protocol"])
    #expect(engine.status().idle == nil)
    display.stop()
  }

  @Test func aDisplayThatTells_stopsTheFallbackBeforeSayingSo() {
    let fallback = RecordingFallback()
    let (display, engine) = display(StandInBackend(idle: .told(source: "stand-in idle")), fallback: fallback)
    display.start()
    display.queue.sync {}
    #expect(fallback.calls.withLock { $0 } == ["stop"])
    #expect(engine.status().idle == IdleState(idle: false, source: "stand-in idle"))
    display.stop()
  }
}
