import CPangoCairo
import Dispatch
import NotifyConfig
import NotifyPosix
import NotifySupport

/// What a popup display backend does (DESIGN §9): it translates, and decides nothing. It carries
/// out the `DisplayMachine`'s actions as Wayland or X11 requests, and turns what its display server
/// says into inputs for its `DisplayHost` (`DisplayInput`, `CenterInput`). Which cards show where,
/// when each is drawn and what a click means are the machine's, the same for Wayland and X11.
///
/// - Important: every method is called on the display's queue, and the backend touches its
///   connection only there.
public protocol PopupBackend: AnyObject {
  /// What `Status` calls it: `wayland` or `x11`.
  var name: String { get }
  /// Whether the display draws fades on the engine's frames (`Watch` with frames): X11 has no frame
  /// callbacks to pace by, Wayland has.
  var pacedByEngineFrames: Bool { get }
  /// Connects to the display server, with `host` to tell what it says and to paint with; returns
  /// what the log says of it ("Wayland (HEADLESS-1)") and what its surfaces can do.
  func connect(to host: any DisplayHost) throws(PopupDisplayFailure) -> (
    description: String, traits: DisplayTraits
  )
  /// The connection's descriptor, read when it becomes readable.
  var fileDescriptor: Int32 { get }
  /// Reads and handles what the server sent; false once the connection is broken.
  func readable() -> Bool
  /// The outputs and where the focus is now, read afresh: a card is about to appear.
  func readOutputs() -> DisplayOutputs
  /// Carries out the machine's surface actions, in order.
  func perform(_ actions: [DisplayAction])
  /// The activation token for an action chosen on `surface` (Wayland's `xdg-activation`), or nil.
  func activationToken(for surface: SurfaceKey, _ done: @escaping (String?) -> Void)
  /// Takes every surface down and closes the connection.
  func disconnect()
  /// Starts telling when the person has given no input for `seconds` (`[Idle] After=`), once
  /// connected: through `DisplayHost.idleChanged` as the server says, or by answering
  /// `secondsSinceInput()` when asked.
  func watchIdle(after seconds: Double) -> IdleWatch
  /// Seconds since the person's last input, for a backend that is `polled`; `nil` if it cannot say.
  func secondsSinceInput() -> Double?
  /// Opens the notification center's panel (`[Center]`) with the keyboard; answers why it cannot,
  /// or nil. Its size, the pointer and keys over it come to the host as `CenterInput`, and its
  /// frames are painted by `DisplayHost.paintCenter`.
  func openCenter() -> String?
  /// Takes the center's panel down.
  func closeCenter()
  /// The center changed: its next frame is drawn as soon as the display server takes one.
  func redrawCenter()
}

/// What a backend tells, and paints with: the one door from a backend into the display.
public protocol DisplayHost: AnyObject {
  var settings: DisplaySettings { get }
  var log: Logger { get }
  /// The display's queue, for a backend's timers.
  var queue: DispatchQueue { get }
  /// The cards' painter.
  var painter: CardPainter! { get }
  /// What the display server said of the cards: outputs, the focus, frames, the pointer, keys.
  func input(_ input: DisplayInput)
  /// What the display server said of the center's panel.
  func input(_ input: CenterInput)
  /// The idle source says the person went away (`true`) or came back.
  func idleChanged(_ idle: Bool)
  /// The connection broke (a failed write): the popups are forgotten once the handler running now
  /// has returned.
  func connectionBroken()
  /// Paints the center's frame into `target` (`width` × `height` logical pixels at `scale`).
  func paintCenter(into target: OpaquePointer, width: Int, height: Int, scale: Double)
}

/// What a backend says of the center's panel.
public enum CenterInput: Sendable {
  /// The display server gave the panel its size.
  case resized(width: Int, height: Int)
  case pointerMoved(x: Double, y: Double)
  case pointerLeft
  case scrolled(Double)
  case pressed(PopupButton, x: Double, y: Double)
  /// A click outside the panel, or the display server closed it.
  case closed
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

/// What a backend keeps per card on the screen: the card as shown, and the card rendered while it
/// is kept.
public protocol PopupSurface: AnyObject {
  var shown: ShownCard { get set }
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
  /// The card changed (`DisplayAction.update`): only the part a person touched is painted again
  /// where it can be (`CardPainter.redrawInput`), else it is rendered anew when next drawn.
  public func update(to new: ShownCard, painter: CardPainter) {
    let redrawn =
      new.height == shown.height
      && image.map { painter.redrawInput($0, from: shown.card, to: new.card, height: new.height) } == true
    if !redrawn { discardImages() }
    shown = new
  }

  /// Paints its frame into `target` (its size in device pixels at `scale`, premultiplied ARGB) at
  /// `opacity`: its card rendered first if its image went, its activity indicator as far into its
  /// sweep as the popup is old.
  public func paint(into target: OpaquePointer, opacity: Double, painter: CardPainter) {
    if image == nil { image = painter.render(shown.card, height: shown.height, scale: scale) }
    cairo_surface_set_device_scale(target, scale, scale)
    painter.composite(
      image!, of: shown.card, into: target, opacity: opacity, activity: Posix.monotonicNow() - appeared)
  }

  /// A frame was drawn and handed over: a card that holds still lets its rendered pixels go (it is
  /// drawn again only when it changes), but a card a person acts on keeps them, so that lighting a
  /// button or typing paints that part alone (`CardPainter.redrawInput`).
  public func drawn(moving: Bool) {
    if !moving && !shown.card.isActionable { discardImages() }
  }
}

/// Why a backend could not connect: said once in the log, then retried with a backoff.
public struct PopupDisplayFailure: Error, Sendable {
  public var reason: String
  public init(_ reason: String) { self.reason = reason }
}
