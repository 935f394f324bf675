import FoundationEssentials

/// The envelope of a Varlink reply: parameters, or an error name with its parameters.
public struct VarlinkReply: Codable, Sendable, Equatable {
  public var parameters: JSONValue?
  public var continues: Bool?
  public var error: String?
}

/// An error reply: its qualified name and parameters.
public struct VarlinkError: Error, Sendable, Equatable, CustomStringConvertible {
  public var name: String
  public var parameters: [String: JSONValue]

  public init(_ name: String, _ parameters: [String: JSONValue] = [:]) {
    self.name = name
    self.parameters = parameters
  }

  /// A one-line account of the error for a person: its short name and parameters.
  public var description: String {
    let shortName = name.split(separator: ".").last.map(String.init) ?? name
    if let field = parameters["field"]?.stringValue, let reason = parameters["reason"]?.stringValue {
      return "\(shortName): \(field): \(reason)"
    }
    if name == Interface.ErrorName.storeFailed, let reason = parameters["reason"]?.stringValue {
      return "\(shortName): the change was not stored: \(reason)"
    }
    if name == Interface.ErrorName.noDisplay, let reason = parameters["reason"]?.stringValue {
      return "\(shortName): nothing is drawn: \(reason)"
    }
    if let parameter = parameters["parameter"]?.stringValue {
      return "\(shortName): invalid parameter '\(parameter)'"
    }
    if let id = parameters["id"]?.numberValue {
      return "\(shortName): no notice with id \(Int(id))"
    }
    if let capacity = parameters["capacity"]?.numberValue {
      return "\(shortName): the queue holds its capacity of \(Int(capacity)) unfinished notices"
    }
    if let method = parameters["method"]?.stringValue {
      return "\(shortName): \(method)"
    }
    if parameters.isEmpty { return shortName }
    let details = parameters.keys.sorted().map { "\($0)=\(parameters[$0]!)" }.joined(separator: " ")
    return "\(shortName): \(details)"
  }

  public static func noSuchNotice(_ id: Int) -> VarlinkError {
    VarlinkError(Interface.ErrorName.noSuchNotice, ["id": .number(Double(id))])
  }

  public static func invalidArgument(_ field: String, _ reason: String) -> VarlinkError {
    VarlinkError(Interface.ErrorName.invalidArgument, ["field": .string(field), "reason": .string(reason)])
  }

  public static func queueFull(_ capacity: Int) -> VarlinkError {
    VarlinkError(Interface.ErrorName.queueFull, ["capacity": .number(Double(capacity))])
  }

  public static func storeFailed(_ reason: String) -> VarlinkError {
    VarlinkError(Interface.ErrorName.storeFailed, ["reason": .string(reason)])
  }

  public static func noDisplay(_ reason: String) -> VarlinkError {
    VarlinkError(Interface.ErrorName.noDisplay, ["reason": .string(reason)])
  }

  public static func invalidParameter(_ parameter: String) -> VarlinkError {
    VarlinkError(Interface.ErrorName.invalidParameter, ["parameter": .string(parameter)])
  }

  public static func methodNotFound(_ method: String) -> VarlinkError {
    VarlinkError(Interface.ErrorName.methodNotFound, ["method": .string(method)])
  }

  public static let expectedMore = VarlinkError(Interface.ErrorName.expectedMore)
}

/// Splits a byte stream into NUL-terminated Varlink messages.
///
/// - Important: a message longer than `maximumMessageSize` without its NUL is an error: the
///   stream cannot be trusted after it, and the caller should close the connection.
public struct VarlinkFramer: Sendable {
  /// The largest message accepted, without its NUL.
  public let maximumMessageSize: Int
  private var buffer: [UInt8] = []
  private var scanned = 0

  public init(maximumMessageSize: Int = 1 << 20) {
    self.maximumMessageSize = maximumMessageSize
  }

  /// What `append` found: complete messages, and whether the partial one grew too large.
  public struct Output: Sendable {
    public var messages: [[UInt8]] = []
    public var overflowed = false
  }

  /// The number of bytes held that do not yet form a whole message.
  public var pendingCount: Int { buffer.count }

