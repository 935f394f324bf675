import NotifyCore
import NotifyProtocol

/// How notifyd meets the desktop's notification server on D-Bus (`[DBus] Mode=`).
public enum DBusMode: String, Sendable, CaseIterable {
  case auto, forward, server, off
}

/// How hard the store syncs each commit (`[Store] Sync=`).
public enum StoreSync: String, Sendable, CaseIterable {
  case full, normal
}

/// Commands run when a notice is shown or finishes (`[Hooks]`), through `sh -c`.
public struct Hooks: Sendable, Equatable {
  public var onShow: String?
  public var onFinish: String?
  /// Runs only for outcome `completed`.
  public var onComplete: String?

  public init(onShow: String? = nil, onFinish: String? = nil, onComplete: String? = nil) {
    self.onShow = onShow
    self.onFinish = onFinish
    self.onComplete = onComplete
  }
}

/// Whether notices play sounds as they show (`[Sound]`).
public struct SoundSettings: Sendable, Equatable {
  /// `Enabled=`: play a notice's sound (`canberra-gtk-play`, else `paplay` for files); when off,
  /// hooks still see the sound in `NOTIFYD_SOUND_FILE` / `NOTIFYD_SOUND_NAME`.
  public var enabled = false
  /// `Default=`: a sound-theme name played for notices that name none (not for `silent` ones).
  public var defaultName: String?

  public init(enabled: Bool = false, defaultName: String? = nil) {
    self.enabled = enabled
    self.defaultName = defaultName
  }
}

/// The relay through NATS JetStream (`[Relay]`, DESIGN §10): notices to and from the user's other
/// machines. Off while `URL=` names no server.
public struct RelaySettings: Sendable, Equatable {
  /// `URL=`: `nats://host:port` or `tls://host:port`, several (comma-separated) for a cluster.
  public var urls: [String] = []
  /// `Credentials=`: a `.creds` file (a user JWT and its NKey seed).
  public var credentials: String?
  /// `User=` with `PasswordFile=` (its first line is the password).
  public var user: String?
  public var passwordFile: String?
  /// `TokenFile=`: its first line is the token.
  public var tokenFile: String?
  /// `TLSCA=`: the CA certificates a `tls://` server's certificate must chain to.
  public var tlsCA: String?
  /// `Subject=`: every subject the relay uses is under it; `nil`: `notifyd.<user name>`.
  public var subject: String?
  /// `Publish=`: this host's notices go out.
  public var publish = true
  /// `Subscribe=`: other hosts' notices are shown here.
  public var subscribe = true
  /// `Host=`: the name this host goes by; `nil`: the host name.
  public var host: String?
  /// `MaxAge=`: a relayed notice older than this when it arrives goes to history as `missed`.
  public var maxAge: Double?

  public init() {}

  /// Whether `[Relay]` names a server.
  public var isEnabled: Bool { !urls.isEmpty }

  /// The longest `MaxAge=`: the stream keeps a notice this long.
  public static let streamMaxAge = RelayStream.maxAge
  /// On a host that publishes and draws no popups, how long a notice waits for the desk's answer
  /// before its own timeline runs (and it times out here).
  public static let answerWait = RelayAnswer.longestWait
}

/// The daemon's whole configuration: what `notifyd.conf` says, over the built-in defaults.
public struct Config: Sendable, Equatable {
  public var queue = QueueSettings()
  /// `[Socket] Path=`.
  public var socketPath: String?
  /// `[Store] Path=`.
  public var storePath: String?
  /// `[Store] Sync=`.
  public var storeSync = StoreSync.normal
  /// `[DBus] Mode=`.
  public var dbusMode = DBusMode.auto
  /// `[DBus] IgnoreClose=`: a client's `CloseNotification` this many seconds or fewer after its
  /// `Notify` is ignored (0: never); a rule's `IgnoreClose=` overrides it.
  public var dbusIgnoreClose = 0.0
  /// `[Sound]`.
  public var sound = SoundSettings()
  /// `[Hooks]`.
  public var hooks = Hooks()
  /// `[Display]` and `[Display:URGENCY]`.
  public var display = DisplaySettings()
  /// `[Relay]`.
  public var relay = RelaySettings()

  public init() {}

  /// The engine's settings: `queue`, with what the looks say notices do under a fullscreen window
  /// (`Fullscreen=` is a look key, but the engine holds notices back by it): each urgency's, and
  /// each rule's.
  public var engineSettings: QueueSettings {
    var settings = queue
    for urgency in Urgency.allCases {
      settings.fullscreen[urgency] = display.look(for: urgency).fullscreen
    }
    for index in settings.rules.indices {
      settings.rules[index].fullscreen = display.ruleLooks[settings.rules[index].name]?.fullscreen
    }
    return settings
  }
}

/// One `Key=Value` line of a config file, with where it stands.
public struct ConfigEntry: Sendable, Equatable {
  public var section: String
  public var key: String
  public var value: String
  public var line: Int

  public init(section: String, key: String, value: String, line: Int) {
    self.section = section
    self.key = key
    self.value = value
    self.line = line
  }
}

/// Why a config file was refused; the description reads `file:line: Key: reason`.
public enum ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A key's value, or the key or section itself, is not acceptable.
  case invalidValue(file: String, line: Int, key: String, reason: String)
  /// A line is not `[Section]`, `Key=Value` or a comment.
  case syntax(file: String, line: Int, reason: String)
  /// The file could not be read.
  case unreadable(file: String, reason: String)

  public var description: String {
    switch self {
    case .invalidValue(let file, let line, let key, let reason): return "\(file):\(line): \(key): \(reason)"
    case .syntax(let file, let line, let reason): return "\(file):\(line): \(reason)"
    case .unreadable(let file, let reason): return "\(file): \(reason)"
    }
  }
}
