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

  @Test func normalized_isWellFormedMarkupThatReadsTheSame() {
    let body = "<b>bold <i>both</i></b> a & b <3 <a href='x?a=1&amp;b=\"2\"'>link</a> <font>x</font>"
    let normalized = BodyMarkup.normalized(body)
    #expect(
      normalized
        == "<b>bold </b><b><i>both</i></b> a &amp; b &lt;3 <a href=\"x?a=1&amp;b=&quot;2&quot;\">link</a> "
        + "&lt;font&gt;x&lt;/font&gt;")
    #expect(BodyMarkup.runs(normalized) == BodyMarkup.runs(body))
    #expect(BodyMarkup.normalized("plain text, no markup") == "plain text, no markup")
  }

  @Test func bounds_aTagPastItsLength_andTagsPastTheDepth_areLiteral() {
    let long = "<a href=\"" + String(repeating: "x", count: BodyMarkup.maximumTagLength) + "\">t</a>"
    #expect(BodyMarkup.runs(long).allSatisfy { $0.link == nil })
    let deep =
      String(repeating: "<b>", count: BodyMarkup.maximumDepth + 1) + "x"
      + String(repeating: "</b>", count: BodyMarkup.maximumDepth + 1)
    let runs = BodyMarkup.runs(deep)
    #expect(runs.contains { $0.bold })
    #expect(BodyMarkup.plainText(deep).contains("<b>"))
  }
}
