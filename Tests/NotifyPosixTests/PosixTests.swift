import Glibc
import Testing

@testable import NotifyPosix

/// The system-call seam against the real kernel: processes, signals, shared memory, files and
/// sockets, each through the wrapper the daemon and `notifyctl` use.
@Suite("Posix")
struct PosixTests {
  /// A directory of the test's own, removed afterwards.
  private final class Scratch {
    let path: String
    init() {
      var template = Array("/tmp/notifyd-posix-XXXXXX".utf8CString)
      path = String(cString: mkdtemp(&template)!)
    }
    deinit {
      var options = Posix.SpawnOptions()
      options.output = .null
      if let pid = try? Posix.spawn(["/bin/rm", "-rf", path], options) { _ = try? Posix.waitForExit(pid) }
    }
  }

  private func text(_ path: String) -> String {
    String(decoding: Posix.readFile(path) ?? [], as: UTF8.self)
  }

  // MARK: - Processes

  @Test(arguments: [
    (0x0200 as Int32, Posix.Termination.exited(2)), (0, .exited(0)), (0x0f, .killed(signal: 15)),
    (0x8b, .killed(signal: 11)),  // a core dump sets 0x80
  ])
  func termination_decodesWaitStatus(status: Int32, expected: Posix.Termination) {
    #expect(Posix.Termination(waitStatus: status) == expected)
  }

  @Test func spawn_runsTheProgram_andWaitAnswersItsExitStatus() throws {
    let pid = try Posix.spawn(["/bin/sh", "-c", "exit 7"])
    #expect(try Posix.waitForExit(pid) == .exited(7))
    #expect(Posix.Termination.exited(7).exitStatus == 7)
  }

  @Test func spawn_searchesPath_onlyWhenAsked() throws {
    #expect(throws: SystemError.self) { try Posix.spawn(["true"]) }
    var options = Posix.SpawnOptions()
    options.searchesPath = true
    let pid = try Posix.spawn(["true"], options)
    #expect(try Posix.waitForExit(pid) == .exited(0))
  }

  @Test func spawn_ofAMissingProgram_namesTheCallAndTheProgram() {
    do {
      _ = try Posix.spawn(["/nonexistent/program"])
      Issue.record("a missing program started")
    } catch {
      #expect(error.errno == ENOENT)
      #expect(error.call == "posix_spawn /nonexistent/program")
    }
  }

  @Test func spawn_passesTheEnvironment_andSendsOutputToTheFile() throws {
    let scratch = Scratch()
    var options = Posix.SpawnOptions()
    options.environment = ["GREETING": "hello", "PATH": "/usr/bin:/bin"]
    options.output = .appending(to: "\(scratch.path)/out")
    for _ in 0..<2 {
      let pid = try Posix.spawn(["/bin/sh", "-c", "echo $GREETING; echo $HOME >&2"], options)
      #expect(try Posix.waitForExit(pid) == .exited(0))
    }
    // stderr goes with stdout; the variable the environment lacks is empty; the file is appended to.
    #expect(text("\(scratch.path)/out") == "hello\n\nhello\n\n")
  }

  @Test func spawn_closesOtherDescriptors_andGivesNullInput() throws {
    let scratch = Scratch()
    let (read, write) = try Posix.pipe()
    defer {
      Posix.close(read)
      Posix.close(write)
    }
    // The pipe is close-on-exec; a descriptor without the flag is what closefrom must catch.
    let leaked = dup(write)
    defer { Posix.close(leaked) }
    let script = "ls /proc/self/fd > \(scratch.path)/fds; cat > \(scratch.path)/input"
    var options = Posix.SpawnOptions()
    options.input = .null
    let inherited = try Posix.spawn(["/bin/sh", "-c", script], options)
    #expect(try Posix.waitForExit(inherited) == .exited(0))
    #expect(text("\(scratch.path)/fds").split(separator: "\n").contains(Substring("\(leaked)")))
    #expect(text("\(scratch.path)/input").isEmpty)

    options.closesOtherDescriptors = true
    let closed = try Posix.spawn(["/bin/sh", "-c", script], options)
    #expect(try Posix.waitForExit(closed) == .exited(0))
    #expect(!text("\(scratch.path)/fds").split(separator: "\n").contains(Substring("\(leaked)")))
  }

  @Test func spawn_inAProcessGroupOfItsOwn_isKilledWithItsChildren() throws {
    var options = Posix.SpawnOptions()
    options.newProcessGroup = true
    let pid = try Posix.spawn(["/bin/sh", "-c", "sleep 60 & sleep 60; exit 0"], options)
    #expect(getpgid(pid) == pid)
    #expect(try Posix.reap(pid) == nil)
    Posix.sendSignal(SIGKILL, to: -pid)
    #expect(try Posix.waitForExit(pid) == .killed(signal: SIGKILL))
  }

