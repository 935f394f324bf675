import Testing

@testable import NotifyProtocol

@Suite("Body markup, read tolerantly")
struct BodyMarkupTests {
  typealias Run = BodyMarkup.Run

  @Test func theSubset_becomesStyledRuns() {
    #expect(
      BodyMarkup.runs("plain <b>bold <i>both</i></b> <u>under</u>") == [
        Run(text: "plain "), Run(text: "bold ", bold: true), Run(text: "both", bold: true, italic: true),
        Run(text: " "), Run(text: "under", underline: true),
      ])
  }

  @Test func links_keepTheirText_andTarget() {
    #expect(
      BodyMarkup.runs(#"see <a href="https://example.org/?a=1&amp;b=2">the log</a>"#) == [
        Run(text: "see "), Run(text: "the log", link: "https://example.org/?a=1&b=2"),
      ])
  }

  @Test func entities_areDecoded_andUnknownOnesStay() {
    #expect(
      BodyMarkup.plainText("&lt;tag&gt; &amp; &quot;q&quot; &apos;a&apos; &#65;&#x42; &nbsp; & x")
        == "<tag> & \"q\" 'a' AB &nbsp; & x")
  }

  @Test(arguments: [
    "I <3 you", "a < b > c", "<b>never closed", "<script>alert(1)</script>",
    "<span foreground='red'>x</span>",
    "</b>stray", "<b attr>x</b>",
  ])
  func whatIsNotTheSubset_isShownAsWritten(body: String) {
    #expect(BodyMarkup.plainText(body) == body)
  }

  @Test func tagsClosedOutOfOrder_keepTheOuterPair_andShowTheRest() {
    #expect(
      BodyMarkup.runs("<b><i>x</b></i>") == [
        Run(text: "<i>x", bold: true), Run(text: "</i>"),
      ])
  }

  @Test func images_showTheirDescription() {
    #expect(BodyMarkup.plainText(#"<img src="/a.png" alt="chart"/> up 3%"#) == "[chart] up 3%")
  }
}
