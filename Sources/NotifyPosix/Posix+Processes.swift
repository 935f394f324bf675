import CLinux

#if canImport(Glibc)
  import Glibc
#endif

extension Posix {
  /// How a child process ended, decoded from a `waitpid(2)` status.
  public enum Termination: Sendable, Equatable {
    /// It called `exit` with this status.
    case exited(Int32)
    /// A signal killed it.
    case killed(signal: Int32)

    /// Decodes a `waitpid(2)` status (what the `WIFEXITED`, `WEXITSTATUS` and `WTERMSIG` macros do).
    public init(waitStatus status: Int32) {
      let signal = status & 0x7f
      self = signal == 0 ? .exited((status >> 8) & 0xff) : .killed(signal: signal)
    }

    /// The status a shell reports for it: the exit status, or 128 + the signal.
    public var exitStatus: Int32 {
      switch self {
      case .exited(let status): return status
      case .killed(let signal): return 128 + signal
      }
    }
  }

  /// What a child starts with besides its arguments.
  public struct SpawnOptions {
    /// Where the child's standard input comes from.
    public enum Input: Sendable {
      case inherited
      case null
      /// This descriptor of the caller's (the read end of a pipe).
      case descriptor(Int32)
    }

    /// Where the child's standard output and standard error go.
    public enum Output: Sendable {
      case inherited
      case null
      /// Both appended to the file at this path, which is made (mode 0644) if missing.
      case appending(to: String)
      /// Standard output to this descriptor of the caller's (the write end of a pipe); standard
      /// error inherited.
      case standardOutput(Int32)
    }

    /// Look the program up in `PATH` (`posix_spawnp`) rather than take it as a path.
    public var searchesPath = false
    /// The child's environment; `nil` passes on the caller's.
    public var environment: [String: String]?
    public var input = Input.inherited
    public var output = Output.inherited
    /// Close every descriptor but the standard three in the child: those a library opened without
    /// close-on-exec too.
    public var closesOtherDescriptors = false
    /// Start the child in a process group of its own, so that it and its children can be killed
    /// together (`kill(-pid, …)`).
    public var newProcessGroup = false
    /// Signals whose action is set back to the default in the child (an ignored `SIGPIPE` would
    /// otherwise be inherited).
    public var defaultSignals: [Int32] = []
    /// The child's signal mask; `nil` keeps the caller's.
    public var signalMask: sigset_t?

    public init() {}
  }

  /// Starts `arguments[0]` with `arguments` as its argv; answers its process id. Wraps
  /// `posix_spawn(3)` (`posix_spawnp(3)` with `searchesPath`); the error names the call.
  public static func spawn(_ arguments: [String], _ options: SpawnOptions = SpawnOptions())
    throws(SystemError)
    -> pid_t
  {
    precondition(!arguments.isEmpty, "a child needs a program")
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    switch options.input {
    case .inherited: break
    case .null: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, 0)
    }
    switch options.output {
    case .inherited: break
    case .null:
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
      posix_spawn_file_actions_adddup2(&actions, 1, 2)
    case .appending(let path):
      posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
      posix_spawn_file_actions_adddup2(&actions, 1, 2)
    case .standardOutput(let fd):
      posix_spawn_file_actions_adddup2(&actions, fd, 1)
    }
    if options.closesOtherDescriptors { posix_spawn_file_actions_addclosefrom_np(&actions, 3) }

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var flags: Int32 = 0
    if options.newProcessGroup {
      flags |= POSIX_SPAWN_SETPGROUP
      posix_spawnattr_setpgroup(&attributes, 0)
    }
    if !options.defaultSignals.isEmpty {
      flags |= POSIX_SPAWN_SETSIGDEF
      var defaults = sigset_t()
      sigemptyset(&defaults)
      for signalNumber in options.defaultSignals { sigaddset(&defaults, signalNumber) }
      posix_spawnattr_setsigdefault(&attributes, &defaults)
    }
    if var mask = options.signalMask {
      flags |= POSIX_SPAWN_SETSIGMASK
      posix_spawnattr_setsigmask(&attributes, &mask)
    }
    posix_spawnattr_setflags(&attributes, Int16(flags))

