import NotifyProtocol

/// Timing values that a layer of configuration may set; `nil` leaves the layer below in force.
public struct TimingOverrides: Sendable, Equatable {
  public var delay: Double?
  public var fadeIn: Double?
  /// Seconds to hold; 0 holds until ended.
  public var hold: Double?
  public var fadeOut: Double?
  public var easeIn: Easing?
  public var easeOut: Easing?

  public init(
    delay: Double? = nil, fadeIn: Double? = nil, hold: Double? = nil, fadeOut: Double? = nil,
    easeIn: Easing? = nil, easeOut: Easing? = nil
  ) {
    self.delay = delay
    self.fadeIn = fadeIn
    self.hold = hold
    self.fadeOut = fadeOut
    self.easeIn = easeIn
    self.easeOut = easeOut
  }

  /// The values of this layer that differ from `baseline`, laid over `below`.
  func over(_ below: TimingOverrides, keeping baseline: TimingOverrides) -> TimingOverrides {
    TimingOverrides(
      delay: delay == baseline.delay ? nil : delay, fadeIn: fadeIn == baseline.fadeIn ? nil : fadeIn,
      hold: hold == baseline.hold ? nil : hold, fadeOut: fadeOut == baseline.fadeOut ? nil : fadeOut,
      easeIn: easeIn == baseline.easeIn ? nil : easeIn, easeOut: easeOut == baseline.easeOut ? nil : easeOut
    ).over(below)
  }

  /// This layer laid over `below`: each value set here wins.
  public func over(_ below: TimingOverrides) -> TimingOverrides {
    TimingOverrides(
      delay: delay ?? below.delay, fadeIn: fadeIn ?? below.fadeIn, hold: hold ?? below.hold,
      fadeOut: fadeOut ?? below.fadeOut, easeIn: easeIn ?? below.easeIn, easeOut: easeOut ?? below.easeOut)
  }
}

/// A `[Rule:NAME]` section: notices it matches get its timing, urgency, or are suppressed.
/// What a mouse button does on a card, away from its buttons (`[Display] LeftClick= MiddleClick=
/// RightClick=`, and per rule).
public enum ClickAction: String, Sendable, CaseIterable {
  /// The notice's default action (key `default`) if it has one, else dismiss it.
  case `default`
  /// Close it, as a person does (outcome `dismissed`).
  case dismiss
  /// Close every visible notice.
  case dismissAll = "dismiss-all"
  /// Hand its actions to the picker (`[Display] Picker=`) and invoke the chosen one.
  case menu
  /// Snooze it for the first of `[Display] Snooze=`'s choices.
  case snooze
  /// Nothing.
  case none
}

/// What a notice does while the window with the keyboard is fullscreen (`Fullscreen=`, dunst's
/// meanings): `show` as ever; `delay` waits, its timeline not started, until the window leaves
/// fullscreen (shown ones go on); `pushback` waits too, and a shown one leaves the screen, its hold
/// standing still, and comes back with its whole hold.
public enum FullscreenPolicy: String, Sendable, CaseIterable {
  case show
  case delay
  case pushback
}

/// What is spoken of a notice as its card shows (`[Speech] Speak=`, a rule's `Speak=`): nothing,
/// its app, title and body, or its app and title.
public enum SpeechChoice: String, Sendable, CaseIterable {
  case no
  case yes
  case title
}

public struct Rule: Sendable, Equatable {
  public var name: String
  public var matchApp: Glob?
  public var matchTag: Glob?
  public var matchTitle: Glob?
  public var matchUrgency: Urgency?
  /// `MatchDesktopEntry=`: the sender's desktop file (the `desktop-entry` hint), without `.desktop`.
  public var matchDesktopEntry: Glob?
  /// `MatchCategory=`: the `category` hint (`email.arrived`).
  public var matchCategory: Glob?
  public var timing: TimingOverrides
  public var urgency: Urgency?
  public var suppress: Bool
  /// `IgnoreClose=`: a D-Bus client's `CloseNotification` this soon after its `Notify` is ignored.
  public var ignoreClose: Double?
  /// `BypassDoNotDisturb=`: yes lets its notices through do-not-disturb that lets critical ones
  /// through; no holds them back, critical or not.
  public var bypassDoNotDisturb: Bool?
  /// `LeftClick= MiddleClick= RightClick=`: what a click on its card does, over `[Display]`'s.
  public var leftClick: ClickAction?
  public var middleClick: ClickAction?
  public var rightClick: ClickAction?
  /// `Fullscreen=` of its look: what its notices do under a fullscreen window, over the urgency's
  /// (`Config.engineSettings` sets it).
  public var fullscreen: FullscreenPolicy?
  /// `Speak=`: what is spoken of its notices as they show, over `[Speech] Speak=`.
  public var speak: SpeechChoice?

