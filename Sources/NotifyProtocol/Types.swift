import FoundationEssentials

// The enumerations of interface io.notifyd.Queue, spelled as in its IDL (io.notifyd.Queue.varlink),
// and what the records notifyd-wiregen generates from the IDL do beyond holding their members.

/// How urgent a notice is; critical notices hold until ended and jump the queue.
public enum Urgency: String, Codable, Sendable, CaseIterable, Comparable {
  case low, normal, critical

  public static func < (lhs: Urgency, rhs: Urgency) -> Bool {
    allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
  }
}

/// A toast that holds for a while, or a progress indicator that holds until ended.
public enum Kind: String, Codable, Sendable, CaseIterable {
  case notice, progress
}

/// How a renderer draws the notice's background.
public enum Style: String, Codable, Sendable, CaseIterable {
  case clear, blur
}

/// The curve that maps a fade's linear progress to its eased progress.
public enum Easing: String, Codable, Sendable, CaseIterable {
  case linear, easeIn, easeOut, easeInOut
}

/// Where a notice is in its life.
public enum Phase: String, Codable, Sendable, CaseIterable {
  case waiting, queued, fadingIn, holding, fadingOut, finished

  /// Whether a notice in this phase is on screen.
  public var isVisible: Bool {
    self == .fadingIn || self == .holding || self == .fadingOut
  }

  /// Whether a notice in this phase changes its opacity from frame to frame.
  public var isFading: Bool { self == .fadingIn || self == .fadingOut }
}

/// How a notice ended.
public enum Outcome: String, Codable, Sendable, CaseIterable {
  case completed, cancelled, timedOut, replaced, dismissed
  /// Not shown by itself: folded into a summary notice (`foldedInto`), by flood control or by the
  /// summary of what do-not-disturb held back.
  case folded
  /// A relayed notice older than `[Relay] MaxAge=` when it arrived: kept in history, never shown.
  case missed
}

/// What do-not-disturb still lets through (`Suspend(allow)`, `[DoNotDisturb] Allow=`): nothing, or
/// critical notices (and those of a rule with `BypassDoNotDisturb=yes`).
public enum DoNotDisturbAllow: String, Codable, Sendable, CaseIterable {
  case nothing = "none"
  case critical
}

/// Why the queue is suspended: by hand until resumed, by hand for a duration, or by the quiet
/// hours of `[DoNotDisturb] Schedule=`.
public enum SuspendReason: String, Codable, Sendable, CaseIterable {
  case hand, duration, schedule
}

/// What `Center` does: opens the notification center, closes it, or the other of the two.
public enum CenterAction: String, Codable, Sendable, CaseIterable {
  case open, close, toggle
}

extension IdleState {
  /// No source can tell, for `reason`: the person counts as present.
  public init(noSourceBecause reason: String) {
    self.init(idle: false, source: nil, reason: reason)
  }
}

extension NoticeOrigin {
  /// Its origin store, `host/store`: what a desk keeps a mark of what came under (`RelayMark`), and
  /// the front of the message id.
  public var markKey: String { "\(host)/\(store)" }

  /// Where it stands in its store's mark (`RelayMark`): its publishing sequence, or its id when it
  /// came without one.
  public var position: Int { sequence ?? id }

  /// The app a relayed notice shows here: `app@host`, or the host alone for a notice without an
  /// app, so that a person sees where it came from.
  public func relayedApp(_ app: String?) -> String {
    app.map { "\($0)@\(host)" } ?? host
  }

  /// The app as the notice's sender named it, from what `relayedApp` made of it: `app@host` less
  /// its `@host` (the host alone, for a notice that came without an app, stays as it is).
  public func senderApp(_ relayed: String?) -> String? {
    guard let relayed, relayed.hasSuffix("@" + host) else { return relayed }
    return String(relayed.dropLast(host.count + 1))
  }
}

/// The relay's connection to NATS, as `Status` reports it.
public enum RelayConnection: String, Codable, Sendable, CaseIterable {
  case connecting, connected, reconnecting, failed
}

/// What a `Watch` event reports.
public enum EventKind: String, Codable, Sendable, CaseIterable {
  case snapshot, added, phase, frame, updated, invoked, replied, finished, suspended, resumed
  /// A finished notice was read (`Read`, `Restore`): `unread` is the new count.
  case read
  /// A finished notice left history (`Forget`).
  case forgotten
  /// A notice was snoozed (`Notice.snoozedUntil` says until when), or came back from its snooze
  /// (`snoozedUntil` absent).
  case snoozed
}

extension Notice {
  /// The title as a person reads it: with `×3` when equal notices were merged into it.
  public var displayTitle: String {
    guard let count, count > 1 else { return title }
    return "\(title) ×\(count)"
  }
}

extension Hints {
  /// Whether it says nothing: such hints are left out (`nil`).
  public var isEmpty: Bool { self == Hints() }

  /// `hints`, or nil when it says nothing.
  public static func nonEmpty(_ hints: Hints?) -> Hints? {
    guard let hints, !hints.isEmpty else { return nil }
    return hints
  }

  public var isTransient: Bool { transient ?? false }
  public var isResident: Bool { resident ?? false }
  public var isSilent: Bool { silent ?? false }
  public var hasActionIcons: Bool { actionIcons ?? false }
}
