import Foundation
import NotifyCore
import NotifyProtocol
import NotifySupport
import Testing

/// Defects the seeded simulation found (`QueueSimulationTests`), each pinned by a test of its own
/// that fails without its fix.
@Suite("Found by the simulation")
struct SimulationFindingsTests {
  /// Runs `body` on a thread of its own and answers what it returned, or `nil` if it had not
  /// returned within `seconds`: a defect that spins the engine fails the test instead of hanging
  /// the suite (the thread spins on until the process ends).
  static func within<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () -> T) -> T? {
    let result = Locked<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread {
      let value = body()
      result.withLock { $0 = value }
      done.signal()
    }.start()
    guard done.wait(timeout: .now() + seconds) == .success else { return nil }
    return result.withLock { $0 }
  }

  /// A boundary is due at `startedAt + hold`; a clock at exactly that instant measured
  /// `(startedAt + hold) − startedAt`, which can come out a rounding short of `hold` (1.0 + 0.2 −
  /// 1.0 < 0.2). The notice was still `holding`, the same boundary was scheduled again, and the
  /// engine spun under its lock for good (schedule 37000, step 40).
  @Test func aBoundaryReachedAtExactlyItsInstant_isPassed_thoughTheSubtractionRoundsShort() {
    let seen = Self.within(10) { () -> (Phase?, [String])? in
      var driver = MachineDriver()
      driver.advance(to: 1.0)
      guard let id = try? driver.show(fadeIn: 0, hold: 0.2, fadeOut: 0.3) else { return nil }
      driver.advance(to: 1.2)
      let phase = driver.phase(id)
      driver.advance(to: 1.5)
      return (phase, driver.lifecycle(of: id))
    }
    #expect(seen != nil, "the engine spun at the boundary at 1.2")
    #expect(seen??.0 == .fadingOut)
    #expect(seen??.1.suffix(2) == ["fadingOut", "finished:completed"])
  }

  /// A notice held until ended keeps its slot while there is no sticky room (`[Queue] MaxSticky=`),
  /// and kept it after room came: when the sticky notice before it was cancelled, or a reload gave
  /// more room, the slot stayed taken and the notice behind it waited for good (schedule 37000).
  @Test func stickyRoomThatComesFree_takesANoticeHeldInItsSlot_andTheSlotGoesToTheNextOne() throws {
    var driver = MachineDriver(MachineDriver.settings(maxVisible: 1, maxSticky: 1))
    let first = try driver.show(fadeIn: 0, hold: 0, fadeOut: 0)  // sticky at once
    let second = try driver.show(fadeIn: 0, hold: 0, fadeOut: 0)  // no room: keeps the slot
    let third = try driver.show(fadeIn: 0, hold: 2, fadeOut: 0)
    #expect(driver.machine.occupancy(of: .notices) == (1, 1))
    #expect(driver.phase(second) == .holding && driver.phase(third) == .queued)
    _ = try driver.perform { machine, instant in
      try machine.cancel(CancelParameters(id: first, now: true), at: instant)
    }
    #expect(driver.machine.occupancy(of: .notices) == (1, 1))  // the second out of its slot, the third in it
    #expect(driver.phase(third) == .holding)

    var reloaded = MachineDriver(MachineDriver.settings(maxVisible: 1, maxSticky: 0))
    let held = try reloaded.show(fadeIn: 0, hold: 0, fadeOut: 0)
    let waiting = try reloaded.show(fadeIn: 0, hold: 2, fadeOut: 0)
    #expect(reloaded.phase(waiting) == .queued)
    reloaded.perform { machine, instant in
      machine.apply(MachineDriver.settings(maxVisible: 1, maxSticky: 1), at: instant)
    }
    #expect(reloaded.machine.occupancy(of: .notices) == (1, 1))
    #expect(reloaded.phase(held) == .holding && reloaded.phase(waiting) == .holding)
  }
}
