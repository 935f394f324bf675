import NotifyProtocol

/// The unfinished notices, the suspended state and the unread count as a watcher sees them, rebuilt
/// from `Watch` events.
///
/// The first event is a snapshot; every later one changes one notice (or the suspended state),
/// so applying the events in order keeps this a faithful copy of the daemon's queue.
public struct NoticeTracker: Sendable, Equatable {
  /// The unfinished notices, by id.
  public private(set) var notices: [Int: Notice] = [:]
  /// Whether the queue is suspended.
  public private(set) var suspended = false
  /// While suspended: why, what passes, until when.
  public private(set) var doNotDisturb: DoNotDisturb?
  /// Finished notices nobody saw, as the last event that told says.
  public private(set) var unread = 0

  public init() {}

  /// The notice with `id`, if it is unfinished.
  public subscript(id: Int) -> Notice? { notices[id] }

  /// Applies one event.
  public mutating func apply(_ event: Event) {
    if let unread = event.unread { self.unread = unread }
    switch event.kind {
    case .snapshot:
      notices = Dictionary((event.notices ?? []).map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
      suspended = event.suspended ?? false
      doNotDisturb = event.doNotDisturb
    case .added, .updated, .invoked, .replied, .snoozed:
      if let notice = event.notice { notices[notice.id] = notice }
    case .phase:
      if let notice = event.notice { notices[notice.id] = notice }
      guard let id = event.id ?? event.notice?.id, let phase = event.phase else { return }
      if phase == .finished {
        notices[id] = nil
        return
      }
      notices[id]?.phase = phase
      if let opacity = event.opacity {
        notices[id]?.opacity = opacity
      } else if phase == .holding {
        notices[id]?.opacity = 1
      } else if !phase.isVisible {
        notices[id]?.opacity = 0
      }
    case .frame:
      if let id = event.id, let opacity = event.opacity { notices[id]?.opacity = opacity }
    case .finished:
      if let id = event.id ?? event.notice?.id { notices[id] = nil }
    case .suspended:
      suspended = event.suspended ?? true
      doNotDisturb = event.doNotDisturb
    case .resumed:
      suspended = event.suspended ?? false
      doNotDisturb = nil
    case .read, .forgotten:
      break  // history, not the queue: only the count above
    }
  }

  /// The notices on screen, most important first: higher urgency, then the newest.
  public var visible: [Notice] {
    notices.values.filter { $0.phase.isVisible }.sorted { lhs, rhs in
      lhs.urgency != rhs.urgency ? lhs.urgency > rhs.urgency : lhs.id > rhs.id
    }
  }
}
