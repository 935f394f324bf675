import Foundation

// The IDL read, and the Swift written from it: what notifyd-wiregen does, apart from its files.

/// A type as the IDL spells it.
indirect enum IDLType {
  case named(String)
  case optional(IDLType)
  case array(IDLType)
}

/// One member of a struct type, a method's parameters, or its reply.
struct IDLField {
  var name: String
  var type: IDLType
}

/// A struct type, or a method's parameters or reply, in the Swift name it takes.
struct IDLRecord {
  var name: String
  var doc: [String]
  var fields: [IDLField]
  /// For a method's parameters or reply: which it is (`parameters`, `reply`) of which methods.
  var uses: [(role: String, method: String)] = []

  /// The doc comment: a type's from the IDL; a method record's names what it is to which methods, and
  /// for one method, the method's doc.
  var comment: String {
    var lines = doc
    if !uses.isEmpty {
      let roles = ["parameters", "reply"].compactMap { role -> String? in
        let names = uses.filter { $0.role == role }.map { "`\($0.method)`" }
        guard let last = names.last else { return nil }
        return "the \(role) of "
          + (names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " and \(last)")
      }
      let summary = roles.joined(separator: ", and ")
      lines = [summary.prefix(1).uppercased() + summary.dropFirst() + "."]
      if uses.count == 1 && !doc.isEmpty { lines += [""] + doc }
    }
    return lines.map { "/// \($0)".trimmingCharacters(in: .whitespaces) + "\n" }.joined()
  }
}

/// What one IDL file declares.
struct IDLFile {
  var interface: String?
  var methods: [String] = []
  var records: [IDLRecord] = []
  /// The enumerations (`type Urgency (low, normal, critical)`), by IDL name.
  var enums: [String] = []
}

/// The interfaces the daemon serves, by the property of `Interface` that holds their description;
/// another IDL file (the relay's messages) gives records only.
let servedAs = ["io.notifyd.Queue": "description", "org.varlink.service": "serviceDescription"]

/// The Swift names of the IDL types that Swift spells otherwise.
let swiftTypeNames = [
  "string": "String", "int": "Int", "float": "Double", "bool": "Bool",
  "Idle": "IdleState", "Display": "DisplayState", "Origin": "NoticeOrigin", "Relay": "RelayState",
  "Allow": "DoNotDisturbAllow", "Fullscreen": "FullscreenState",
]

/// The records several methods share; a method not named here takes `<Method>Parameters` and replies
/// `<Method>Reply`.
let sharedParameters = [
  "Get": "IDParameters", "Wait": "IDParameters", "Resume": "NoParameters", "Status": "NoParameters",
  "Reload": "NoParameters", "GetInfo": "NoParameters", "Unsnooze": "IDParameters",
  "GetInterfaceDescription": "InterfaceDescriptionParameters",
]
let sharedReplies = [
  "Update": "NoticeReply", "End": "NoticeReply", "Invoke": "NoticeReply", "Get": "NoticeReply",
  "Snooze": "NoticeReply", "Unsnooze": "NoticeReply",
  "Wait": "NoticeReply", "List": "NoticesReply", "History": "NoticesReply", "Resume": "SuspendReply",
  "Suspend": "SuspendReply", "Watch": "EventReply", "Reload": "NoParameters", "GetInfo": "ServiceInfo",
  "GetInterfaceDescription": "InterfaceDescriptionReply",
]

/// Defaults of the memberwise initializers beyond `nil` for optionals: a notice's resolved timing
/// and look as the daemon's defaults give them, for code that builds one by hand.
let memberDefaults = [
  "Notice": [
    "urgency": ".normal", "style": ".clear", "delay": "0", "fadeIn": "1", "hold": "5", "fadeOut": "1",
    "easeIn": ".easeOut", "easeOut": ".easeIn", "phase": ".waiting", "opacity": "0", "created": "0",
  ],
  "RelayState": ["outbox": "0", "dropped": "0"],
  "StatusReply": ["snoozed": "0"],
]

