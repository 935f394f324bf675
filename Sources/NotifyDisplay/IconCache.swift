import CPangoCairo
import Foundation
import Glibc
import NotifyIcons
import NotifyPosix

/// Icons that arrive as pixels (D-Bus `image-data`), kept as PNG files named by their content in
/// one directory (`$XDG_CACHE_HOME/notifyd/icons`), so that a notice refers to its icon by path
/// like any other, in the store and over Varlink.
///
/// Bounds: each file holds the icon scaled to fit `storedSize` pixels (a few KiB); at most
/// `capacity` files, the least recently stored removed first. A notice whose file was removed is
/// drawn without an icon.
///
/// - Important: not thread-safe; one owner queue.
public final class IconCache: IconStore {
  public let directory: String
  public let capacity: Int
  /// The edge icons are scaled to fit when stored: twice a card's default, for scaled outputs (a
  /// larger `IconSize=` draws them scaled up).
  public static let storedSize = 2 * IconImage.cardSize
  /// The files this cache holds by name, least recently stored first; read from the directory
  /// (by modification time) when first needed, kept in memory after that (timestamps are too coarse
  /// to order files stored in the same few milliseconds).
  private var order: [String]?

  /// `$XDG_CACHE_HOME/notifyd/icons`, else `~/.cache/notifyd/icons`.
  public static func defaultDirectory(environment: [String: String]) -> String {
    if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return cache + "/notifyd/icons" }
    return (environment["HOME"] ?? NSHomeDirectory()) + "/.cache/notifyd/icons"
  }

  public init(directory: String, capacity: Int = 256) {
    self.directory = directory
    self.capacity = capacity
  }

  /// Stores `pixels` as a PNG file and returns its path; the same pixels give the same path.
  public func store(_ pixels: IconPixels) throws(IconStoreFailure) -> String {
    let surface: OpaquePointer
    do {
      surface = try IconImage.surface(of: pixels, fitting: Self.storedSize)
    } catch {
      throw .invalid(error)
    }
    defer { cairo_surface_destroy(surface) }
    guard let png = IconImage.pngBytes(of: surface) else {
      throw .unwritable("could not encode the icon as PNG")
    }
    let name = "\(Self.name(of: png)).png"
    let path = "\(directory)/\(name)"
    var order = self.order ?? files().map(\.name)
    defer { self.order = order }
    if utimensat(AT_FDCWD, path, nil, 0) == 0 {
      // Kept already: now the most recently stored.
      order.removeAll { $0 == name }
      order.append(name)
      return path
    }
    try makeDirectory()
    let temporary = "\(directory)/.\(getpid())-\(name).tmp"
    do throws(SystemError) {
      let fd = try Posix.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: 0o600)
      defer { Posix.close(fd) }
      try png.withUnsafeBytes { bytes in Result { () throws(SystemError) in try Posix.writeAll(fd, bytes) } }
        .get()
      try Posix.rename(temporary, to: path)
    } catch {
      try? Posix.unlink(temporary)
      throw .unwritable("cannot write \(path): \(error)")
    }
    order.removeAll { $0 == name }
    order.append(name)
    while order.count > capacity { unlink("\(directory)/\(order.removeFirst())") }
    return path
  }

  /// A name from the PNG's bytes: 64-bit FNV-1a, in hex.
  static func name(of bytes: [UInt8]) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
      hash ^= UInt64(byte)
      hash &*= 0x0000_0100_0000_01B3
    }
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }

  /// Creates the directory (0700, with its parents), as the store does its own.
  private func makeDirectory() throws(IconStoreFailure) {
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw .unwritable("cannot create \(directory): \((error as NSError).localizedDescription)")
    }
  }

  /// The cache's files (`*.png`) with their modification times, oldest first.
  private func files() -> [(name: String, modified: timespec)] {
    var found: [(String, timespec)] = []
    for name in Posix.entries(ofDirectory: directory) {
      guard name.hasSuffix(".png"), !name.hasPrefix(".") else { continue }
      var info = stat()
      guard stat("\(directory)/\(name)", &info) == 0 else { continue }
      found.append((name, info.st_mtim))
    }
    return found.sorted { ($0.1.tv_sec, $0.1.tv_nsec, $0.0) < ($1.1.tv_sec, $1.1.tv_nsec, $1.0) }
  }
}
