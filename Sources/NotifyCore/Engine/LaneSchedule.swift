import NotifyProtocol

/// A lane's notices that are due and free, in the order they get a slot: higher urgency first;
/// within an urgency, round-robin by app (fair slots: a flood from one app does not keep another's
/// notice waiting behind it); then first come first served; and how many slots are taken.
///
/// Notices are kept apart by what lets them through (`NoticeRecord.Gates`: do-not-disturb, a
/// fullscreen window), so that while some are held back the next of the others is found without
/// passing over those held.
struct LaneSchedule {
  struct Rank: Comparable {
    var urgency: Int
    var round: Int
    var arrival: Int
    static func < (a: Rank, b: Rank) -> Bool {
      (a.urgency, a.round, a.arrival) < (b.urgency, b.round, b.arrival)
    }
  }

  /// One ready list per kind of gates a notice has (`NoticeRecord.Gates.slot`).
  private var lists = [IDQueue<Rank>](repeating: IDQueue(), count: NoticeRecord.Gates.all.count)
  private var arrivals = 0
  /// The rounds of each urgency (critical, normal, low).
  private var rounds = [FairRounds](repeating: FairRounds(), count: 3)
  /// Slots taken: notices granted or running.
  var taken = 0
  /// Notices shown and held until ended that left their slot.
  var sticky = 0

  var count: Int { lists.reduce(0) { $0 + $1.count } }

  mutating func add(_ id: Int, app: String?, urgency: Urgency, gates: NoticeRecord.Gates) {
    let level =
      switch urgency {
      case .critical: 0
      case .normal: 1
      case .low: 2
      }
    arrivals += 1
    let rank = Rank(urgency: level, round: rounds[level].round(for: app ?? ""), arrival: arrivals)
    lists[gates.slot].push(id, key: rank)
  }

  /// Removes and answers the next of the `isLive` notices whose gates `admitting` lets through;
  /// stale entries are dropped on the way.
  mutating func next(admitting: (NoticeRecord.Gates) -> Bool = { _ in true }, isLive: (Int) -> Bool) -> Int? {
    var chosen: (slot: Int, key: Rank)?
    for (slot, gates) in NoticeRecord.Gates.all.enumerated() where admitting(gates) {
      while let entry = lists[slot].first, !isLive(entry.id) { lists[slot].pop() }
      guard let first = lists[slot].first else { continue }
      if chosen == nil || first.key < chosen!.key { chosen = (slot, first.key) }
    }
    guard let chosen, let entry = lists[chosen.slot].pop() else { return nil }
    rounds[entry.key.urgency].serve(entry.key.round, waiting: count)
    return entry.id
  }

  mutating func compact(live: Int, isLive: (Int) -> Bool) {
    for slot in lists.indices {
      lists[slot].compact(live: live) { id, _ in isLive(id) }
    }
  }
}

/// Round-robin by app within one urgency, as start-time fair queueing does it: each new notice
/// gets the round after its app's last one, never one before the round being served; the ready
/// list orders by round, so with one app far ahead the others' notices go first. Rounds count on
/// across notices already shown, so an app whose notices hold every slot is behind a newcomer.
///
/// Bounded: once the apps kept outnumber the notices waiting twice over (+64), those not ahead of
/// the round served are forgotten (they count as new: at worst one turn early), and if that leaves
/// more than half the bound, all are. Each forgetting follows at least `waiting + 32` new apps, so
/// it costs O(1) per notice over time.
struct FairRounds {
  /// The round of the notice given a slot last.
  private(set) var serving = 0
  /// Each app's last round given.
  private(set) var last: [String: Int] = [:]

  mutating func round(for app: String) -> Int {
    let round = max(serving, last[app].map { $0 + 1 } ?? serving)
    last[app] = round
    return round
  }

  /// A notice of `round` got a slot; `waiting` notices are left in the list.
  mutating func serve(_ round: Int, waiting: Int) {
    serving = max(serving, round)
    guard last.count > 2 * waiting + 64 else { return }
    last = last.filter { $0.value > serving }
    if last.count > waiting + 32 { last.removeAll() }
  }
}