/// What is wrong with an IDL file, or with what would be generated from it.
struct IDLError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

// MARK: - Reading the IDL

/// The IDL as tokens (names and punctuation), each with the comment lines right above it.
struct Tokens {
  private var items: [(text: String, doc: [String])] = []
  private var index = 0

  init(_ text: String) throws(IDLError) {
    var doc: [String] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      let trimmed = line.drop { $0 == " " }
      if trimmed.hasPrefix("#") {
        doc.append(String(trimmed.dropFirst().drop { $0 == " " }))
        continue
      }
      if trimmed.isEmpty { doc = [] }
      var rest = Substring(trimmed)
      while let first = rest.first {
        if first == " " {
          rest = rest.dropFirst()
        } else if rest.hasPrefix("->") || rest.hasPrefix("[]") {
          items.append((String(rest.prefix(2)), doc))
          rest = rest.dropFirst(2)
        } else if "(),:?".contains(first) {
          items.append((String(first), doc))
          rest = rest.dropFirst()
        } else {
          let word = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
          guard !word.isEmpty else { throw IDLError("unexpected \(first) in \(line)") }
          items.append((String(word), doc))
          rest = rest.dropFirst(word.count)
        }
        doc = []
      }
    }
  }

  var atEnd: Bool { index == items.count }
  var peek: String { atEnd ? "" : items[index].text }

  mutating func next() throws(IDLError) -> (text: String, doc: [String]) {
    guard !atEnd else { throw IDLError("the IDL ends early") }
    defer { index += 1 }
    return items[index]
  }

  mutating func expect(_ text: String) throws(IDLError) {
    let token = try next().text
    if token != text { throw IDLError("expected \(text), found \(token)") }
  }

  mutating func type() throws(IDLError) -> IDLType {
    switch try next().text {
    case "?": .optional(try type())
    case "[]": .array(try type())
    case let name where name.first?.isLetter == true: .named(name)
    case let other: throw IDLError("expected a type, found \(other)")
    }
  }

  /// `( name: type, … )` as fields, or an enumeration's `( a, b, … )` as its cases.
  mutating func members() throws(IDLError) -> (fields: [IDLField], cases: [String]) {
    try expect("(")
    var fields: [IDLField] = []
    var cases: [String] = []
    while peek != ")" {
      let name = try next().text
      if peek == ":" {
        try expect(":")
        fields.append(IDLField(name: name, type: try type()))
      } else {
        cases.append(name)
      }
      if peek == "," { try expect(",") }
    }
    try expect(")")
    if !fields.isEmpty && !cases.isEmpty { throw IDLError("\(cases[0]) has no type") }
    return (fields, cases)
  }

  /// A method's parameters or reply: fields only.
  mutating func fields(of method: String) throws(IDLError) -> [IDLField] {
    let (fields, cases) = try members()
    if let name = cases.first { throw IDLError("\(method): \(name) has no type") }
    return fields
  }
}

func parse(_ text: String) throws(IDLError) -> IDLFile {
  var tokens = try Tokens(text)
  var file = IDLFile()
  while !tokens.atEnd {
    let (keyword, doc) = try tokens.next()
    switch keyword {
    case "interface": file.interface = try tokens.next().text
    case "error":
      _ = try tokens.next()
      _ = try tokens.members()
    case "type":
      let name = try tokens.next().text
      let (fields, cases) = try tokens.members()
      if cases.isEmpty {
        file.records.append(IDLRecord(name: swiftTypeNames[name] ?? name, doc: doc, fields: fields))
      } else {
        file.enums.append(name)
      }
    case "method":
      let method = try tokens.next().text
      file.methods.append(method)
      let parameters = try tokens.fields(of: method)
      try tokens.expect("->")
      let reply = try tokens.fields(of: method)
      let parametersName = sharedParameters[method] ?? "\(method)Parameters"
      let replyName = sharedReplies[method] ?? "\(method)Reply"
      file.records.append(
        IDLRecord(name: parametersName, doc: [], fields: parameters, uses: [("parameters", method)]))
      file.records.append(IDLRecord(name: replyName, doc: doc, fields: reply, uses: [("reply", method)]))
    default: throw IDLError("unexpected \(keyword)")
    }
  }
  return file
}

