import NotifyProtocol

/// What a Varlink service answers: each method's qualified name bound to the type its parameters
/// are read into and the handler that gets them, as systemd binds methods
/// (`sd_varlink_server_bind_method_many`). `org.varlink.service` (`GetInfo`,
/// `GetInterfaceDescription`) is built in, from the interfaces added.
///
/// A call is read once: the envelope member by member, the method looked up as soon as its name
/// is read, and the parameters decoded straight into the bound type where they stand (after the
/// method, as every client sends them; a message that puts them first has them decoded once the
/// method is known).
public struct MethodTable: Sendable {
  /// When a call's final reply comes, which decides whether the calls behind it may start.
  public enum Completion: Sendable {
    /// At once, or once the change is committed (within the server's turn): the calls behind it
    /// are taken up meanwhile, and their replies wait for it in order.
    case prompt
    /// When something happens (`Wait`, `Watch`): the calls behind it wait.
    case eventual
  }

  /// A call read and ready to run.
  public struct PreparedCall: Sendable {
    public var more: Bool
    public var oneway: Bool
    public var completion: Completion
    /// Runs the handler with the parameters read.
    public var run: @Sendable (Responder) -> Void
  }

  /// What reading a message gave.
  public enum Outcome: Sendable {
    case call(PreparedCall)
    /// An error to answer with; `oneway` when the caller asked for no reply (and gets none).
    case refused(VarlinkError, oneway: Bool)
  }

  private struct Binding: Sendable {
    let completion: Completion
    let prepare: @Sendable (inout JSONReader) throws(JSONReadError) -> @Sendable (Responder) -> Void
  }

  private var bindings: [String: Binding] = [:]
  /// Interface names with their descriptions, in the order added.
  private var interfaces: [(name: String, description: String)] = []
  private let info: (vendor: String, product: String, version: String, url: String)

  /// A table answering `GetInfo` with these.
  public init(vendor: String, product: String, version: String, url: String) {
    info = (vendor, product, version, url)
    interfaces = [(Interface.service, Interface.serviceDescription)]
    bindServiceInterface()
  }

  /// Adds an interface `GetInfo` lists and `GetInterfaceDescription` describes.
  public mutating func add(interface name: String, description: String) {
    interfaces.append((name, description))
    bindServiceInterface()
  }

  /// Binds `method` (qualified) to a handler of parameters of type `P`.
  public mutating func bind<P: WireDecodable>(
    _ method: String, _ type: P.Type, completion: Completion = .prompt,
    handler: @escaping @Sendable (P, Responder) -> Void
  ) {
    bindings[method] = Binding(completion: completion) { reader throws(JSONReadError) in
      let parameters = try P(reading: &reader)
      return { responder in handler(parameters, responder) }
    }
  }

  /// The qualified names bound, but for the built-in `org.varlink.service`: for tests and introspection.
  public var methodNames: [String] {
    bindings.keys.filter { !$0.hasPrefix(Interface.service + ".") }.sorted()
  }

  // MARK: - Reading a call

  /// Reads `message` (a call without its NUL) in one pass.
  public func prepare(_ message: [UInt8]) -> Outcome {
    message.withUnsafeBytes { raw in prepare(raw) }
  }

