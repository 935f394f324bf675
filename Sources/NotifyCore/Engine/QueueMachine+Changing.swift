import NotifyProtocol

// Requests that change or close unfinished notices: `Update`, `End`, `Cancel`, `Invoke`,
// `Dismiss`, and a relayed notice's answer.
extension QueueMachine {
  /// The record of unfinished notice `id`; throws when it has finished or never was.
  func unfinished(_ id: Int) throws(QueueError) -> NoticeRecord {
    if let record = notices[id] { return record }
    if history[id] != nil {
      throw .invalidArgument(field: "id", reason: "notice \(id) has already finished")
    }
    throw .noSuchNotice(id: id)
  }

  /// Changes an unfinished notice's title, body or value in place; a shown one restarts its hold.
  public mutating func update(_ request: UpdateParameters, at instant: Instant) throws(QueueError) -> Notice {
    try Admission.validate(title: request.title, body: request.body)
    advance(to: instant)
    defer { settle(at: instant) }
    _ = try unfinished(request.id)
    notices.modify(request.id) { record in
      if let title = request.title { record.notice.title = title }
      if let body = request.body { record.notice.body = body }
      if let value = request.value { record.notice.value = value }
      if record.notice.message == nil { _ = record.restartHold(at: instant.now) }
    }
    let notice = notices[request.id]!.current(at: instant.now)
    changed(request.id, at: instant)
    return notice
  }

  /// Ends a notice early and normally: a progress indicator shows `message`, holds it for `hold`
  /// (default `[Progress] EndHold=`) and fades out; a plain notice starts its fade-out now (or
  /// after `hold`). One not yet shown finishes at once, except a progress indicator with a message,
  /// which shows it when its turn comes. Ending a finished notice answers it unchanged.
  public mutating func end(_ request: EndParameters, at instant: Instant) throws(QueueError) -> Notice {
    if let message = request.message { try Admission.validate(title: nil, body: message, field: "message") }
    if let hold = request.hold { try Admission.validate(duration: hold, field: "hold") }
    advance(to: instant)
    defer { settle(at: instant) }
    if let finished = history[request.id] { return finished }
    var record = try unfinished(request.id)
    let wasSnoozed = record.notice.snoozedUntil != nil
    if wasSnoozed {
      endSnooze(request.id, at: instant)
      record = notices[request.id]!
    }
    let isProgress = record.notice.kind == .progress
    let hold = request.hold ?? (isProgress ? settings.endHold : nil)
    notices.modify(request.id) { record in
      if let message = request.message { record.notice.message = message }
      record.hold = hold
    }
    if !record.isShown && !(isProgress && request.message != nil) {
      finish(request.id, outcome: .completed, at: instant)
      return history[request.id]!
    }
    notices.modify(request.id) { record in
      if record.isShown {
        _ = record.end(hold: hold, at: instant.now)
      } else if record.closing == nil || record.closingIsExpiry {
        record.closing = .completed  // it shows the message when its turn comes
        record.closingIsExpiry = false
      }
    }
    if wasSnoozed { place(request.id, at: instant) }  // parked: its turn comes now
    changed(request.id, at: instant)
    return notices[request.id]?.current(at: instant.now) ?? history[request.id]!
  }

  /// Cancels by id, by tag, or all: notices not shown finish at once, shown ones fade out from
  /// their opacity now (or vanish, with `now`). Answers the ids cancelled.
  public mutating func cancel(_ request: CancelParameters, at instant: Instant) throws(QueueError) -> [Int] {
    let chosen = [request.id != nil, request.tag != nil, request.all == true].filter { $0 }.count
    guard chosen == 1 else {
      throw .invalidArgument(field: "id", reason: "give exactly one of id, tag and all")
    }
    advance(to: instant)
    defer { settle(at: instant) }
    let ids: [Int]
    if let id = request.id {
      ids = try unlessFinished(id)
    } else if let tag = request.tag {
      ids = notices.records.filter { $0.notice.tag == tag }.map(\.notice.id).sorted()
    } else {
      ids = notices.sortedIDs
    }
    for id in ids { close(id, .cancelled, immediately: request.now ?? false, at: instant) }
    return ids
  }

  /// `[id]` if notice `id` is unfinished, nothing if it has finished (closing it again changes
  /// nothing); throws if there is no such notice.
  private func unlessFinished(_ id: Int) throws(QueueError) -> [Int] {
    if history[id] != nil { return [] }
    _ = try unfinished(id)
    return [id]
  }

  /// Closes notice `id` with `outcome`: a shown one fades out (or vanishes), any other finishes.
  private mutating func close(_ id: Int, _ outcome: Outcome, immediately: Bool, at instant: Instant) {
    guard let record = notices[id] else { return }
    if record.isShown {
      if notices.modify(id, { $0.close(outcome, immediately: immediately, at: instant.now) }) == true {
        step(id, at: instant)
      }
    } else {
      finish(id, outcome: outcome, at: instant)
    }
  }

