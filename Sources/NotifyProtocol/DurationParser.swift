import FoundationEssentials

/// Parses durations as people write them: `1.5`, `1.5s`, `300ms`, `2m`, `1h`, `1d`.
public enum DurationParser {
  /// The seconds `text` stands for, or `nil` if it is not a finite duration ≥ 0.
  public static func seconds(_ text: String) -> Double? {
    let trimmed = String(text.filter { $0 != " " })
    let units: [(suffix: String, scale: Double)] = [
      ("ms", 0.001), ("us", 0.000_001), ("s", 1), ("min", 60), ("m", 60), ("h", 3600), ("d", 86400),
    ]
    var number = Substring(trimmed)
    var scale = 1.0
    for unit in units where trimmed.hasSuffix(unit.suffix) {
      number = trimmed.dropLast(unit.suffix.count)
      scale = unit.scale
      break
    }
    guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
      let value = Double(number), value.isFinite, value >= 0
    else { return nil }
    return value * scale
  }
}
