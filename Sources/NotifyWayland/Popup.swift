import CPangoCairo
import CWayland
import Glibc
import NotifyConfig
import NotifyDisplay
import NotifyPosix

/// A buffer of shared memory the compositor reads a frame from: premultiplied ARGB8888, which is
/// cairo's ARGB32 on a little-endian machine.
final class ShmBuffer {
  let width: Int
  let height: Int
  let proxy: OpaquePointer
  /// A cairo surface over the mapped memory.
  let image: OpaquePointer
  private let memory: UnsafeMutableRawPointer
  private let size: Int
  /// Between an attach and the compositor's `release`: the compositor may still read it.
  var busy = false
  /// Called when the compositor lets go of the buffer.
  var released: (() -> Void)?

  /// A buffer from `shm` (`Posix.sharedMemory`, `wl_shm.create_pool`); nil when memory or
  /// descriptors run out.
  init?(shm: OpaquePointer, width: Int, height: Int) {
    let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(width)))
    let size = stride * height
    guard let (descriptor, memory) = try? Posix.sharedMemory(named: "notifyd-popup", size: size) else {
      return nil
    }
    defer { Posix.close(descriptor) }
    let pool = wl_shm_create_pool(shm, descriptor, Int32(size))
    proxy = wl_shm_pool_create_buffer(
      pool, 0, Int32(width), Int32(height), Int32(stride), WL_SHM_FORMAT_ARGB8888.rawValue)
    wl_shm_pool_destroy(pool)
    image = cairo_image_surface_create_for_data(
      memory.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32, Int32(width), Int32(height),
      Int32(stride))
    self.memory = memory
    self.size = size
    self.width = width
    self.height = height
    wl_buffer_add_listener(proxy, bufferListener, Unmanaged.passUnretained(self).toOpaque())
  }

  deinit {
    wl_buffer_destroy(proxy)
    cairo_surface_destroy(image)
    Posix.unmap(memory, size: size)
  }
}

/// A surface's frames: the shared-memory buffers it draws into, the `wl_surface.frame` callback
/// it waits on, and the outputs it shows on (`wl_surface.enter` and `leave`), whose scale it is
/// drawn at. A popup and the center's panel each have one.
final class SurfaceFrames {
  private let surface: OpaquePointer
  /// The outputs the compositor says the surface is on.
  private(set) var outputs: [OpaquePointer] = []
  /// Told when the surface entered or left an output.
  var outputsChanged: () -> Void = {}
  /// Device pixels per logical pixel of the buffers attached (`wl_surface.set_buffer_scale`).
  private var bufferScale: Int32 = 1
  /// The most buffers made at once.
  private let most: Int
  private var buffers: [ShmBuffer] = []
  /// A `wl_surface.frame` asked for and not yet answered.
  private(set) var callback: OpaquePointer?
  /// Told when the compositor wants the next frame.
  private let done: () -> Void
  /// The surface rests (no next frame asked for): buffers the compositor lets go of are freed, so
  /// that it keeps only what the compositor still reads.
  var still = false {
    didSet { if still { freeIdleBuffers() } }
  }

  init(surface: OpaquePointer, most: Int, done: @escaping () -> Void) {
    self.surface = surface
    self.most = most
    self.done = done
    wl_surface_add_listener(surface, surfaceListener, Unmanaged.passUnretained(self).toOpaque())
  }

  /// Whether a frame was asked for and not yet answered.
  var pending: Bool { callback != nil }

  /// A buffer of `width` × `height` that the compositor is not reading, made if none is free; nil
  /// when `most` are busy, or memory or descriptors ran out.
  func freeBuffer(shm: OpaquePointer, width: Int, height: Int) -> ShmBuffer? {
    buffers.removeAll { !$0.busy && ($0.width != width || $0.height != height) }
    if let free = buffers.first(where: { !$0.busy }) { return free }
    guard buffers.count < most, let buffer = ShmBuffer(shm: shm, width: width, height: height) else {
      return nil
    }
    buffer.released = { [unowned self] in if still { freeIdleBuffers() } }
    buffers.append(buffer)
    return buffer
  }