  /// The desk notice `id` was relayed to answered (DESIGN §10): it closes here with `outcome` (a
  /// shown one fades out), with the action chosen there, or the reply typed there. Answers whether it did: one already
  /// closing or finished keeps its own outcome, the first answer wins.
  public mutating func answer(
    _ id: Int, outcome: Outcome, invoked: String?, replied: String? = nil, at instant: Instant
  ) -> Bool {
    advance(to: instant)
    defer { settle(at: instant) }
    guard let record = notices[id], !record.isClosing else { return false }
    if let invoked { notices.modify(id) { $0.notice.invoked = invoked } }
    // A reply typed at the desk, for a notice that offered a field, within the bound a reply here has.
    if let replied, record.notice.reply != nil, replied.utf8.count <= RequestLimits.maximumReplyLength {
      notices.modify(id) { $0.notice.replied = replied }
    }
    close(id, outcome, immediately: false, at: instant)
    return true
  }

  /// Chooses action `action` of a shown notice; it then fades out with outcome `completed` (a
  /// resident one stays).
  public mutating func invoke(_ request: InvokeParameters, at instant: Instant) throws(QueueError) -> Notice {
    advance(to: instant)
    defer { settle(at: instant) }
    let record = try unfinished(request.id)
    guard let actions = record.notice.actions, actions.contains(where: { $0.key == request.action }) else {
      throw .invalidArgument(
        field: "action", reason: "notice \(request.id) has no action '\(request.action)'")
    }
    guard record.isShown else {
      throw .invalidArgument(field: "id", reason: "notice \(request.id) is not visible")
    }
    notices.modify(request.id) { record in
      record.notice.invoked = request.action
      // A resident notice stays: the action is reported, and it lives on as it was.
      if record.notice.hints?.isResident != true { _ = record.end(hold: nil, at: instant.now) }
    }
    changed(request.id, at: instant, kind: .invoked, activationToken: request.activationToken)
    return notices[request.id]?.current(at: instant.now) ?? history[request.id]!
  }

  /// Answers a shown notice that offers a reply field with `text` (a person typed it into the
  /// card, or a client sent it); it then fades out with outcome `completed`, as when an action is
  /// chosen (a resident one stays), and is published as `replied`.
  public mutating func reply(_ request: ReplyParameters, at instant: Instant) throws(QueueError) -> Notice {
    try Admission.validate(reply: request.text)
    advance(to: instant)
    defer { settle(at: instant) }
    let record = try unfinished(request.id)
    guard record.notice.reply != nil else {
      throw .invalidArgument(field: "id", reason: "notice \(request.id) offers no reply")
    }
    guard record.isShown, !record.isClosing else {
      throw .invalidArgument(field: "id", reason: "notice \(request.id) is not visible")
    }
    notices.modify(request.id) { record in
      record.notice.replied = request.text
      if record.notice.hints?.isResident != true { _ = record.end(hold: nil, at: instant.now) }
    }
    changed(request.id, at: instant, kind: .replied)
    return notices[request.id]?.current(at: instant.now) ?? history[request.id]!
  }

  /// A person closes notice `id`, or every visible notice (`all`): each finishes at once, outcome
  /// `dismissed`. One already finished is left as it is. Answers the ids dismissed.
  public mutating func dismiss(_ request: DismissParameters, at instant: Instant) throws(QueueError) -> [Int]
  {
    guard (request.id != nil) != (request.all == true) else {
      throw .invalidArgument(field: "id", reason: "give exactly one of id and all")
    }
    advance(to: instant)
    defer { settle(at: instant) }
    let ids: [Int]
    if let id = request.id {
      ids = try unlessFinished(id)
    } else {
      ids = notices.sortedIDs.filter { notices[$0]?.isShown == true }
    }
    for id in ids { close(id, .dismissed, immediately: true, at: instant) }
    return ids
  }

  /// The shortest hold a card has left once the pointer leaves it.
  public static let holdAfterPointer = 1.0

  /// The pointer is over the card of notice `id` (`nil`: over none; `[Display] HoverHolds=`):
  /// while it stays, that notice's hold stands still (one fading out because its hold ran out
  /// comes back to full opacity); once it leaves, the hold goes on with what was left, at least
  /// `holdAfterPointer`.
  public mutating func pointer(over id: Int?, at instant: Instant) {
    advance(to: instant)
    defer { settle(at: instant) }
    movePause(.pointer, from: pointerOver, to: id, at: instant)
    pointerOver = id
  }

  /// A person is typing into the reply field of notice `id` (`nil`: into none): its hold stands
  /// still until the field gives up the keyboard, as under the pointer.
  public mutating func typing(in id: Int?, at instant: Instant) {
    advance(to: instant)
    defer { settle(at: instant) }
    movePause(.typing, from: typingIn, to: id, at: instant)
    typingIn = id
  }

  /// Moves the pause `reason` from notice `old` (its hold goes on, at least `holdAfterPointer`) to
  /// notice `new` (its hold stands still).
  private mutating func movePause(
    _ reason: NoticeRecord.Pauses, from old: Int?, to new: Int?, at instant: Instant
  ) {
    guard new != old else { return }
    if let old, notices[old] != nil {
      notices.modify(old) { $0.resumeHold(reason, atLeast: Self.holdAfterPointer, at: instant.now) }
      step(old, at: instant)
    }
    if let new, notices[new]?.inputPauses == true {
      notices.modify(new) { $0.pauseHold(reason, at: instant.now) }
      step(new, at: instant)
    }
  }
}
