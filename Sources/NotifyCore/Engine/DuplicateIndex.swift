import NotifySupport

/// Shown notices by what makes a new notice a duplicate of one (`[Queue] StackDuplicates=`): its
/// app, title and body. A notice is found under the text it shows now, and only while it shows.
struct DuplicateIndex {
  private var ids: [DuplicateKey: Int] = [:]

  var isEmpty: Bool { ids.isEmpty }

  /// The shown notice a new one with `key` would merge into, if any.
  subscript(key: DuplicateKey) -> Int? { ids[key] }

  /// Notice `id` is found under `key` now, and no longer under `old`.
  mutating func index(_ id: Int, under key: DuplicateKey, replacing old: DuplicateKey?) {
    if let old, ids[old] == id { ids.removeValue(forKey: old) }
    ids[key] = id
  }

  /// Notice `id` no longer shows: it is not found under `key` any more.
  mutating func remove(_ id: Int, under key: DuplicateKey?) {
    if let key, ids[key] == id { ids.removeValue(forKey: key) }
    ids.releaseSpareCapacity()
  }

  mutating func removeAll() { ids = [:] }
}
