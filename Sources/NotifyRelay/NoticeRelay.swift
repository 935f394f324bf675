import Foundation
import NotifyConfig
import NotifyCore
import NotifyNATS
import NotifyProtocol
import NotifyService
import NotifySupport

/// Who this host is to the relay and where it meets the others (DESIGN §10).
public struct RelayPlace: Sendable {
  /// `[Relay] Host=`, else the host name.
  public var host: String
  /// The store's identity: with `host`, it makes each notice's message id unique.
  public var store: String
  public var subjects: RelaySubjects

  public init(host: String, store: String, subjects: RelaySubjects) {
    self.host = host
    self.store = store
    self.subjects = subjects
  }
}

/// The relay through NATS JetStream (`[Relay]`, DESIGN §10).
///
/// Publishing: each notice the store queued (in the commit that kept it) is published in order, with
/// the message id `host/store/id`, up to `publishWindow` before their acknowledgements come, and
/// leaves the outbox once the stream acknowledged it and every one before it; after a failure, what
/// is not acknowledged goes again, in order. While the server cannot be reached, the outbox waits,
/// in the store too. Subscribing: a durable pull consumer per host fetches other hosts' notices a
/// batch at a time; each is shown through the service and acknowledged to JetStream only once the
/// local store committed it, with its origin. Per origin store, what was committed here
/// (`RelayMark`: the highest place in its publishing sequence, and those below it not come yet)
/// turns a redelivery into a duplicate, acknowledged and not shown.
///
/// One thread connects (with a backoff) and then publishes; another consumes; libnats reconnects on
/// its own threads once connected. Nothing here blocks the daemon's loop.
public final class NoticeRelay: @unchecked Sendable {
  // @unchecked: `connection` is set once by the relay thread before the consumer starts; `outbox` is
  // under `outboxReady`; the rest is under `status` and `marks`, or used by one thread.
  private let settings: RelaySettings
  private let place: RelayPlace
  private let service: NoticeService
  private let log: Logger
  private let onPublished: @Sendable (Int) -> Void
  private let onChange: @Sendable (RelayState) -> Void
  private let status: Locked<RelayState>
  private var outbox: Outbox
  /// The lock of `outbox`, signalled when it changes.
  private let outboxReady = NSCondition()
  private let marks: Locked<[String: RelayMark]>
  private let drops = Locked<(logged: Int, at: Double)>((0, -.infinity))
  private var connection: NATSConnection?

  /// At most this many notices wait to be published; past it the oldest is given up, logged.
  public static let maximumOutbox = 10_000
  /// At most this many are published and not yet acknowledged: after a failure, one may reach the
  /// stream this many after later ones (a desk's mark keeps up to `RelayMark.maximumMissing`).
  public static let publishWindow = 256
  /// At most this many messages are fetched (and held) at a time.
  public static let fetchBatch = 256
  /// How long a delivered message may wait for its acknowledgement before JetStream delivers it
  /// again (a desk killed mid-batch gets it back this long after).
  public static let ackWait = 10.0
  /// How long libnats waits for the stream's answer to a publish; one unanswered twice as long
  /// is counted as failed by the relay itself (`Outbox.expire`), and published again.
  public static let answerWait = 5.0
  /// The longest wait between attempts to connect.
  public static let maximumBackoff = 5.0

  public init(
    settings: RelaySettings, place: RelayPlace, service: NoticeService, outbox: [OutgoingMessage],
    marks: [String: RelayMark], log: Logger, onPublished: @escaping @Sendable (Int) -> Void,
    onChange: @escaping @Sendable (RelayState) -> Void
  ) {
    self.settings = settings
    self.place = place
    self.service = service
    self.log = log
    self.onPublished = onPublished
    self.onChange = onChange
    self.outbox = Outbox(messages: outbox)
    self.marks = Locked(marks)
    status = Locked(
      RelayState(
        state: .connecting, detail: "connecting to \(settings.urls.joined(separator: ", "))",
        outbox: outbox.count))
  }

  /// What `Status` says of the relay now.
  public var state: RelayState { status.withLock { $0 } }

  /// Connects and serves on threads of its own; answers at once.
  public func start() {
    onChange(state)
    let thread = Thread { [self] in run() }
    thread.name = "notifyd.relay"
    thread.start()
  }

  /// Notices the store just queued to publish, in order (on the committer's thread).
  public func enqueue(_ notices: [OutgoingMessage]) {
    outboxReady.lock()
    outbox.messages.append(contentsOf: notices)
    let givenUp = outbox.giveUp(beyond: Self.maximumOutbox)
    outboxReady.signal()
    outboxReady.unlock()
    if !givenUp.isEmpty {
      log.warning(
        "relay: \(Self.maximumOutbox) notices wait to be published; gave up the oldest \(givenUp.count) (ids \(givenUp.first!)…\(givenUp.last!))"
      )
      for id in givenUp { onPublished(id) }
    }
    change { $0.outbox = outboxCount }
  }

