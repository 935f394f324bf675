import NotifyCore
import NotifyProtocol
import Testing

@testable import NotifyConfig

@Suite("ConfigParser")
struct ConfigParserTests {
  private func parse(_ lines: [(String, String, String)]) throws -> Config {
    let entries = lines.enumerated().map { index, line in
      ConfigEntry(section: line.0, key: line.1, value: line.2, line: index + 1)
    }
    return try ConfigParser.parse(entries, file: "test.conf")
  }

  private func error(_ lines: [(String, String, String)]) -> String? {
    do {
      _ = try parse(lines)
      return nil
    } catch {
      return "\(error)"
    }
  }

  @Test func snooze_readsItsChoices_andSnoozeButtonIsALookKey_perUrgencyAndRule() throws {
    let config = try parse([
      ("Display", "Snooze", "5m, 14:30,tomorrow"), ("Display:critical", "SnoozeButton", "yes"),
      ("Rule:chat", "MatchApp", "chat"), ("Rule:chat", "SnoozeButton", "yes"),
      ("Display", "RightClick", "snooze"),
    ])
    #expect(config.display.snooze == [.after(300), .at(hour: 14, minute: 30, second: 0), .tomorrow])
    #expect(config.display.rightClick == .snooze)
    #expect(!config.display.look(for: .normal).snoozeButton)
    #expect(config.display.look(for: .critical).snoozeButton)
    #expect(config.display.look(for: .normal, rules: ["chat"]).snoozeButton)
    #expect(
      Config().display.snooze == SnoozeTime.defaultChoices
        && !Config().display.look(for: .normal).snoozeButton)
    for bad in ["", "soon", "0s", "8d", "1m,2m,3m,4m,5m,6m,7m,8m,9m"] {
      #expect(error([("Display", "Snooze", bad)]) != nil, "Snooze=\(bad)")
    }
  }

  @Test func emptyFile_givesBuiltInDefaults() throws {
    let config = try parse([])
    #expect(config == Config())
    #expect(
      config.queue.maxVisible == 5 && config.queue.maxSticky == 3 && config.queue.progressMaxVisible == 4)
    #expect(
      config.queue.capacity == 10_000 && config.queue.historySize == 1000 && config.queue.frameRate == 30)
    #expect(config.queue.progressTimeout == 30 && config.queue.endHold == 1.5)
    #expect(config.dbusMode == .auto && config.storeSync == .normal)
  }

  @Test func queueKeys_setTheirValues() throws {
    let config = try parse([
      ("Queue", "MaxVisible", "3"), ("Queue", "Capacity", "50"), ("Queue", "HistorySize", "7"),
      ("Queue", "FrameRate", "60"),
    ])
    #expect(config.queue.maxVisible == 3)
    #expect(config.queue.capacity == 50)
    #expect(config.queue.historySize == 7)
    #expect(config.queue.frameRate == 60)
  }

  @Test func timingKeys_acceptEveryDurationForm() throws {
    let config = try parse([
      ("Timing", "Delay", "2"), ("Timing", "FadeIn", "300ms"), ("Timing", "Hold", "1m"),
      ("Timing", "FadeOut", "1.5s"), ("Timing", "EaseIn", "linear"), ("Timing", "EaseOut", "easeInOut"),
    ])
    #expect(
      config.queue.timing
        == TimingOverrides(
          delay: 2, fadeIn: 0.3, hold: 60, fadeOut: 1.5, easeIn: .linear, easeOut: .easeInOut))
  }

  @Test func progressKeys_setTheirValues() throws {
    let config = try parse([
      ("Progress", "MaxVisible", "2"), ("Progress", "Timeout", "0"), ("Progress", "EndHold", "3s"),
    ])
    #expect(config.queue.progressMaxVisible == 2)
    #expect(config.queue.progressTimeout == 0)
    #expect(config.queue.endHold == 3)
  }

  @Test func urgencySections_layerPerUrgency() throws {
    let config = try parse([("Urgency:low", "Hold", "2s"), ("Urgency:critical", "FadeIn", "0")])
    #expect(config.queue.urgencyTiming[.low]?.hold == 2)
    #expect(config.queue.urgencyTiming[.critical]?.fadeIn == 0)
    #expect(config.queue.urgencyTiming[.normal] == nil)
  }

  @Test func socketStoreDBusAndHooks_setTheirValues() throws {
    let config = try parse([
      ("Socket", "Path", "/run/x.sock"), ("Store", "Path", "~/n.db"), ("Store", "Sync", "full"),
      ("DBus", "Mode", "server"), ("Hooks", "OnShow", "echo shown"), ("Hooks", "OnFinish", "echo done"),
      ("Hooks", "OnComplete", "echo ok"),
    ])
    #expect(config.socketPath == "/run/x.sock")
    #expect(config.storePath == "~/n.db")
    #expect(config.storeSync == .full)
    #expect(config.dbusMode == .server)
    #expect(config.hooks == Hooks(onShow: "echo shown", onFinish: "echo done", onComplete: "echo ok"))
  }

  @Test func displayKeys_setTheirValues_andColoursLayerPerUrgency() throws {
    let config = try parse([
      ("Display", "Mode", "x11"), ("Display", "Anchor", "bottom-center"), ("Display", "Margin", "4"),
      ("Display", "Width", "420"), ("Display", "Gap", "0"), ("Display", "Output", "HDMI-A-1"),
      ("Display", "FollowFocus", "mouse"), ("Display", "Scale", "1.5"),
      ("Display", "Font", "Noto Sans 12"), ("Display", "CornerRadius", "0"),
      ("Display:critical", "Background", "#102030cc"), ("Display:critical", "Progress", "#ABCDEF"),
    ])
    #expect(config.display.mode == .x11)
    #expect(config.display.followFocus == .mouse)
    #expect(config.display.scale == 1.5)
    #expect(config.display.anchor == .bottomCenter)
    let look = config.display.look(for: .normal)
    #expect((config.display.margin, look.width, config.display.gap) == (4, 420, 0))
    #expect(look.output == .named("HDMI-A-1"))
    #expect(look.font == "Noto Sans 12")
    #expect(look.cornerRadius == 0)
    let critical = config.display.colours(for: .critical)
    #expect(critical.background == RGBA(red: 16 / 255, green: 32 / 255, blue: 48 / 255, alpha: 204 / 255))
    #expect(critical.progress.description == "#abcdef")
    #expect(critical.border == CardColours.builtIn(for: .critical).border)
    #expect(config.display.colours(for: .normal) == CardColours.builtIn(for: .normal))
  }

  @Test func ruleSections_keepFileOrderAndEveryKey() throws {
    let config = try parse([
      ("Rule:backups", "MatchApp", "backup*"), ("Rule:backups", "Urgency", "low"),
      ("Rule:backups", "Hold", "2s"),
      ("Rule:spam", "MatchTitle", "*newsletter*"), ("Rule:spam", "Suppress", "yes"),
      ("Rule:backups", "MatchTag", "nightly"), ("Rule:spam", "MatchUrgency", "low"),
    ])
    #expect(config.queue.rules.map(\.name) == ["backups", "spam"])
    let backups = config.queue.rules[0]
    #expect(backups.matchApp == Glob("backup*"))
    #expect(backups.matchTag == Glob("nightly"))
    #expect(backups.urgency == .low)
    #expect(backups.timing.hold == 2)
    let spam = config.queue.rules[1]
    #expect(spam.suppress)
    #expect(spam.matchUrgency == .low)
  }

  @Test func desktopKeys_rulesByDesktopEntryAndCategory_ignoreClose_andSound() throws {
    let config = try parse([
      ("Rule:chat", "MatchDesktopEntry", "org.telegram.*"), ("Rule:chat", "MatchCategory", "im.*"),
      ("Rule:chat", "IgnoreClose", "2s"), ("DBus", "IgnoreClose", "500ms"),
      ("Sound", "Enabled", "yes"), ("Sound", "Default", "message-new-instant"),
    ])
    let chat = config.queue.rules[0]
    #expect(chat.ignoreClose == 2)
    #expect(config.dbusIgnoreClose == 0.5)
    #expect(config.sound == SoundSettings(enabled: true, defaultName: "message-new-instant"))
    let telegram = Hints(category: "im.received", desktopEntry: "org.telegram.desktop")
    #expect(chat.matches(app: "Telegram", tag: nil, title: "t", urgency: .normal, hints: telegram))
    #expect(!chat.matches(app: "Telegram", tag: nil, title: "t", urgency: .normal, hints: nil))
    #expect(
      !chat.matches(
        app: nil, tag: nil, title: "t", urgency: .normal,
        hints: Hints(category: "email.arrived", desktopEntry: "org.telegram.desktop")))
    let text = config.rendered()
    #expect(text.contains("MatchDesktopEntry=org.telegram.*\nMatchCategory=im.*"))
    #expect(text.contains("IgnoreClose=2s"))
    #expect(text.contains("[DBus]\nMode=auto\nIgnoreClose=0.5s"))
    #expect(text.contains("[Sound]\nEnabled=yes\nDefault=message-new-instant"))
    #expect(throws: ConfigError.self) { try parse([("Sound", "Volume", "3")]) }
    #expect(throws: ConfigError.self) { try parse([("DBus", "IgnoreClose", "soon")]) }
  }

  @Test(
    "bad lines are refused as file:line: Key: reason",
    arguments: [
      (("Queue", "MaxVisible", "0"), "test.conf:1: MaxVisible: 0 is out of range"),
      (("Queue", "Capacity", "many"), "test.conf:1: Capacity: 'many' is not a whole number"),
      (("Queue", "FrameRate", "500"), "test.conf:1: FrameRate: 500 is out of range"),
      (("Queue", "Colour", "red"), "test.conf:1: Colour: unknown key in [Queue]"),
      (("Timing", "Hold", "-1"), "test.conf:1: Hold: '-1' is not a duration"),
      (("Timing", "FadeIn", "nan"), "test.conf:1: FadeIn: 'nan' is not a duration"),
      (("Timing", "FadeIn", "inf"), "test.conf:1: FadeIn: 'inf' is not a duration"),
      (("Timing", "Delay", "2d"), "test.conf:1: Delay: '2d' is longer than a day"),
      (
        ("Timing", "EaseIn", "bouncy"),
        "test.conf:1: EaseIn: 'bouncy' is not one of linear, easeIn, easeOut, easeInOut"
      ),
      (("Urgency:urgent", "Hold", "1"), "test.conf:1: Hold: unknown urgency in [Urgency:urgent]"),
      (("Rule:x", "MatchApp", "[abc"), "test.conf:1: MatchApp: '[abc' is not a valid glob"),
      (
        ("Rule:x", "MatchUrgency", "high"),
        "test.conf:1: MatchUrgency: 'high' is not one of low, normal, critical"
      ),
      (("Rule:x", "Suppress", "maybe"), "test.conf:1: Suppress: 'maybe' is not a boolean"),
      (("Rule:", "Hold", "1"), "test.conf:1: Hold: a rule needs a name"),
      (("Store", "Sync", "sometimes"), "test.conf:1: Sync: 'sometimes' is not one of full, normal"),
      (("Store", "Path", "relative.db"), "test.conf:1: Path: 'relative.db' is not an absolute path"),
      (("DBus", "Mode", "both"), "test.conf:1: Mode: 'both' is not one of auto, forward, server, off"),
      (("Hooks", "OnStart", "x"), "test.conf:1: OnStart: unknown key in [Hooks]"),
      (("Screen", "Font", "x"), "test.conf:1: Font: unknown section [Screen]"),
      (("Display", "Anchor", "left"), "test.conf:1: Anchor: 'left' is not one of top-left, top-center"),
      (("Display", "Width", "20"), "test.conf:1: Width: 20 is out of range"),
      (("Display", "Mode", "x12"), "test.conf:1: Mode: 'x12' is not one of auto, wayland, x11, off"),
      (
        ("Display", "FollowFocus", "touch"),
        "test.conf:1: FollowFocus: 'touch' is not one of no, mouse, keyboard"
      ),
      (("Display", "Scale", "5"), "test.conf:1: Scale: auto, or a number from 0.5 to 4 (e.g. 2 or 1.5)"),
      (("Display", "Scale", "nan"), "test.conf:1: Scale: auto, or a number from 0.5 to 4 (e.g. 2 or 1.5)"),
      (("Display:normal", "Background", "red"), "test.conf:1: Background: 'red' is not a colour"),
      (("Display:normal", "Background", "#12345"), "test.conf:1: Background: '#12345' is not a colour"),
      (("Display:urgent", "Border", "#123456"), "test.conf:1: Border: unknown urgency in [Display:urgent]"),
      (("Display:low", "Shadow", "#123456"), "test.conf:1: Shadow: unknown key in [Display:low]"),
    ])
  func badLine_isRefusedWithFileLineKeyAndReason(line: (String, String, String), expected: String) {
    let message = error([line])
    #expect(message?.hasPrefix(expected) == true, "got \(message ?? "no error")")
  }

  @Test func doNotDisturbLimitsAndDuplicates_setTheirValues_andRenderBack() throws {
    let config = try parse([
      ("DoNotDisturb", "Allow", "none"), ("DoNotDisturb", "Schedule", "22:00-07:00; Sat,Sun 13:00-15:00"),
      ("DoNotDisturb", "Schedule", "Mon-Fri 12:00-13:00"), ("DoNotDisturb", "Summary", "yes"),
      ("Limits", "PerApp", "20/1m"), ("Queue", "StackDuplicates", "no"),
      ("Rule:backup", "MatchApp", "backup"), ("Rule:backup", "BypassDoNotDisturb", "yes"),
    ])
    #expect(config.queue.doNotDisturb.allow == .nothing)
    #expect(
      config.queue.doNotDisturb.quietHours.windows.map(\.description) == [
        "22:00-07:00", "Sat,Sun 13:00-15:00", "Mon,Tue,Wed,Thu,Fri 12:00-13:00",
      ])
    #expect(config.queue.doNotDisturb.summary)
    #expect(config.queue.perApp == FloodLimit(count: 20, period: 60))
    #expect(!config.queue.stackDuplicates)
    #expect(config.queue.rules.first?.bypassDoNotDisturb == true)
    let rendered = config.rendered()
    #expect(rendered.contains("[DoNotDisturb]\nAllow=none\nSchedule=22:00-07:00; Sat,Sun 13:00-15:00; "))
    #expect(rendered.contains("[Limits]\nPerApp=20/60s"))
    #expect(rendered.contains("BypassDoNotDisturb=yes"))
    #expect(try parse([("Limits", "PerApp", "off")]).queue.perApp == nil)
    #expect(
      try parse([("DoNotDisturb", "Schedule", "22:00-07:00"), ("DoNotDisturb", "Schedule", "")])
        .queue.doNotDisturb.quietHours.isEmpty)
  }

  @Test(arguments: [
    ("DoNotDisturb", "Allow", "some", "test.conf:1: Allow: 'some' is not one of none, critical"),
    (
      "DoNotDisturb", "Schedule", "22-07",
      "test.conf:1: Schedule: '22-07' is not a window of quiet hours (e.g. 22:00-07:00, Mon-Fri 22:00-07:00)"
    ),
    (
      "Limits", "PerApp", "20",
      "test.conf:1: PerApp: '20' is not a rate (a count per duration, e.g. 20/1m), or off"
    ),
    (
      "Limits", "PerApp", "0/1m",
      "test.conf:1: PerApp: '0/1m' is not a rate (a count per duration, e.g. 20/1m), or off"
    ),
    ("Limits", "Burst", "1", "test.conf:1: Burst: unknown key in [Limits]"),
    ("Idle", "After", "500ms", "test.conf:1: After: '500ms' is under a second; use 1s or more, or off"),
    ("Idle", "After", "later", "test.conf:1: After: 'later' is not a duration ≥ 0 (e.g. 1.5, 300ms, 2s, 1m)"),
    ("Idle", "Threshold", "2m", "test.conf:1: Threshold: unknown key in [Idle]"),
  ])
  func badDoNotDisturbOrLimit_isRefused_namingIt(section: String, key: String, value: String, message: String)
  {
    #expect(error([(section, key, value)]) == message)
  }

  @Test func idleAfter_isTwoMinutesByDefault_takesADurationOrOff_andRendersBack() throws {
    #expect(try parse([]).display.idleAfter == 120)
    #expect(try parse([]).rendered().contains("[Idle]\nAfter=120s"))
    let config = try parse([("Idle", "After", "30s")])
    #expect(config.display.idleAfter == 30)
    let off = try parse([("Idle", "After", "off")])
    #expect(off.display.idleAfter == nil)
    #expect(off.rendered().contains("[Idle]\nAfter=off"))
  }

  @Test func badLine_namesItsOwnLineNumber() {
    let message = error([
      ("Queue", "MaxVisible", "2"), ("Timing", "Hold", "2s"), ("Timing", "FadeOut", "soon"),
    ])
    #expect(message?.hasPrefix("test.conf:3: FadeOut:") == true)
  }

  @Test(arguments: [("yes", true), ("no", false), ("true", true), ("off", false), ("1", true), ("0", false)])
  func suppress_acceptsBooleanSpellings(text: String, expected: Bool) throws {
    let config = try parse([("Rule:r", "Suppress", text)])
    #expect(config.queue.rules[0].suppress == expected)
  }

  @Test func timingHold_leavesCriticalNoticesHoldingUntilEnded() throws {
    let config = try parse([("Timing", "Hold", "8s"), ("Timing", "FadeIn", "2s")])
    let explicit = TimingOverrides()
    let normal = config.queue.resolve(app: nil, tag: nil, title: "t", urgency: .normal, explicit: explicit)
    let critical = config.queue.resolve(
      app: nil, tag: nil, title: "t", urgency: .critical, explicit: explicit)
    #expect(normal.hold == 8)
    #expect(critical.hold == 0)
    #expect(critical.fadeIn == 2)
    let overridden = try parse([("Timing", "Hold", "8s"), ("Urgency:critical", "Hold", "5s")])
    #expect(
      overridden.queue.resolve(app: nil, tag: nil, title: "t", urgency: .critical, explicit: explicit).hold
        == 5)
  }

  @Test func rendered_roundTripsThroughTheParser() throws {
    let config = try parse([
      ("Queue", "MaxVisible", "2"), ("Timing", "Hold", "7s"), ("Urgency:low", "Hold", "2s"),
      ("Rule:r", "MatchApp", "a*"), ("Rule:r", "Urgency", "critical"), ("DBus", "Mode", "off"),
    ])
    let text = config.rendered()
    #expect(text.contains("[Queue]\nMaxVisible=2"))
    #expect(text.contains("[Rule:r]\nMatchApp=a*"))
    #expect(text.contains("Hold=7s"))
    #expect(text.contains("[DBus]\nMode=off"))
  }

  @Test func relayKeys_setTheirValues_andAreRendered() throws {
    let config = try parse([
      ("Relay", "URL", "nats://a:4222, tls://b:4222"), ("Relay", "User", "desk"),
      ("Relay", "PasswordFile", "~/.config/notifyd/nats-password"), ("Relay", "TLSCA", "/etc/ca.pem"),
      ("Relay", "Subject", "notifyd.team"), ("Relay", "Publish", "no"), ("Relay", "Host", "desk.home"),
      ("Relay", "MaxAge", "2h"),
    ])
    #expect(config.relay.urls == ["nats://a:4222", "tls://b:4222"] && config.relay.isEnabled)
    #expect(config.relay.user == "desk" && config.relay.passwordFile == "~/.config/notifyd/nats-password")
    #expect(config.relay.subject == "notifyd.team" && !config.relay.publish && config.relay.subscribe)
    #expect(config.relay.host == "desk.home" && config.relay.maxAge == 7200)
    #expect(config.rendered().contains("[Relay]\nURL=nats://a:4222,tls://b:4222\n"))
    #expect(!(try parse([])).relay.isEnabled)
  }

  @Test func badRelayKeys_areRefused_withTheReason() {
    #expect(error([("Relay", "URL", "http://a")])?.contains("not a nats:// or tls:// URL") == true)
    #expect(error([("Relay", "Subject", "a.>")])?.contains("not a NATS subject") == true)
    #expect(error([("Relay", "Host", "a b")]) != nil)
    #expect(error([("Relay", "MaxAge", "8d")]) != nil)
    #expect(error([("Relay", "MaxAge", "0")]) != nil)
    #expect(error([("Relay", "PasswordFile", "relative")])?.contains("absolute") == true)
    #expect(error([("Relay", "User", "desk")])?.contains("go together") == true)
    #expect(
      error([("Relay", "User", "desk"), ("Relay", "PasswordFile", "/p"), ("Relay", "TokenFile", "/t")])?
        .contains("give one of") == true)
    #expect(error([("Relay", "Stream", "x")])?.contains("unknown key") == true)
  }
}
