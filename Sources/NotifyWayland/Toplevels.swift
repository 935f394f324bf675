import CWayland
import Glibc

/// The compositor's windows as `wlr-foreign-toplevel-management` tells them (sway, labwc, river,
/// Hyprland): which one is activated — has the keyboard —, whether it is fullscreen, and the
/// outputs it is on. notifyd only listens; it never acts on a window.
///
/// - Important: not thread-safe; used only on the display's queue.
final class Toplevels {
  /// One window, as of the last `done` the compositor sent for it.
  final class Window {
    let handle: OpaquePointer
    unowned let owner: Toplevels
    /// The `wl_output`s it is on, in the order it entered them.
    fileprivate(set) var outputs: [OpaquePointer] = []
    fileprivate(set) var activated = false
    fileprivate(set) var fullscreen = false
    /// What came since the last `done`.
    fileprivate var pendingActivated = false
    fileprivate var pendingFullscreen = false
    fileprivate var pendingOutputs: [OpaquePointer] = []

    fileprivate init(handle: OpaquePointer, owner: Toplevels) {
      self.handle = handle
      self.owner = owner
    }
  }

  private let manager: OpaquePointer
  private(set) var windows: [Window] = []
  /// Told when the activated window changes, or goes fullscreen or leaves it.
  var changed: (() -> Void)?

  /// Follows the windows `manager` (a bound `zwlr_foreign_toplevel_manager_v1`) announces.
  init(manager: OpaquePointer) {
    self.manager = manager
    zwlr_foreign_toplevel_manager_v1_add_listener(
      manager, managerListener, Unmanaged.passUnretained(self).toOpaque())
  }

  /// The window with the keyboard, if the compositor names one.
  var activated: Window? { windows.first { $0.activated } }

  /// Whether the window with the keyboard is fullscreen.
  var activatedIsFullscreen: Bool { activated?.fullscreen == true }

  /// Forgets `output`, which the compositor took away: no window is on it any more.
  func forget(output: OpaquePointer) {
    for window in windows {
      window.outputs.removeAll { $0 == output }
      window.pendingOutputs.removeAll { $0 == output }
    }
  }

  /// Destroys every handle and the manager (the connection is closing).
  func destroy() {
    for window in windows { zwlr_foreign_toplevel_handle_v1_destroy(window.handle) }
    windows.removeAll()
    zwlr_foreign_toplevel_manager_v1_destroy(manager)
  }

  fileprivate func announced(_ handle: OpaquePointer) {
    let window = Window(handle: handle, owner: self)
    windows.append(window)
    zwlr_foreign_toplevel_handle_v1_add_listener(
      handle, handleListener, Unmanaged.passUnretained(window).toOpaque())
  }

  fileprivate func done(_ window: Window) {
    let news = window.activated != window.pendingActivated || window.fullscreen != window.pendingFullscreen
    window.activated = window.pendingActivated
    window.fullscreen = window.pendingFullscreen
    window.outputs = window.pendingOutputs
    if news { changed?() }
  }

  fileprivate func closed(_ window: Window) {
    windows.removeAll { $0 === window }
    zwlr_foreign_toplevel_handle_v1_destroy(window.handle)
    if window.activated { changed?() }
  }
}

// MARK: - Listeners

private func toplevels(_ data: UnsafeMutableRawPointer?) -> Toplevels {
  Unmanaged<Toplevels>.fromOpaque(data!).takeUnretainedValue()
}

private func window(_ data: UnsafeMutableRawPointer?) -> Toplevels.Window {
  Unmanaged<Toplevels.Window>.fromOpaque(data!).takeUnretainedValue()
}

nonisolated(unsafe) private let managerListener:
  UnsafeMutablePointer<zwlr_foreign_toplevel_manager_v1_listener> = {
    let listener = UnsafeMutablePointer<zwlr_foreign_toplevel_manager_v1_listener>.allocate(capacity: 1)
    listener.initialize(to: zwlr_foreign_toplevel_manager_v1_listener())
    listener.pointee.toplevel = { data, _, handle in
      guard let handle else { return }
      toplevels(data).announced(handle)
    }
    listener.pointee.finished = { _, _ in }
    return listener
  }()

nonisolated(unsafe) private let handleListener:
  UnsafeMutablePointer<zwlr_foreign_toplevel_handle_v1_listener> =
    {
      // Every slot is filled: libwayland calls the handler of any event the version allows.
      let listener = UnsafeMutablePointer<zwlr_foreign_toplevel_handle_v1_listener>.allocate(capacity: 1)
      listener.initialize(to: zwlr_foreign_toplevel_handle_v1_listener())
      listener.pointee.title = { _, _, _ in }
      listener.pointee.app_id = { _, _, _ in }
      listener.pointee.output_enter = { data, _, output in
        // An output this connection already let go of arrives as null.
        guard let output else { return }
        let window = window(data)
        if !window.pendingOutputs.contains(output) { window.pendingOutputs.append(output) }
      }
      listener.pointee.output_leave = { data, _, output in
        guard let output else { return }
        window(data).pendingOutputs.removeAll { $0 == output }
      }
      listener.pointee.state = { data, _, array in
        // An array of the state enum's values, as uint32.
        let window = window(data)
        var states: [UInt32] = []
        if let array, let bytes = array.pointee.data {
          let count = array.pointee.size / MemoryLayout<UInt32>.size
          states = Array(UnsafeBufferPointer(start: bytes.assumingMemoryBound(to: UInt32.self), count: count))
        }
        window.pendingActivated = states.contains(ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_ACTIVATED.rawValue)
        window.pendingFullscreen = states.contains(ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_FULLSCREEN.rawValue)
      }
      listener.pointee.done = { data, _ in
        let window = window(data)
        window.owner.done(window)
      }
      listener.pointee.closed = { data, _ in
        let window = window(data)
        window.owner.closed(window)
      }
      listener.pointee.parent = { _, _, _ in }
      return listener
    }()
