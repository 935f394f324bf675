import NotifyCore
import NotifyProtocol
import NotifySupport

/// Why a change was not acknowledged.
public enum ServiceError: Error, Sendable, Equatable {
  /// The engine refused it (a bad field, an unknown id, a full queue); nothing changed.
  case queue(QueueError)
  /// The store could not commit it: it was withdrawn, as far as it can be (a new notice is
  /// cancelled at once), and the caller must not take it as done.
  case storeFailed(reason: String)
}

extension ServiceError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .queue(let error): "\(error)"
    case .storeFailed(let reason): "not kept: \(reason)"
    }
  }
}

/// The one path every front end (Varlink, D-Bus, the relay, the popups and the center) takes into
/// the engine: each change is carried out on the queue, and its caller hears of it only once the
/// journal has committed it; a new notice the journal could not keep is withdrawn. Reads (`notices`:
/// `get`, `list`, `status`, events) answer from the engine, which also keeps the history: the store
/// only mirrors it. What a person is doing (away, pointing at a card, typing in one, a fullscreen
/// window) goes in here too, undurable: nothing waits on it.
///
/// - Important: `done` runs on the thread that commits the journal (the server's event loop), in
///   the order the changes were made, or at once on the caller's thread when the engine refused the
///   change or there is no journal.
public final class NoticeService: Sendable {
  private let queue: NoticeQueue
  private let journal: (any NoticeJournal)?

  /// The engine, to read.
  public var notices: any NoticeReading { queue }

  public init(queue: NoticeQueue, journal: (any NoticeJournal)?) {
    self.queue = queue
    self.journal = journal
  }

  /// Carries out `change` and calls `done` with its value once it is durable. `withdrawing` names
  /// the new notice the change made, if any: it is cancelled at once when the commit fails. Answers
  /// the value at once too (`nil` when the engine refused), for a caller that must know it before
  /// the commit (the D-Bus server holds back signals for a notice it has not answered yet).
  @discardableResult
  public func commit<Value: Sendable>(
    _ change: () throws(QueueError) -> Value, withdrawing: (Value) -> Int? = { _ in nil },
    done: @escaping @Sendable (Result<Value, ServiceError>) -> Void
  ) -> Value? {
    let value: Value
    do {
      value = try change()
    } catch {
      done(.failure(.queue(error)))
      return nil
    }
    guard let journal else {
      done(.success(value))
      return value
    }
    let withdrawn = withdrawing(value)
    journal.sync { [queue] error in
      guard let error else {
        done(.success(value))
        return
      }
      if let withdrawn { _ = try? queue.cancel(CancelParameters(id: withdrawn, now: true)) }
      done(.failure(.storeFailed(reason: "\(error)")))
    }
    return value
  }

  // MARK: - Changes

  /// `Show`; with `replacing`, D-Bus `replaces_id`. Answers the id at once (`nil` if refused).
  @discardableResult
  public func show(
    _ request: ShowParameters, replacing: Int? = nil,
    done: @escaping @Sendable (Result<Int, ServiceError>) -> Void
  ) -> Int? {
    commit(
      { () throws(QueueError) in try queue.show(request, replacing: replacing) }, withdrawing: { $0 },
      done: done)
  }

  /// A notice relayed from another host (DESIGN §10): `done` once it is committed, origin and
  /// all, so that the relay acknowledges it to JetStream only then.
  @discardableResult
  public func showRelayed(
    _ request: ShowParameters, origin: NoticeOrigin, missed: Bool,
    done: @escaping @Sendable (Result<Int, ServiceError>) -> Void
  ) -> Int? {
    commit(
      { () throws(QueueError) in try queue.showRelayed(request, origin: origin, missed: missed) },
      withdrawing: { $0 }, done: done)
  }

  /// The desk's answer for a notice published from here: `done` with whether it closed, once that is
  /// committed.
  public func answer(
    _ id: Int, outcome: Outcome, invoked: String?, replied: String? = nil,
    done: @escaping @Sendable (Result<Bool, ServiceError>) -> Void
  ) {
    commit(
      { () throws(QueueError) in queue.answer(id, outcome: outcome, invoked: invoked, replied: replied) },
      done: done)
  }

  /// `Progress`; a new indicator is withdrawn when the commit fails, an existing one is not.
  @discardableResult
  public func progress(
    _ request: ProgressParameters, replacing: Int? = nil, wholly: Bool = false,
    done: @escaping @Sendable (Result<ProgressReply, ServiceError>) -> Void
  ) -> ProgressReply? {
    commit(
      { () throws(QueueError) in
        let result = try queue.progress(request, replacing: replacing, wholly: wholly)
        return ProgressReply(id: result.id, existing: result.existing)
      }, withdrawing: { $0.existing ? nil : $0.id }, done: done)
  }

  public func update(
    _ request: UpdateParameters, done: @escaping @Sendable (Result<Notice, ServiceError>) -> Void
  ) {
    commit({ () throws(QueueError) in try queue.update(request) }, done: done)
  }

  public func end(_ request: EndParameters, done: @escaping @Sendable (Result<Notice, ServiceError>) -> Void)
  {
    commit({ () throws(QueueError) in try queue.end(request) }, done: done)
  }

  public func cancel(
    _ request: CancelParameters, done: @escaping @Sendable (Result<[Int], ServiceError>) -> Void
  ) {
    commit({ () throws(QueueError) in try queue.cancel(request) }, done: done)
  }

