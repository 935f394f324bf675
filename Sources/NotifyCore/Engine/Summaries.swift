import NotifyProtocol

/// The summary notices the engine writes, and what they say: per app, the notices flood control
/// folded ("37 more from backup", the newest title as the body); and the notices do-not-disturb held
/// back, folded on resume ("12 notices while you were away"). A summary is changed in place while it
/// is unfinished, and a new one is written once it has finished or is closing.
struct Summaries {
  /// A summary notice the engine wrote, and how many folded notices it stands for.
  struct Summary: Equatable {
    var id: Int
    var count: Int
  }

  /// What a summary notice says.
  struct Text: Equatable {
    var title: String
    var body: String
  }

  /// Each app's unfinished flood summary (`""` for notices without an app).
  private var floods: [String: Summary] = [:]
  /// The unfinished summary of what do-not-disturb held back.
  private(set) var away: Summary?

  /// The summary that `app`'s next folded notice joins, if it is unfinished and not closing
  /// (`isOpen`).
  func flood(from app: String?, isOpen: (Int) -> Bool) -> Summary? {
    floods[app ?? ""].flatMap { isOpen($0.id) ? $0 : nil }
  }

  /// The summary of what do-not-disturb held back that the next fold joins, if it is still open.
  func away(isOpen: (Int) -> Bool) -> Summary? { away.flatMap { isOpen($0.id) ? $0 : nil } }

  /// `app`'s flood summary is now `summary` (`nil`: none could be written).
  mutating func setFlood(_ summary: Summary?, from app: String?) { floods[app ?? ""] = summary }

  mutating func setAway(_ summary: Summary) { away = summary }

  /// Notice `id` of `app` finished: if it was a summary, the next fold starts a new one.
  mutating func finished(_ id: Int, app: String?) {
    if floods[app ?? ""]?.id == id { floods.removeValue(forKey: app ?? "") }
    if away?.id == id { away = nil }
  }

  /// A flood summary standing for `count` notices of `app`, the newest titled `newest`.
  static func flood(count: Int, from app: String?, newest: String) -> Text {
    Text(title: "\(count) more from \(app ?? "an app without a name")", body: newest)
  }

  /// The summary of `held` (oldest first) and `before` notices folded into it already: a line for
  /// each of the first five, "app: title", and how many more.
  static func away(_ held: [Notice], before: Int) -> Text {
    var lines = held.prefix(5).map { notice in notice.app.map { "\($0): \(notice.title)" } ?? notice.title }
    if held.count > 5 { lines.append("…and \(held.count - 5) more") }
    return Text(
      title: "\(held.count + before) notices while you were away", body: lines.joined(separator: "\n"))
  }
}
