import Dispatch
import NotifyPosix
import NotifySupport

#if canImport(Glibc)
  import Glibc
#endif

/// notifyd's client of speech-dispatcher (DESIGN §18): what is to be said of a notice as its card
/// shows, said over SSIP, the Speech Synthesis Interface Protocol, on speech-dispatcher's Unix
/// socket. A critical notice asks priority `important`, which interrupts what is being said;
/// others `message`, which waits its turn.
///
/// The connection is made at the first utterance and kept; each command is answered before the
/// next is sent, within `replyTimeout`. When speech-dispatcher cannot be reached or stops
/// answering, the connection is dropped, said once in the log, and tried again at an utterance no
/// sooner than `retryInterval` after; what was to be said meanwhile is dropped (a notice said
/// minutes after it showed would mislead). At most `maximumWaiting` utterances wait their turn.
///
/// - Important: everything mutable belongs to `queue`.
public final class SpeechDispatcher: @unchecked Sendable {
  // @unchecked: every mutable property is touched only on `queue`.
  public let path: String
  private let log: Logger
  private let queue = DispatchQueue(label: "notifyd.speech")
  private var fd: Int32 = -1
  /// The priority the connection was last set to.
  private var priority: String?
  private var waiting: [(text: String, critical: Bool)] = []
  /// When speech-dispatcher last failed (`Posix.monotonicNow()`), while it does.
  private var failedAt: Double?
  /// Read ahead of the reply being read.
  private var buffer: [UInt8] = []

  /// Utterances held while speech-dispatcher does not answer, at most.
  public static let maximumWaiting = 32
  /// Seconds before a speech-dispatcher that failed is tried again.
  public static let retryInterval = 5.0
  /// Seconds speech-dispatcher has to answer a command.
  public static let replyTimeout = 2.0
  /// The longest reply line read.
  static let maximumLine = 4096

  /// A client of the speech-dispatcher at `path`.
  public init(path: String, log: Logger) {
    self.path = path
    self.log = log
  }

  deinit { if fd >= 0 { Glibc.close(fd) } }