  public func invoke(
    _ request: InvokeParameters, done: @escaping @Sendable (Result<Notice, ServiceError>) -> Void
  ) {
    commit({ () throws(QueueError) in try queue.invoke(request) }, done: done)
  }

  /// Answers a notice's reply field (`notifyctl reply`, a D-Bus client's own text, a card's field).
  public func reply(
    _ request: ReplyParameters, done: @escaping @Sendable (Result<Notice, ServiceError>) -> Void
  ) {
    commit({ () throws(QueueError) in try queue.reply(request) }, done: done)
  }

  /// Snoozes a notice (`notifyctl snooze`, "Remind me" on a card or in the center).
  public func snooze(
    _ request: SnoozeParameters, done: @escaping @Sendable (Result<Notice, ServiceError>) -> Void
  ) {
    commit({ () throws(QueueError) in try queue.snooze(request) }, done: done)
  }

  /// Snoozes notice `id` until `time` as a person says it ("Remind me", a picker's choice), counted
  /// from the engine's clock.
  public func snooze(
    _ id: Int, until time: SnoozeTime, done: @escaping @Sendable (Result<Notice, ServiceError>) -> Void
  ) {
    snooze(time.request(for: id, now: queue.wallTime), done: done)
  }

  /// Brings a snoozed notice back now (`notifyctl unsnooze`).
  public func unsnooze(
    _ request: IDParameters, done: @escaping @Sendable (Result<Notice, ServiceError>) -> Void
  ) {
    commit({ () throws(QueueError) in try queue.unsnooze(request) }, done: done)
  }

  /// A person closes a notice, or every visible one (`notifyctl dismiss`, a click on a popup).
  public func dismiss(
    _ request: DismissParameters, done: @escaping @Sendable (Result<[Int], ServiceError>) -> Void
  ) {
    commit({ () throws(QueueError) in try queue.dismiss(request) }, done: done)
  }

  /// Marks finished notices read (`notifyctl read`, the center); answers at once which (`nil` when
  /// the engine refused, as `done` is told).
  @discardableResult
  public func read(
    _ request: ReadParameters, done: @escaping @Sendable (Result<[Int], ServiceError>) -> Void
  ) -> [Int]? {
    commit({ () throws(QueueError) in try queue.read(request) }, done: done)
  }

  /// Shows finished notices again as new notices (`notifyctl restore`); answers the new ids.
  public func restore(
    _ request: RestoreParameters, done: @escaping @Sendable (Result<[Int], ServiceError>) -> Void
  ) {
    commit({ () throws(QueueError) in try queue.restore(request) }, done: done)
  }

  /// Removes finished notices from history and the store (`notifyctl forget`).
  public func forget(
    _ request: ForgetParameters, done: @escaping @Sendable (Result<[Int], ServiceError>) -> Void
  ) {
    commit({ () throws(QueueError) in try queue.forget(request) }, done: done)
  }

  /// Suspends for a duration or until resumed, letting through what `allow` says.
  public func suspend(
    _ request: SuspendParameters, done: @escaping @Sendable (Result<Bool, ServiceError>) -> Void
  ) {
    commit(
      { () throws(QueueError) in try queue.suspend(for: request.duration, allow: request.allow) }, done: done)
  }

  public func resume(done: @escaping @Sendable (Result<Bool, ServiceError>) -> Void) {
    commit({ () throws(QueueError) in queue.resume() }, done: done)
  }

  // MARK: - What the person is doing

  /// An idle source's word (away or back), or `nil` once none tells (`NoticeQueue.setIdle`).
  public func setIdle(_ state: IdleState?) { queue.setIdle(state) }

  /// The pointer over the card of notice `id`, or over none: its hold stands still meanwhile.
  public func pointer(over id: Int?) { queue.pointer(over: id) }

  /// Typing in the reply field of notice `id`, or in none: its hold stands still meanwhile.
  public func typing(in id: Int?) { queue.typing(in: id) }

  /// A fullscreen window has the keyboard, or none has.
  public func setFullscreen(_ on: Bool) { queue.setFullscreen(on) }

  /// Whether `presenter` shows notices now (the popups drawing, the forwarder's server there).
  public func setPresenter(_ presenter: Presenter, _ on: Bool) { queue.setPresenter(presenter, on) }

  /// What `Status` says of the popups' display.
  public func setDisplay(_ display: DisplayState?) { queue.setDisplay(display) }

  // MARK: - Reads

  /// Finished notices, newest first, from the one history there is: the engine's.
  public func history(_ request: HistoryParameters) throws(QueueError) -> [Notice] {
    if let limit = request.limit, limit < 0 {
      throw .invalidArgument(field: "limit", reason: "must not be negative")
    }
    return queue.history(request)
  }
}

/// A `done` for a change nobody waits on (a click on a card, a key in the center, a signal from the
/// bus): what went wrong is logged, never dropped — a store that could not commit as a warning, a
/// change the engine refused (most often a notice that finished meanwhile) at `refused`: a notice,
/// or debug where a refusal is expected (the desktop closing a notice that already went).
/// `succeeded`, when given, hears what the change did (to log it).
public func logFailure<Value>(
  of what: String, to log: Logger, refused: LogLevel = .notice,
  succeeded: (@Sendable (Value) -> Void)? = nil
) -> @Sendable (Result<Value, ServiceError>) -> Void {
  { result in
    switch result {
    case .success(let value): succeeded?(value)
    case .failure(let error):
      if case .storeFailed = error {
        log.warning("\(what): \(error)")
      } else {
        log.log(refused, "\(what): \(error)")
      }
    }
  }
}