// MARK: - Writing Swift

func swiftType(_ type: IDLType) -> String {
  switch type {
  case .named(let name): swiftTypeNames[name] ?? name
  case .optional(let wrapped): swiftType(wrapped) + "?"
  case .array(let element): "[" + swiftType(element) + "]"
  }
}

extension IDLField {
  var isOptional: Bool {
    if case .optional = type { return true }
    return false
  }
}

/// The reader's and the writer's own methods for the IDL's scalars.
let scalars = [
  "string": ("readString", "string"), "int": ("readInt", "integer"), "float": ("readDouble", "number"),
  "bool": ("readBool", "bool"),
]

/// The Swift code of the records of every IDL file read.
struct Generator {
  /// The enumerations of every IDL file read, by IDL name: on the wire, the name of a case.
  var enumerations: Set<String> = []

  /// How a value of the named type is read where `reader` stands, and written: a scalar by the
  /// reader's and writer's own methods, an enumeration as the name of its case, a record by its own
  /// reader and writer.
  func access(_ name: String) -> (read: String, write: (String) -> String) {
    let type = swiftTypeNames[name] ?? name
    if let (reader, writer) = scalars[name] {
      return ("reader.\(reader)()", { "writer.\(writer)(\($0))" })
    }
    if enumerations.contains(name) {
      return ("reader.readEnum(\(type).self)", { "writer.string(\($0).rawValue)" })
    }
    return ("\(type)(reading: &reader)", { "\($0).write(to: &writer)" })
  }

  /// The expression that reads a value of `type`.
  func reading(_ type: IDLType) -> String {
    switch type {
    case .optional(let wrapped): "reader.readNull() ? nil : try \(reading(wrapped))"
    case .array(let element):
      "reader.readElements { reader throws(JSONReadError) in try \(reading(element)) }"
    case .named(let name): access(name).read
    }
  }

  /// The statements that write `value`, of `type`, where the writer stands (`null` for an absent
  /// element; an absent member is left out before).
  func writing(_ value: String, _ type: IDLType, depth: Int = 0) -> String {
    let inner = depth + 1
    switch type {
    case .optional(let wrapped):
      return
        "if let value\(depth) = \(value) { \(writing("value\(depth)", wrapped, depth: inner)) } else { writer.null() }"
    case .array(let element):
      let each = writing("element\(depth)", element, depth: inner)
      return "writer.beginArray(); for element\(depth) in \(value) { \(each) }; writer.endArray()"
    case .named(let name): return access(name).write(value)
    }
  }

  /// A member: its name, then its value; an absent optional is left out, as `JSONEncoder` leaves it.
  func writing(_ field: IDLField) -> String {
    guard case .optional(let wrapped) = field.type else {
      return "writer.key(\"\(field.name)\"); \(writing(field.name, field.type))"
    }
    return "if let \(field.name) { writer.key(\"\(field.name)\"); \(writing(field.name, wrapped)) }"
  }

