import Foundation

/// The cookie an X server asks for, from an Xauthority file (`Xau(3)`'s format): for the session's
/// `XAUTHORITY` when the daemon follows a session it was not started in, so that it never needs to
/// change its own environment.
public enum XAuthority {
  /// One entry's authorization: its protocol name (`MIT-MAGIC-COOKIE-1`) and data.
  public struct Cookie: Equatable, Sendable {
    public var name: [UInt8]
    public var data: [UInt8]
  }

  /// `Xau`'s address families that a local display matches.
  static let familyLocal: UInt16 = 256
  static let familyWild: UInt16 = 65535
  /// The largest file read: a desktop's holds a few entries of a few dozen bytes each.
  static let maximumBytes = 1 << 16

  /// The cookie in the file at `path` for local display `number` of `host`; nil when the file
  /// cannot be read or holds none.
  public static func cookie(inFileAt path: String, display number: Int, host: String) -> Cookie? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    guard let data = try? handle.read(upToCount: maximumBytes) else { return nil }
    return cookie(in: [UInt8](data), display: number, host: host)
  }

  /// The protocol xcb sends a cookie of as it is (others it computes, or does not know).
  static let magicCookie = Array("MIT-MAGIC-COOKIE-1".utf8)

  /// The first `MIT-MAGIC-COOKIE-1` entry of `bytes` for local display `number` (or any display)
  /// of `host` (or any host), as `XauGetBestAuthByAddr` chooses; a truncated entry ends the search.
  public static func cookie(in bytes: [UInt8], display number: Int, host: String) -> Cookie? {
    var offset = 0
    func field() -> [UInt8]? {
      guard offset + 2 <= bytes.count else { return nil }
      let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
      guard offset + 2 + length <= bytes.count else { return nil }
      defer { offset += 2 + length }
      return Array(bytes[(offset + 2)..<(offset + 2 + length)])
    }
    let wantedHost = Array(host.utf8)
    let wantedNumber = Array(String(number).utf8)
    while offset + 2 <= bytes.count {
      let family = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
      offset += 2
      guard let address = field(), let displayNumber = field(), let name = field(), let data = field() else {
        return nil
      }
      let hostMatches = family == familyWild || (family == familyLocal && address == wantedHost)
      let numberMatches = displayNumber.isEmpty || displayNumber == wantedNumber
      if hostMatches, numberMatches, name == magicCookie { return Cookie(name: name, data: data) }
    }
    return nil
  }
}
