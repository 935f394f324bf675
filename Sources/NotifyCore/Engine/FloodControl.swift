import NotifyProtocol

/// Flood control (`[Limits] PerApp=`, DESIGN §11): a token bucket per app, so that an app past its
/// rate has its notices folded into a summary rather than shown one by one.
///
/// Bounded: at most `maximumTrackedApps` buckets. Past it, buckets that have filled up again are
/// dropped (they are as good as new), and if none has, new apps share one bucket.
struct FloodControl {
  /// The most apps whose buckets are kept.
  static let maximumTrackedApps = 4096
  /// The bucket apps share while `maximumTrackedApps` are tracked and none has filled up.
  static let overflow = "\u{0}overflow"

  private var buckets: [String: TokenBucket] = [:]

  /// Apps whose buckets are kept now (one shared bucket included).
  var trackedApps: Int { buckets.count }

  /// Whether `app` may send one more notice now under `limit`: takes a token from its bucket. Every
  /// app may with no limit.
  mutating func admits(_ app: String?, under limit: FloodLimit?, at now: Double) -> Bool {
    guard let limit else { return true }
    var name = app ?? ""
    if buckets[name] == nil, buckets.count >= Self.maximumTrackedApps {
      buckets = buckets.filter { !$0.value.isFull(limit, at: now) }
      if buckets.count >= Self.maximumTrackedApps { name = Self.overflow }
    }
    return buckets[name, default: TokenBucket(limit, at: now)].take(limit, at: now)
  }

  /// The limit is gone: every bucket with it.
  mutating func forgetAll() { buckets = [:] }
}

/// One app's allowance under `[Limits] PerApp=`: up to `count` tokens, refilled at `count` per
/// `period`; each notice takes one.
struct TokenBucket {
  var tokens: Double
  var at: Double

  init(_ limit: FloodLimit, at now: Double) {
    tokens = Double(limit.count)
    at = now
  }

  private func tokens(_ limit: FloodLimit, at now: Double) -> Double {
    min(Double(limit.count), tokens + max(0, now - at) * Double(limit.count) / limit.period)
  }

  func isFull(_ limit: FloodLimit, at now: Double) -> Bool { tokens(limit, at: now) >= Double(limit.count) }

  /// Takes a token if there is one.
  mutating func take(_ limit: FloodLimit, at now: Double) -> Bool {
    tokens = tokens(limit, at: now)
    at = now
    guard tokens >= 1 else { return false }
    tokens -= 1
    return true
  }
}