  // MARK: - Connecting

  private func run() {
    var delay = 0.25
    while true {
      do {
        let connection = try connect()
        self.connection = connection
        let detail = Self.connectedDetail(connection, settings)
        change {
          $0.state = .connected
          $0.detail = detail
        }
        log.notice("relay: \(detail)")
        break
      } catch {
        fail(error)
        Thread.sleep(forTimeInterval: delay)
        delay = min(delay * 2, Self.maximumBackoff)
      }
    }
    if settings.subscribe {
      let consumer = Thread { [self] in consume(answers: false) }
      consumer.name = "notifyd.relay.consumer"
      consumer.start()
    }
    if settings.publish {
      let answers = Thread { [self] in consume(answers: true) }
      answers.name = "notifyd.relay.answers"
      answers.start()
    }
    // Answers for the notices relayed here go out even when this host's own notices do not.
    publishForever()
  }

  /// What `Status` says of a connection that works.
  private static func connectedDetail(_ connection: NATSConnection, _ settings: RelaySettings) -> String {
    "connected to \(connection.connectedURL ?? settings.urls[0])"
  }

  /// A connection with the stream in place, or why not.
  private func connect() throws -> NATSConnection {
    let connection = try NATSConnection(natsSettings()) { [weak self] event in self?.connectionEvent(event) }
    do {
      try ensureStream(connection)
    } catch {
      connection.close()
      throw error
    }
    return connection
  }

  private func ensureStream(_ connection: NATSConnection) throws(NATSError) {
    try connection.ensureStream(for: place.subjects, servers: settings.urls.count)
  }

  /// What a failure to connect or to read a secret says, in `Status` and once in the log.
  private func fail(_ error: any Error) {
    let text = "\(error)"
    let repeated = status.withLock { $0.state == .failed && $0.detail == text }
    change {
      $0.state = .failed
      $0.detail = text
    }
    if !repeated { log.warning("relay: \(text); trying again") }
  }

  /// The servers and how to sign in, the secrets read from their files now.
  private func natsSettings() throws(NATSError) -> NATSSettings {
    try NATSSettings(
      urls: settings.urls, name: "notifyd \(place.host)", user: settings.user,
      passwordFile: settings.passwordFile,
      tokenFile: settings.tokenFile, credentials: settings.credentials, tlsCA: settings.tlsCA
    ) { ProcessInfo.processInfo.environment[$0] }
  }

  private func connectionEvent(_ event: NATSConnection.ConnectionEvent) {
    switch event {
    case .disconnected:
      change {
        $0.state = .reconnecting
        $0.detail = "disconnected; reconnecting to \(settings.urls.joined(separator: ", "))"
      }
      log.warning("relay: disconnected from NATS; reconnecting")
    case .reconnected(let url):
      change {
        $0.state = .connected
        $0.detail = "connected to \(url)"
      }
      log.notice("relay: reconnected to \(url)")
    case .closed:
      change {
        $0.state = .failed
        $0.detail = "the connection to NATS closed"
      }
    case .error(let text):
      change { $0.detail = text }
      log.warning("relay: \(text)")
    }
  }

  // MARK: - Publishing

  /// Publishes the outbox in order, for ever, up to `publishWindow` at a time: a notice leaves it
  /// only once the stream has it and every one before it.
  private func publishForever() {
    guard let connection else { return }
    var publisher: NATSAsyncPublisher?
    while publisher == nil {
      do {
        publisher = try NATSAsyncPublisher(connection, window: Self.publishWindow, wait: Self.answerWait) {
          [weak self] id, error in
          self?.resolved(id, error)
        }
      } catch {
        fail(error)
        Thread.sleep(forTimeInterval: 0.5)
      }
    }
    var failing = false
    outboxReady.lock()
    while true {
      let published = outbox.takeAcknowledged()
      if !published.isEmpty {
        outboxReady.unlock()
        for id in published { onPublished(id) }
        change {
          $0.outbox = outboxCount
          if failing, connection.isConnected {
            $0.state = .connected
            $0.detail = Self.connectedDetail(connection, settings)
          }
        }
        if failing { log.notice("relay: publishing again") }
        failing = false
        outboxReady.lock()
        continue
      }
      if let failure = outbox.failure {
        // Once every message in flight is answered, again from the first not acknowledged.
        guard outbox.unresolved.isEmpty else {
          awaitAnswers()
          continue
        }
        outbox.restart()
        outboxReady.unlock()
        if failure.isNoResponders { try? ensureStream(connection) }
        // A denied subject gets no answer but a timeout; the server said why on its own.
        let known = status.withLock { $0.detail }
        let detail = known.lowercased().contains("permission") && failure.isTimeout ? known : "\(failure)"
        change { $0.detail = detail }
        if !failing { log.warning("relay: \(detail); retrying in order") }
        failing = true
        Thread.sleep(forTimeInterval: 0.5)
        outboxReady.lock()
        continue
      }
      guard
        let next = outbox.nextToSend(window: Self.publishWindow, now: ProcessInfo.processInfo.systemUptime)
      else {
        awaitAnswers()
        continue
      }
      outboxReady.unlock()
      do {
        try publisher!.publish(Array(next.payload.utf8), on: next.subject, id: next.messageID)
        outboxReady.lock()
      } catch {
        outboxReady.lock()
        outbox.resolve(next.messageID, error)
      }
    }
  }

