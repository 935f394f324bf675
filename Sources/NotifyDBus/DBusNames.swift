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
    /// KDE's and swaync's inline reply: `NotificationReplied(u id, s text)`.
    static let notificationReplied = "NotificationReplied"
    /// Sent just before `ActionInvoked` when the click got an xdg-activation token (spec 1.2).
    static let activationToken = "ActivationToken"
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
    /// String: the kind of event (`email.arrived`).
    static let category = "category"
    /// String: the sender's desktop file, without `.desktop`.
    static let desktopEntry = "desktop-entry"
    /// Boolean: not kept in history.
    static let transient = "transient"
    /// Boolean: an action does not close it.
    static let resident = "resident"
    /// String: a sound file to play.
    static let soundFile = "sound-file"
    /// String: a sound-theme name to play.
    static let soundName = "sound-name"
    /// The inline reply field's placeholder (KDE's name, which swaync reads too).
    static let replyPlaceholder = "x-kde-reply-placeholder-text"
    /// Boolean: play no sound.
    static let suppressSound = "suppress-sound"
    /// Boolean: the action keys are icon names.
    static let actionIcons = "action-icons"
    /// Int32: where the server should point the popup; notifyd places its popups itself.
    static let x = "x"
    static let y = "y"
  }

  /// What `GetCapabilities` answers: only what notifyd really does. `actions`, `body`,
  /// `body-markup` (the spec's subset, drawn styled) and `persistence` (history) always;
  /// `icon-static` while popups draw icons; `sound` when `[Sound] Enabled=yes`. Not
  /// `body-hyperlinks` (a link is drawn as text; a click on a popup means its action), not
  /// `body-images` (an `img` shows its `alt` text), not `action-icons` or `icon-multi`.
  static func capabilities(popups: Bool, sound: Bool) -> [String] {
    // A reply, like an action, can be given without popups: `notifyctl reply`.
    var capabilities = ["actions", "body", "body-markup"]
    if popups { capabilities += ["action-icons", "icon-static"] }
    capabilities.append(inlineReply)
    capabilities.append("persistence")
    if sound { capabilities.append("sound") }
    return capabilities
  }
  /// The capability, and the action key, of an inline reply field (KDE's extension, swaync's too).
  static let inlineReply = "inline-reply"
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

  /// Reading another object's properties.
  enum Properties {
    static let interface = "org.freedesktop.DBus.Properties"
    static let get = "Get"
    static let propertiesChanged = "PropertiesChanged"
  }

  /// systemd-logind on the system bus (org.freedesktop.login1(5)), for the user's `IdleHint`.
  enum Login {
    static let name = "org.freedesktop.login1"
    static let path = "/org/freedesktop/login1"
    static let managerInterface = "org.freedesktop.login1.Manager"
    static let userInterface = "org.freedesktop.login1.User"
    /// A user's object is this followed by the uid.
    static let userPathPrefix = "/org/freedesktop/login1/user/_"
    static let idleHint = "IdleHint"
    static let userNew = "UserNew"
    static let userRemoved = "UserRemoved"
    /// The replies to a `Get` on a user who has no session (nor lingers), and with no logind.
    static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
    static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
  }

  /// The user's service manager (`systemd --user`) on the session bus (org.freedesktop.systemd1(5)),
  /// for the environment a graphical session exports to it.
  enum UserManager {
    static let name = "org.freedesktop.systemd1"
    static let path = "/org/freedesktop/systemd1"
    static let interface = "org.freedesktop.systemd1.Manager"
    static let subscribe = "Subscribe"
    static let environment = "Environment"
    /// Signals sent once subscribed: a job done (a unit started or stopped: the session's target),
    /// and a reload finished.
    static let jobRemoved = "JobRemoved"
    static let reloading = "Reloading"
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
