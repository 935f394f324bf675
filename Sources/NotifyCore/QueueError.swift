/// Why the queue refused a request; each maps to one error of `io.notifyd.Queue`.
public enum QueueError: Error, Sendable, Equatable {
  /// No notice has this id, finished or not.
  case noSuchNotice(id: Int)
  /// A field's value is not acceptable, and why.
  case invalidArgument(field: String, reason: String)
  /// The queue already holds `capacity` unfinished notices.
  case queueFull(capacity: Int)
}
