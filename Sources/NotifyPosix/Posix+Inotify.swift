import CLinux

#if canImport(Glibc)
  import Glibc
#endif

extension Posix {
  /// One `inotify(7)` event: the watch it came from, what happened (`IN_CREATE`, …) and the name
  /// in the watched directory it happened to.
  public struct DirectoryEvent: Equatable, Sendable {
    public var watch: Int32
    public var mask: UInt32
    public var name: String

    public init(watch: Int32, mask: UInt32, name: String) {
      self.watch = watch
      self.mask = mask
      self.name = name
    }
  }

  /// What a directory watch is told of: a name made in it (or moved in) and one removed (or moved
  /// out).
  public static let entryCreated = UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)
  public static let entryRemoved = UInt32(IN_DELETE) | UInt32(IN_MOVED_FROM)
  /// The watched directory itself went (`IN_IGNORED` follows).
  public static let watchEnded = UInt32(IN_IGNORED) | UInt32(IN_DELETE_SELF)
  /// The kernel's queue overflowed: events were lost (the watch is -1).
  public static let queueOverflowed = UInt32(IN_Q_OVERFLOW)

  /// `inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`.
  public static func inotifyCreate() throws(SystemError) -> Int32 {
    let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    guard fd >= 0 else { throw SystemError("inotify_init1") }
    return fd
  }

  /// `inotify_add_watch(2)` of directory `path` for names created and removed in it.
  public static func watchDirectory(_ inotify: Int32, _ path: String) throws(SystemError) -> Int32 {
    let watch = inotify_add_watch(
      inotify, path, entryCreated | entryRemoved | UInt32(IN_DELETE_SELF) | UInt32(IN_ONLYDIR))
    guard watch >= 0 else { throw SystemError("inotify_add_watch \(path)") }
    return watch
  }

  /// `inotify_rm_watch(2)`.
  public static func removeWatch(_ inotify: Int32, _ watch: Int32) {
    _ = inotify_rm_watch(inotify, watch)
  }

  /// The events in `bytes`, as `read(2)` of an inotify descriptor gives them (each a
  /// `struct inotify_event` and its name padded with NULs); a truncated one ends the list.
  public static func directoryEvents(in bytes: UnsafeRawBufferPointer) -> [DirectoryEvent] {
    let header = MemoryLayout<inotify_event>.size
    var events: [DirectoryEvent] = []
    var offset = 0
    while offset + header <= bytes.count {
      let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
      let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
      let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
      guard offset + header + length <= bytes.count else { break }
      let name = bytes[(offset + header)..<(offset + header + length)].prefix { $0 != 0 }
      events.append(DirectoryEvent(watch: watch, mask: mask, name: String(decoding: name, as: UTF8.self)))
      offset += header + length
    }
    return events
  }
}
