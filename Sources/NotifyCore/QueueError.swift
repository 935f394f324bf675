/// Why the queue refused a request; each maps to one error of `io.notifyd.Queue`.
public enum QueueError: Error, Sendable, Equatable {
  /// No notice has this id, finished or not.
  case noSuchNotice(id: Int)
  /// A field's value is not acceptable, and why.
  case invalidArgument(field: String, reason: String)
  /// The queue already holds `capacity` unfinished notices.
  case queueFull(capacity: Int)
}

extension QueueError: CustomStringConvertible {
  /// As a log line says it.
  public var description: String {
    switch self {
    case .noSuchNotice(let id): "no notice \(id)"
    case .invalidArgument(let field, let reason): "\(field): \(reason)"
    case .queueFull(let capacity): "the queue holds \(capacity) unfinished notices already"
    }
  }
}