  public init(
    name: String, matchApp: Glob? = nil, matchTag: Glob? = nil, matchTitle: Glob? = nil,
    matchUrgency: Urgency? = nil, timing: TimingOverrides = TimingOverrides(), urgency: Urgency? = nil,
    suppress: Bool = false
  ) {
    self.name = name
    self.matchApp = matchApp
    self.matchTag = matchTag
    self.matchTitle = matchTitle
    self.matchUrgency = matchUrgency
    self.timing = timing
    self.urgency = urgency
    self.suppress = suppress
  }

  /// Whether every criterion the rule names holds for the notice; a missing app, tag, desktop
  /// entry or category matches only the pattern `*`.
  public func matches(app: String?, tag: String?, title: String, urgency: Urgency, hints: Hints? = nil)
    -> Bool
  {
    if let matchApp, !matchApp.matches(app ?? "") { return false }
    if let matchDesktopEntry, !matchDesktopEntry.matches(hints?.desktopEntry ?? "") { return false }
    if let matchCategory, !matchCategory.matches(hints?.category ?? "") { return false }
    if let matchTag, !matchTag.matches(tag ?? "") { return false }
    if let matchTitle, !matchTitle.matches(title) { return false }
    if let matchUrgency, matchUrgency != urgency { return false }
    return true
  }
}

/// `[DoNotDisturb]`: what suspending lets through, the quiet hours, and the summary on resume.
public struct DoNotDisturbSettings: Sendable, Equatable {
  /// `Allow=`: what passes while suspended when `Suspend` does not say.
  public var allow = DoNotDisturbAllow.critical
  /// `Schedule=`: windows of quiet hours, local time.
  public var quietHours = QuietHours()
  /// `Summary=`: notices held back are folded into one notice on resume rather than shown one by one.
  public var summary = false

  public init() {}
}

/// `[Limits] PerApp=`: a token bucket per app, `count` notices per `period` seconds, a burst of
/// `count` included. Past it, the app's notices are folded into one summary notice.
public struct FloodLimit: Sendable, Equatable, CustomStringConvertible {
  public var count: Int
  public var period: Double

  public init(count: Int, period: Double) {
    self.count = count
    self.period = period
  }

  /// `20/1m`: a whole number of notices, a slash, a duration.
  public init?(_ text: String) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let count = Int(parts[0]), (1...1_000_000).contains(count),
      let period = DurationParser.seconds(String(parts[1])), period > 0, period <= 86_400
    else { return nil }
    self.init(count: count, period: period)
  }

  public var description: String {
    "\(count)/" + (period == period.rounded() ? "\(Int(period))s" : "\(period)s")
  }
}

/// Everything the queue engine needs from the configuration, with the built-in defaults.
public struct QueueSettings: Sendable, Equatable {
  /// `[Queue] MaxVisible=`: notice slots, notices visible at once besides sticky ones. Popups
  /// stack, so several show together (mako shows 5).
  public var maxVisible = 5
  /// `[Queue] MaxSticky=`: notices held until ended (hold 0, e.g. critical) that may show out of a
  /// slot once they hold, so that they keep nobody waiting; past it, one keeps its slot.
  public var maxSticky = 3
  /// `[Progress] MaxVisible=`: progress indicators visible at once.
  public var progressMaxVisible = 4
  /// `[Queue] Capacity=`: unfinished notices at most.
  public var capacity = 10_000
  /// `[Queue] HistorySize=`: finished notices kept.
  public var historySize = 1000
  /// `[Queue] FrameRate=`: frames per second for watchers that do not say.
  public var frameRate = 30
  /// On a host that publishes through the relay and draws no popups (DESIGN §10): how long a notice
  /// accepted here waits for the desk's answer before its own timeline starts; `nil` elsewhere.
  public var answerWait: Double?

  /// How much later than its delay says notice `notice` is due: `answerWait` for a notice published
  /// from here (not relayed, not a progress indicator), else nothing.
  func answerDelay(of notice: Notice) -> Double {
    guard let answerWait, notice.origin == nil, notice.kind == .notice else { return 0 }
    return answerWait
  }
  /// `[Timing]`.
  public var timing = TimingOverrides()
  /// `[Urgency:X]`.
  public var urgencyTiming: [Urgency: TimingOverrides] = [:]
  /// `[Progress] Timeout=`: seconds a progress indicator lives without news; 0 = forever.
  public var progressTimeout = 30.0
  /// `[Progress] EndHold=`: seconds a closing message holds after `End`.
  public var endHold = 1.5
  /// `[Rule:NAME]` sections in file order.
  public var rules: [Rule] = []
  /// `[DoNotDisturb]`.
  public var doNotDisturb = DoNotDisturbSettings()
  /// `[Limits] PerApp=`: nil lets every app send as many as it likes.
  public var perApp: FloodLimit?
  /// `[Queue] StackDuplicates=`: a notice equal to a visible one (app, title, body) merges into it.
  public var stackDuplicates = true
  /// What notices of each urgency do under a fullscreen window, as the looks resolve `Fullscreen=`
  /// (built in: critical ones `show`, the others `delay`; rules' are theirs).
  public var fullscreen: [Urgency: FullscreenPolicy] = [.critical: .show]

