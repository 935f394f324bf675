/// What a popup display backend does: get cards to the screen and input back (DESIGN §9). The
/// rest — following the engine, which cards are visible, standing aside, reconnecting — is the
/// `PopupDisplay`'s, the same for Wayland and X11.
///
/// - Important: every method is called on the display's queue, and the backend touches its
///   connection only there.
public protocol PopupBackend: AnyObject {
  /// What `Status` calls it: `wayland` or `x11`.
  var name: String { get }
  /// Whether the display draws fades on the engine's frames (`Watch` with frames): X11 has no frame
  /// callbacks to pace by, Wayland has.
  var pacedByEngineFrames: Bool { get }
  /// Connects to the display server; returns what the log says of it ("Wayland (HEADLESS-1)").
  func connect(for display: PopupDisplay) throws(PopupDisplayFailure) -> String
  /// The connection's descriptor, read when it becomes readable.
  var fileDescriptor: Int32 { get }
  /// Reads and handles what the server sent; false once the connection is broken.
  func readable() -> Bool
  /// Makes the popups match `display.stack` (none while `display.isSuppressed`).
  func reconcile()
  /// The notice's phase changed: its popup is drawn again.
  func phaseChanged(of id: Int)
  /// One of the engine's frames came (only with `pacedByEngineFrames`).
  func frame()
  /// Takes every popup down and closes the connection.
  func disconnect()
  /// Starts telling when the person has given no input for `seconds` (`[Idle] After=`), once
  /// connected: by calling `PopupDisplay.idleChanged` as the server says, or by answering
  /// `secondsSinceInput()` when asked.
  func watchIdle(after seconds: Double) -> IdleWatch
  /// Seconds since the person's last input, for a backend that is `polled`; `nil` if it cannot say.
  func secondsSinceInput() -> Double?
  /// Gives the keyboard to the popup of notice `id`, whose reply field a person clicked; `nil`
  /// gives it back. Keys come to `PopupDisplay.keyPressed`.
  func setKeyboardFocus(on id: Int?)
  /// Opens the notification center's panel (`[Center]`) with the keyboard; answers why it cannot,
  /// or nil. Its size comes to `PopupDisplay.centerResized`, its frames from `paintCenter`, and the
  /// pointer and keys over it to the display's `center…` methods.
  func openCenter() -> String?
  /// Takes the center's panel down.
  func closeCenter()
  /// The center changed: its next frame is drawn as soon as the display server takes one.
  func redrawCenter()
}

/// How a backend tells that the person is away (`[Idle] After=`).
public enum IdleWatch: Equatable, Sendable {
  /// The display server says when they go and come back; `source` names how.
  case told(source: String)
  /// The backend is asked how long it has been since the last input; `source` names how.
  case polled(source: String)
  /// The backend cannot tell, for the reason given.
  case unavailable(String)
}

/// What tells whether the person is away while the display cannot (logind's `IdleHint`, DESIGN
/// §11): started with the reason the display cannot tell, stopped once it can.
public protocol FallbackIdleSource: AnyObject, Sendable {
  /// Starts telling the engine whether the person is away; `reason` says why the display cannot.
  func start(because reason: String)
  /// Stops; once it returns, it tells the engine nothing more.
  func stop()
}

extension IdleWatch {
  /// What tells, for `Status`: nil when nothing can.
  public var source: String? {
    switch self {
    case .told(let source), .polled(let source): source
    case .unavailable: nil
    }
  }
}

/// What a backend keeps per card on the screen: the card, its height, whether it must be drawn
/// again, and the card rendered while it is kept.
public protocol PopupSurface: AnyObject {
  /// The notice it shows.
  var id: Int { get }
  var card: Card { get set }
  var height: Int { get set }
  var dirty: Bool { get set }
  /// The card at full opacity, rendered when first painted; `discardImages()` lets it go.
  var image: OpaquePointer? { get set }
  /// When the popup appeared (`Posix.monotonicNow()`), for the activity indicator's sweep.
  var appeared: Double { get }
  /// Device pixels per logical pixel where it shows: its image is rendered at that resolution.
  var scale: Double { get }
  /// Lets the card's rendered pixels go: it changed, and is rendered again when next drawn.
  func discardImages()
}

extension PopupSurface {
  /// A frame was drawn: a card that holds still lets its rendered pixels go (it is drawn again only
  /// when it changes), but a card a person acts on keeps them, so that lighting a button or typing
  /// paints that part alone (`CardPainter.redrawInput`).
  public func drawn(moving: Bool) {
    if !moving && !card.isActionable { discardImages() }
  }
}

/// Why a backend could not connect: said once in the log, then retried with a backoff.
public struct PopupDisplayFailure: Error, Sendable {
  public var reason: String
  public init(_ reason: String) { self.reason = reason }
}
