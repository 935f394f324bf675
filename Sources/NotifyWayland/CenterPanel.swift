import CWayland
import Glibc
import NotifyConfig

/// What the center's panel hears from the compositor.
protocol CenterPanelOwner: AnyObject {
  /// The panel was given its size (or a new one): a frame is due.
  func centerConfigured(_ panel: CenterPanel)
  /// The compositor closed it (its output went).
  func centerClosed(_ panel: CenterPanel)
  /// The compositor is ready for the next frame.
  func centerFrameDone(_ panel: CenterPanel)
  /// The panel entered or left an output: its scale may have changed.
  func centerMoved(_ panel: CenterPanel)
}

/// The notification center on a Wayland compositor (DESIGN §13): a layer surface on one edge of
/// the output, its full height, with the keyboard while it is open; under it, on the same layer, a
/// transparent surface over the whole output that catches a click outside (a 1×1 buffer stretched
/// by `wp_viewporter`, so it costs four bytes; without a viewporter there is none, and Escape or
/// the command close the center).
final class CenterPanel {
  unowned let owner: CenterPanelOwner
  let surface: OpaquePointer
  private let layerSurface: OpaquePointer
  /// The surface that catches a click outside, with its viewport and buffer.
  private(set) var catcher: OpaquePointer?
  private var catcherLayer: OpaquePointer?
  private var catcherViewport: OpaquePointer?
  private var catcherBuffer: ShmBuffer?
  /// The size the compositor gave; zero until the first `configure`.
  private(set) var width = 0
  private(set) var height = 0
  /// A frame should be drawn when the compositor is ready for one.
  var dirty = true
  /// Its two buffers and frame callback; it rests (`still`) a while after its last change.
  private(set) var frames: SurfaceFrames!
  /// Device pixels per logical pixel it was last drawn at.
  var scale = 1
  /// The name of the output it was made for; `nil`: the compositor's choice.
  let output: String?

  init(
    owner: CenterPanelOwner, settings: CenterSettings, compositor: OpaquePointer, layerShell: OpaquePointer,
    shm: OpaquePointer, viewporter: OpaquePointer?, output: WaylandOutput?, exclusiveKeyboard: Bool
  ) {
    self.owner = owner
    self.output = output?.name
    let proxy = output?.proxy
    let overlay = ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY.rawValue
    // The catcher a layer under the panel: within one layer the compositor orders surfaces as it
    // maps them, which the catcher's first buffer could win.
    if let viewporter, let buffer = ShmBuffer(shm: shm, width: 1, height: 1) {
      let catcher = wl_compositor_create_surface(compositor)!
      let layer = zwlr_layer_shell_v1_get_layer_surface(
        layerShell, catcher, proxy, ZWLR_LAYER_SHELL_V1_LAYER_TOP.rawValue, "notifyd-center-outside")!
      zwlr_layer_surface_v1_set_anchor(layer, 15)
      zwlr_layer_surface_v1_set_exclusive_zone(layer, -1)
      self.catcher = catcher
      catcherLayer = layer
      catcherViewport = wp_viewporter_get_viewport(viewporter, catcher)
      catcherBuffer = buffer
    }
    surface = wl_compositor_create_surface(compositor)
    layerSurface = zwlr_layer_shell_v1_get_layer_surface(
      layerShell, surface, proxy, overlay, "notifyd-center")
    // Top and bottom, and the edge it opens on: the output's full height.
    let edge: UInt32 =
      settings.anchor == .right
      ? ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT.rawValue : ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT.rawValue
    zwlr_layer_surface_v1_set_anchor(
      layerSurface,
      ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP.rawValue | ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM.rawValue | edge)
    zwlr_layer_surface_v1_set_size(layerSurface, UInt32(settings.width), 0)
    zwlr_layer_surface_v1_set_keyboard_interactivity(layerSurface, exclusiveKeyboard ? 1 : 2)
    frames = SurfaceFrames(surface: surface, most: 2) { [unowned self] in owner.centerFrameDone(self) }
    frames.outputsChanged = { [unowned self] in owner.centerMoved(self) }
    let data = Unmanaged.passUnretained(self).toOpaque()
    if let catcher, let catcherLayer {
      zwlr_layer_surface_v1_add_listener(catcherLayer, catcherListener, data)
      wl_surface_commit(catcher)
    }
    zwlr_layer_surface_v1_add_listener(layerSurface, panelListener, data)
    wl_surface_commit(surface)
  }

  fileprivate func configured(width: UInt32, height: UInt32) {
    guard width > 0, height > 0 else { return }
    self.width = Int(width)
    self.height = Int(height)
    dirty = true
    owner.centerConfigured(self)
  }

  /// The catcher was given the output's size: its one pixel is stretched over it.
  fileprivate func catcherConfigured(width: UInt32, height: UInt32) {
    guard let catcher, let catcherViewport, let catcherBuffer, width > 0, height > 0 else { return }
    // One transparent pixel (fresh shared memory is zeroed).
    wp_viewport_set_destination(catcherViewport, Int32(width), Int32(height))
    wl_surface_attach(catcher, catcherBuffer.proxy, 0, 0)
    wl_surface_damage_buffer(catcher, 0, 0, 1, 1)
    wl_surface_commit(catcher)
  }

  /// Destroys both surfaces and everything they hold.
  func destroy() {
    frames.destroy()
    zwlr_layer_surface_v1_destroy(layerSurface)
    wl_surface_destroy(surface)
    if let catcherViewport { wp_viewport_destroy(catcherViewport) }
    if let catcherLayer { zwlr_layer_surface_v1_destroy(catcherLayer) }
    if let catcher { wl_surface_destroy(catcher) }
    catcherViewport = nil
    catcherLayer = nil
    catcher = nil
    catcherBuffer = nil
  }
}

// MARK: - Listeners

private func panel(_ data: UnsafeMutableRawPointer?) -> CenterPanel {
  Unmanaged<CenterPanel>.fromOpaque(data!).takeUnretainedValue()
}

nonisolated(unsafe) private let panelListener: UnsafeMutablePointer<zwlr_layer_surface_v1_listener> = {
  let listener = UnsafeMutablePointer<zwlr_layer_surface_v1_listener>.allocate(capacity: 1)
  listener.initialize(to: zwlr_layer_surface_v1_listener())
  listener.pointee.configure = { data, layerSurface, serial, width, height in
    zwlr_layer_surface_v1_ack_configure(layerSurface, serial)
    panel(data).configured(width: width, height: height)
  }
  listener.pointee.closed = { data, _ in
    let panel = panel(data)
    panel.owner.centerClosed(panel)
  }
  return listener
}()

nonisolated(unsafe) private let catcherListener: UnsafeMutablePointer<zwlr_layer_surface_v1_listener> = {
  let listener = UnsafeMutablePointer<zwlr_layer_surface_v1_listener>.allocate(capacity: 1)
  listener.initialize(to: zwlr_layer_surface_v1_listener())
  listener.pointee.configure = { data, layerSurface, serial, width, height in
    zwlr_layer_surface_v1_ack_configure(layerSurface, serial)
    panel(data).catcherConfigured(width: width, height: height)
  }
  listener.pointee.closed = { _, _ in }
  return listener
}()
