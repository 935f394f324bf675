import FoundationEssentials
import Glibc
import NotifyNATS
import NotifyPaths
import NotifyPosix
import NotifyProtocol

/// `notifyctl --relay URL show …` (DESIGN §10): publishes one notice through the relay, with no
/// daemon on this host, as a publishing daemon would; with `--wait`, waits for the desk's answer.
///
/// How to sign in and where to publish come from the `[Relay]` section of the config file notifyd
/// would read (`Credentials=`, `User=` + `PasswordFile=`, `TokenFile=`, `TLSCA=`, `Subject=`,
/// `Host=`), so one file serves both; the servers are `--relay`'s.
struct RelayShow {
  var urls: [String]
  var console: any Console
  var environment: (String) -> String?
  /// The current time in seconds since the epoch: when the notice was sent.
  var now: () -> Double = { Date().timeIntervalSince1970 }

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  func run(_ parameters: ShowParameters, wait: Bool) throws -> ExitStatus {
    let keys = ConfigLocation.configuredValues(inSection: "Relay", environment: environment)
    func key(_ name: String) -> String? { keys[name].flatMap { $0.isEmpty ? nil : $0 } }
    let base = key("Subject") ?? RelaySubjects.defaultBase()
    guard RelaySubjects.isValidBase(base) else {
      throw Failure(
        description: "[Relay] Subject=\(base) is not a NATS subject (dot-separated names, no * or >)")
    }
    let subjects = RelaySubjects(base: base)
    let host = key("Host") ?? RelaySubjects.localHost()
    do {
      try RequestLimits.check(parameters)
    } catch {
      throw Failure(description: "show: \(error)")
    }
    let settings = try NATSSettings(
      urls: urls, name: "notifyctl \(host)", user: key("User"), passwordFile: key("PasswordFile"),
      tokenFile: key("TokenFile"), credentials: key("Credentials"), tlsCA: key("TLSCA"),
      environment: environment)
    let connection = try NATSConnection(settings, onEvent: nil)
    defer { connection.close() }
    try connection.ensureStream(for: subjects, servers: urls.count)
    // Subscribed before publishing, so that no answer can come before it.
    let answers =
      wait ? try connection.subscribeToNew(stream: subjects.stream, subject: subjects.answers(to: host)) : nil

    // The id is taken and the notice published under the origin's lock: ids reach the stream in
    // the order they were given, as the desk's marks need (a lower id after a higher one would be
    // taken for a redelivery).
    let origin: NoticeOrigin
    do {
      let lease = try RelayOrigin.lease(environment: environment)
      origin = NoticeOrigin(host: host, store: lease.store, id: lease.id, sent: now())
      let message = RelayNotice(origin: origin, notice: parameters)
      let payload = message.encoded()
      guard payload.count <= RelayNotice.maximumBytes else {
        throw Failure(
          description:
            "show: the notice is \(payload.count) bytes; the relay takes at most \(RelayNotice.maximumBytes / 1024) KiB"
        )
      }
      try connection.publish(payload, on: subjects.notices(from: host), id: message.messageID, wait: 5)
      lease.release()
    }
    guard let answers else {
      console.print("\(origin.id)")
      return .success
    }
    let deadline = Posix.monotonicNow() + RelayAnswer.longestWait
    while Posix.monotonicNow() < deadline {
      guard let message = try answers.next(timeout: min(deadline - Posix.monotonicNow(), 60)) else {
        continue
      }
      guard message.count <= RelayNotice.maximumBytes,
        let answer = try? message.withPayload({ bytes throws(JSONReadError) in
          try RelayAnswer(decoding: bytes)
        }),
        answer.to.store == origin.store, answer.to.id == origin.id
      else { continue }
      if let action = answer.invoked { console.print(TextFormat.sanitized(action)) }
      return ExitStatus(outcome: answer.outcome)
    }
    console.printError("notifyctl: no desk answered within a day")
    return .timedOut
  }
}

/// Who `notifyctl --relay` is to the desks: a store identity of its own, kept with the last id it
/// gave in `$XDG_STATE_HOME/notifyd/relay-origin` (default `~/.local/state/…`), so that a desk keeps
/// one mark for every notice `notifyctl` sends from this host, not one per notice.
struct RelayOrigin {
  let store: String
  let id: Int
  private let fd: Int32

  /// The file, locked (`flock`) until `release`, with the next id written to it.
  static func lease(environment: (String) -> String?) throws -> RelayOrigin {
    let directory = ConfigLocation.stateDirectory(environment: environment)
    let path = directory + "/relay-origin"
    do {
      try Posix.makeDirectories(directory)
      let fd = try Posix.open(path, O_RDWR | O_CREAT)
      do {
        try Posix.lockExclusively(fd)
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        let fields = String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self).split(
          whereSeparator: \.isWhitespace)
        var store = fields.first.map(String.init) ?? ""
        var last = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
        if store.count != 16 || !store.allSatisfy(\.isHexDigit) || last < 0 {
          store = String(UInt64.random(in: 0...UInt64.max), radix: 16)
          store = String(repeating: "0", count: 16 - store.count) + store
          last = 0
        }
        try Posix.replaceContents(fd, with: Array("\(store) \(last + 1)\n".utf8))
        return RelayOrigin(store: store, id: last + 1, fd: fd)
      } catch {
        Posix.close(fd)
        throw error
      }
    } catch {
      throw RelayShow.Failure(description: "cannot keep the relay's origin: \(error)")
    }
  }

  /// Lets another `notifyctl` take the next id.
  func release() { Posix.close(fd) }
}