  private func prepare(_ raw: UnsafeRawBufferPointer) -> Outcome {
    var reader = JSONReader(raw)
    var method: String?
    var binding: Binding?
    var more = false
    var oneway = false
    var parameters: Range<Int>?
    var run: (@Sendable (Responder) -> Void)?
    var parameterError: String?
    do throws(JSONReadError) {
      try reader.readObject { reader, name throws(JSONReadError) in
        switch name {
        case "method":
          let value = try reader.readString()
          method = value
          binding = bindings[value]
        case "parameters":
          let start = reader.checkpoint
          if let binding {
            // The common order: the method is known, so the parameters go straight into its type.
            do throws(JSONReadError) {
              run = try Self.decode(&reader, with: binding)
            } catch .invalid(let field) {
              parameterError = field.isEmpty ? "parameters" : field
              reader.restore(start)
              try reader.skipValue()
            } catch {
              throw error
            }
          } else {
            parameters = try reader.skipValue()
          }
        case "more": more = try reader.readNull() ? false : try reader.readBool()
        case "oneway": oneway = try reader.readNull() ? false : try reader.readBool()
        default: try reader.skipValue()
        }
      }
      try reader.finish()
    } catch .syntax(let reason) {
      return .refused(.invalidArgument("(message)", "not valid JSON or not UTF-8: \(reason)"), oneway: false)
    } catch {
      return .refused(.invalidArgument("(message)", "not a Varlink call object"), oneway: false)
    }
    guard let method else {
      return .refused(.invalidArgument("(message)", "the call has no 'method'"), oneway: false)
    }
    guard let binding else { return .refused(notFound(method), oneway: oneway) }
    if let parameterError { return .refused(.invalidParameter(parameterError), oneway: oneway) }
    if run == nil {
      // The parameters came before the method, or not at all (`{}`).
      do throws(JSONReadError) {
        if let parameters {
          var late = reader.reader(at: parameters)
          run = try Self.decode(&late, with: binding)
        } else {
          run = try Self.decodeEmpty(with: binding)
        }
      } catch .invalid(let field) {
        return .refused(.invalidParameter(field.isEmpty ? "parameters" : field), oneway: oneway)
      } catch {
        return .refused(.invalidArgument("(message)", "not valid JSON"), oneway: oneway)
      }
    }
    return .call(PreparedCall(more: more, oneway: oneway, completion: binding.completion, run: run!))
  }

  /// Decodes parameters with `binding`; `null` or none at all reads as `{}`.
  private static func decode(_ reader: inout JSONReader, with binding: Binding) throws(JSONReadError)
    -> @Sendable (Responder) -> Void
  {
    if try reader.readNull() { return try decodeEmpty(with: binding) }
    return try binding.prepare(&reader)
  }

  private static let emptyObject: [UInt8] = Array("{}".utf8)

  private static func decodeEmpty(with binding: Binding) throws(JSONReadError)
    -> @Sendable (Responder) -> Void
  {
    let result = emptyObject.withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      return Result { () throws(JSONReadError) in try binding.prepare(&reader) }
    }
    return try result.get()
  }

  /// `InterfaceNotFound` for an interface nobody added, else `MethodNotFound`.
  private func notFound(_ method: String) -> VarlinkError {
    guard let dot = method.lastIndex(of: "."), dot != method.startIndex else {
      return VarlinkError(Interface.ErrorName.interfaceNotFound, ["interface": .string(method)])
    }
    let interface = String(method[..<dot])
    guard interfaces.contains(where: { $0.name == interface }) else {
      return VarlinkError(Interface.ErrorName.interfaceNotFound, ["interface": .string(interface)])
    }
    return .methodNotFound(method)
  }

  // MARK: - org.varlink.service

  /// Binds `GetInfo` and `GetInterfaceDescription` to what the table holds now; called again as
  /// interfaces are added.
  private mutating func bindServiceInterface() {
    let reply = ServiceInfo(
      vendor: info.vendor, product: info.product, version: info.version, url: info.url,
      interfaces: interfaces.map(\.name))
    bind("org.varlink.service.GetInfo", NoParameters.self) { _, responder in responder.reply(reply) }
    let interfaces = interfaces
    bind("org.varlink.service.GetInterfaceDescription", InterfaceDescriptionParameters.self) {
      request, responder in
      guard let found = interfaces.first(where: { $0.name == request.interface }) else {
        responder.fail(
          VarlinkError(Interface.ErrorName.interfaceNotFound, ["interface": .string(request.interface)]))
        return
      }
      responder.reply(InterfaceDescriptionReply(description: found.description))
    }
  }
}
