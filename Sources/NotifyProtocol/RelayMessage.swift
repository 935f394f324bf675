// What the relay (DESIGN §10) carries through NATS JetStream, and where: the messages are records
// of io.notifyd.Relay.varlink (notifyd-wiregen writes them); here what they do beyond their members,
// the marks a desk keeps, and the names of subjects, streams and consumers.

import NotifyPosix

#if canImport(Glibc)
  import Glibc
#endif

extension RelayNotice {
  /// The largest message a desk takes: anything larger is dropped unread.
  public static let maximumBytes = 64 * 1024

  public init(origin: NoticeOrigin, notice: ShowParameters) {
    self.init(
      host: origin.host, store: origin.store, id: origin.id, sent: origin.sent, notice: notice,
      sequence: origin.sequence)
  }

  /// Where it came from: its host, store, id there, when it was sent, and its place in what that
  /// store published.
  public var origin: NoticeOrigin {
    NoticeOrigin(host: host, store: store, id: id, sent: sent, sequence: sequence)
  }

  /// The JetStream message id: a republish after a crash is a duplicate the stream drops.
  public var messageID: String { "\(origin.markKey)/\(id)" }

  /// Reads a message; throws what is wrong with it, by field path.
  public init(decoding bytes: UnsafeRawBufferPointer) throws(JSONReadError) {
    self = try read(bytes)
    guard !host.isEmpty else { throw .invalid(field: "host") }
    guard !store.isEmpty else { throw .invalid(field: "store") }
    guard id > 0 else { throw .invalid(field: "id") }
    guard sequence.map({ $0 > 0 }) ?? true else { throw .invalid(field: "sequence") }
  }
}

extension RelayAnswer {
  /// How long an origin waits for a desk's answer: a publishing daemon that draws no popups (its
  /// notice's own timeline runs after it), and `notifyctl --relay show --wait`.
  public static let longestWait = 86_400.0

  /// Reads a message; throws what is wrong with it, by field path.
  public init(decoding bytes: UnsafeRawBufferPointer) throws(JSONReadError) {
    self = try read(bytes)
    guard !host.isEmpty else { throw .invalid(field: "host") }
  }
}

extension WireRecord {
  /// The message's JSON.
  public func encoded() -> [UInt8] {
    var writer = JSONWriter()
    write(to: &writer)
    return writer.bytes
  }
}

/// A whole message: a record and nothing after it.
private func read<Record: WireRecord>(_ bytes: UnsafeRawBufferPointer) throws(JSONReadError) -> Record {
  var reader = JSONReader(bytes)
  let record = try Record(reading: &reader)
  try reader.finish()
  return record
}

extension ShowParameters {
  /// `notice` as its origin resolved it, to be shown again elsewhere: every field a `Show` takes,
  /// timing included, but the id it depends on there (`after`).
  public init(relaying notice: Notice) {
    self.init(
      title: notice.title, body: notice.body, app: notice.app, urgency: notice.urgency, style: notice.style,
      icon: notice.icon, hints: notice.hints, tag: notice.tag, key: notice.key, delay: notice.delay,
      fadeIn: notice.fadeIn, hold: notice.hold, fadeOut: notice.fadeOut, easeIn: notice.easeIn,
      easeOut: notice.easeOut, actions: notice.actions, reply: notice.reply)
  }
}

/// What a desk has committed from one origin store, counted in `NoticeOrigin.position` (the
/// store's publishing sequence, which has no gaps): the highest (`last`), and those below it that
/// have not come (yet). An origin publishes in order but up to its publishing window at a time, so
/// after a failure one may reach the stream after later ones; and a delivery lost with a NATS node
/// comes again only after the consumer's ack wait, when the desk may have taken thousands after it.
/// A position above `last`, or missing, is new; any other is a redelivery.
///
/// Bounded: at most `maximumMissing` missing, and none more than `window` below `last` (past
/// either, the lowest are taken as never coming: a host gave them up before publishing them, or the
/// stream dropped them). A position without a sequence (an older notifyd) is an id, whose gaps
/// (progress indicators, relayed notices) count as missing until those bounds drop them.
public struct RelayMark: Sendable, Equatable {
  /// How far back a notice may come after later ones: 65,536 published notices, far more than an
  /// origin publishes within a redelivery's wait.
  public static let window = 65_536
  /// At most this many positions below `last` are kept as not come yet.
  public static let maximumMissing = 1024

  public private(set) var last: Int
  /// Ascending, each in `(last - window, last)` and above 0, at most `maximumMissing`.
  public private(set) var missing: [Int]

  public init(last: Int = 0, missing: [Int] = []) {
    self.last = last
    self.missing = Array(
      Set(missing).filter { $0 < last && $0 > max(0, last - Self.window) }.sorted().suffix(
        Self.maximumMissing))
  }