  /// A struct, its memberwise initializer, and its reader and writer.
  func code(_ record: IDLRecord) -> String {
    let (name, fields) = (record.name, record.fields)
    let defaults = memberDefaults[name] ?? [:]
    let parameters = fields.map { field in
      let fallback = defaults[field.name] ?? (field.isOptional ? "nil" : nil)
      return "\(field.name): \(swiftType(field.type))" + (fallback.map { " = \($0)" } ?? "")
    }
    let required = fields.filter { !$0.isOptional }
    var out = record.comment
    out += "public struct \(name): Codable, Sendable, Hashable {\n"
    out += fields.map { "  public var \($0.name): \(swiftType($0.type))\n" }.joined()
    out += "\n  public init(\(parameters.joined(separator: ", "))) {\n"
    out += fields.map { "    self.\($0.name) = \($0.name)\n" }.joined()
    out += "  }\n}\n\nextension \(name): WireRecord {\n"
    out += "  public init(reading reader: inout JSONReader) throws(JSONReadError) {\n"
    out += fields.map { "    var \($0.name): \(swiftType($0.isOptional ? $0.type : .optional($0.type)))\n" }
      .joined()
    out += "    try reader.readObject { reader, name throws(JSONReadError) in\n      switch name {\n"
    out += fields.map { "      case \"\($0.name)\": \($0.name) = try \(reading($0.type))\n" }.joined()
    out += "      default: try reader.skipValue()\n      }\n    }\n"
    out += required.map { "    guard let \($0.name) else { throw .invalid(field: \"\($0.name)\") }\n" }
      .joined()
    out += "    self.init(\(fields.map { "\($0.name): \($0.name)" }.joined(separator: ", ")))\n  }\n\n"
    out += "  public func writeMembers(to writer: inout JSONWriter) {\n"
    out += fields.map { "    \(writing($0))\n" }.joined()
    return out + "  }\n}\n"
  }
}

/// A Swift raw string literal holding `text`, which ends with a newline, as it is.
func literal(_ text: String) throws(IDLError) -> String {
  if text.contains("\"\"\"#") || !text.hasSuffix("\n") {
    throw IDLError("an IDL file must end with a newline, without \"\"\"#")
  }
  return "#\"\"\"\n" + text + "\n\"\"\"#"
}

/// `Interface.Method`: a case per method, named as in Swift, its raw value as in the IDL.
func methodCases(_ methods: [String]) -> String {
  let cases = methods.map { "    case \($0.prefix(1).lowercased() + $0.dropFirst()) = \"\($0)\"\n" }
  return "\nextension Interface {\n  /// The methods of io.notifyd.Queue.\n"
    + "  public enum Method: String, CaseIterable, Sendable {\n\(cases.joined())  }\n}\n"
}

/// The Swift of `files` (each its name and text), in one file: the descriptions of the interfaces
/// the daemon serves, `Interface.Method`, and every record with its reader and writer.
func generate(_ files: [(name: String, text: String)]) throws(IDLError) -> String {
  var swift =
    "// Generated by notifyd-wiregen from \(files.map(\.name).joined(separator: ", ")): edit the IDL,"
  swift += " not this file.\n"
  var records: [IDLRecord] = []
  var generator = Generator()
  for (name, text) in files {
    let file: IDLFile
    do {
      file = try parse(text)
    } catch {
      throw IDLError("\(name): \(error)")
    }
    if let interface = file.interface, let property = servedAs[interface] {
      swift +=
        "\nextension Interface {\n  /// What `GetInterfaceDescription` returns for \(interface): its IDL file.\n"
      swift += "  public static let \(property) = \(try literal(text))\n}\n"
    }
    if file.interface == "io.notifyd.Queue" { swift += methodCases(file.methods) }
    generator.enumerations.formUnion(file.enums)
    for record in file.records {
      guard let earlier = records.firstIndex(where: { $0.name == record.name }) else {
        records.append(record)
        continue
      }
      let shapes = [records[earlier], record].map { $0.fields.map { "\($0.name): \(swiftType($0.type))" } }
      if shapes[0] != shapes[1] {
        throw IDLError("\(record.name) stands for two records: \(shapes[0]) and \(shapes[1])")
      }
      records[earlier].uses += record.uses
    }
  }
  for record in records { swift += "\n" + generator.code(record) }
  return swift
}
