/// Names and the interface description of the Varlink service, in one place.
public enum Interface {
  /// The interface notifyd implements.
  public static let name = "io.notifyd.Queue"
  /// The Varlink service interface every service answers.
  public static let service = "org.varlink.service"

  /// The version reported by `GetInfo`, `Status` and `--version`.
  public static let version = "0.1.0"

  /// Fully qualified names of the errors the service replies with.
  public enum ErrorName {
    public static let noSuchNotice = "io.notifyd.Queue.NoSuchNotice"
    public static let invalidArgument = "io.notifyd.Queue.InvalidArgument"
    public static let queueFull = "io.notifyd.Queue.QueueFull"
    public static let storeFailed = "io.notifyd.Queue.StoreFailed"
    public static let noDisplay = "io.notifyd.Queue.NoDisplay"
    public static let interfaceNotFound = "org.varlink.service.InterfaceNotFound"
    public static let methodNotFound = "org.varlink.service.MethodNotFound"
    public static let methodNotImplemented = "org.varlink.service.MethodNotImplemented"
    public static let invalidParameter = "org.varlink.service.InvalidParameter"
    public static let expectedMore = "org.varlink.service.ExpectedMore"
  }

  // `description` and `serviceDescription`, what `GetInterfaceDescription` returns, are the IDL
  // files io.notifyd.Queue.varlink and org.varlink.service.varlink, which notifyd-wiregen builds in,
  // with `Method`, a case per method of io.notifyd.Queue.
}

extension Interface.Method {
  /// The fully qualified name, as sent on the wire.
  public var qualifiedName: String { "\(Interface.name).\(rawValue)" }
}
