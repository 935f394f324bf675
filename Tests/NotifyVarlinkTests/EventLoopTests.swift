import Dispatch
import Foundation
import NotifyCore
import NotifyPosix
import NotifySupport
import Testing

@testable import NotifyVarlink

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Event loop: tasks and the end of a turn")
struct EventLoopTests {
  /// What one end-of-turn handler saw: work a task left for it, and whether it did that work.
  struct Probe {
    var armed = false
    var pending = false
    var done = false
  }

  /// A reply handed in from another thread runs as a task at the end of a turn, after the
  /// handlers that flush connections found nothing to do: the handlers must look again, or the
  /// reply waits until something else wakes the loop (CI once saw it wait for the test's timeout).
  @Test func workATaskLeavesAtTheEndOfATurn_isDoneInThatTurn() throws {
    let loop = try EventLoop(name: "test.loop")
    loop.start()
    defer { loop.stop() }
    let probe = Locked(Probe())
    loop.sync {
      loop.atEndOfTurn {
        let (run, arm) = probe.withLock { state -> (Bool, Bool) in
          if state.pending {
            state.pending = false
            state.done = true
            return (true, false)
          }
          defer { state.armed = true }
          return (false, !state.armed)
        }
        // The first time, nothing to do, but a task comes in that leaves work behind.
        if arm { loop.execute { probe.withLock { $0.pending = true } } }
        return run
      }
    }
    // The sync's own task was one turn; the handler armed in it. Nothing else wakes the loop now.
    let deadline = Posix.monotonicNow() + 5
    while Posix.monotonicNow() < deadline, !probe.withLock({ $0.done }) { usleep(1000) }
    #expect(probe.withLock { $0.done }, "the work waited for the loop's next wake-up")
  }

  @Test func tasksRunInTheOrderHandedIn_fromAnyThread() throws {
    let loop = try EventLoop(name: "test.loop")
    loop.start()
    defer { loop.stop() }
    let seen = Locked<[Int]>([])
    let group = DispatchGroup()
    for index in 0..<1000 {
      group.enter()
      loop.execute {
        seen.withLock { $0.append(index) }
        group.leave()
      }
    }
    #expect(group.wait(timeout: .now() + 5) == .success)
    #expect(seen.withLock { $0 } == Array(0..<1000))
  }
}
