import Dispatch

extension DispatchQueue {
  /// The serial queue under every `daemonSerial` queue (the timers, the lanes, the hooks): their
  /// work runs on one thread at a time. The event loop that serves the socket, and the queues whose
  /// work can block (the bus waiting on a peer, the display painting), have a thread of their own.
  ///
  /// Dispatch offers two pools of threads, and neither suits a daemon that should be small and
  /// asleep when idle. A queue made with `DispatchQueue(label:)` targets the *overcommit* pool,
  /// which starts another thread whenever work arrives and no thread is free: with half a dozen
  /// queues handing every notice on, it grew to 130 threads under steady load, each keeping its
  /// stack and allocator caches, and memory crept up with every burst (issue 13). The global
  /// queues (the other pool) start, on their first use, a timer that wakes the process once a
  /// second for good, to watch for blocked workers. One serial overcommit queue at the root has
  /// neither cost: it drains on a single thread.
  public static let daemonRoot = DispatchQueue(label: "notifyd.root", qos: .userInitiated)

  /// A serial queue of the daemon's, run on `daemonRoot`.
  public static func daemonSerial(_ label: String, qos: DispatchQoS = .default) -> DispatchQueue {
    DispatchQueue(label: label, qos: qos, target: daemonRoot)
  }
}