  /// Whether `position` has not been committed here.
  public func isNew(_ position: Int) -> Bool { position > last || missing.contains(position) }

  /// `position` committed here (taking one twice changes nothing).
  public mutating func take(_ position: Int) {
    if position > last {
      missing += max(last + 1, position - Self.maximumMissing)..<position
      last = position
      // Ascending: what falls out of either bound is a prefix.
      let stale = missing.prefix { $0 <= last - Self.window }.count
      missing.removeFirst(max(stale, missing.count - Self.maximumMissing))
    } else if let index = missing.firstIndex(of: position) {
      missing.remove(at: index)
    }
  }

  /// `missing` as the store keeps it: the positions, comma-separated.
  public var missingText: String { missing.map(String.init).joined(separator: ",") }

  /// A mark the store kept; positions that do not read are left out.
  public init(last: Int, missingText: String) {
    self.init(last: last, missing: missingText.split(separator: ",").compactMap { Int($0) })
  }
}

/// The stream that holds one `[Relay] Subject=`'s notices and answers (`RelaySubjects.stream`).
public enum RelayStream {
  /// How long the stream keeps a message: the longest `MaxAge=`.
  public static let maxAge = 7.0 * 86_400
  /// How much it keeps in all.
  public static let maxBytes: Int64 = 256 << 20
  /// Within this window, a message with an id the stream has seen is dropped as a duplicate.
  public static let duplicateWindow = 120.0
  /// The servers of `URL=` (or `notifyctl --relay`): comma-separated `nats://` or `tls://` URLs;
  /// throws the first that is neither.
  public static func servers(_ text: String) throws(InvalidField) -> [String] {
    let urls = text.split(separator: ",").map(\.trimmingSpaces).filter { !$0.isEmpty }
    for url in urls {
      guard url.hasPrefix("nats://") || url.hasPrefix("tls://"), url.count > "nats://".count else {
        throw InvalidField(field: url, reason: "not a nats:// or tls:// URL")
      }
    }
    return urls
  }

  /// The copies a cluster keeps (`URL=` lists more than one server); a single server keeps one.
  public static func replicas(servers: Int) -> Int { servers > 1 ? 3 : 1 }
}

/// The names the relay uses in NATS for one `[Relay] Subject=`.
public struct RelaySubjects: Sendable, Equatable {
  /// `[Relay] Subject=`: every name below is under it.
  public var base: String

  public init(base: String) { self.base = base }

  /// Where `host` publishes its notices.
  public func notices(from host: String) -> String { "\(base).notice.\(Self.name(host))" }
  /// What a desk consumes: every host's notices.
  public var allNotices: String { "\(base).notice.>" }
  /// Where desks send `host` the answers for its notices.
  public func answers(to host: String) -> String { "\(base).answer.\(Self.name(host))" }
  /// What the stream holds.
  public var streamSubjects: String { "\(base).>" }
  /// The stream: `NOTIFYD_` and the subject, with every character a stream name may not hold as `_`.
  public var stream: String { "NOTIFYD_" + Self.name(base) }
  /// The durable consumer of the desk `host`.
  public func consumer(for host: String) -> String { "notifyd_" + Self.name(host) }
  /// The durable consumer of the answers for `host`'s notices.
  public func answerConsumer(for host: String) -> String { "notifyd_" + Self.name(host) + "_answers" }

  /// A stream or consumer name, or one subject token (a host name), made of letters, digits, `_`
  /// and `-` only.
  public static func name(_ text: String) -> String {
    String(
      text.unicodeScalars.map { scalar in
        ("0"..."9").contains(scalar) || ("A"..."Z").contains(scalar) || ("a"..."z").contains(scalar)
          || scalar == "_" || scalar == "-" ? Character(scalar) : "_"
      })
  }

  /// `[Relay] Subject=`'s default: `notifyd.<user name>`.
  public static func defaultBase() -> String {
    let user = getpwuid(geteuid()).flatMap { $0.pointee.pw_name.map { String(cString: $0) } }
    return "notifyd.\(name(user ?? "uid\(geteuid())"))"
  }

  /// `[Relay] Host=`'s default: the host name, without its domain.
  public static func localHost() -> String {
    guard let name = Posix.hostName() else { return "localhost" }
    return String(name.split(separator: ".").first ?? "localhost")
  }

  /// Whether `subject` is a valid NATS subject to publish under: dot-separated non-empty tokens
  /// without wildcards or white space.
  public static func isValidBase(_ subject: String) -> Bool {
    let tokens = subject.split(separator: ".", omittingEmptySubsequences: false)
    return !subject.isEmpty
      && tokens.allSatisfy { token in
        !token.isEmpty && !token.contains(where: { $0 == "*" || $0 == ">" || $0.isWhitespace })
      }
  }
}
