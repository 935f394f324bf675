import NotifyProtocol

/// A lane's notices that are due and free, in the order they get a slot: higher urgency first;
/// within an urgency, round-robin by app (fair slots: a flood from one app does not keep another's
/// notice waiting behind it); then first come first served; and how many slots are taken.
///
/// Notices that pass do-not-disturb (critical ones, or a rule's `BypassDoNotDisturb=yes`) are kept
/// apart, so that while suspended the next one of them is found without passing over the others.
struct LaneSchedule {
  struct Rank: Comparable {
    var urgency: Int
    var round: Int
    var arrival: Int
    static func < (a: Rank, b: Rank) -> Bool {
      (a.urgency, a.round, a.arrival) < (b.urgency, b.round, b.arrival)
    }
  }

  private var held = IDQueue<Rank>()
  private var passing = IDQueue<Rank>()
  private var arrivals = 0
  /// The rounds of each urgency (critical, normal, low).
  private var rounds = [FairRounds](repeating: FairRounds(), count: 3)
  /// Slots taken: notices granted or running.
  var taken = 0
  /// Notices shown and held until ended that left their slot.
  var sticky = 0

  var count: Int { held.count + passing.count }

  mutating func add(_ id: Int, app: String?, urgency: Urgency, passesDoNotDisturb: Bool) {
    let level =
      switch urgency {
      case .critical: 0
      case .normal: 1
      case .low: 2
      }
    arrivals += 1
    let rank = Rank(urgency: level, round: rounds[level].round(for: app ?? ""), arrival: arrivals)
    if passesDoNotDisturb {
      passing.push(id, key: rank)
    } else {
      held.push(id, key: rank)
    }
  }

  /// Removes and answers the next notice for `isLive` ones (with `passingOnly`, the next that
  /// passes do-not-disturb); stale entries are dropped on the way.
  mutating func next(passingOnly: Bool = false, isLive: (Int) -> Bool) -> Int? {
    while let entry = passing.first, !isLive(entry.id) { passing.pop() }
    if !passingOnly {
      while let entry = held.first, !isLive(entry.id) { held.pop() }
    }
    let chosen: IDQueue<Rank>.Entry?
    switch (passingOnly ? nil : held.first, passing.first) {
    case (let one?, let other?): chosen = one.key < other.key ? held.pop() : passing.pop()
    case (_?, nil): chosen = held.pop()
    case (nil, _?): chosen = passing.pop()
    case (nil, nil): chosen = nil
    }
    guard let chosen else { return nil }
    rounds[chosen.key.urgency].serve(chosen.key.round, waiting: count)
    return chosen.id
  }

  mutating func compact(live: Int, isLive: (Int) -> Bool) {
    held.compact(live: live, isLive: isLive)
    passing.compact(live: live, isLive: isLive)
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
