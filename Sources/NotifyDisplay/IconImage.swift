import CPangoCairo
import CRsvg
import Glibc
import NotifyConfig
import NotifyIcons
import NotifyPosix

/// A card's icon: a PNG file read within bounds, or raw pixels (D-Bus `image-data`) written as a
/// PNG file into a cache, so that a notice carries its icon as a path either way.
public enum IconImage {
  /// The most bytes read from an icon file.
  public static let maximumFileBytes = 8 << 20
  /// The largest width or height of an icon, as a file or as pixels.
  public static let maximumDimension = IconPixels.maximumDimension
  /// The edge of the square an icon is drawn in by default, in pixels: a card's (`IconSize=`'s
  /// default) and a row's of the center.
  public static let cardSize = 48

  // MARK: - Reading files

  /// The icon at `path`, a PNG or an SVG document, as an image surface fitting `size`×`size`
  /// device pixels; nil when the path is not a regular file, is larger than `maximumFileBytes` or
  /// (a PNG) `maximumDimension`, or is neither. A PNG is scaled down to fit, never up; an SVG is
  /// drawn at that size (through librsvg, loaded then). With `tint`, a symbolic icon's shapes take
  /// that colour (`symbolicStylesheet` for an SVG, its alpha as a mask for a PNG). Opens without
  /// blocking, so a FIFO or a device cannot stall the display thread. The caller owns the surface.
  /// The surface carries `scale` as its device scale: drawn, it covers `size` / `scale` logical
  /// pixels at the device's resolution.
  public static func load(path: String, fitting size: Int, scale: Double = 1, tint: RGBA? = nil)
    -> OpaquePointer?
  {
    guard let bytes = Posix.readRegularFile(path, limit: maximumFileBytes) else { return nil }
    let fitted: OpaquePointer?
    if let (width, height) = pngSize(bytes) {
      guard (1...maximumDimension).contains(width), (1...maximumDimension).contains(height),
        let image = decodePNG(bytes)
      else { return nil }
      defer { cairo_surface_destroy(image) }
      fitted = scaled(image, fitting: size).map { image in tint.map { tinted(image, $0) } ?? image }
    } else if isSVG(path: path, bytes) {
      fitted = renderSVG(bytes, size: size, stylesheet: tint.map(symbolicStylesheet))
    } else {
      return nil
    }
    if let fitted { cairo_surface_set_device_scale(fitted, scale, scale) }
    return fitted
  }

  /// Whether the file at `path` is a symbolic icon, drawn in the colour of the text beside it:
  /// its name, without the extension, ends in `-symbolic`.
  public static func isSymbolic(_ path: String) -> Bool {
    let file = path.split(separator: "/").last ?? ""
    return (file.lastIndex(of: ".").map { file[..<$0] } ?? file).hasSuffix("-symbolic")
  }

  // MARK: - SVG