    let argv = arguments.map(cString) + [nil]
    let envp = options.environment.map { $0.map { cString("\($0.key)=\($0.value)") } + [nil] }
    defer {
      for pointer in argv { pointer?.deallocate() }
      for pointer in envp ?? [] { pointer?.deallocate() }
    }
    var pid: pid_t = 0
    let result: Int32
    if let envp {
      result =
        options.searchesPath
        ? posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        : posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
    } else {
      result =
        options.searchesPath
        ? posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        : posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
    }
    guard result == 0 else {
      throw SystemError(
        options.searchesPath ? "posix_spawnp \(arguments[0])" : "posix_spawn \(arguments[0])", errno: result)
    }
    return pid
  }

  /// A NUL-terminated copy of `text` for an argv or envp, freed with `deallocate()`. (Not
  /// `strdup`: its memory and the sanitizers' `free` need not agree.)
  private static func cString(_ text: String) -> UnsafeMutablePointer<CChar>? {
    let bytes = Array(text.utf8CString)
    let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
    copy.initialize(from: bytes, count: bytes.count)
    return copy
  }

  /// How child `pid` ended, if it has: `waitpid(2)` with `WNOHANG`; `nil` while it runs.
  public static func reap(_ pid: pid_t) throws(SystemError) -> Termination? {
    var status: Int32 = 0
    while true {
      let result = waitpid(pid, &status, WNOHANG)
      if result == pid { return Termination(waitStatus: status) }
      if result == 0 { return nil }
      guard errno == EINTR else { throw SystemError("waitpid") }
    }
  }

  /// Waits for child `pid` to end: `waitpid(2)`.
  public static func waitForExit(_ pid: pid_t) throws(SystemError) -> Termination {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      guard errno == EINTR else { throw SystemError("waitpid") }
    }
    return Termination(waitStatus: status)
  }

  /// Sends `signal` to process `pid` (a negative `pid`: its process group): `kill(2)`. A process
  /// that has gone is no error.
  public static func sendSignal(_ signal: Int32, to pid: pid_t) {
    _ = kill(pid, signal)
  }

  // MARK: - Signals

  /// A signal set holding `signals`: `sigemptyset(3)`, `sigaddset(3)`.
  public static func signalSet(_ signals: [Int32]) -> sigset_t {
    var set = sigset_t()
    sigemptyset(&set)
    for signalNumber in signals { sigaddset(&set, signalNumber) }
    return set
  }

  /// Blocks `signals` in the calling thread, and in every thread it starts from now on:
  /// `pthread_sigmask(3)`.
  public static func blockSignals(_ signals: sigset_t) {
    var set = signals
    pthread_sigmask(SIG_BLOCK, &set, nil)
  }

  /// Waits for one of `signals`, blocked in every thread, and answers it: `sigwait(3)`.
  public static func waitForSignal(_ signals: sigset_t) -> Int32 {
    var set = signals
    while true {
      var signalNumber: Int32 = 0
      if sigwait(&set, &signalNumber) == 0 { return signalNumber }
    }
  }

  /// Sleeps for `seconds`, however many signals come: `nanosleep(2)`.
  public static func sleep(_ seconds: Double) {
    let whole = seconds.rounded(.down)
    var request = timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
  }
}

extension Posix {
  // MARK: - Shared memory

  /// `size` bytes of memory another process can map through the descriptor answered (a Wayland
  /// compositor reading a frame): `memfd_create(2)` with `MFD_CLOEXEC`, `ftruncate(2)`, and
  /// `mmap(2)` shared, read and write. The caller closes the descriptor once it has handed it on,
  /// and `unmap`s the memory.
  public static func sharedMemory(named name: String, size: Int) throws(SystemError)
    -> (descriptor: Int32, memory: UnsafeMutableRawPointer)
  {
    let descriptor = CLinux.memfd_create(name, notifyd_MFD_CLOEXEC)
    guard descriptor >= 0 else { throw SystemError("memfd_create") }
    guard ftruncate(descriptor, off_t(size)) == 0 else {
      let error = SystemError("ftruncate")
      _ = Glibc.close(descriptor)
      throw error
    }
    guard let memory = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
      memory != MAP_FAILED
    else {
      let error = SystemError("mmap")
      _ = Glibc.close(descriptor)
      throw error
    }
    return (descriptor, memory)
  }

  /// The first `size` bytes another process shares through `descriptor` (a Wayland keymap), read
  /// through `mmap(2)` private and read-only, at most `limit`; `nil` when it cannot be mapped.
  public static func readShared(_ descriptor: Int32, size: Int, limit: Int = 1 << 20) -> [UInt8]? {
    guard size > 0, size <= limit, let memory = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0),
      memory != MAP_FAILED
    else { return nil }
    defer { munmap(memory, size) }
    return Array(UnsafeRawBufferPointer(start: memory, count: size))
  }

  /// `munmap(2)` of what `sharedMemory` mapped.
  public static func unmap(_ memory: UnsafeMutableRawPointer, size: Int) {
    _ = munmap(memory, size)
  }
}