  /// Adds received bytes and returns the messages they complete.
  public mutating func append(_ bytes: UnsafeRawBufferPointer) -> Output {
    var output = Output()
    buffer.append(contentsOf: bytes)
    var start = 0
    var index = scanned
    while index < buffer.count {
      if buffer[index] == 0 {
        guard index - start <= maximumMessageSize else {
          output.overflowed = true
          break
        }
        output.messages.append(Array(buffer[start..<index]))
        start = index + 1
      }
      index += 1
    }
    if start > 0 { buffer.removeFirst(start) }
    scanned = buffer.count
    if buffer.count > maximumMessageSize { output.overflowed = true }
    return output
  }

  /// Adds received bytes and returns the messages they complete.
  public mutating func append(_ bytes: [UInt8]) -> Output {
    bytes.withUnsafeBytes { append($0) }
  }
}

/// Encoding and decoding of Varlink messages with Codable, as clients do (the daemon reads calls
/// with `JSONReader` and writes replies with `VarlinkReplyFrame`).
public enum VarlinkCoding {
  /// Encodes a message as JSON followed by the NUL that ends it.
  public static func frame(_ message: some Encodable) throws -> [UInt8] {
    var bytes = [UInt8](try JSONEncoder().encode(message))
    bytes.append(0)
    return bytes
  }

  /// A call whose parameters are typed.
  private struct CallEnvelope<Parameters: Encodable>: Encodable {
    var method: String
    var parameters: Parameters
    var more: Bool?
    var oneway: Bool?
  }

  /// Encodes a call of `method` with `parameters`.
  public static func call(
    _ method: String, _ parameters: some Encodable, more: Bool = false, oneway: Bool = false
  ) throws -> [UInt8] {
    try frame(
      CallEnvelope(
        method: method, parameters: parameters, more: more ? true : nil, oneway: oneway ? true : nil))
  }

  private struct ParametersOnly<Parameters: Decodable>: Decodable {
    var parameters: Parameters?
  }

  /// The largest message whose decoding error is located precisely, by a second decode.
  static let preciseErrorLimit = 64 << 10

  /// Decodes the `parameters` member of a message as `type`; a missing member decodes as `{}`.
  ///
  /// - Throws: `VarlinkError.invalidParameter` naming the first field that has the wrong type or is missing.
  public static func parameters<T: Decodable>(_ type: T.Type, from message: [UInt8]) throws -> T {
    do {
      if let parameters = try JSONDecoder().decode(ParametersOnly<T>.self, from: Data(message)).parameters {
        return parameters
      }
      return try JSONDecoder().decode(T.self, from: Data("{}".utf8))
    } catch let error as DecodingError {
      // The fast decoder does not always say where; decode again from a tree, which does. Only a
      // message of the size a person writes: the tree costs microseconds per value (about 70 ms for
      // 5,000 actions), and one client must not buy the daemon's time for all the others with a
      // large malformed call.
      guard message.count <= preciseErrorLimit,
        let envelope = try? JSONDecoder().decode(JSONValue.self, from: Data(message))
      else {
        throw VarlinkError.invalidParameter(fieldName(of: error))
      }
      do {
        _ = try JSONValueDecoder().decode(type, from: envelope["parameters"] ?? .object([:]))
      } catch let precise as DecodingError {
        throw VarlinkError.invalidParameter(fieldName(of: precise))
      }
      throw VarlinkError.invalidParameter(fieldName(of: error))
    }
  }

  /// The name of the field a decoding error is about, dotted, without the `parameters.` prefix.
  static func fieldName(of error: DecodingError) -> String {
    var path: [any CodingKey]
    switch error {
    case .keyNotFound(let key, let context): path = context.codingPath + [key]
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
      path = context.codingPath
    @unknown default: path = []
    }
    let names = path.map { key in key.intValue.map { "\($0)" } ?? key.stringValue }
    let trimmed = names.first == "parameters" ? Array(names.dropFirst()) : names
    return trimmed.isEmpty ? "parameters" : trimmed.joined(separator: ".")
  }

  /// Decodes the envelope of a call.
  public static func decodeCall(_ message: [UInt8]) throws -> CallHeader {
    try JSONDecoder().decode(CallHeader.self, from: Data(message))
  }

  /// Decodes a reply.
  public static func decodeReply(_ message: [UInt8]) throws -> VarlinkReply {
    try JSONDecoder().decode(VarlinkReply.self, from: Data(message))
  }
}

/// The envelope of a call without its parameters, decoded first so that the method picks the
/// parameters' type.
public struct CallHeader: Decodable, Sendable, Equatable {
  public var method: String
  public var more: Bool?
  public var oneway: Bool?
  public var upgrade: Bool?
}
