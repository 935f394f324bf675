import NotifyConfig
import NotifyCore
import NotifyProtocol

/// What a popup shows of a notice: everything the painter needs, nothing about time.
public struct Card: Sendable, Equatable {
  public var id: Int
  public var app: String?
  public var title: String
  public var body: String?
  public var urgency: Urgency
  public var style: Style
  /// An image file drawn at the card's leading edge.
  public var icon: String?
  public var kind: Kind
  /// An indicator's percentage; nil for an indicator without one (an activity indicator is drawn).
  public var value: Int?
  /// Whether a left click invokes an action (key `default`) rather than dismissing.
  public var hasDefaultAction: Bool
  /// The actions other than `default`, in the client's order: buttons at the card's foot.
  public var buttons: [Action]
  /// The button under the pointer, drawn highlighted (`PopupDisplay` sets it).
  public var highlighted: CardTarget?
  /// Whether the buttons show the icons their action keys name (the `action-icons` hint).
  public var actionIcons: Bool
  /// With a reply field: its placeholder, shown until something is typed.
  public var reply: String?
  /// What is typed into the reply field while it has the keyboard (`PopupDisplay` sets it); `nil`
  /// while it has not.
  public var typed: String?
  /// How it looks: its urgency's, and the rules' its notice matches.
  public var look: CardLook
  /// The host the notice came from (`%h` of `Format=`).
  public var host: String?
  /// The app as its notice named it: without the `@host` a relayed notice's app carries (`%a`).
  public var appName: String?

  /// The card of `notice`, with `look` (default: the built-in look of its urgency); `host` is where
  /// a notice not relayed from elsewhere comes from.
  public init(_ notice: Notice, look: CardLook? = nil, host: String? = nil) {
    id = notice.id
    app = notice.app
    title = notice.displayTitle
    body = notice.body
    urgency = notice.urgency
    style = notice.style
    icon = notice.icon
    kind = notice.kind
    value = notice.value
    hasDefaultAction = notice.actions?.contains { $0.key == Card.defaultActionKey } ?? false
    buttons = notice.actions?.filter { $0.key != Card.defaultActionKey } ?? []
    reply = notice.reply
    actionIcons = notice.hints?.hasActionIcons ?? false
    self.look = look ?? CardLook.builtIn(for: notice.urgency)
    self.host = notice.origin?.host ?? host
    appName = notice.origin.map { $0.senderApp(notice.app) } ?? notice.app
  }

  /// The action a left click invokes (DESIGN §9).
  public static let defaultActionKey = "default"

  /// Whether a person acts on it where it shows (buttons, a reply field): such a card keeps its
  /// rendered image while it holds, so that lighting a button or typing paints that part alone.
  public var isActionable: Bool { !buttons.isEmpty || reply != nil }

  /// Whether `other` shows the same notice the same way, but for what the person touched (the
  /// button lit, the text typed): its height is the same, and only those parts are painted again.
  public func sameContent(as other: Card) -> Bool {
    var same = self
    same.highlighted = other.highlighted
    same.typed = other.typed
    return same == other
  }

  /// Whether it shows activity rather than a value: an indicator without one.
  public var isActivity: Bool { kind == .progress && value == nil }

  /// Whether the card moves by itself while it holds: an indicator without a value sweeps, unless
  /// its look asks for no motion (`Animation=none`).
  public var isAnimated: Bool { isActivity && look.animation != .none }

  /// Whether it cuts rather than fades (`Animation=none`): at full opacity while visible.
  public var cuts: Bool { look.animation == .none }
}
