/// Whether a figure is within its budget.
enum Verdict: String {
  case met, missed
  /// No budget, or nothing to compare with.
  case none = ""
}

/// One line of the table: a figure, its budget from DESIGN §8, and the peer measured in the same run.
struct Row {
  var figure: String
  var value: String
  var budget: String = ""
  var peer: String = ""
  var ratio: String = ""
  var verdict: Verdict = .none

  /// A section heading.
  static func section(_ title: String) -> Row { Row(figure: "**\(title)**", value: "") }
}

/// The rows gathered so far, printed as a Markdown table.
final class Report {
  private(set) var rows: [Row] = []
  private(set) var notes: [String] = []

  func add(_ row: Row) {
    rows.append(row)
    log(
      "  \(row.figure): \(row.value)\(row.peer.isEmpty ? "" : "  (peer \(row.peer), ratio \(row.ratio))") \(row.verdict.rawValue)"
    )
  }

  func note(_ text: String) {
    notes.append(text)
    log("  note: \(text)")
  }

  /// The table, columns padded so that it also reads well as plain text.
  func rendered() -> String {
    let header = ["figure", "notifyd", "budget (DESIGN §8)", "peer, same run", "ratio", "verdict"]
    let cells = rows.map { [$0.figure, $0.value, $0.budget, $0.peer, $0.ratio, $0.verdict.rawValue] }
    var widths = header.map(\.count)
    for row in cells {
      for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
    }
    func line(_ cells: [String]) -> String {
      "| " + cells.enumerated().map { $0.element.padding(to: widths[$0.offset]) }.joined(separator: " | ")
        + " |"
    }
    var lines = [
      line(header), "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|",
    ]
    lines += cells.map(line)
    if !notes.isEmpty {
      lines.append("")
      lines += notes.map { "- \($0)" }
    }
    return lines.joined(separator: "\n") + "\n"
  }
}

extension String {
  func padding(to width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}

/// Progress for the person watching, on stderr, so that stdout holds only the table.
func log(_ text: String) {
  var line = text + "\n"
  line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}

/// Numbers as the table shows them.
enum Format {
  static func fixed(_ value: Double, _ digits: Int) -> String {
    guard value.isFinite else { return "n/a" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = "\(rounded)"
    if digits == 0 {
      text = "\(Int(rounded))"
    } else if let dot = text.firstIndex(of: ".") {
      let decimals = text.distance(from: dot, to: text.endIndex) - 1
      if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
    }
    return text
  }

  /// `12,345`.
  static func grouped(_ value: Double) -> String {
    guard value.isFinite else { return "n/a" }
    let digits = Array(String(Int(value.rounded())))
    var result = ""
    for (index, digit) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 && digit != "-" && digits[index - 1] != "-" {
        result += ","
      }
      result.append(digit)
    }
    return result
  }

  static func ratio(_ value: Double) -> String { value.isFinite ? fixed(value, 2) + "×" : "n/a" }
}

#if canImport(Glibc)
  import Glibc
#endif