  /// Attaches `buffer`, drawn at `scale` device pixels per logical pixel, as the surface's next
  /// contents, all of it damaged; the commit is the caller's.
  func attach(_ buffer: ShmBuffer, scale: Int) {
    if Int32(scale) != bufferScale {
      bufferScale = Int32(scale)
      wl_surface_set_buffer_scale(surface, bufferScale)
    }
    wl_surface_attach(surface, buffer.proxy, 0, 0)
    wl_surface_damage_buffer(surface, 0, 0, Int32(buffer.width), Int32(buffer.height))
    buffer.busy = true
  }

  fileprivate func entered(_ output: OpaquePointer) {
    guard !outputs.contains(output) else { return }
    outputs.append(output)
    outputsChanged()
  }

  fileprivate func left(_ output: OpaquePointer) {
    outputs.removeAll { $0 == output }
    outputsChanged()
  }

  /// Asks for `done` when the compositor wants the next frame (with the next commit).
  func request() {
    guard callback == nil else { return }
    callback = wl_surface_frame(surface)
    wl_callback_add_listener(callback, frameListener, Unmanaged.passUnretained(self).toOpaque())
  }

  fileprivate func frameDone() {
    if let callback { wl_callback_destroy(callback) }
    callback = nil
    done()
  }

  private func freeIdleBuffers() {
    buffers.removeAll { !$0.busy }
  }

  /// Lets the callback and the buffers go.
  func destroy() {
    if let callback { wl_callback_destroy(callback) }
    callback = nil
    buffers.removeAll()
  }
}

/// What a popup hears from the compositor.
protocol PopupOwner: AnyObject {
  func popupConfigured(_ popup: Popup)
  /// The popup entered or left an output: its scale may have changed.
  func popupMoved(_ popup: Popup)
  func popupClosed(_ popup: Popup)
  func popupFrameDone(_ popup: Popup)
}

/// One card on the screen: a layer surface of its own, its rendered image and its buffers.
final class Popup: PopupSurface {
  unowned let owner: PopupOwner
  /// Its card on its output, as the display machine knows it.
  let key: SurfaceKey
  var shown: ShownCard
  /// The card at full opacity; re-rendered when the card changes or its indicator moves.
  var image: OpaquePointer?
  let surface: OpaquePointer
  let layerSurface: OpaquePointer
  /// The initial state was committed.
  private(set) var started = false
  /// The first `configure` came: buffers may be attached.
  var configured = false
  var placement: PopupLayout.Placement?
  /// When the popup appeared, for the activity indicator's sweep.
  let appeared = Posix.monotonicNow()
  /// Its buffers and frame callback; a card that holds rests (`still`).
  private(set) var frames: SurfaceFrames!
  /// Device pixels per logical pixel its image is rendered at: its output's scale.
  var scale = 1.0
  /// The layer it is on: its card's look's (`Layer=`), or overlay over a fullscreen window.
  private(set) var layer: CardLayer
  /// The name of the output it was made for; `nil`: the compositor's choice.
  var output: String? { key.output }

  init(
    owner: PopupOwner, key: SurfaceKey, shown: ShownCard, compositor: OpaquePointer,
    layerShell: OpaquePointer, output: OpaquePointer?
  ) {
    self.owner = owner
    self.key = key
    self.shown = shown
    surface = wl_compositor_create_surface(compositor)
    layer = shown.layer
    layerSurface = zwlr_layer_shell_v1_get_layer_surface(
      layerShell, surface, output, Self.shellLayer(shown.layer), "notifyd")
    frames = SurfaceFrames(surface: surface, most: 3) { [unowned self] in owner.popupFrameDone(self) }
    frames.outputsChanged = { [unowned self] in owner.popupMoved(self) }
  }

  /// Listens to the layer surface and commits the initial state; the buffer waits for `configure`.
  func start() {
    started = true
    zwlr_layer_surface_v1_add_listener(
      layerSurface, layerSurfaceListener, Unmanaged.passUnretained(self).toOpaque())
    wl_surface_commit(surface)
  }

  /// Lets the popup take the keyboard (its reply field was clicked), or gives it back:
  /// `keyboard_interactivity` `on_demand` (layer-shell 4, else `exclusive`) or `none`, committed.
  func takeKeyboard(_ take: Bool, onDemand: Bool) {
    let mode: UInt32 = take ? (onDemand ? 2 : 1) : 0
    zwlr_layer_surface_v1_set_keyboard_interactivity(layerSurface, mode)
    wl_surface_commit(surface)
  }

