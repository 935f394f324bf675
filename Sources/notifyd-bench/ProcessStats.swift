import NotifyPosix

#if canImport(Glibc)
  import Glibc
#endif

/// Figures about another process read from `/proc`.
enum ProcessStats {
  /// Clock ticks per second of the `utime`/`stime` fields; wraps `sysconf(_SC_CLK_TCK)`.
  static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

  /// CPU seconds (user + system, all threads, living and exited) of process `pid`, from
  /// `/proc/PID/stat`.
  static func cpuSeconds(_ pid: pid_t) -> Double? {
    guard let text = readFile("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
    // Fields after the command name: state is field 3; utime and stime are fields 14 and 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
      return nil
    }
    return (user + system) / ticksPerSecond
  }

  /// CPU time of every thread of `pid` now, in seconds, to the nanosecond: the sum of the first
  /// field of `/proc/PID/task/*/schedstat` (time on a CPU). Threads that exited are not counted,
  /// so it suits short windows in which none does.
  static func cpuSecondsPrecise(_ pid: pid_t) -> Double {
    directoryEntries("/proc/\(pid)/task").reduce(0) { total, task in
      let field = readFile("/proc/\(pid)/task/\(task)/schedstat")?.split(separator: " ").first
      return total + (field.flatMap { Double($0) } ?? 0) / 1e9
    }
  }

  /// Resident memory of `pid` in bytes (`VmRSS` of `/proc/PID/status`).
  static func residentBytes(_ pid: pid_t) -> Int? { statusBytes(pid, "VmRSS:") }

  /// The most resident memory `pid` has had, in bytes (`VmHWM`, the high-water mark).
  static func peakResidentBytes(_ pid: pid_t) -> Int? { statusBytes(pid, "VmHWM:") }

  /// A field of `/proc/PID/status` given in kB, in bytes.
  private static func statusBytes(_ pid: pid_t, _ field: String) -> Int? {
    guard let text = readFile("/proc/\(pid)/status") else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix(field) {
      let number = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
      return number.map { $0 * 1024 }
    }
    return nil
  }

  /// Voluntary plus involuntary context switches of each thread of `pid`, by thread id
  /// (`/proc/PID/task/*/status`).
  static func contextSwitchesByThread(_ pid: pid_t) -> [String: Int] {
    var result: [String: Int] = [:]
    for task in directoryEntries("/proc/\(pid)/task") {
      guard let text = readFile("/proc/\(pid)/task/\(task)/status") else { continue }
      var total = 0
      for line in text.split(separator: "\n")
      where line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
        total += line.split(separator: "\t").last.flatMap { Int($0.trimmingSpaces) } ?? 0
      }
      result[task] = total
    }
    return result
  }

  /// Context switches of `pid` between two `contextSwitchesByThread` readings: each thread's own,
  /// and one for each thread that came or went (it woke at least once); and how many went.
  static func switches(from before: [String: Int], to after: [String: Int]) -> (switches: Int, exited: Int) {
    var total = 0
    for (thread, count) in after { total += count - (before[thread] ?? 0) }
    let exited = before.keys.filter { after[$0] == nil }.count
    return (total + exited, exited)
  }

  /// The whole contents of a small file; wraps `open(2)` and `read(2)`.
  static func readFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 8192)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      if count <= 0 { break }
      bytes.append(contentsOf: chunk[0..<count])
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The names in a directory, without `.` and `..`; wraps `opendir(3)`.
  static func directoryEntries(_ path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }
}