  /// Waits, the outbox's lock held, for an answer or something new to publish. While answers are
  /// awaited it wakes after `answerWait` to count those unanswered twice as long as failed
  /// (`Outbox.expire`); with none awaited it sleeps until signalled, with no timer at rest.
  private func awaitAnswers() {
    guard !outbox.unresolved.isEmpty else {
      outboxReady.wait()
      return
    }
    _ = outboxReady.wait(until: Date(timeIntervalSinceNow: Self.answerWait))
    let now = ProcessInfo.processInfo.systemUptime
    _ = outbox.expire(before: now - 2 * Self.answerWait, waited: 2 * Self.answerWait)
  }

  /// The stream's answer for a message published (on a libnats thread).
  private func resolved(_ messageID: String, _ error: NATSError?) {
    outboxReady.lock()
    outbox.resolve(messageID, error)
    outboxReady.signal()
    outboxReady.unlock()
  }

  // MARK: - Consuming

  /// Fetches other hosts' notices (or the answers for this host's) a batch at a time and takes each
  /// once, for ever.
  private func consume(answers: Bool) {
    guard let connection else { return }
    let subject = answers ? place.subjects.answers(to: place.host) : place.subjects.allNotices
    let durable =
      answers ? place.subjects.answerConsumer(for: place.host) : place.subjects.consumer(for: place.host)
    var subscription: NATSSubscription?
    var errors = 0
    while true {
      if subscription == nil {
        do {
          if errors > 0 { try ensureStream(connection) }
          subscription = try connection.pullSubscribe(
            stream: place.subjects.stream, subject: subject, durable: durable, ackWait: Self.ackWait,
            maxAckPending: Self.fetchBatch * 4)
          if errors > 0 {
            // What went wrong is over: `Status` says so.
            change { if $0.state == .connected { $0.detail = Self.connectedDetail(connection, settings) } }
            log.notice("relay: consuming \(subject) again")
          }
          errors = 0
        } catch {
          change { $0.detail = "\(error)" }
          errors += 1
          if errors == 1 { log.warning("relay: \(error); retrying") }
          Thread.sleep(forTimeInterval: min(0.25 * Double(errors), Self.maximumBackoff))
          continue
        }
      }
      do {
        let messages = try subscription!.fetch(batch: Self.fetchBatch, timeout: 1)
        errors = 0
        if !messages.isEmpty {
          if answers { take(answers: messages) } else { deliver(messages) }
        }
      } catch {
        errors += 1
        // A server restarted, or the consumer went: after a few failures, subscribe again.
        if errors >= 4 { subscription = nil }
        Thread.sleep(forTimeInterval: 0.25)
      }
    }
  }

  /// Shows each new notice of a batch, waits for their commits (each is acknowledged in its own),
  /// then retries in order those the queue could not take yet.
  private func deliver(_ messages: [NATSMessage]) {
    let group = DispatchGroup()
    let later = Locked<[(NATSMessage, RelayNotice)]>([])
    var batchMarks: [String: RelayMark] = [:]
    for message in messages {
      guard let relayed = read(message, "a notice", RelayNotice.init(decoding:)) else { continue }
      let origin = relayed.origin
      if origin.host == place.host, origin.store == place.store {
        message.ack()
        continue
      }
      let key = origin.markKey
      var mark = batchMarks[key] ?? marks.withLock { $0[key] } ?? RelayMark()
      guard mark.isNew(origin.position) else {
        message.ack()
        continue
      }
      mark.take(origin.position)
      batchMarks[key] = mark
      group.enter()
      show(relayed, message) { retry in
        if retry { later.withLock { $0.append((message, relayed)) } }
        group.leave()
      }
    }
    group.wait()
    for (message, relayed) in later.withLock({ $0 }) {
      let again = Locked(true)
      while again.withLock({ $0 }) {
        message.inProgress()
        Thread.sleep(forTimeInterval: 0.5)
        let semaphore = DispatchSemaphore(value: 0)
        show(relayed, message) { retry in
          again.withLock { $0 = retry }
          semaphore.signal()
        }
        semaphore.wait()
      }
    }
  }