  public init() {}

  /// The built-in timing for `urgency`: delay 0, fade-in 1 s, hold 5 s (until ended for critical),
  /// fade-out 1 s, easing out on the way in and in on the way out.
  public static func builtInTiming(for urgency: Urgency) -> TimingOverrides {
    TimingOverrides(
      delay: 0, fadeIn: 1, hold: urgency == .critical ? 0 : 5, fadeOut: 1, easeIn: .easeOut, easeOut: .easeIn)
  }

  /// The rules that match a notice, in file order.
  public func matchingRules(app: String?, tag: String?, title: String, urgency: Urgency, hints: Hints? = nil)
    -> [Rule]
  {
    rules.filter { $0.matches(app: app, tag: tag, title: title, urgency: urgency, hints: hints) }
  }

  /// What a notice resolves to: its urgency, its full timing, and whether a rule suppresses it.
  public struct Resolution: Sendable, Equatable {
    public var urgency: Urgency
    public var delay: Double
    public var fadeIn: Double
    public var hold: Double
    public var fadeOut: Double
    public var easeIn: Easing
    public var easeOut: Easing
    public var suppressed: Bool
    /// Whether it passes do-not-disturb that lets critical notices through.
    public var passesDoNotDisturb: Bool
    /// What it does under a fullscreen window.
    public var fullscreen: FullscreenPolicy

    /// What lets it show while others are held back.
    var gates: NoticeRecord.Gates {
      NoticeRecord.Gates(passesDoNotDisturb: passesDoNotDisturb, fullscreen: fullscreen)
    }
  }

  /// Resolves a notice's timing in order: built-in → `[Timing]` → `[Urgency:X]` → matching rules
  /// in file order → what the caller passed (`explicit`).
  public func resolve(
    app: String?, tag: String?, title: String, urgency requested: Urgency?, hints: Hints? = nil,
    explicit: TimingOverrides
  ) -> Resolution {
    let rules = matchingRules(app: app, tag: tag, title: title, urgency: requested ?? .normal, hints: hints)
    // A rule's urgency wins over the client's: libnotify's notify-send always sends one.
    let urgency = rules.compactMap(\.urgency).last ?? requested ?? .normal
    // The built-in "critical holds until ended" is a built-in [Urgency:critical]: it stands above
    // [Timing], so `[Timing] Hold=` does not make critical notices go away by themselves.
    var layered = timing.over(Self.builtInTiming(for: .normal))
    layered = Self.builtInTiming(for: urgency).over(layered, keeping: Self.builtInTiming(for: .normal))
    if let forUrgency = urgencyTiming[urgency] { layered = forUrgency.over(layered) }
    for rule in rules { layered = rule.timing.over(layered) }
    layered = explicit.over(layered)
    return Resolution(
      urgency: urgency, delay: layered.delay!, fadeIn: layered.fadeIn!, hold: layered.hold!,
      fadeOut: layered.fadeOut!, easeIn: layered.easeIn!, easeOut: layered.easeOut!,
      suppressed: rules.contains { $0.suppress },
      passesDoNotDisturb: Self.passesDoNotDisturb(rules, urgency: urgency),
      fullscreen: fullscreenPolicy(rules, urgency: urgency))
  }

  /// What a notice of `urgency` matching `rules` does under a fullscreen window: the last matching
  /// rule's `Fullscreen=`, else its urgency's, else `delay`.
  func fullscreenPolicy(_ rules: [Rule], urgency: Urgency) -> FullscreenPolicy {
    rules.compactMap(\.fullscreen).last ?? fullscreen[urgency] ?? .delay
  }

  /// Critical notices pass do-not-disturb that lets them through, unless the last matching rule
  /// with `BypassDoNotDisturb=` says otherwise.
  private static func passesDoNotDisturb(_ rules: [Rule], urgency: Urgency) -> Bool {
    rules.compactMap(\.bypassDoNotDisturb).last ?? (urgency == .critical)
  }

  /// What lets a notice kept from before a restart show while others are held back, by the rules
  /// in force now: whether it passes do-not-disturb that lets critical ones through, and what it
  /// does under a fullscreen window.
  func gates(of notice: Notice) -> NoticeRecord.Gates {
    let rules = matchingRules(
      app: notice.app, tag: notice.tag, title: notice.title, urgency: notice.urgency, hints: notice.hints)
    return NoticeRecord.Gates(
      passesDoNotDisturb: Self.passesDoNotDisturb(rules, urgency: notice.urgency),
      fullscreen: fullscreenPolicy(rules, urgency: notice.urgency))
  }
}
