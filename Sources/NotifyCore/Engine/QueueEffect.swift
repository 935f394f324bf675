import NotifyProtocol

/// A lane: notices and progress indicators each have their own `OperationQueue`.
public enum Lane: Int, CaseIterable, Sendable {
  case notices, progress
}

/// What the queue machine asks its owner to carry out, in order, after a request or an input.
///
/// The machine decides; the owner (`NoticeQueue`) touches the world: operations in `OperationQueue`s,
/// the journal, subscribers, the one timer.
public enum QueueEffect: Equatable, Sendable {
  /// Give notice `id` an operation in its lane's `OperationQueue`: it has a slot. When the queue
  /// starts the operation, the owner tells the machine (`started`).
  case run(id: Int, lane: Lane, urgency: Urgency)
  /// The operation of notice `id` finishes: the notice has left the screen (or never reached it).
  case finishOperation(id: Int)
  /// Write to the journal.
  case journal(JournalRecord)
  /// Hand an event to every watcher.
  case publish(Event)
  /// Hand frames to the watchers numbered `watchers`.
  case frames([Event], watchers: [Int])
  /// Hand a new watcher its snapshot.
  case snapshot(Event, watcher: Int)
  /// Answer the `Wait` callers numbered `waiters` with the finished notice.
  case answer(waiters: [Int], Notice)
  /// Suspend or resume both lanes' `OperationQueue`s.
  case suspendLanes(Bool)
  /// Set each lane's `maxConcurrentOperationCount`.
  case laneWidths(notices: Int, progress: Int)
  /// Arm the one timer for `deadline` (monotonic seconds), replacing the armed one; `nil` disarms.
  case arm(deadline: Double?)
}

/// One write to the journal (`NoticeJournal`).
public enum JournalRecord: Equatable, Sendable {
  case unfinished(Notice)
  case finished(Notice)
  case forgotten(id: Int)
  /// What a person last said about do-not-disturb; `nil` once it no longer counts.
  case hand(HandChoice?)
  case nextID(Int)
}

/// What a person last said about do-not-disturb, which quiet hours do not undo: suspended (until
/// resumed, or until a wall-clock time), or resumed inside quiet hours (until they end).
public enum HandChoice: Equatable, Sendable {
  case suspended(allow: DoNotDisturbAllow, until: Double?)
  case resumed(until: Double)

  /// The wall-clock instant the choice runs out, if it does.
  public var until: Double? {
    switch self {
    case .suspended(_, let until): until
    case .resumed(let until): until
    }
  }
}

/// The instant an input happens at: monotonic seconds for timing, wall-clock seconds for the
/// timestamps a person reads.
public struct Instant: Equatable, Sendable {
  public var now: Double
  public var wall: Double

  public init(now: Double, wall: Double) {
    self.now = now
    self.wall = wall
  }
}
