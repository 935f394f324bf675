// Each method's parameters read straight from a call's JSON (`JSONReader`), field by field, as
// systemd's `sd_varlink_dispatch` reads a field table: one pass, no tree of values, unknown members
// skipped, and a wrong or missing field named by its path (`actions.0.label`). The Codable
// conformances stay for clients, which encode these types.

/// A value the daemon reads from a message without a general-purpose decoder.
public protocol WireDecodable: Sendable {
  /// Reads the value that `reader` stands at.
  init(reading reader: inout JSONReader) throws(JSONReadError)
}

extension JSONReader {
  /// An optional string: `null` or absent is `nil`.
  mutating func readOptionalString() throws(JSONReadError) -> String? {
    try readNull() ? nil : try readString()
  }

  mutating func readOptionalDouble() throws(JSONReadError) -> Double? {
    try readNull() ? nil : try readDouble()
  }

  mutating func readOptionalInt() throws(JSONReadError) -> Int? {
    try readNull() ? nil : try readInt()
  }

  mutating func readOptionalBool() throws(JSONReadError) -> Bool? {
    try readNull() ? nil : try readBool()
  }

  mutating func readOptionalEnum<T: RawRepresentable>(_ type: T.Type) throws(JSONReadError) -> T?
  where T.RawValue == String {
    try readNull() ? nil : try readEnum(type)
  }

  mutating func readOptionalActions() throws(JSONReadError) -> [Action]? {
    if try readNull() { return nil }
    var actions: [Action] = []
    try readArray { reader, _ throws(JSONReadError) in actions.append(try Action(reading: &reader)) }
    return actions
  }
}

/// A field a call must carry and did not.
private func missing(_ field: String) -> JSONReadError { .invalid(field: field) }

extension Action: WireDecodable {
  public init(reading reader: inout JSONReader) throws(JSONReadError) {
    var key: String?
    var label: String?
    try reader.readObject { reader, name throws(JSONReadError) in
      switch name {
      case "key": key = try reader.readString()
      case "label": label = try reader.readString()
      default: try reader.skipValue()
      }
    }
    guard let key else { throw missing("key") }
    guard let label else { throw missing("label") }
    self.init(key: key, label: label)
  }
}

extension Hints: WireDecodable {
  public init(reading reader: inout JSONReader) throws(JSONReadError) {
    self.init()
    try reader.readObject { reader, name throws(JSONReadError) in
      switch name {
      case "category": category = try reader.readOptionalString()
      case "desktopEntry": desktopEntry = try reader.readOptionalString()
      case "transient": transient = try reader.readOptionalBool()
      case "resident": resident = try reader.readOptionalBool()
      case "soundFile": soundFile = try reader.readOptionalString()
      case "soundName": soundName = try reader.readOptionalString()
      case "silent": silent = try reader.readOptionalBool()
      default: try reader.skipValue()
      }
    }
  }
}

/// The members `Show` and `Progress` both take, read once for both.
protocol NoticeRequest {
  var body: String? { get set }
  var app: String? { get set }
  var urgency: Urgency? { get set }
  var style: Style? { get set }
  var icon: String? { get set }
  var hints: Hints? { get set }
  var tag: String? { get set }
  var key: String? { get set }
  var delay: Double? { get set }
  var fadeIn: Double? { get set }
  var fadeOut: Double? { get set }
}

extension NoticeRequest {
  /// Reads member `name` if it is one of the shared ones; answers whether it was.
  mutating func readShared(_ name: String, from reader: inout JSONReader) throws(JSONReadError) -> Bool {
    switch name {
    case "body": body = try reader.readOptionalString()
    case "app": app = try reader.readOptionalString()
    case "urgency": urgency = try reader.readOptionalEnum(Urgency.self)
    case "style": style = try reader.readOptionalEnum(Style.self)
    case "icon": icon = try reader.readOptionalString()
    case "hints": hints = try reader.readNull() ? nil : try Hints(reading: &reader)
    case "tag": tag = try reader.readOptionalString()
    case "key": key = try reader.readOptionalString()
    case "delay": delay = try reader.readOptionalDouble()
    case "fadeIn": fadeIn = try reader.readOptionalDouble()
    case "fadeOut": fadeOut = try reader.readOptionalDouble()
    default: return false
    }
    return true
  }
}

extension ShowParameters: NoticeRequest, WireDecodable {
  public init(reading reader: inout JSONReader) throws(JSONReadError) {
    var title: String?
    self.init(title: "")
    try reader.readObject { reader, name throws(JSONReadError) in
      switch name {
      case "title": title = try reader.readString()
      case "hold": hold = try reader.readOptionalDouble()
      case "easeIn": easeIn = try reader.readOptionalEnum(Easing.self)
      case "easeOut": easeOut = try reader.readOptionalEnum(Easing.self)
      case "after": after = try reader.readOptionalInt()
      case "actions": actions = try reader.readOptionalActions()
      default: if try !readShared(name, from: &reader) { try reader.skipValue() }
      }
    }
    guard let title else { throw missing("title") }
    self.title = title
  }
}

extension ProgressParameters: NoticeRequest, WireDecodable {
  public init(reading reader: inout JSONReader) throws(JSONReadError) {
    var title: String?
    self.init(title: "")
    try reader.readObject { reader, name throws(JSONReadError) in
      switch name {
      case "title": title = try reader.readString()
      case "value": value = try reader.readOptionalInt()
      case "timeout": timeout = try reader.readOptionalDouble()
      default: if try !readShared(name, from: &reader) { try reader.skipValue() }
      }
    }
    guard let title else { throw missing("title") }
    self.title = title
  }
}

