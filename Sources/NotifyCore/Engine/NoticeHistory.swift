import NotifyProtocol

/// Finished notices, at most `limit`, oldest first; trimming forgets the oldest.
struct NoticeHistory {
  private var notices: [Int: Notice] = [:]
  private var order: [Int] = []
  private var start = 0

  var count: Int { notices.count }

  subscript(id: Int) -> Notice? { notices[id] }

  mutating func append(_ notice: Notice) {
    notices[notice.id] = notice
    order.append(notice.id)
  }

  /// Forgets the oldest notices beyond `limit`; answers the ids forgotten.
  mutating func trim(to limit: Int) -> [Int] {
    var forgotten: [Int] = []
    while order.count - start > max(limit, 0) {
      let id = order[start]
      if notices.removeValue(forKey: id) != nil { forgotten.append(id) }
      start += 1
    }
    if start > 1024 && start * 2 > order.count {
      order.removeFirst(start)
      start = 0
    }
    return forgotten
  }

  /// Newest first.
  var newestFirst: some Sequence<Notice> {
    order[start...].reversed().lazy.compactMap { notices[$0] }
  }
}
