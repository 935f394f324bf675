/// Raw pixels as the notification specification's `image-data` hint carries them: rows of RGB or
/// RGBA bytes, `rowStride` bytes apart. The D-Bus adapter reads them; an `IconStore` keeps them as
/// a file the popups draw.
public struct IconPixels: Sendable, Equatable {
  /// The largest width or height of an icon, as a file or as pixels.
  public static let maximumDimension = 4096

  /// Why pixels cannot be an icon: said to the client that sent them.
  public enum Problem: Error, Equatable, CustomStringConvertible {
    case invalid(String)

    public var description: String {
      switch self {
      case .invalid(let reason): return reason
      }
    }
  }

  public var width: Int
  public var height: Int
  public var rowStride: Int
  public var hasAlpha: Bool
  public var bitsPerSample: Int
  public var channels: Int
  public var data: [UInt8]

  public init(
    width: Int, height: Int, rowStride: Int, hasAlpha: Bool, bitsPerSample: Int, channels: Int,
    data: [UInt8]
  ) {
    self.width = width
    self.height = height
    self.rowStride = rowStride
    self.hasAlpha = hasAlpha
    self.bitsPerSample = bitsPerSample
    self.channels = channels
    self.data = data
  }

  /// Checks that the fields describe the bytes: 8 bits per sample, 3 channels (4 with alpha),
  /// sizes within `maximumDimension`, every row inside `data`.
  public func validate() throws(Problem) {
    guard (1...Self.maximumDimension).contains(width), (1...Self.maximumDimension).contains(height) else {
      throw .invalid("width and height must be from 1 to \(Self.maximumDimension), not \(width)×\(height)")
    }
    guard bitsPerSample == 8 else { throw .invalid("bits_per_sample must be 8, not \(bitsPerSample)") }
    guard channels == (hasAlpha ? 4 : 3) else {
      throw .invalid("channels must be \(hasAlpha ? 4 : 3) when has_alpha is \(hasAlpha), not \(channels)")
    }
    guard rowStride >= width * channels else {
      throw .invalid("rowstride \(rowStride) is less than width × channels (\(width * channels))")
    }
    let needed = rowStride * (height - 1) + width * channels
    guard data.count >= needed else {
      throw .invalid("data holds \(data.count) bytes; \(width)×\(height) needs \(needed)")
    }
  }
}

/// Keeps icons that arrive as pixels as files, so that a notice refers to its icon by path like any
/// other. The popups' cache (`NotifyDisplay.IconCache`) is one; the daemon hands it to the D-Bus
/// adapter, which draws nothing itself.
///
/// - Important: called on one owner queue.
public protocol IconStore: AnyObject {
  /// Stores `pixels` as a file and answers its path; the same pixels give the same path.
  func store(_ pixels: IconPixels) throws(IconStoreFailure) -> String
}

/// Why an icon could not be kept.
public enum IconStoreFailure: Error, CustomStringConvertible {
  /// The client's pixels are not an image: the client should be told.
  case invalid(IconPixels.Problem)
  /// The store could not be written: the notice goes on without its icon.
  case unwritable(String)

  public var description: String {
    switch self {
    case .invalid(let problem): return problem.description
    case .unwritable(let reason): return reason
    }
  }
}
