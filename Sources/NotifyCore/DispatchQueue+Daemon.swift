import Dispatch

extension DispatchQueue {
  /// A serial queue of the daemon's, run by Dispatch's pool of about one thread per core.
  ///
  /// A queue made with `DispatchQueue(label:)` targets the *overcommit* pool, which starts another
  /// thread whenever work arrives and no thread is free: with half a dozen queues handing every
  /// notice on, that pool grew to 130 threads under steady load, each keeping its stack and its
  /// allocator caches, and the daemon's memory crept up with every burst (issue 13). Only a queue
  /// whose work blocks — the store's writer, waiting on `fsync` — stays on the overcommit pool.
  public static func daemonSerial(_ label: String, qos: DispatchQoS = .default) -> DispatchQueue {
    DispatchQueue(label: label, qos: qos, target: .global(qos: qos.qosClass))
  }
}