  @Test func spawn_withDefaultSignals_undoesAnIgnoredSignal() throws {
    // The test process ignores SIGPIPE as the daemon does; a child asked to have it by default dies
    // of it, one that inherits the ignored action does not.
    Posix.ignoreSIGPIPE()
    let script = "kill -PIPE $$; exit 3"
    let inherited = try Posix.spawn(["/bin/sh", "-c", script])
    #expect(try Posix.waitForExit(inherited) == .exited(3))
    var options = Posix.SpawnOptions()
    options.defaultSignals = [SIGPIPE]
    let reset = try Posix.spawn(["/bin/sh", "-c", script], options)
    #expect(try Posix.waitForExit(reset) == .killed(signal: SIGPIPE))
  }

  @Test func spawn_withASignalMask_startsTheChildWithIt() throws {
    let scratch = Scratch()
    var options = Posix.SpawnOptions()
    options.signalMask = Posix.signalSet([SIGUSR1])
    options.output = .appending(to: "\(scratch.path)/status")
    let pid = try Posix.spawn(["/bin/grep", "SigBlk", "/proc/self/status"], options)
    #expect(try Posix.waitForExit(pid) == .exited(0))
    // SIGUSR1 is signal 10: bit 9 of the mask.
    let mask = text("\(scratch.path)/status").split(separator: "\t").last.map { $0.trimmingSuffix("\n") }
    #expect(
      mask.flatMap { UInt64($0, radix: 16) }.map { $0 & (1 << 9) != 0 } == true,
      "\(text("\(scratch.path)/status"))")
  }

  @Test func reap_answersNilWhileTheChildRuns_thenHowItEnded() throws {
    // An empty mask: the test runner's threads may block signals.
    var options = Posix.SpawnOptions()
    options.signalMask = Posix.signalSet([])
    let pid = try Posix.spawn(["/bin/sleep", "60"], options)
    #expect(try Posix.reap(pid) == nil)
    Posix.sendSignal(SIGTERM, to: pid)
    var ended: Posix.Termination?
    for _ in 0..<1000 where ended == nil {
      ended = try Posix.reap(pid)
      if ended == nil { Posix.sleep(0.005) }
    }
    #expect(ended == .killed(signal: SIGTERM))
    // Reaped: the pid is no child any more.
    #expect(throws: SystemError.self) { try Posix.reap(pid) }
  }

  @Test func sleep_sleepsAtLeastAsLongAsAsked() {
    let start = Posix.monotonicNow()
    Posix.sleep(0.05)
    #expect(Posix.monotonicNow() - start >= 0.05)
  }

  @Test func signalSet_holdsExactlyItsSignals() {
    var set = Posix.signalSet([SIGTERM, SIGHUP])
    #expect(sigismember(&set, SIGTERM) == 1 && sigismember(&set, SIGHUP) == 1)
    #expect(sigismember(&set, SIGINT) == 0)
  }

  // MARK: - Shared memory

  @Test func sharedMemory_isSeenThroughItsDescriptor() throws {
    let (descriptor, memory) = try Posix.sharedMemory(named: "notifyd-test", size: 4096)
    defer {
      Posix.unmap(memory, size: 4096)
      Posix.close(descriptor)
    }
    memory.storeBytes(of: 0x1234_5678 as UInt32, toByteOffset: 100, as: UInt32.self)
    #expect(try Posix.status(descriptor).st_size == 4096)
    #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0)
    var read: UInt32 = 0
    #expect(pread(descriptor, &read, 4, 100) == 4)
    #expect(read == 0x1234_5678)
  }

  // MARK: - Files and descriptors

  @Test func readFile_stopsAtItsLimit_andAnswersNilForWhatCannotOpen() throws {
    let scratch = Scratch()
    let fd = try Posix.open("\(scratch.path)/f", O_WRONLY | O_CREAT)
    try Posix.replaceContents(fd, with: Array(repeating: 65, count: 1000))
    Posix.close(fd)
    #expect(Posix.readFile("\(scratch.path)/f")?.count == 1000)
    #expect(Posix.readFile("\(scratch.path)/f", limit: 10)?.count == 10)
    #expect(Posix.readFile("/dev/zero", limit: 100_000)?.count == 100_000)
    #expect(Posix.readFile("\(scratch.path)/missing") == nil)
  }

  @Test func makeDirectories_makesEveryParent_andCreatePrivateFileIsTheOwnersAlone() throws {
    let scratch = Scratch()
    try Posix.makeDirectories("\(scratch.path)/a/b/c")
    #expect(Posix.fileType("\(scratch.path)/a/b/c") == S_IFDIR)
    try Posix.makeDirectories("\(scratch.path)/a/b/c")  // again: no error
    let old = Posix.umask(0)
    defer { Posix.umask(old) }
    try Posix.createPrivateFile("\(scratch.path)/a/secret")
    #expect(Posix.fileType("\(scratch.path)/a/secret") == S_IFREG)
    let fd = try Posix.open("\(scratch.path)/a/secret", O_RDONLY)
    defer { Posix.close(fd) }
    #expect(try Posix.status(fd).st_mode & 0o777 == 0o600)
    #expect(Set(Posix.entries(ofDirectory: "\(scratch.path)/a")) == ["b", "secret"])
  }

  @Test func unlink_ofAMissingFile_isNoError_butOpenNamesThePath() {
    #expect(throws: Never.self) { try Posix.unlink("/tmp/notifyd-no-such-file-\(getpid())") }
    #expect(throws: SystemError("open /nonexistent/x", errno: ENOENT)) {
      try Posix.open("/nonexistent/x", O_RDONLY)
    }
  }

  @Test func pipe_isNonBlocking_andReadsWhatWasWritten() throws {
    let (read, write) = try Posix.pipe()
    defer {
      Posix.close(read)
      Posix.close(write)
    }
    var buffer = [UInt8](repeating: 0, count: 16)
    #expect(try buffer.withUnsafeMutableBytes { try Posix.read(read, into: $0) } == .wouldBlock)
    try [UInt8]("hi".utf8).withUnsafeBytes { try Posix.writeAll(write, $0) }
    #expect(try buffer.withUnsafeMutableBytes { try Posix.read(read, into: $0) } == .bytes(2))
    Posix.close(write)
    let (_, second) = try Posix.pipe()
    defer { Posix.close(second) }
  }

  @Test func socketPair_carriesBytes_andTellsWhenThePeerHasGone() throws {
    let (one, other) = try Posix.socketPair()
    defer { Posix.close(one) }
    #expect(try [UInt8]("ping".utf8).withUnsafeBytes { try Posix.send(one, $0) } == .bytes(4))
    var buffer = [UInt8](repeating: 0, count: 8)
    #expect(
      try buffer.withUnsafeMutableBytes { try Posix.receive(other, into: $0, wait: false) } == .bytes(4))
    #expect(try Posix.peerUID(one) == getuid())
    #expect(!Posix.peerHasClosed(one))
    Posix.close(other)
    // A child another test is spawning meanwhile holds a copy of every descriptor until its exec.
    let deadline = Posix.monotonicNow() + 5
    while !Posix.peerHasClosed(one), Posix.monotonicNow() < deadline { Posix.sleep(0.001) }
    #expect(Posix.peerHasClosed(one))
    #expect(Posix.hungUp([one]) == [one])
  }

  @Test func eventCounter_wakesAPoll_andDrains() throws {
    let counter = try Posix.eventCounter()
    defer { Posix.close(counter) }
    var descriptors = [pollfd(fd: counter, events: Int16(POLLIN), revents: 0)]
    #expect(try Posix.poll(&descriptors, timeout: 0) == 0)
    Posix.signalEventCounter(counter)
    Posix.signalEventCounter(counter)
    #expect(try Posix.poll(&descriptors, timeout: 0) == 1)
    Posix.drainEventCounter(counter)
    #expect(try Posix.poll(&descriptors, timeout: 0) == 0)
  }
}

