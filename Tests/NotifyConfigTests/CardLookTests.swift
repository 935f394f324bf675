import NotifyCore
import NotifyProtocol
import Testing

@testable import NotifyConfig

/// Looks by layer: the built-in look, `[Display]`, `[Display:URGENCY]`, then each matching rule's;
/// `Format=`; what `--check-config` shows of a rule's look.
@Suite("Card looks")
struct CardLookTests {
  private func parse(_ lines: [(String, String, String)]) throws -> Config {
    let entries = lines.enumerated().map { index, line in
      ConfigEntry(section: line.0, key: line.1, value: line.2, line: index + 1)
    }
    return try ConfigParser.parse(entries, file: "test.conf")
  }

  @Test func theLayers_goBuiltIn_display_urgency_thenRulesInFileOrder() throws {
    let config = try parse([
      ("Display", "Border", "#ffffff"), ("Display", "Width", "400"), ("Display", "Font", "Serif 9"),
      ("Display:critical", "Border", "#ff0000"), ("Display:critical", "Width", "500"),
      ("Rule:ci", "MatchApp", "ci"), ("Rule:ci", "Background", "#203020"), ("Rule:ci", "Padding", "4"),
      ("Rule:ci", "Width", "480"),
      ("Rule:late", "MatchApp", "c*"), ("Rule:late", "Width", "420"), ("Rule:late", "Layer", "overlay"),
    ])
    let display = config.display
    // [Display] is over every urgency's built-in look, the critical one's too.
    let low = display.look(for: .low)
    #expect(low.colours.border.description == "#ffffff")
    #expect(low.colours.background == CardColours.builtIn(for: .low).background)
    #expect((low.width, low.font, low.padding, low.layer) == (400, "Serif 9", 12, .top))
    // [Display:critical] over [Display]; the built-in critical layer stays.
    let critical = display.look(for: .critical)
    #expect(
      (critical.colours.border.description, critical.width, critical.layer) == ("#ff0000", 500, .overlay))
    // Each matching rule in order: the later rule's width wins, the earlier's padding stays.
    let both = display.look(for: .normal, rules: ["ci", "late"])
    #expect((both.width, both.padding, both.layer) == (420, 4, .overlay))
    #expect(both.colours.background.description == "#203020")
    #expect(both.colours.border.description == "#ffffff")
    // Rules only add to their name's look; a name with no look keys changes nothing.
    #expect(display.look(for: .normal, rules: ["other"]) == display.look(for: .normal))
    #expect(config.queue.rules.map(\.name) == ["ci", "late"])
  }

  @Test func output_isFocusedByDefault_allOrAName_perRuleToo() throws {
    let config = try parse([
      ("Display", "Output", "HDMI-A-1"), ("Rule:alarm", "Output", "all"), ("Rule:here", "Output", "focused"),
      ("Rule:unset", "Output", ""),
    ])
    #expect(CardLook.builtIn(for: .normal).output == .focused)
    #expect(config.display.look(for: .normal).output == .named("HDMI-A-1"))
    #expect(config.display.look(for: .normal, rules: ["alarm"]).output == .all)
    #expect(config.display.look(for: .normal, rules: ["alarm", "here"]).output == .focused)
    #expect(config.display.look(for: .normal, rules: ["unset"]).output == .named("HDMI-A-1"))
    #expect(try parse([]).rendered().contains("\nOutput=focused\n"))
  }

  @Test func fontScaleAndAnimation_layerAsLookKeys_andAScaleOutOfBoundsIsRefused() throws {
    let config = try parse([
      ("Display", "FontScale", "1.25"), ("Display:critical", "FontScale", "2"),
      ("Display:low", "Animation", "none"), ("Rule:calm", "MatchApp", "calm"),
      ("Rule:calm", "Animation", "none"),
      ("Rule:calm", "FontScale", ""),
    ])
    #expect(
      CardLook.builtIn(for: .normal).fontScale == 1 && CardLook.builtIn(for: .normal).animation == .fade)
    let display = config.display
    #expect((display.look(for: .normal).fontScale, display.look(for: .normal).animation) == (1.25, .fade))
    #expect((display.look(for: .critical).fontScale, display.look(for: .critical).animation) == (2, .fade))
    #expect((display.look(for: .low).fontScale, display.look(for: .low).animation) == (1.25, .none))
    // A rule's empty value leaves the layer below's.
    #expect(display.look(for: .critical, rules: ["calm"]).fontScale == 2)
    #expect(display.look(for: .normal, rules: ["calm"]).animation == .none)
    let text = config.rendered()
    #expect(
      text.contains("\nFontScale=1.25\n") && text.contains("\nFontScale=2\n")
        && text.contains("\nAnimation=none\n"))
    for (value, problem) in [
      ("0.4", "0.4 is out of range (0.5…4)"), ("5", "5 is out of range (0.5…4)"),
      ("big", "'big' is not a number"),
      ("nan", "'nan' is not a number"), ("inf", "'inf' is not a number"),
    ] {
      #expect(throws: ConfigError.self) { try parse([("Display", "FontScale", value)]) }
      do {
        _ = try parse([("Display", "FontScale", value)])
      } catch {
        #expect("\(error)".contains(problem), "\(error)")
      }
    }
    #expect(throws: ConfigError.self) { try parse([("Display", "Animation", "slow")]) }
  }

  @Test func fullscreen_layersAsALookKey_andTheEngineGetsWhatTheLooksResolve() throws {
    let config = try parse([
      ("Display", "Fullscreen", "pushback"), ("Display:low", "Fullscreen", "show"),
      ("Rule:calls", "MatchApp", "phone"), ("Rule:calls", "Fullscreen", "show"),
      ("Rule:alarm", "MatchApp", "alarm"), ("Rule:alarm", "Fullscreen", "delay"),
      ("Rule:plain", "MatchApp", "x"),
    ])
    #expect(CardLook.builtIn(for: .critical).fullscreen == .show)
    #expect(CardLook.builtIn(for: .normal).fullscreen == .delay)
    // [Display] is over every urgency's built-in value, critical's too; [Display:low] over it.
    #expect(config.display.look(for: .normal).fullscreen == .pushback)
    #expect(config.display.look(for: .critical).fullscreen == .pushback)
    #expect(config.display.look(for: .low).fullscreen == .show)
    #expect(config.display.look(for: .critical, rules: ["alarm"]).fullscreen == .delay)
    // The engine holds notices back by the same values.
    let settings = config.engineSettings
    #expect(settings.fullscreen == [.low: .show, .normal: .pushback, .critical: .pushback])
    #expect(settings.rules.map(\.fullscreen) == [.show, .delay, nil])
    // Built in, without a config: critical shows, the rest wait.
    #expect(try parse([]).engineSettings.fullscreen == [.low: .delay, .normal: .delay, .critical: .show])
    #expect(QueueSettings().fullscreen == [.critical: .show])
    #expect(throws: ConfigError.self) { try parse([("Display", "Fullscreen", "hide")]) }
  }

  @Test func anEmptyLookKey_isUnset_leavingTheLayerBelow() throws {
    // As the example config writes them: `Background=` and `Layer=` empty in [Display].
    let config = try parse([
      ("Display", "Background", ""), ("Display", "Layer", ""), ("Display", "Width", "400"),
      ("Rule:x", "Width", "420"), ("Rule:x", "Width", ""), ("Rule:x", "Border", ""), ("Rule:x", "Format", ""),
    ])
    #expect(config.display.look.background == nil && config.display.look.layer == nil)
    #expect(config.display.look(for: .critical).layer == .overlay)
    #expect(config.display.look(for: .normal, rules: ["x"]).width == 400)
    #expect(config.display.ruleLooks["x"]?.isEmpty == true)
  }

  @Test func ruleLooks_lastUnderTheirName_whenASectionComesTwice() throws {
    let config = try parse([
      ("Rule:a", "Width", "300"), ("Rule:b", "Width", "200"), ("Rule:a", "BorderWidth", "0"),
    ])
    #expect(config.display.ruleLooks["a"]?.width == 300)
    #expect(config.display.ruleLooks["a"]?.borderWidth == 0)
    #expect(config.display.ruleLooks["b"]?.width == 200)
  }

  @Test(
    arguments: [
      (("Rule:x", "Width", "99"), "test.conf:1: Width: 99 is out of range (100…4000)"),
      (("Display", "BorderWidth", "21"), "test.conf:1: BorderWidth: 21 is out of range (0…20)"),
      (("Display:low", "IconSize", "8"), "test.conf:1: IconSize: 8 is out of range (16…256)"),
      (("Rule:x", "MaxLines", "0"), "test.conf:1: MaxLines: 0 is out of range (1…50)"),
      (("Rule:x", "Padding", "a"), "test.conf:1: Padding: 'a' is not a whole number"),
      (("Rule:x", "Layer", "bottom"), "test.conf:1: Layer: 'bottom' is not one of top, overlay"),
      (("Rule:x", "Font", ""), "test.conf:1: Font: a font is needed, e.g. Sans 10"),
      (("Rule:x", "Border", "blue"), "test.conf:1: Border: 'blue' is not a colour"),
      (
        ("Rule:x", "Format", "%s (%d)"),
        "test.conf:1: Format: %d is not a field (%a app, %s title, %b body, %h host, %p progress, %% a %)"
      ),
      (("Display", "Format", "100%"), "test.conf:1: Format: a % at the end is not a field"),
    ])
  func badLookValues_areRefused_namingTheKey(line: (String, String, String), expected: String) {
    do {
      _ = try parse([line])
      Issue.record("\(line) was accepted")
    } catch {
      #expect("\(error)".hasPrefix(expected), "got \(error)")
    }
  }

  @Test func aFormat_fillsItsFields_asTextInItsMarkup() throws {
    let format = try CardFormat("<b>%s</b> · %a@%h\\n%b (%p) 100%%")
    let markup = format.markup(
      app: "a<b>", title: "x & <i>y</i>", body: "<u>under</u> & <b>open", host: "desk", value: 42)
    // Title, app and host are text; the body is its markup, closed where it ends.
    #expect(
      markup
        == "<b>x &amp; &lt;i&gt;y&lt;/i&gt;</b> · a&lt;b&gt;@desk\n<u>under</u> &amp; &lt;b&gt;open (42%) 100%"
    )
    let runs = BodyMarkup.runs(markup)
    #expect(runs.first == BodyMarkup.Run(text: "x & <i>y</i>", bold: true))
    #expect(runs.contains(BodyMarkup.Run(text: "under", underline: true)))
    #expect(!runs.contains { $0.bold && $0.text.contains("open") })
  }

  @Test func absentFields_leaveNoBlankLinesAtTheEnds() throws {
    let format = try CardFormat("%a\\n%s\\n%b")
    #expect(format.markup(app: nil, title: "Build", body: nil, host: nil, value: nil) == "Build")
    #expect(try CardFormat("%p").markup(app: nil, title: "t", body: nil, host: nil, value: nil) == "")
    #expect(
      try CardFormat("a\\tb\\").markup(app: nil, title: "", body: nil, host: nil, value: nil) == "a\\tb\\")
  }

  @Test func checkConfig_showsTheWholeLookARuleGives_andReadsBack() throws {
    let config = try parse([
      ("Display", "Font", "Serif 9"), ("Display:critical", "Background", "#400000"),
      ("Rule:pager", "MatchApp", "pager"), ("Rule:pager", "Urgency", "critical"),
      ("Rule:pager", "Width", "480"), ("Rule:pager", "Format", "<b>%s</b>\\n%b"),
      ("Rule:plain", "MatchApp", "x"), ("Rule:plain", "Hold", "1s"),
      // Paths that read back (their defaults are written with variables).
      ("Socket", "Path", "/run/n.sock"), ("Store", "Path", "/var/n.db"),
    ])
    let text = config.rendered()
    #expect(
      text.contains(
        """
        [Rule:pager]
        MatchApp=pager
        Urgency=critical
        Width=480
        Format=<b>%s</b>\\n%b
        # the look of its cards (critical, over [Display] and [Display:critical]):
        #   Background=#400000 Foreground=#e8ebf0 Border=#ff5c5c Progress=#ff5c5c BorderWidth=2
        #   Width=480 Font=Serif 9 FontScale=1 IconSize=48 CornerRadius=8
        #   Padding=12 MaxLines=6 Format=<b>%s</b>\\n%b Layer=overlay Output=focused
        #   Fullscreen=show Animation=fade SnoozeButton=no

        """), "\(text)")
    // A rule that sets no look key gets no look written.
    #expect(text.contains("[Rule:plain]\nMatchApp=x\nHold=1s\n\n"))
    let reread = try ConfigParser.parse(try ConfigLoader.entries(text: text), file: "rendered")
    #expect(reread.display.ruleLooks == config.display.ruleLooks)
    #expect(reread.rendered() == text)
  }
}
