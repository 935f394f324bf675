import Glibc

/// Why a command could not be started.
public struct SpawnError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The program that was to run.
  public var program: String
  /// What `posix_spawnp(3)` returned (`SystemError.errno`).
  public var errno: Int32

  public var description: String {
    "cannot run '\(program)': \(String(cString: strerror(errno)))"
  }

  /// The status a shell uses for it: 127 when the program was not found, else 126.
  public var exitStatus: Int32 { errno == ENOENT ? 127 : 126 }
}
