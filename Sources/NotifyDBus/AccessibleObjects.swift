/// The D-Bus names of AT-SPI2 that notifyd uses.
extension AccessibleTree {
  enum Names {
    /// Every object's path is under it (and the cache's).
    static let objects = "/org/a11y/atspi"
    /// A reference to nothing: any name, this path.
    static let nullPath = "/org/a11y/atspi/null"
    static let cachePath = "/org/a11y/atspi/cache"
    static let cacheInterface = "org.a11y.atspi.Cache"
    /// The registry, on the accessibility bus.
    static let registry = "org.a11y.atspi.Registry"
    static let registryPath = "/org/a11y/atspi/registry"
    static let registryInterface = "org.a11y.atspi.Registry"
    static let socketInterface = "org.a11y.atspi.Socket"
    static let objectEvents = "org.a11y.atspi.Event.Object"
    static let focusEvents = "org.a11y.atspi.Event.Focus"
    static let windowEvents = "org.a11y.atspi.Event.Window"
    /// The bus launcher, on the session bus.
    static let launcher = "org.a11y.Bus"
    static let launcherPath = "/org/a11y/bus"
    static let statusInterface = "org.a11y.Status"
    static let introspectable = "org.freedesktop.DBus.Introspectable"
    static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
    static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
    static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
  }
}

/// Answers a screen reader's calls to notifyd's objects from the tree as it stands: the
/// Accessible interface of every object, the Application interface of the root, Action, Text,
/// EditableText and Value where an object has them, their properties, and the cache (empty: every
/// object is read as it is asked for).
struct AccessibleObjects {
  /// What a call gets.
  enum Answer {
    /// sd-bus answers: no such method.
    case unknown
    case error(String, String)
    case reply((DBusMessage) throws(DBusError) -> Void)
    /// A reply, then the deed of the object's action.
    case deed(AccessibleDeed, AccessibleNode, (DBusMessage) throws(DBusError) -> Void)
    /// The reply field's text set (`EditableText`): the bridge keeps it in the tree.
    case typed(String)
  }

  let tree: AccessibleTree
  /// The connection's unique name: every reference to an object of notifyd's names it.
  let unique: String
  /// The registry's desktop, the root's parent.
  let desktop: (name: String, path: String)
  /// `Application.Id`, which the registry sets.
  var applicationID: Int32
  var version = ""

  private typealias Build = (DBusMessage) throws(DBusError) -> Void

  func reference(_ path: String?) -> (String, String) {
    guard let path else { return desktop }
    return (unique, path)
  }

  /// The answer to `member` of `interface` called on `path`; `call` holds its arguments.
  mutating func answer(path: String, interface: String, member: String, call: DBusMessage) throws(DBusError)
    -> Answer
  {
    if path == AccessibleTree.Names.cachePath {
      guard interface == AccessibleTree.Names.cacheInterface, member == "GetItems" else { return .unknown }
      return .reply { message throws(DBusError) in
        try message.append(container: "a", "((so)(so)(so)iiassusau)") { () throws(DBusError) in }
      }
    }
    guard let node = tree.node(path) else {
      return .error(AccessibleTree.Names.unknownObject, "no object \(path)")
    }
    switch interface {
    case DBusNames.Properties.interface:
      return try properties(member, of: node, call: call)
    case AccessibleTree.Names.introspectable where member == "Introspect":
      let xml = Self.introspection(node)
      return .reply { message throws(DBusError) in try message.append(xml) }
    case AccessibleTree.Interface.accessible:
      return try accessible(member, of: node, at: path, call: call)
    case AccessibleTree.Interface.application where node.role == .application:
      switch member {
      case "GetApplicationBusAddress", "GetLocale":
        return .reply { message throws(DBusError) in try message.append("") }
      default: return .unknown
      }
    case AccessibleTree.Interface.action where !node.actions.isEmpty:
      return try action(member, of: node, call: call)
    case AccessibleTree.Interface.text where node.text != nil:
      return try text(member, node.text ?? "", call: call)
    case AccessibleTree.Interface.editableText where node.role == .entry:
      return try editableText(member, node.text ?? "", call: call)
    default:
      return .unknown
    }
  }

  // MARK: - Accessible

