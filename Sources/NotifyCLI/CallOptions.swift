import NotifyProtocol

/// The options of `call`.
public struct CallOptions: Sendable, Equatable {
  /// The fully qualified method name.
  public var method: String
  /// The parameters, a JSON object.
  public var parameters: JSONValue
  /// Whether to ask for, and print, several replies.
  public var more: Bool

  public init(method: String, parameters: JSONValue = .object([:]), more: Bool = false) {
    self.method = method
    self.parameters = parameters
    self.more = more
  }

  /// The fully qualified name of `method`: a name without a dot is a method of `io.notifyd.Queue`.
  public static func qualifiedName(_ method: String) -> String {
    method.contains(".") ? method : "\(Interface.name).\(method)"
  }
}