extension Substring {
  fileprivate func trimmingSuffix(_ suffix: String) -> Substring {
    hasSuffix(suffix) ? dropLast(suffix.count) : self
  }
}

/// inotify on a real directory: what the session follower hears of display sockets.
@Suite("Posix inotify")
struct InotifyTests {
  @Test("a name made and removed in a watched directory is reported with its name and what happened")
  func createdAndRemoved() throws {
    var template = Array("/tmp/notifyd-inotify-XXXXXX".utf8CString)
    let directory = String(cString: mkdtemp(&template)!)
    defer { rmdir(directory) }
    let inotify = try Posix.inotifyCreate()
    defer { Posix.close(inotify) }
    let watch = try Posix.watchDirectory(inotify, directory)
    let path = directory + "/wayland-1"
    close(open(path, O_CREAT | O_WRONLY, 0o600))
    unlink(path)
    var buffer = [UInt8](repeating: 0, count: 4096)
    let transfer = try buffer.withUnsafeMutableBytes { try Posix.read(inotify, into: $0) }
    guard case .bytes(let count) = transfer else {
      Issue.record("no events: \(transfer)")
      return
    }
    let events = buffer.withUnsafeBytes {
      Posix.directoryEvents(in: UnsafeRawBufferPointer(rebasing: $0[..<count]))
    }
    #expect(events.map(\.name) == ["wayland-1", "wayland-1"])
    #expect(events.allSatisfy { $0.watch == watch })
    #expect(events[0].mask & Posix.entryCreated != 0)
    #expect(events[1].mask & Posix.entryRemoved != 0)
    // A truncated event ends the list rather than reading past the buffer.
    let truncated = buffer.withUnsafeBytes {
      Posix.directoryEvents(in: UnsafeRawBufferPointer(rebasing: $0[..<(count - 1)]))
    }
    #expect(truncated.count == 1)
    #expect(throws: SystemError.self) { try Posix.watchDirectory(inotify, directory + "/missing") }
  }
}