  /// Where speech-dispatcher listens: `configured` (`[Speech] Socket=`), else the path
  /// `SPEECHD_ADDRESS` names (`unix_socket:PATH`), else `$XDG_RUNTIME_DIR/speech-dispatcher/speechd.sock`;
  /// nil when none is known (an `inet_socket` address is not one notifyd speaks to).
  public static func socketPath(configured: String?, environment: [String: String]) -> String? {
    if let configured, !configured.isEmpty { return configured }
    if let address = environment["SPEECHD_ADDRESS"], !address.isEmpty {
      let prefix = "unix_socket:"
      guard address.hasPrefix(prefix) else { return nil }
      let path = String(address.dropFirst(prefix.count))
      if !path.isEmpty { return path }
    }
    guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return nil }
    return runtime + "/speech-dispatcher/speechd.sock"
  }

  /// Says `text`; interrupting what is being said when `critical`. Returns at once.
  public func speak(_ text: String, critical: Bool) {
    queue.async { [self] in
      waiting.append((text, critical))
      if waiting.count > Self.maximumWaiting { waiting.removeFirst(waiting.count - Self.maximumWaiting) }
      flush()
    }
  }

  /// Closes the connection; waits until it is closed.
  public func stop() {
    queue.sync {
      waiting = []
      disconnect()
    }
  }

  /// Sends what waits, while speech-dispatcher answers.
  private func flush() {
    if let failedAt, Posix.monotonicNow() - failedAt < Self.retryInterval {
      waiting = []
      return
    }
    while let next = waiting.first {
      do throws(SpeechError) {
        try say(next.text, priority: next.critical ? "important" : "message")
        waiting.removeFirst()
        if failedAt != nil {
          failedAt = nil
          log.info("speech: speech-dispatcher at \(path) answers again")
        }
      } catch {
        disconnect()
        if failedAt == nil {
          log.notice(
            "speech: speech-dispatcher at \(path): \(error); notices are not spoken until it answers")
        }
        failedAt = Posix.monotonicNow()
        waiting = []
        return
      }
    }
  }

  // MARK: - SSIP

  private func say(_ text: String, priority wanted: String) throws(SpeechError) {
    if fd < 0 { try connect() }
    if priority != wanted {
      try command("SET SELF PRIORITY \(wanted)")
      priority = wanted
    }
    try command("SPEAK", expecting: 230)
    try send(Self.message(text))
    let code = try readReply()
    guard code == 225 else { throw .refused("SPEAK", code) }
  }

  /// SSIP's message body: the text's lines, a line that begins with a dot given a second one, and
  /// a line of one dot at the end; answered 225 (queued).
  static func message(_ text: String) -> String {
    var body = ""
    for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
      body += (line.hasPrefix(".") ? "." : "") + line + "\r\n"
    }
    return body + ".\r\n"
  }

  private func connect() throws(SpeechError) {
    do {
      fd = try Posix.unixStreamSocket(blocking: true)
      var timeout = timeval(tv_sec: Int(Self.replyTimeout), tv_usec: 0)
      for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
        _ = setsockopt(fd, SOL_SOCKET, option, &timeout, socklen_t(MemoryLayout<timeval>.size))
      }
      try Posix.connect(fd, path: path)
    } catch {
      throw .unreachable("\(error)")
    }
    buffer = []
    priority = nil
    try command("SET SELF CLIENT_NAME \(Self.clientName)")
  }

  /// How notifyd names itself to speech-dispatcher (`user:application:component`).
  static let clientName = "user:notifyd:notices"

  private func disconnect() {
    if fd >= 0 { Glibc.close(fd) }
    fd = -1
    priority = nil
    buffer = []
  }

  /// Sends `line` and reads the reply: its last line's code must be 2xx (or `expecting`).
  private func command(_ line: String, expecting: Int? = nil) throws(SpeechError) {
    try send(line + "\r\n")
    let code = try readReply()
    if let expecting { guard code == expecting else { throw .refused(line, code) } }
    guard (200..<300).contains(code) else { throw .refused(line, code) }
  }

  private func send(_ text: String) throws(SpeechError) {
    let bytes = Array(text.utf8)
    let fd = fd
    let sent: Result<Void, SystemError> = bytes.withUnsafeBytes { raw in
      do throws(SystemError) {
        try Posix.sendAll(fd, raw)
        return .success(())
      } catch {
        return .failure(error)
      }
    }
    if case .failure(let error) = sent { throw .unreachable("\(error)") }
  }

  /// Reads a reply's lines (`NNN-…` continued, `NNN …` last); answers the last line's code.
  private func readReply() throws(SpeechError) -> Int {
    while true {
      let line = try readLine()
      let digits = line.prefix(3)
      guard digits.count == 3, let code = Int(digits) else { throw .garbled(line) }
      if line.count == 3 || line.dropFirst(3).first == " " { return code }
      guard line.dropFirst(3).first == "-" else { throw .garbled(line) }
    }
  }

  private func readLine() throws(SpeechError) -> String {
    while true {
      if let end = buffer.firstIndex(of: 10) {
        var line = Array(buffer[..<end])
        buffer.removeSubrange(...end)
        if line.last == 13 { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
      }
      guard buffer.count < Self.maximumLine else {
        throw .garbled("a line longer than \(Self.maximumLine) bytes")
      }
      var chunk = [UInt8](repeating: 0, count: 1024)
      let fd = fd
      let received: Result<Posix.Transfer, SystemError> = chunk.withUnsafeMutableBytes { raw in
        do throws(SystemError) {
          return .success(try Posix.receive(fd, into: raw))
        } catch {
          return .failure(error)
        }
      }
      let transfer: Posix.Transfer
      switch received {
      case .success(let value): transfer = value
      case .failure(let error): throw .unreachable("\(error)")
      }
      switch transfer {
      case .bytes(let count): buffer += chunk[..<count]
      case .endOfFile: throw .unreachable("it closed the connection")
      case .wouldBlock: throw .unreachable("no answer within \(Int(Self.replyTimeout)) s")
      }
    }
  }
}

/// Why speech-dispatcher said nothing.
enum SpeechError: Error, CustomStringConvertible {
  case unreachable(String)
  case refused(String, Int)
  case garbled(String)

  var description: String {
    switch self {
    case .unreachable(let why): "not reachable (\(why))"
    case .refused(let command, let code): "\(command) refused (\(code))"
    case .garbled(let line): "an answer not in SSIP: \(line)"
    }
  }
}