  /// Shows one relayed notice; `finished(true)` when it should be tried again (a full queue, a
  /// store that could not commit), after acknowledging or dropping it otherwise.
  private func show(
    _ relayed: RelayNotice, _ message: NATSMessage, finished: @escaping @Sendable (Bool) -> Void
  ) {
    let origin = relayed.origin
    var request = relayed.notice
    request.app = origin.relayedApp(request.app)
    // An id on another host means nothing here.
    request.after = nil
    let missed = settings.maxAge.map { Date().timeIntervalSince1970 - origin.sent > $0 } ?? false
    let key = origin.markKey
    service.showRelayed(request, origin: origin, missed: missed) { [self] result in
      switch result {
      case .success:
        marks.withLock { $0[key, default: RelayMark()].take(origin.position) }
        message.ack()
        finished(false)
      case .failure(.queue(.invalidArgument(let field, let reason))):
        drop(message, "\(field): \(reason)")
        finished(false)
      case .failure(.queue(.noSuchNotice)):
        drop(message, "it names a notice that is not here")
        finished(false)
      case .failure(.queue(.queueFull)), .failure(.storeFailed):
        finished(true)
      }
    }
  }

  /// Applies the desk's answers to the notices published from here, each acknowledged once its
  /// effect is committed; an answer for another store (this host's before its store was reset) or
  /// for a notice already finished changes nothing.
  private func take(answers messages: [NATSMessage]) {
    let group = DispatchGroup()
    for message in messages {
      guard let answer = read(message, "an answer", RelayAnswer.init(decoding:)) else { continue }
      guard answer.to.host == place.host, answer.to.store == place.store else {
        message.ack()
        continue
      }
      group.enter()
      service.answer(answer.to.id, outcome: answer.outcome, invoked: answer.invoked, replied: answer.replied)
      {
        [log] result in
        switch result {
        case .success(let closed):
          if closed {
            log.info(
              "notice \(answer.to.id): \(answer.outcome.rawValue)\(answer.invoked.map { " ('\($0)')" } ?? "") on \(answer.host)",
              fields: ["NOTICE_ID": "\(answer.to.id)", "OUTCOME": answer.outcome.rawValue])
          }
          message.ack()
        case .failure:
          // The store could not commit: JetStream delivers it again after `ackWait`.
          break
        }
        group.leave()
      }
    }
    group.wait()
  }

  /// The message's payload as `what` it should be, or `nil` once it is dropped: larger than
  /// `RelayNotice.maximumBytes`, or not readable as one.
  private func read<Value>(
    _ message: NATSMessage, _ what: String,
    _ decode: (UnsafeRawBufferPointer) throws(JSONReadError) -> Value
  ) -> Value? {
    guard message.count <= RelayNotice.maximumBytes else {
      drop(message, "larger than \(RelayNotice.maximumBytes / 1024) KiB (\(message.count) bytes)")
      return nil
    }
    do {
      return try message.withPayload { bytes throws(JSONReadError) in try decode(bytes) }
    } catch {
      drop(message, "not \(what): \(error)")
      return nil
    }
  }

  /// A message that is not a notice: terminated (never delivered again), counted, and logged: the
  /// first, then at most one line per 10 s.
  private func drop(_ message: NATSMessage, _ reason: String) {
    let subject = message.subject
    message.terminate()
    var dropped = 0
    change {
      $0.dropped += 1
      dropped = $0.dropped
    }
    let now = Date().timeIntervalSince1970
    let since = drops.withLock { drops -> Int? in
      guard now - drops.at >= 10 else { return nil }
      defer { drops = (dropped, now) }
      return dropped - drops.logged
    }
    if let since {
      log.warning(
        "relay: dropped \(since == 1 ? "a message" : "\(since) messages") on \(subject): \(reason)"
          + (since > 1 ? " (the last)" : ""))
    }
  }

  // MARK: - State

  /// Changes the state and tells `onChange`, under the state's lock: two threads' changes reach it
  /// in the order they were made. (Told after the lock, the committer's "2 to publish" once came
  /// after the publishing thread's "0", and `Status` said 2 for good.)
  private func change(_ update: (inout RelayState) -> Void) {
    status.withLock { state in
      let before = state
      update(&state)
      if state != before { onChange(state) }
    }
  }

  /// What the outbox holds, read as the state is changed (so under `status`, then the outbox's
  /// lock: never the other way round).
  private var outboxCount: Int {
    outboxReady.lock()
    defer { outboxReady.unlock() }
    return outbox.messages.count
  }
}
