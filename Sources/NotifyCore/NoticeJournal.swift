import NotifyProtocol

/// Where the queue engine writes what must survive a crash: every accepted notice, every change
/// that matters for a restart, every finish, the suspended state and the next id.
///
/// - Important: the engine calls the `record…` methods under its lock, in order; they must only
///   take note (in memory) and never block. `sync` calls back once everything noted so far is
///   committed, or with the error that kept it from being committed.
public protocol NoticeJournal: AnyObject, Sendable {
  /// A notice was accepted or changed while unfinished.
  func recordUnfinished(_ notice: Notice)
  /// A notice finished and moved to history.
  func recordFinished(_ notice: Notice)
  /// A finished notice left history (`[Queue] HistorySize=`): the journal may forget it.
  func recordForgotten(_ id: Int)
  /// A person suspended or resumed the queue (`nil`: their choice no longer counts).
  func recordHand(_ choice: HandChoice?)
  /// The next id to hand out, so that ids are never reused.
  func recordNextID(_ nextID: Int)
  /// Calls `completion` once everything recorded so far is durable (`nil`), or with the error.
  func sync(_ completion: @escaping @Sendable ((any Error)?) -> Void)
}

/// What a journal gives back at start: the queue as it was.
public struct JournalState: Sendable, Equatable {
  /// Unfinished notices in the order they were accepted.
  public var unfinished: [Notice]
  /// Finished notices, oldest first, at most `HistorySize`.
  public var history: [Notice]
  public var nextID: Int
  /// What a person last said about do-not-disturb.
  public var hand: HandChoice?

  public init(unfinished: [Notice] = [], history: [Notice] = [], nextID: Int = 1, hand: HandChoice? = nil) {
    self.unfinished = unfinished
    self.history = history
    self.nextID = nextID
    self.hand = hand
  }
}
