// libFuzzer target: a notification body read as the freedesktop markup subset (BodyMarkup), as the
// popups draw it and the CLI flattens it. Nothing may crash, and what the parser answers must hold
// for any input: nothing is invented (the text is never longer than the input), runs are never
// empty and neighbours differ in style, text without `<` or `&` comes back as it is, and the input
// escaped comes back as the input.
import NotifyProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMarkup(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let body = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  let runs = BodyMarkup.runs(body)
  let text = runs.map(\.text).joined()
  precondition(text == BodyMarkup.plainText(body), "plainText differs from the runs' text")
  precondition(
    text.unicodeScalars.count <= body.unicodeScalars.count, "the text is longer than the body it came from")
  for (index, run) in runs.enumerated() {
    precondition(!run.text.isEmpty, "an empty run")
    if index > 0 {
      let previous = runs[index - 1]
      precondition(
        previous.bold != run.bold || previous.italic != run.italic || previous.underline != run.underline
          || previous.link != run.link, "two neighbouring runs of one style")
    }
  }
  if !body.unicodeScalars.contains("<") && !body.unicodeScalars.contains("&") {
    precondition(text == body, "a body without markup changed")
  }
  var escaped = ""
  for character in body {
    switch character {
    case "&": escaped += "&amp;"
    case "<": escaped += "&lt;"
    case ">": escaped += "&gt;"
    default: escaped.append(character)
    }
  }
  precondition(BodyMarkup.plainText(escaped) == body, "an escaped body did not come back as written")
  // Well-formed markup of what was read means the same: the same text, and the same runs unless a
  // link too long for a tag had to be left out.
  let normalized = BodyMarkup.normalized(body)
  precondition(BodyMarkup.plainText(normalized) == text, "normalized markup reads as other text")
  if runs.allSatisfy({ ($0.link?.unicodeScalars.count ?? 0) < BodyMarkup.maximumTagLength / 6 - 4 }) {
    precondition(BodyMarkup.runs(normalized) == runs, "normalized markup reads differently")
  }
  return 0
}
