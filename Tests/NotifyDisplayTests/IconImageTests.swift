import CPangoCairo
import Foundation
import NotifyConfig
import NotifyCore
import NotifyIcons
import NotifyProtocol
import Testing

@testable import NotifyDisplay

@Suite("Icons: files within bounds, pixels kept as files")
struct IconImageTests {
  /// A temporary directory, removed by the caller.
  private func temporaryDirectory() -> String {
    let path = NSTemporaryDirectory() + "notifyd-icons-\(UUID().uuidString)"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// `width`×`height` pixels of one colour, RGBA (or RGB), rows `padding` bytes longer than needed.
  private func pixels(
    width: Int, height: Int, rgba: [UInt8] = [0x20, 0xC0, 0x50, 0xFF], alpha: Bool = true, padding: Int = 0
  ) -> IconPixels {
    let channels = alpha ? 4 : 3
    let row =
      Array(repeating: Array(rgba.prefix(channels)), count: width).flatMap { $0 }
      + Array(repeating: 0, count: padding)
    return IconPixels(
      width: width, height: height, rowStride: width * channels + padding, hasAlpha: alpha, bitsPerSample: 8,
      channels: channels, data: Array(repeating: row, count: height).flatMap { $0 })
  }

  /// The pixel at (x, y) of an ARGB32 surface as (red, green, blue, alpha), premultiplied.
  private func pixel(_ surface: OpaquePointer, _ x: Int, _ y: Int) -> (Int, Int, Int, Int) {
    cairo_surface_flush(surface)
    let stride = Int(cairo_image_surface_get_stride(surface))
    let data = cairo_image_surface_get_data(surface)!
    let offset = y * stride + x * 4
    return (Int(data[offset + 2]), Int(data[offset + 1]), Int(data[offset]), Int(data[offset + 3]))
  }

  private func writePNG(_ pixels: IconPixels, to path: String) throws {
    let surface = try IconImage.surface(of: pixels, fitting: IconImage.maximumDimension)
    defer { cairo_surface_destroy(surface) }
    try Data(IconImage.pngBytes(of: surface)!).write(to: URL(fileURLWithPath: path))
  }

  @Test func aPNGFile_isReadAndScaledToFit_keepingItsProportions() throws {
    let directory = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/wide.png"
    try writePNG(pixels(width: 200, height: 100), to: path)
    let icon = try #require(IconImage.load(path: path, fitting: 48))
    defer { cairo_surface_destroy(icon) }
    #expect(cairo_image_surface_get_width(icon) == 48)
    #expect(cairo_image_surface_get_height(icon) == 24)
    let (red, green, blue, alpha) = pixel(icon, 24, 12)
    #expect((red, green, blue, alpha) == (0x20, 0xC0, 0x50, 0xFF))
  }

  /// A 16×16 document: a red square in its left half over nothing, and a `.warning` dot.
  static let svg = """
    <svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">
      <rect x="0" y="0" width="8" height="16" fill="#ff0000"/>
      <circle class="warning" cx="12" cy="12" r="2" fill="#00ff00"/>
    </svg>
    """

  @Test func anSVG_isDrawnAtTheSizeAsked_notScaledFromASmallerOne() throws {
    let directory = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/square.svg"
    try Data(Self.svg.utf8).write(to: URL(fileURLWithPath: path))
    for (pixels, scale) in [(48, 1.0), (96, 2.0)] {
      let icon = try #require(IconImage.load(path: path, fitting: pixels, scale: scale))
      defer { cairo_surface_destroy(icon) }
      #expect(cairo_image_surface_get_width(icon) == Int32(pixels))
      #expect(CardPainter.logicalSize(of: icon) == (48, 48))
      // The square's edge falls between two device pixels, sharp at both sizes: fully red left
      // of the middle, nothing right of it.
      #expect(pixel(icon, pixels / 2 - 1, pixels / 4) == (0xFF, 0, 0, 0xFF))
      #expect(pixel(icon, pixels / 2, pixels / 4) == (0, 0, 0, 0))
      // Not symbolic: the document's own colours.
      #expect(pixel(icon, pixels * 3 / 4, pixels * 3 / 4) == (0, 0xFF, 0, 0xFF))
    }
    // A document named otherwise is read by its first `<`; a broken one is no icon.
    let unnamed = directory + "/icon"
    try Data(("\u{FEFF}  " + Self.svg).utf8).write(to: URL(fileURLWithPath: unnamed))
    let read = try #require(IconImage.load(path: unnamed, fitting: 48))
    cairo_surface_destroy(read)
    try Data("<svg><rect".utf8).write(to: URL(fileURLWithPath: directory + "/broken.svg"))
    #expect(IconImage.load(path: directory + "/broken.svg", fitting: 48) == nil)
    try Data("GIF89a".utf8).write(to: URL(fileURLWithPath: directory + "/picture.gif"))
    #expect(!IconImage.isSVG(path: directory + "/picture.gif", Array("GIF89a".utf8)))
    #expect(IconImage.load(path: directory + "/picture.gif", fitting: 48) == nil)
  }

  @Test func aSymbolicIcon_takesTheTint_butItsWarningPartKeepsItsColour() throws {
    let directory = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/square-symbolic.svg"
    try Data(Self.svg.utf8).write(to: URL(fileURLWithPath: path))
    #expect(IconImage.isSymbolic(path) && IconImage.isSymbolic("/a/b-symbolic.symbolic.png") == false)
    #expect(IconImage.isSymbolic("/x/y-symbolic.png") && !IconImage.isSymbolic("/x/symbolic/y.svg"))
    let tint = RGBA(red: 0.2, green: 0.4, blue: 1)
    let icon = try #require(IconImage.load(path: path, fitting: 32, tint: tint))
    defer { cairo_surface_destroy(icon) }
    #expect(pixel(icon, 4, 8) == (0x33, 0x66, 0xFF, 0xFF))
    #expect(pixel(icon, 24, 24) == (0xF5, 0x78, 0x00, 0xFF))
    #expect(pixel(icon, 24, 4) == (0, 0, 0, 0))
    // A symbolic PNG: its shape in the tint, its own colour dropped.
    let png = directory + "/dot-symbolic.png"
    try writePNG(pixels(width: 8, height: 8, rgba: [0xFF, 0, 0, 0xFF]), to: png)
    let tinted = try #require(IconImage.load(path: png, fitting: 48, tint: tint))
    defer { cairo_surface_destroy(tinted) }
    #expect(pixel(tinted, 4, 4) == (0x33, 0x66, 0xFF, 0xFF))
  }

  @Test func aSmallIcon_isNotScaledUp() throws {
    let directory = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try writePNG(pixels(width: 16, height: 16), to: directory + "/small.png")
    let icon = try #require(IconImage.load(path: directory + "/small.png", fitting: 48))
    defer { cairo_surface_destroy(icon) }
    #expect(cairo_image_surface_get_width(icon) == 16)
  }

  @Test func whatIsNotAReadablePNGWithinBounds_isNoIcon_andAFIFODoesNotBlock() throws {
    let directory = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    #expect(IconImage.load(path: directory + "/missing.png", fitting: 48) == nil)
    #expect(IconImage.load(path: directory, fitting: 48) == nil)
    try Data("not a picture".utf8).write(to: URL(fileURLWithPath: directory + "/text.png"))
    #expect(IconImage.load(path: directory + "/text.png", fitting: 48) == nil)
    // Nobody writes to the FIFO: a blocking open would never return.
    #expect(mkfifo(directory + "/fifo", 0o600) == 0)
    #expect(IconImage.load(path: directory + "/fifo", fitting: 48) == nil)
    // A header that claims 100000×100000 is refused before anything is decoded.
    var huge: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
    for dimension in [100_000, 100_000] {
      huge += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: dimension >> $0) }
    }
    huge += [8, 6, 0, 0, 0, 0, 0, 0, 0]
    try Data(huge).write(to: URL(fileURLWithPath: directory + "/huge.png"))
    #expect(IconImage.pngSize(huge)! == (100_000, 100_000))
    #expect(IconImage.load(path: directory + "/huge.png", fitting: 48) == nil)
  }

  @Test func pixels_thatDoNotDescribeTheirBytes_areRefusedWithTheReason() {
    var short = pixels(width: 4, height: 4)
    short.data.removeLast()
    #expect(throws: IconPixels.Problem.invalid("data holds 63 bytes; 4×4 needs 64")) { try short.validate() }
    var stride = pixels(width: 4, height: 4)
    stride.rowStride = 15
    #expect(throws: IconPixels.Problem.self) { try stride.validate() }
    var channels = pixels(width: 4, height: 4)
    channels.channels = 3
    #expect(throws: IconPixels.Problem.self) { try channels.validate() }
    var bits = pixels(width: 4, height: 4)
    bits.bitsPerSample = 16
    #expect(throws: IconPixels.Problem.self) { try bits.validate() }
    #expect(throws: IconPixels.Problem.self) { try pixels(width: 0, height: 4).validate() }
    #expect(throws: IconPixels.Problem.self) {
      try IconPixels(
        width: 5000, height: 1, rowStride: 20_000, hasAlpha: true, bitsPerSample: 8, channels: 4, data: []
      ).validate()
    }
  }

  @Test func pixels_becomePremultipliedARGB_withAndWithoutAlpha_honouringTheRowStride() throws {
    let translucent = try IconImage.surface(
      of: pixels(width: 3, height: 2, rgba: [200, 100, 50, 128], padding: 5), fitting: 48)
    defer { cairo_surface_destroy(translucent) }
    let (red, green, blue, alpha) = pixel(translucent, 2, 1)
    #expect(alpha == 128)
    #expect(abs(red - 100) <= 1 && abs(green - 50) <= 1 && abs(blue - 25) <= 1)
    let opaque = try IconImage.surface(
      of: pixels(width: 3, height: 2, rgba: [200, 100, 50], alpha: false, padding: 3), fitting: 48)
    defer { cairo_surface_destroy(opaque) }
    #expect(pixel(opaque, 2, 1) == (200, 100, 50, 255))
  }

  @Test func theCache_keepsPixelsAsAPNGNamedByContent_andHoldsAtMostItsCapacity() throws {
    let directory = temporaryDirectory() + "/nested/icons"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let cache = IconCache(directory: directory, capacity: 3)
    let first = try cache.store(pixels(width: 8, height: 8))
    #expect(first.hasPrefix(directory + "/") && first.hasSuffix(".png"))
    #expect(try cache.store(pixels(width: 8, height: 8)) == first)
    let loaded = try #require(IconImage.load(path: first, fitting: 48))
    cairo_surface_destroy(loaded)
    // Large pixels are kept scaled down.
    let large = try cache.store(pixels(width: 1000, height: 500, rgba: [1, 2, 3, 255]))
    let kept = try #require(IconImage.load(path: large, fitting: 4096))
    #expect(cairo_image_surface_get_width(kept) == Int32(IconCache.storedSize))
    cairo_surface_destroy(kept)
    var paths = [first, large]
    for shade in 10..<14 {
      paths.append(try cache.store(pixels(width: 8, height: 8, rgba: [UInt8(shade), 0, 0, 255])))
    }
    let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".png") }
    #expect(files.count == 3)
    // The least recently stored went first.
    #expect(Set(files.map { directory + "/" + $0 }) == Set(paths.suffix(3)))
    #expect(throws: IconStoreFailure.self) { try cache.store(pixels(width: 0, height: 1)) }
  }

  @Test func aCardWithAnIcon_drawsItAtItsLeadingEdge_andIsAtLeastItsHeight() throws {
    let directory = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/icon.png"
    try writePNG(pixels(width: 96, height: 96), to: path)
    var settings = DisplaySettings()
    settings.look.font = "DejaVu Sans 11"
    let painter = CardPainter(settings: settings)
    let plain = Card(Notice(id: 1, kind: .notice, title: "t"), look: settings.look(for: .normal))
    var withIcon = plain
    withIcon.icon = path
    let height = painter.height(of: withIcon)
    #expect(height >= IconImage.cardSize + 24)
    #expect(height > painter.height(of: plain))
    let image = painter.render(withIcon, height: height)
    defer { cairo_surface_destroy(image) }
    #expect(pixel(image, 12 + 24, 12 + 24) == (0x20, 0xC0, 0x50, 0xFF))
    #expect(pixel(image, 12 + 47, 12 + 47) == (0x20, 0xC0, 0x50, 0xFF))
    #expect(pixel(image, 12 + 49, 12 + 24) != (0x20, 0xC0, 0x50, 0xFF))
    // A look's IconSize=: the icon fills a square of that edge, the text moves past it.
    var large = withIcon
    large.look.iconSize = 80
    let largeHeight = painter.height(of: large)
    #expect(largeHeight >= 80 + 24)
    let largeImage = painter.render(large, height: largeHeight)
    defer { cairo_surface_destroy(largeImage) }
    #expect(pixel(largeImage, 12 + 79, 12 + 79) == (0x20, 0xC0, 0x50, 0xFF))
    #expect(pixel(largeImage, 12 + 81, 12 + 40) != (0x20, 0xC0, 0x50, 0xFF))
    // A missing file: the card is drawn as if it had no icon.
    withIcon.icon = directory + "/gone.png"
    #expect(painter.height(of: withIcon) == painter.height(of: plain))
  }
}