extension UpdateParameters: WireDecodable {
  public init(reading reader: inout JSONReader) throws(JSONReadError) {
    var id: Int?
    self.init(id: 0)
    try reader.readObject { reader, name throws(JSONReadError) in
      switch name {
      case "id": id = try reader.readInt()
      case "title": title = try reader.readOptionalString()
      case "body": body = try reader.readOptionalString()
      case "value": value = try reader.readOptionalInt()
      default: try reader.skipValue()
      }
    }
    guard let id else { throw missing("id") }
    self.id = id
  }
}

extension EndParameters: WireDecodable {
  public init(reading reader: inout JSONReader) throws(JSONReadError) {
    var id: Int?
    self.init(id: 0)
    try reader.readObject { reader, name throws(JSONReadError) in
      switch name {
      case "id": id = try reader.readInt()
      case "message": message = try reader.readOptionalString()
      case "hold": hold = try reader.readOptionalDouble()
      default: try reader.skipValue()
      }
    }
    guard let id else { throw missing("id") }
    self.id = id
  }
}

extension CancelParameters: WireDecodable {
  public init(reading reader: inout JSONReader) throws(JSONReadError) {
    self.init()
    try reader.readObject { reader, name throws(JSONReadError) in
      switch name {
      case "id": id = try reader.readOptionalInt()
      case "tag": tag = try reader.readOptionalString()
      case "all": all = try reader.readOptionalBool()
      case "now": now = try reader.readOptionalBool()
      default: try reader.skipValue()
      }
    }
  }
}

extension DismissParameters: WireDecodable {
  public init(reading reader: inout JSONReader) throws(JSONReadError) {
    self.init()
    try reader.readObject { reader, name throws(JSONReadError) in
      switch name {
      case "id": id = try reader.readOptionalInt()
      case "all": all = try reader.readOptionalBool()
      default: try reader.skipValue()
      }
    }
  }
}

extension InvokeParameters: WireDecodable {
  public init(reading reader: inout JSONReader) throws(JSONReadError) {
    var id: Int?
    var action: String?
    var activationToken: String?
    try reader.readObject { reader, name throws(JSONReadError) in
      switch name {
      case "id": id = try reader.readInt()
      case "action": action = try reader.readString()
      case "activationToken": activationToken = try reader.readOptionalString()
      default: try reader.skipValue()
      }
    }
    guard let id else { throw missing("id") }
    guard let action else { throw missing("action") }
    self.init(id: id, action: action, activationToken: activationToken)
  }
}

extension SuspendParameters: WireDecodable {
  public init(reading reader: inout JSONReader) throws(JSONReadError) {
    self.init()
    try reader.readObject { reader, name throws(JSONReadError) in
      switch name {
      case "duration": duration = try reader.readOptionalDouble()
      case "allow": allow = try reader.readOptionalEnum(DoNotDisturbAllow.self)
      default: try reader.skipValue()
      }
    }
  }
}

extension ListParameters: WireDecodable {
  public init(reading reader: inout JSONReader) throws(JSONReadError) {
    self.init()
    try reader.readObject { reader, name throws(JSONReadError) in
      switch name {
      case "held": held = try reader.readOptionalBool()
      default: try reader.skipValue()
      }
    }
  }
}

extension IDParameters: WireDecodable {
  public init(reading reader: inout JSONReader) throws(JSONReadError) {
    var id: Int?
    try reader.readObject { reader, name throws(JSONReadError) in
      switch name {
      case "id": id = try reader.readInt()
      default: try reader.skipValue()
      }
    }
    guard let id else { throw missing("id") }
    self.init(id: id)
  }
}

extension HistoryParameters: WireDecodable {
  public init(reading reader: inout JSONReader) throws(JSONReadError) {
    self.init()
    try reader.readObject { reader, name throws(JSONReadError) in
      switch name {
      case "limit": limit = try reader.readOptionalInt()
      case "app": app = try reader.readOptionalString()
      case "outcome": outcome = try reader.readOptionalEnum(Outcome.self)
      case "since": since = try reader.readOptionalDouble()
      case "foldedInto": foldedInto = try reader.readOptionalInt()
      default: try reader.skipValue()
      }
    }
  }
}

extension WatchParameters: WireDecodable {
  public init(reading reader: inout JSONReader) throws(JSONReadError) {
    self.init()
    try reader.readObject { reader, name throws(JSONReadError) in
      switch name {
      case "frames": frames = try reader.readOptionalBool()
      case "fps": fps = try reader.readOptionalInt()
      default: try reader.skipValue()
      }
    }
  }
}

extension NoParameters: WireDecodable {
  public init(reading reader: inout JSONReader) throws(JSONReadError) {
    self.init()
    try reader.readObject { reader, _ throws(JSONReadError) in try reader.skipValue() }
  }
}

extension InterfaceDescriptionParameters: WireDecodable {
  public init(reading reader: inout JSONReader) throws(JSONReadError) {
    var interface: String?
    try reader.readObject { reader, name throws(JSONReadError) in
      switch name {
      case "interface": interface = try reader.readString()
      default: try reader.skipValue()
      }
    }
    guard let interface else { throw missing("interface") }
    self.init(interface: interface)
  }
}