  private func accessible(_ member: String, of node: AccessibleNode, at path: String, call: DBusMessage)
    throws(DBusError) -> Answer
  {
    let reference = reference
    switch member {
    case "GetChildAtIndex":
      let index = Int(try call.readInt32())
      let child =
        node.children.indices.contains(index)
        ? (unique, node.children[index]) : ("", AccessibleTree.Names.nullPath)
      return .reply { message throws(DBusError) in try message.append(reference: child.0, child.1) }
    case "GetChildren":
      let children = node.children
      return .reply { message throws(DBusError) in
        try message.append(container: "a", "(so)") { () throws(DBusError) in
          for child in children { try message.append(reference: reference(child).0, child) }
        }
      }
    case "GetIndexInParent":
      let index = node.parent.flatMap { tree.node($0)?.children.firstIndex(of: path) } ?? -1
      return .reply { message throws(DBusError) in try message.append(Int32(index)) }
    case "GetRelationSet":
      return .reply { message throws(DBusError) in
        try message.append(container: "a", "(ua(so))") { () throws(DBusError) in }
      }
    case "GetRole":
      return .reply { message throws(DBusError) in try message.append(node.role.rawValue) }
    case "GetRoleName", "GetLocalizedRoleName":
      return .reply { message throws(DBusError) in try message.append(node.role.name) }
    case "GetState":
      let words = node.states.words
      return .reply { message throws(DBusError) in
        try message.append(container: "a", "u") { () throws(DBusError) in
          for word in words { try message.append(word) }
        }
      }
    case "GetAttributes":
      return .reply { message throws(DBusError) in
        try message.append(container: "a", "{ss}") { () throws(DBusError) in }
      }
    case "GetApplication":
      let root = (unique, AccessibleTree.rootPath)
      return .reply { message throws(DBusError) in try message.append(reference: root.0, root.1) }
    case "GetInterfaces":
      let interfaces = node.interfaces
      return .reply { message throws(DBusError) in try message.append(interfaces) }
    default:
      return .unknown
    }
  }

  // MARK: - Action, Text, EditableText

  private func action(_ member: String, of node: AccessibleNode, call: DBusMessage) throws(DBusError)
    -> Answer
  {
    let actions = node.actions
    if member == "GetActions" {
      return .reply { message throws(DBusError) in
        try message.append(container: "a", "(sss)") { () throws(DBusError) in
          for action in actions {
            try message.append(container: "r", "sss") { () throws(DBusError) in
              try message.append(action.name)
              try message.append(action.description)
              try message.append("")
            }
          }
        }
      }
    }
    guard ["GetName", "GetLocalizedName", "GetDescription", "GetKeyBinding", "DoAction"].contains(member)
    else {
      return .unknown
    }
    let index = Int(try call.readInt32())
    guard actions.indices.contains(index) else {
      return .error(AccessibleTree.Names.invalidArgs, "no action \(index): \(actions.count) there")
    }
    let action = actions[index]
    switch member {
    case "DoAction":
      return .deed(action.deed, node) { message throws(DBusError) in try message.append(true) }
    case "GetDescription":
      return .reply { message throws(DBusError) in try message.append(action.description) }
    case "GetKeyBinding":
      return .reply { message throws(DBusError) in try message.append("") }
    default:
      return .reply { message throws(DBusError) in try message.append(action.name) }
    }
  }

  private func text(_ member: String, _ text: String, call: DBusMessage) throws(DBusError) -> Answer {
    let characters = Array(text)
    let count = characters.count
    /// `start`…`end` (characters; -1: to the end), within the text.
    func slice(_ start: Int32, _ end: Int32) -> String {
      let low = min(max(Int(start), 0), count)
      let high = end < 0 ? count : min(max(Int(end), low), count)
      return String(characters[low..<high])
    }
    switch member {
    case "GetText":
      let part = slice(try call.readInt32(), try call.readInt32())
      return .reply { message throws(DBusError) in try message.append(part) }
    case "GetCharacterAtOffset":
      let offset = Int(try call.readInt32())
      let scalar =
        characters.indices.contains(offset) ? characters[offset].unicodeScalars.first?.value ?? 0 : 0
      return .reply { message throws(DBusError) in try message.append(Int32(bitPattern: scalar)) }
    case "GetTextAtOffset", "GetStringAtOffset", "GetTextBeforeOffset", "GetTextAfterOffset":
      // The text is a line or two: any unit asked for is the whole of it.
      return .reply { message throws(DBusError) in
        try message.append(text)
        try message.append(Int32(0))
        try message.append(Int32(count))
      }
    case "GetNSelections":
      return .reply { message throws(DBusError) in try message.append(Int32(0)) }
    case "GetDefaultAttributes", "GetDefaultAttributeSet":
      return .reply { message throws(DBusError) in
        try message.append(container: "a", "{ss}") { () throws(DBusError) in }
      }
    case "GetAttributeRun", "GetAttributes":
      return .reply { message throws(DBusError) in
        try message.append(container: "a", "{ss}") { () throws(DBusError) in }
        try message.append(Int32(0))
        try message.append(Int32(count))
      }
    default:
      return .unknown
    }
  }

  private func editableText(_ member: String, _ text: String, call: DBusMessage) throws(DBusError) -> Answer {
    var characters = Array(text)
    switch member {
    case "SetTextContents":
      return .typed(try call.readString())
    case "InsertText":
      let position = min(max(Int(try call.readInt32()), 0), characters.count)
      let inserted = try call.readString()
      characters.insert(contentsOf: inserted, at: position)
      return .typed(String(characters))
    case "DeleteText":
      let start = min(max(Int(try call.readInt32()), 0), characters.count)
      let end = min(max(Int(try call.readInt32()), start), characters.count)
      characters.removeSubrange(start..<end)
      return .typed(String(characters))
    default:
      return .unknown
    }
  }

  // MARK: - Properties

