import NotifyCore
import NotifyProtocol
import Testing

@Suite("Queue settings and their resolution order")
struct QueueSettingsTests {
  static func resolve(
    _ settings: QueueSettings, app: String? = nil, tag: String? = nil, title: String = "t",
    urgency: Urgency? = nil, explicit: TimingOverrides = TimingOverrides()
  ) -> QueueSettings.Resolution {
    settings.resolve(app: app, tag: tag, title: title, urgency: urgency, explicit: explicit)
  }

  @Test func builtInDefaults_matchTheDesign() {
    let settings = QueueSettings()
    #expect(settings.maxVisible == 5)
    #expect(settings.maxSticky == 3)
    #expect(settings.progressMaxVisible == 4)
    #expect(settings.capacity == 10_000)
    #expect(settings.historySize == 1000)
    #expect(settings.frameRate == 30)
    #expect(settings.progressTimeout == 30)
    #expect(settings.endHold == 1.5)
    let resolved = Self.resolve(settings)
    #expect(resolved.urgency == .normal)
    #expect(resolved.delay == 0)
    #expect(resolved.fadeIn == 1)
    #expect(resolved.hold == 5)
    #expect(resolved.fadeOut == 1)
    #expect(resolved.easeIn == .easeOut)
    #expect(resolved.easeOut == .easeIn)
    #expect(!resolved.suppressed)
  }

  @Test func critical_holdsUntilEndedByDefault() {
    #expect(Self.resolve(QueueSettings(), urgency: .critical).hold == 0)
    #expect(Self.resolve(QueueSettings(), urgency: .low).hold == 5)
  }

  @Test func timingSection_overridesBuiltIns() {
    var settings = QueueSettings()
    settings.timing = TimingOverrides(fadeIn: 0.25, easeOut: .linear)
    let resolved = Self.resolve(settings)
    #expect(resolved.fadeIn == 0.25)
    #expect(resolved.easeOut == .linear)
    #expect(resolved.hold == 5)  // not set there: built-in
  }

  @Test func urgencySection_overridesTimingSection_forThatUrgencyOnly() {
    var settings = QueueSettings()
    settings.timing = TimingOverrides(hold: 3, fadeOut: 2)
    settings.urgencyTiming[.low] = TimingOverrides(hold: 1)
    #expect(Self.resolve(settings, urgency: .low).hold == 1)
    #expect(Self.resolve(settings, urgency: .low).fadeOut == 2)
    #expect(Self.resolve(settings, urgency: .normal).hold == 3)
  }

  @Test func rules_overrideUrgencySection_laterRulesWin() throws {
    var settings = QueueSettings()
    settings.urgencyTiming[.normal] = TimingOverrides(fadeIn: 3, hold: 4)
    settings.rules = [
      Rule(name: "first", matchApp: Glob("mail*"), timing: TimingOverrides(fadeIn: 2, hold: 8)),
      Rule(name: "second", matchApp: Glob("*"), timing: TimingOverrides(hold: 9)),
    ]
    let resolved = Self.resolve(settings, app: "mailer")
    #expect(resolved.fadeIn == 2)  // first rule over [Urgency:normal]
    #expect(resolved.hold == 9)  // second rule over the first
    let other = Self.resolve(settings, app: "browser")
    #expect(other.fadeIn == 3)
    #expect(other.hold == 9)
  }

  @Test func explicitValues_winOverEverything() throws {
    var settings = QueueSettings()
    settings.timing = TimingOverrides(delay: 1, hold: 3)
    settings.urgencyTiming[.normal] = TimingOverrides(hold: 4)
    settings.rules = [Rule(name: "all", matchTitle: Glob("*"), timing: TimingOverrides(hold: 8))]
    let resolved = Self.resolve(settings, explicit: TimingOverrides(delay: 0.5, hold: 2))
    #expect(resolved.hold == 2)
    #expect(resolved.delay == 0.5)
  }

  @Test func ruleUrgency_winsOverTheAskedOne_andSelectsThatUrgencysTiming() throws {
    var settings = QueueSettings()
    settings.urgencyTiming[.critical] = TimingOverrides(fadeIn: 0.1)
    settings.rules = [Rule(name: "alarms", matchTag: Glob("alarm"), urgency: .critical)]
    let resolved = Self.resolve(settings, tag: "alarm")
    #expect(resolved.urgency == .critical)
    #expect(resolved.fadeIn == 0.1)
    #expect(resolved.hold == 0)
    // notify-send always asks for one: the rule still wins, so a rule can calm a noisy app.
    #expect(Self.resolve(settings, tag: "alarm", urgency: .low).urgency == .critical)
    #expect(Self.resolve(settings, tag: "other").urgency == .normal)
    #expect(Self.resolve(settings, tag: "other", urgency: .low).urgency == .low)
  }

  @Test func suppressingRule_marksTheNoticeSuppressed() throws {
    var settings = QueueSettings()
    settings.rules = [Rule(name: "quiet", matchApp: Glob("spam*"), suppress: true)]
    #expect(Self.resolve(settings, app: "spammer").suppressed)
    #expect(!Self.resolve(settings, app: "mail").suppressed)
  }

  @Test func rule_missingAppOrTag_matchesOnlyStar() throws {
    let star = Rule(name: "star", matchApp: Glob("*"))
    let named = Rule(name: "named", matchTag: Glob("?*"))
    #expect(star.matches(app: nil, tag: nil, title: "x", urgency: .normal))
    #expect(!named.matches(app: nil, tag: nil, title: "x", urgency: .normal))
    #expect(named.matches(app: nil, tag: "t", title: "x", urgency: .normal))
  }

  @Test func rule_needsEveryCriterionItNames() throws {
    let rule = Rule(
      name: "r", matchApp: Glob("mail"), matchTitle: Glob("New*"),
      matchUrgency: .critical)
    #expect(rule.matches(app: "mail", tag: nil, title: "New message", urgency: .critical))
    #expect(!rule.matches(app: "mail", tag: nil, title: "New message", urgency: .normal))
    #expect(!rule.matches(app: "mail", tag: nil, title: "Old message", urgency: .critical))
    #expect(!rule.matches(app: "chat", tag: nil, title: "New message", urgency: .critical))
  }

  @Test func timingOverrides_over_keepsBelowWhereUnset() {
    let below = TimingOverrides(delay: 1, fadeIn: 2, hold: 3, fadeOut: 4, easeIn: .linear, easeOut: .linear)
    let above = TimingOverrides(fadeIn: 9, easeOut: .easeInOut)
    #expect(
      above.over(below)
        == TimingOverrides(delay: 1, fadeIn: 9, hold: 3, fadeOut: 4, easeIn: .linear, easeOut: .easeInOut))
  }
}
