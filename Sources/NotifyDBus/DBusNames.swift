import NotifyProtocol

/// The D-Bus names notifyd speaks: the freedesktop notification interface (spec 1.2) and the
/// message bus's own interface, in one place.
enum DBusNames {
  /// The well-known name a notification server owns.
  static let notifications = "org.freedesktop.Notifications"
  /// The object path of the notification server.
  static let notificationsPath = "/org/freedesktop/Notifications"
  /// The interface of the notification server.
  static let notificationsInterface = "org.freedesktop.Notifications"

  /// The methods of `org.freedesktop.Notifications`.
  enum Method {
    static let notify = "Notify"
    static let closeNotification = "CloseNotification"
    static let getCapabilities = "GetCapabilities"
    static let getServerInformation = "GetServerInformation"
  }

  /// The signals of `org.freedesktop.Notifications`.
  enum Signal {
    static let notificationClosed = "NotificationClosed"
    static let actionInvoked = "ActionInvoked"
  }

  /// The hints notifyd reads and sends.
  enum Hint {
    /// Byte: 0 low, 1 normal, 2 critical.
    static let urgency = "urgency"
    /// Int32 0…100: a progress value.
    static let value = "value"
    /// `(iiibiiay)`: the notice's image as raw pixels (spec 1.2; `image_data` in 1.1, `icon_data` in 1.0).
    static let imageData = ["image-data", "image_data", "icon_data"]
    /// String: the notice's image as a file path or `file://` URI (spec 1.2; `image_path` in 1.1).
    static let imagePath = ["image-path", "image_path"]
    /// String: notices with the same tag replace each other (dunst's name).
    static let dunstStackTag = "x-dunst-stack-tag"
    /// String: notices with the same tag replace each other (Ubuntu's name).
    static let canonicalStackTag = "x-canonical-private-synchronous"
  }

  /// What `GetCapabilities` answers: only what notifyd really does. Not `body-markup` (bodies
  /// are plain text), not `icon-*` (icons are ignored).
  static let capabilities = ["actions", "body", "persistence"]
  /// The capability a server announces when it reads the body as markup.
  static let bodyMarkupCapability = "body-markup"

  /// `GetServerInformation`.
  enum ServerInformation {
    static let name = "notifyd"
    static let vendor = "notifyd"
    static let version = Interface.version
    static let specVersion = "1.2"
  }

  /// The message bus itself.
  enum Bus {
    static let name = "org.freedesktop.DBus"
    static let path = "/org/freedesktop/DBus"
    static let interface = "org.freedesktop.DBus"
    static let nameHasOwner = "NameHasOwner"
    static let getNameOwner = "GetNameOwner"
    static let getConnectionUnixProcessID = "GetConnectionUnixProcessID"
    static let nameOwnerChanged = "NameOwnerChanged"
  }

  /// Error names notifyd replies with.
  enum ErrorName {
    static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    static let failed = "org.freedesktop.DBus.Error.Failed"
    static let queueFull = Interface.ErrorName.queueFull
    static let storeFailed = Interface.ErrorName.storeFailed
  }

  /// A match rule for signal `member` of `interface` from `sender` at `path`, with `arg0` if given.
  static func signalMatch(
    sender: String, path: String, interface: String, member: String, arg0: String? = nil
  )
    -> String
  {
    var rule = "type='signal',sender='\(sender)',path='\(path)',interface='\(interface)',member='\(member)'"
    if let arg0 { rule += ",arg0='\(arg0)'" }
    return rule
  }
}

/// Why a notification closed, as `NotificationClosed` reports it.
enum DBusCloseReason: UInt32, Sendable {
  case expired = 1
  case dismissed = 2
  case closedByCall = 3
  case undefined = 4
}