  private mutating func properties(_ member: String, of node: AccessibleNode, call: DBusMessage)
    throws(DBusError) -> Answer
  {
    switch member {
    case "Get":
      let interface = try call.readString()
      let name = try call.readString()
      guard let value = property(name, of: interface, node) else {
        return .error(AccessibleTree.Names.unknownProperty, "no property \(interface).\(name)")
      }
      return .reply { message throws(DBusError) in try Self.append(value, to: message) }
    case "GetAll":
      let interface = try call.readString()
      let names = Self.propertyNames[interface] ?? []
      let values = names.compactMap { name in property(name, of: interface, node).map { (name, $0) } }
      return .reply { message throws(DBusError) in
        try message.append(container: "a", "{sv}") { () throws(DBusError) in
          for (name, value) in values {
            try message.append(container: "e", "sv") { () throws(DBusError) in
              try message.append(name)
              try Self.append(value, to: message)
            }
          }
        }
      }
    case "Set":
      let interface = try call.readString()
      let name = try call.readString()
      guard interface == AccessibleTree.Interface.application, name == "Id", node.role == .application else {
        return .error(AccessibleTree.Names.invalidArgs, "\(interface).\(name) cannot be set")
      }
      guard case .int32(let id) = try call.readVariant() else {
        return .error(AccessibleTree.Names.invalidArgs, "Id is an int32")
      }
      applicationID = id
      return .reply { _ throws(DBusError) in }
    default:
      return .unknown
    }
  }

  /// A property's value, to go in a variant.
  enum Value {
    case string(String)
    case int(Int32)
    case double(Double)
    case reference(String, String)
  }

  static let propertyNames: [String: [String]] = [
    AccessibleTree.Interface.accessible: [
      "Name", "Description", "Parent", "ChildCount", "Locale", "AccessibleId",
    ],
    AccessibleTree.Interface.application: ["ToolkitName", "Version", "AtspiVersion", "Id"],
    AccessibleTree.Interface.action: ["NActions"],
    AccessibleTree.Interface.text: ["CharacterCount", "CaretOffset"],
    AccessibleTree.Interface.value: [
      "MinimumValue", "MaximumValue", "MinimumIncrement", "CurrentValue", "Text",
    ],
  ]

  private func property(_ name: String, of interface: String, _ node: AccessibleNode) -> Value? {
    guard node.interfaces.contains(interface) else { return nil }
    switch (interface, name) {
    case (AccessibleTree.Interface.accessible, "Name"): return .string(node.name)
    case (AccessibleTree.Interface.accessible, "Description"): return .string(node.description)
    case (AccessibleTree.Interface.accessible, "Parent"):
      let parent = reference(node.parent)
      return .reference(parent.0, parent.1)
    case (AccessibleTree.Interface.accessible, "ChildCount"): return .int(Int32(node.children.count))
    case (AccessibleTree.Interface.accessible, "Locale"),
      (AccessibleTree.Interface.accessible, "AccessibleId"):
      return .string("")
    case (AccessibleTree.Interface.application, "ToolkitName"): return .string("notifyd")
    case (AccessibleTree.Interface.application, "Version"): return .string(version)
    case (AccessibleTree.Interface.application, "AtspiVersion"): return .string("2.1")
    case (AccessibleTree.Interface.application, "Id"): return .int(applicationID)
    case (AccessibleTree.Interface.action, "NActions"): return .int(Int32(node.actions.count))
    case (AccessibleTree.Interface.text, "CharacterCount"): return .int(Int32((node.text ?? "").count))
    case (AccessibleTree.Interface.text, "CaretOffset"): return .int(Int32((node.text ?? "").count))
    case (AccessibleTree.Interface.value, "MinimumValue"): return .double(0)
    case (AccessibleTree.Interface.value, "MaximumValue"): return .double(100)
    case (AccessibleTree.Interface.value, "MinimumIncrement"): return .double(1)
    case (AccessibleTree.Interface.value, "CurrentValue"): return .double(node.value ?? 0)
    case (AccessibleTree.Interface.value, "Text"): return .string(node.name)
    default: return nil
    }
  }

  private static func append(_ value: Value, to message: DBusMessage) throws(DBusError) {
    switch value {
    case .string(let string):
      try message.append(container: "v", "s") { () throws(DBusError) in try message.append(string) }
    case .int(let integer):
      try message.append(container: "v", "i") { () throws(DBusError) in try message.append(integer) }
    case .double(let double):
      try message.append(container: "v", "d") { () throws(DBusError) in try message.append(double) }
    case .reference(let name, let path):
      try message.append(container: "v", "(so)") { () throws(DBusError) in
        try message.append(reference: name, path)
      }
    }
  }

  /// What `Introspect` answers: the object's interfaces, by name (for `busctl` and `d-feet`).
  static func introspection(_ node: AccessibleNode) -> String {
    var xml = "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"\n"
    xml += "\"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n<node>\n"
    for interface in node.interfaces { xml += " <interface name=\"\(interface)\"/>\n" }
    xml += "</node>\n"
    return xml
  }
}
