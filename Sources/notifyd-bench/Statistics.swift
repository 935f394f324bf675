/// Order statistics of a sample.
struct Sample {
  private(set) var values: [Double]

  init(_ values: [Double]) { self.values = values.sorted() }

  var count: Int { values.count }
  var isEmpty: Bool { values.isEmpty }

  /// The `p`-th percentile (0…100), nearest rank; `nan` for an empty sample.
  func percentile(_ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let rank = Int((p / 100 * Double(values.count)).rounded(.up)) - 1
    return values[min(max(rank, 0), values.count - 1)]
  }

  var median: Double { percentile(50) }
  var p99: Double { percentile(99) }
  var maximum: Double { values.last ?? .nan }
  var mean: Double { values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count) }
}