  /// Moves the popup to `placement`; returns whether anything changed (a commit is then due).
  func place(_ placement: PopupLayout.Placement) -> Bool {
    guard placement != self.placement else { return false }
    self.placement = placement
    zwlr_layer_surface_v1_set_anchor(layerSurface, placement.edges.rawValue)
    zwlr_layer_surface_v1_set_margin(
      layerSurface, Int32(placement.top), Int32(placement.right), Int32(placement.bottom),
      Int32(placement.left))
    zwlr_layer_surface_v1_set_size(layerSurface, UInt32(placement.width), UInt32(placement.height))
    return true
  }

  /// Moves the popup to `layer` (a notice updated to match another rule, a window going
  /// fullscreen); returns whether it moved (a commit is then due). Layer-shell 1 cannot move a
  /// surface: it stays on the layer it was made on.
  func move(to layer: CardLayer, shellVersion: UInt32) -> Bool {
    guard layer != self.layer, shellVersion >= 2 else { return false }
    self.layer = layer
    zwlr_layer_surface_v1_set_layer(layerSurface, Self.shellLayer(layer))
    return true
  }

  /// `zwlr_layer_shell_v1.layer`'s value for `layer`.
  static func shellLayer(_ layer: CardLayer) -> UInt32 {
    switch layer {
    case .top: ZWLR_LAYER_SHELL_V1_LAYER_TOP.rawValue
    case .overlay: ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY.rawValue
    }
  }

  /// Lets the rendered image go; it is rendered again when next drawn.
  func discardImages() {
    if let image { cairo_surface_destroy(image) }
    image = nil
  }

  /// Destroys the surface, its callback and buffers.
  func destroy() {
    frames.destroy()
    zwlr_layer_surface_v1_destroy(layerSurface)
    wl_surface_destroy(surface)
    discardImages()
  }
}

// MARK: - Listeners

private func popup(_ data: UnsafeMutableRawPointer?) -> Popup {
  Unmanaged<Popup>.fromOpaque(data!).takeUnretainedValue()
}

nonisolated(unsafe) private let layerSurfaceListener: UnsafeMutablePointer<zwlr_layer_surface_v1_listener> = {
  let listener = UnsafeMutablePointer<zwlr_layer_surface_v1_listener>.allocate(capacity: 1)
  listener.initialize(to: zwlr_layer_surface_v1_listener())
  listener.pointee.configure = { data, layerSurface, serial, _, _ in
    zwlr_layer_surface_v1_ack_configure(layerSurface, serial)
    let popup = popup(data)
    popup.configured = true
    popup.owner.popupConfigured(popup)
  }
  listener.pointee.closed = { data, _ in
    let popup = popup(data)
    popup.owner.popupClosed(popup)
  }
  return listener
}()

nonisolated(unsafe) private let frameListener: UnsafeMutablePointer<wl_callback_listener> = {
  let listener = UnsafeMutablePointer<wl_callback_listener>.allocate(capacity: 1)
  listener.initialize(to: wl_callback_listener())
  listener.pointee.done = { data, _, _ in
    Unmanaged<SurfaceFrames>.fromOpaque(data!).takeUnretainedValue().frameDone()
  }
  return listener
}()

nonisolated(unsafe) private let surfaceListener: UnsafeMutablePointer<wl_surface_listener> = {
  let listener = UnsafeMutablePointer<wl_surface_listener>.allocate(capacity: 1)
  listener.initialize(to: wl_surface_listener())
  listener.pointee.enter = { data, _, output in
    guard let output else { return }
    Unmanaged<SurfaceFrames>.fromOpaque(data!).takeUnretainedValue().entered(output)
  }
  listener.pointee.leave = { data, _, output in
    guard let output else { return }
    Unmanaged<SurfaceFrames>.fromOpaque(data!).takeUnretainedValue().left(output)
  }
  return listener
}()

nonisolated(unsafe) private let bufferListener: UnsafeMutablePointer<wl_buffer_listener> = {
  let listener = UnsafeMutablePointer<wl_buffer_listener>.allocate(capacity: 1)
  listener.initialize(to: wl_buffer_listener())
  listener.pointee.release = { data, _ in
    let buffer = Unmanaged<ShmBuffer>.fromOpaque(data!).takeUnretainedValue()
    buffer.busy = false
    buffer.released?()
  }
  return listener
}()
