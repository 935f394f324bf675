import NotifyProtocol
import NotifySupport

/// Finished notices, at most `limit`, oldest first; trimming forgets the oldest. Keeps how many
/// are unread, and lets one be changed (read) or removed (forgotten) by id.
struct NoticeHistory {
  /// A finished notice as history keeps it: in a box, so that the table of them holds a reference
  /// and not the notice, some 400 bytes inline. A hash table keeps a quarter to five eighths of its
  /// buckets empty, and with notices inline each empty one cost as much as a notice: the soak's
  /// history of 125,000 held about 1 KiB a notice. A box is never changed (a change puts a new
  /// one), so that a copy of the machine keeps what it had.
  private final class Kept: Sendable {
    let notice: Notice
    init(_ notice: Notice) { self.notice = notice }
  }

  private var notices: [Int: Kept] = [:]
  /// Ids in the order they finished, from `start`; a removed one stays until passed or compacted.
  private var order: [Int] = []
  private var start = 0
  /// Removed ids still in `order`.
  private var stale = 0
  /// Finished notices a person has not seen (`Notice.unread`).
  private(set) var unreadCount = 0

  var count: Int { notices.count }

  subscript(id: Int) -> Notice? { notices[id]?.notice }

  mutating func append(_ notice: Notice) {
    notices[notice.id] = Kept(notice)
    order.append(notice.id)
    if notice.unread == true { unreadCount += 1 }
  }

  /// Marks notice `id` read; answers it changed, or `nil` if it is not here or was read.
  mutating func markRead(_ id: Int) -> Notice? {
    guard var notice = notices[id]?.notice, notice.unread == true else { return nil }
    notice.unread = nil
    notices[id] = Kept(notice)
    unreadCount -= 1
    return notice
  }

  /// Takes notice `id` out; answers it, or `nil` if it is not here.
  mutating func remove(_ id: Int) -> Notice? {
    guard let notice = notices.removeValue(forKey: id)?.notice else { return nil }
    if notice.unread == true { unreadCount -= 1 }
    stale += 1
    compact()
    return notice
  }

  /// Forgets the oldest notices beyond `limit`; answers the ids forgotten.
  mutating func trim(to limit: Int) -> [Int] {
    var forgotten: [Int] = []
    while notices.count > max(limit, 0), start < order.count {
      let id = order[start]
      if let kept = notices.removeValue(forKey: id) {
        forgotten.append(id)
        if kept.notice.unread == true { unreadCount -= 1 }
      } else {
        stale -= 1
      }
      start += 1
    }
    compact()
    return forgotten
  }

  /// Drops passed and removed ids from `order` once they are most of it: it stays within twice the
  /// notices kept (and a little).
  private mutating func compact() {
    notices.releaseSpareCapacity()
    if start > 1024 && start * 2 > order.count {
      order.removeFirst(start)
      order.releaseSpareCapacity()
      start = 0
    }
    if stale > 1024 && stale * 2 > order.count - start {
      order = order[start...].filter { notices[$0] != nil }
      start = 0
      stale = 0
    }
  }

  /// Newest first.
  var newestFirst: some Sequence<Notice> {
    order[start...].reversed().lazy.compactMap { notices[$0]?.notice }
  }

  /// Hands `visit` each notice, newest first, where it is kept (not copied out), the `limit`
  /// newest at most.
  func forEachNewestFirst(limit: Int = .max, _ visit: (Notice) -> Void) {
    var visited = 0
    for id in order[start...].reversed() {
      guard visited < limit else { return }
      guard let index = notices.index(forKey: id) else { continue }
      visit(notices.values[index].notice)
      visited += 1
    }
  }

  /// How many ids `order` holds, removed ones included (for tests of its bound).
  var orderSize: Int { order.count - start }
}