  /// Whether `bytes` are to be read as SVG: the file is named `.svg` or `.svgz`, or its text
  /// begins with `<` (after a byte-order mark and blanks). Anything else is never handed to
  /// librsvg, which is loaded only for a document.
  static func isSVG(path: String, _ bytes: [UInt8]) -> Bool {
    if path.hasSuffix(".svg") || path.hasSuffix(".svgz") { return true }
    let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
    return text.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "<")
  }

  /// The document drawn into a `size`×`size` image (proportions kept, centred), with
  /// `stylesheet` applied; nil when librsvg is missing or refuses the document.
  static func renderSVG(_ bytes: [UInt8], size: Int, stylesheet: String?) -> OpaquePointer? {
    let image = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(size), Int32(size))!
    let context = cairo_create(image)!
    defer { cairo_destroy(context) }
    let drawn = bytes.withUnsafeBufferPointer { data in
      notifyd_rsvg_render(
        data.baseAddress, data.count, stylesheet, UnsafeMutableRawPointer(context), Double(size), Double(size)
      )
    }
    guard drawn == 0, cairo_surface_status(image) == CAIRO_STATUS_SUCCESS else {
      cairo_surface_destroy(image)
      return nil
    }
    cairo_surface_flush(image)
    return image
  }

  /// The CSS that draws a symbolic icon (`*-symbolic.svg`) in `colour`, by the convention symbolic
  /// icons are drawn to: plain shapes and the `foreground-fill` class take the colour, the
  /// `warning`, `error` and `success` classes their own, `*-stroke` classes the same as strokes.
  static func symbolicStylesheet(_ colour: RGBA) -> String {
    func css(_ colour: RGBA) -> String {
      func byte(_ value: Double) -> Int { Int((min(max(value, 0), 1) * 255).rounded()) }
      let alpha = min(max(colour.alpha, 0), 1)
      return "rgba(\(byte(colour.red)),\(byte(colour.green)),\(byte(colour.blue)),\(alpha))"
    }
    var rules = [
      "path, rect, circle, ellipse, polygon, polyline, line, .foreground-fill { fill: \(css(colour)) !important; }",
      ".foreground-stroke { stroke: \(css(colour)) !important; }",
    ]
    for (name, kept) in [
      ("warning", symbolicWarning), ("error", symbolicError), ("success", symbolicSuccess),
    ] {
      rules.append(".\(name), .\(name)-fill { fill: \(css(kept)) !important; }")
      rules.append(".\(name)-stroke { stroke: \(css(kept)) !important; }")
    }
    return rules.joined(separator: "\n")
  }

  /// The colours a symbolic icon's `warning`, `error` and `success` parts keep on any card.
  static let symbolicWarning = RGBA(red: 0.96, green: 0.47, blue: 0)
  static let symbolicError = RGBA(red: 0.88, green: 0.11, blue: 0.14)
  static let symbolicSuccess = RGBA(red: 0.2, green: 0.82, blue: 0.48)

  /// A symbolic PNG in `colour`: its alpha kept as the shape, its colours dropped. Takes `image`.
  static func tinted(_ image: OpaquePointer, _ colour: RGBA) -> OpaquePointer {
    defer { cairo_surface_destroy(image) }
    let target = cairo_image_surface_create(
      CAIRO_FORMAT_ARGB32, cairo_image_surface_get_width(image), cairo_image_surface_get_height(image))!
    let context = cairo_create(target)!
    defer { cairo_destroy(context) }
    cairo_set_source_rgba(context, colour.red, colour.green, colour.blue, colour.alpha)
    cairo_mask_surface(context, image, 0, 0)
    cairo_surface_flush(target)
    return target
  }

  /// Width and height from a PNG's header (signature, then the `IHDR` chunk), read before any
  /// decoding so that a huge image is refused without allocating for it.
  static func pngSize(_ bytes: [UInt8]) -> (Int, Int)? {
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    guard bytes.count >= 24, Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8)
    else { return nil }
    func bigEndian(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
    return (bigEndian(16), bigEndian(20))
  }

  /// Reads the PNG from memory (`cairo_image_surface_create_from_png_stream`).
  private static func decodePNG(_ bytes: [UInt8]) -> OpaquePointer? {
    final class Reader {
      let bytes: [UInt8]
      var offset = 0
      init(_ bytes: [UInt8]) { self.bytes = bytes }
    }
    let reader = Reader(bytes)
    let surface = withExtendedLifetime(reader) {
      cairo_image_surface_create_from_png_stream(
        { closure, data, length in
          let reader = Unmanaged<Reader>.fromOpaque(closure!).takeUnretainedValue()
          let length = Int(length)
          guard let data, reader.bytes.count - reader.offset >= length else { return CAIRO_STATUS_READ_ERROR }
          reader.bytes.withUnsafeBytes { buffer in
            UnsafeMutableRawPointer(data).copyMemory(
              from: buffer.baseAddress! + reader.offset, byteCount: length)
          }
          reader.offset += length
          return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(reader).toOpaque())
    }
    guard let surface else { return nil }
    guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
      cairo_surface_destroy(surface)
      return nil
    }
    return surface
  }

  /// `image` scaled to fit `size`×`size`, keeping its proportions; never scaled up.
  static func scaled(_ image: OpaquePointer, fitting size: Int) -> OpaquePointer? {
    let width = Double(cairo_image_surface_get_width(image))
    let height = Double(cairo_image_surface_get_height(image))
    let scale = min(1, Double(size) / max(width, height))
    let target = cairo_image_surface_create(
      CAIRO_FORMAT_ARGB32, Int32(max(1, (width * scale).rounded())), Int32(max(1, (height * scale).rounded()))
    )!
    guard cairo_surface_status(target) == CAIRO_STATUS_SUCCESS else {
      cairo_surface_destroy(target)
      return nil
    }
    let context = cairo_create(target)!
    defer { cairo_destroy(context) }
    cairo_scale(context, scale, scale)
    cairo_set_source_surface(context, image, 0, 0)
    cairo_pattern_set_filter(cairo_get_source(context), CAIRO_FILTER_GOOD)
    cairo_paint(context)
    cairo_surface_flush(target)
    return target
  }

  // MARK: - Pixels to a surface

  /// The pixels as a premultiplied ARGB surface scaled to fit `size`×`size`; the caller owns it.
  static func surface(of pixels: IconPixels, fitting size: Int) throws(IconPixels.Problem) -> OpaquePointer {
    try pixels.validate()
    let image = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(pixels.width), Int32(pixels.height))!
    defer { cairo_surface_destroy(image) }
    guard cairo_surface_status(image) == CAIRO_STATUS_SUCCESS, let base = cairo_image_surface_get_data(image)
    else { throw .invalid("no memory for a \(pixels.width)×\(pixels.height) image") }
    cairo_surface_flush(image)
    let stride = Int(cairo_image_surface_get_stride(image))
    pixels.data.withUnsafeBufferPointer { source in
      for row in 0..<pixels.height {
        let line = UnsafeMutableRawPointer(base + row * stride).assumingMemoryBound(to: UInt32.self)
        var at = row * pixels.rowStride
        for column in 0..<pixels.width {
          let alpha = pixels.hasAlpha ? UInt32(source[at + 3]) : 255
          func premultiplied(_ value: UInt8) -> UInt32 { (UInt32(value) * alpha + 127) / 255 }
          line[column] =
            alpha << 24 | premultiplied(source[at]) << 16 | premultiplied(source[at + 1]) << 8
            | premultiplied(source[at + 2])
          at += pixels.channels
        }
      }
    }
    cairo_surface_mark_dirty(image)
    guard let scaled = scaled(image, fitting: size) else {
      throw .invalid("no memory for a \(size)×\(size) image")
    }
    return scaled
  }

  /// The surface encoded as PNG (`cairo_surface_write_to_png_stream`).
  static func pngBytes(of surface: OpaquePointer) -> [UInt8]? {
    final class Writer { var bytes: [UInt8] = [] }
    let writer = Writer()
    let status = withExtendedLifetime(writer) {
      cairo_surface_write_to_png_stream(
        surface,
        { closure, data, length in
          let writer = Unmanaged<Writer>.fromOpaque(closure!).takeUnretainedValue()
          guard let data else { return CAIRO_STATUS_WRITE_ERROR }
          writer.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
          return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(writer).toOpaque())
    }
    return status == CAIRO_STATUS_SUCCESS ? writer.bytes : nil
  }
}
