import NotifyCore
import NotifyProtocol

/// Which part of the configuration a section's keys write: the whole of it, one urgency's layer
/// (`[Urgency:low]`, `[Display:critical]`), or one rule (`[Rule:NAME]`, by its place in the file).
public enum ConfigScope: Sendable, Equatable {
  case whole
  case urgency(Urgency)
  case rule(Int)
}

/// Why a value was refused, in words a person can act on; the parser adds the file, line and key.
public struct ConfigProblem: Error, Sendable, Equatable {
  public var reason: String
  public init(_ reason: String) { self.reason = reason }
}

/// One key of a config section: its name, what it takes, one line of doc, and how it is read into
/// a `Config` and shown from one. Its built-in default is what it shows of `Config()`.
public struct ConfigKey: Sendable {
  public let name: String
  /// What the key takes, as notifyd.conf(5) names it (`1…1000`, `duration`, `auto|forward|server|off`).
  public let values: String
  /// One line of doc.
  public let doc: String
  let read: @Sendable (inout Config, ConfigScope, String) throws(ConfigProblem) -> Void
  let show: @Sendable (Config, ConfigScope) -> String?

  /// Reads `text` into `config`, in `scope`.
  public func read(_ text: String, into config: inout Config, scope: ConfigScope = .whole)
    throws(ConfigProblem)
  {
    try read(&config, scope, text)
  }

  /// The value in force in `config`, as a config file writes it; `nil` when the key is unset and has
  /// nothing to show.
  public func value(in config: Config, scope: ConfigScope = .whole) -> String? { show(config, scope) }
}

/// A key written against the part of the configuration its section owns (`Target`): the table's
/// entries are these, lifted to `ConfigKey` by their section.
struct Field<Target>: Sendable {
  let name: String
  let values: String
  let doc: String
  let read: @Sendable (inout Target, String) throws(ConfigProblem) -> Void
  let show: @Sendable (Target) -> String?

  /// This key of a section whose scope is read and written by `modify` and shown through `view`.
  func lifted(
    modify:
      @escaping @Sendable (inout Config, ConfigScope, (inout Target) throws(ConfigProblem) -> Void)
      throws(ConfigProblem) -> Void,
    view: @escaping @Sendable (Config, ConfigScope) -> Target
  ) -> ConfigKey {
    let read = read
    let show = show
    return ConfigKey(
      name: name, values: values, doc: doc,
      read: { config, scope, text throws(ConfigProblem) in
        try modify(&config, scope) { target throws(ConfigProblem) in try read(&target, text) }
      },
      show: { config, scope in show(view(config, scope)) })
  }
}

// MARK: - The kinds of value

extension Field {
  /// A whole number in `range`.
  static func integer(
    _ name: String, _ path: WritableKeyPath<Target, Int> & Sendable, in range: ClosedRange<Int>, doc: String
  ) -> Field {
    Field(
      name: name, values: "\(range.lowerBound)…\(range.upperBound)", doc: doc,
      read: { target, text throws(ConfigProblem) in target[keyPath: path] = try Value.integer(text, in: range)
      },
      show: { "\($0[keyPath: path])" })
  }

  /// A whole number in `range`, or unset (a layer that leaves the one below in force); empty
  /// unsets it.
  static func integer(
    _ name: String, _ path: WritableKeyPath<Target, Int?> & Sendable, in range: ClosedRange<Int>, doc: String
  ) -> Field {
    Field(
      name: name, values: "\(range.lowerBound)…\(range.upperBound)", doc: doc,
      read: { target, text throws(ConfigProblem) in
        target[keyPath: path] = text.isEmpty ? nil : try Value.integer(text, in: range)
      },
      show: { $0[keyPath: path].map { "\($0)" } })
  }

  /// A number in `range`, or unset; empty unsets it.
  static func number(
    _ name: String, _ path: WritableKeyPath<Target, Double?> & Sendable, in range: ClosedRange<Double>,
    doc: String
  ) -> Field {
    Field(
      name: name, values: "\(Value.number(range.lowerBound))…\(Value.number(range.upperBound))", doc: doc,
      read: { target, text throws(ConfigProblem) in
        target[keyPath: path] = text.isEmpty ? nil : try Value.number(text, in: range)
      },
      show: { $0[keyPath: path].map(Value.number) })
  }

  /// A duration of at most a day.
  static func duration(_ name: String, _ path: WritableKeyPath<Target, Double> & Sendable, doc: String)
    -> Field
  {
    Field(
      name: name, values: "duration", doc: doc,
      read: { target, text throws(ConfigProblem) in target[keyPath: path] = try Value.duration(text) },
      show: { Value.seconds($0[keyPath: path]) })
  }

  /// A duration of at most a day that may be left unset (a layer that leaves the one below in force).
  static func duration(_ name: String, _ path: WritableKeyPath<Target, Double?> & Sendable, doc: String)
    -> Field
  {
    Field(
      name: name, values: "duration", doc: doc,
      read: { target, text throws(ConfigProblem) in target[keyPath: path] = try Value.duration(text) },
      show: { $0[keyPath: path].map(Value.seconds) })
  }

  /// `yes` or `no`.
  static func boolean(_ name: String, _ path: WritableKeyPath<Target, Bool> & Sendable, doc: String) -> Field
  {
    Field(
      name: name, values: "boolean", doc: doc,
      read: { target, text throws(ConfigProblem) in target[keyPath: path] = try Value.boolean(text) },
      show: { Value.yesNo($0[keyPath: path]) })
  }

  /// One of an enumeration's raw values.
  static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(
    _ name: String, _ path: WritableKeyPath<Target, Choice> & Sendable, doc: String
  ) -> Field where Choice.RawValue == String {
    Field(
      name: name, values: Choice.allCases.map(\.rawValue).joined(separator: "|"), doc: doc,
      read: { target, text throws(ConfigProblem) in target[keyPath: path] = try Value.choice(text) },
      show: { $0[keyPath: path].rawValue })
  }

  /// One of an enumeration's raw values, or unset; empty unsets it.
  static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(
    _ name: String, _ path: WritableKeyPath<Target, Choice?> & Sendable, doc: String
  ) -> Field where Choice.RawValue == String {
    Field(
      name: name, values: Choice.allCases.map(\.rawValue).joined(separator: "|"), doc: doc,
      read: { target, text throws(ConfigProblem) in
        target[keyPath: path] = text.isEmpty ? nil : try Value.choice(text)
      },
      show: { $0[keyPath: path]?.rawValue })
  }

  /// Any text; empty unsets it. `unset` is what is shown while it is unset (`nil`: nothing).
  static func text(
    _ name: String, _ path: WritableKeyPath<Target, String?> & Sendable, unset: String? = "", doc: String
  ) -> Field {
    Field(
      name: name, values: "text", doc: doc,
      read: { target, text throws(ConfigProblem) in target[keyPath: path] = text.isEmpty ? nil : text },
      show: { $0[keyPath: path] ?? unset })
  }

  /// An absolute path, or `~/…`. With `optional`, empty unsets it. `unset` is what is shown while it
  /// is unset (`nil`: nothing).
  static func path(
    _ name: String, _ path: WritableKeyPath<Target, String?> & Sendable, optional: Bool, unset: String?,
    doc: String
  ) -> Field {
    Field(
      name: name, values: "path", doc: doc,
      read: { target, text throws(ConfigProblem) in
        target[keyPath: path] = optional && text.isEmpty ? nil : try Value.path(text)
      },
      show: { $0[keyPath: path] ?? unset })
  }

  /// A glob matched against a whole string, or unset.
  static func glob(_ name: String, _ path: WritableKeyPath<Target, Glob?> & Sendable, doc: String) -> Field {
    Field(
      name: name, values: "glob", doc: doc,
      read: { target, text throws(ConfigProblem) in target[keyPath: path] = try Value.glob(text) },
      show: { $0[keyPath: path]?.pattern })
  }

  /// `#rrggbb` or `#rrggbbaa`, or unset; empty unsets it.
  static func colour(_ name: String, _ path: WritableKeyPath<Target, RGBA?> & Sendable, doc: String) -> Field
  {
    Field(
      name: name, values: "colour", doc: doc,
      read: { target, text throws(ConfigProblem) in
        guard !text.isEmpty else {
          target[keyPath: path] = nil
          return
        }
        guard let colour = RGBA(hex: text) else {
          throw ConfigProblem("'\(text)' is not a colour (#rrggbb or #rrggbbaa)")
        }
        target[keyPath: path] = colour
      },
      show: { $0[keyPath: path].map { "\($0)" } })
  }
}

/// How each kind of value is read from a config file and written back.
enum Value {
  static func integer(_ text: String, in range: ClosedRange<Int>) throws(ConfigProblem) -> Int {
    guard let value = Int(text) else { throw ConfigProblem("'\(text)' is not a whole number") }
    guard range.contains(value) else {
      throw ConfigProblem("\(value) is out of range (\(range.lowerBound)…\(range.upperBound))")
    }
    return value
  }

  static func number(_ text: String, in range: ClosedRange<Double>) throws(ConfigProblem) -> Double {
    guard let value = Double(text), value.isFinite else { throw ConfigProblem("'\(text)' is not a number") }
    guard range.contains(value) else {
      throw ConfigProblem(
        "\(number(value)) is out of range (\(number(range.lowerBound))…\(number(range.upperBound)))")
    }
    return value
  }

  /// `value` as the config writes it: 1.5, 2 (no ".0").
  static func number(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? "\(Int(value))" : "\(value)"
  }

  static func duration(_ text: String) throws(ConfigProblem) -> Double {
    guard let seconds = DurationParser.seconds(text) else {
      throw ConfigProblem("'\(text)' is not a duration ≥ 0 (e.g. 1.5, 300ms, 2s, 1m)")
    }
    guard seconds <= 86_400 else { throw ConfigProblem("'\(text)' is longer than a day") }
    return seconds
  }

  static func choice<Choice: RawRepresentable & CaseIterable>(_ text: String) throws(ConfigProblem) -> Choice
  where Choice.RawValue == String {
    guard let value = Choice(rawValue: text) else {
      let choices = Choice.allCases.map(\.rawValue).joined(separator: ", ")
      throw ConfigProblem("'\(text)' is not one of \(choices)")
    }
    return value
  }

  static func boolean(_ text: String) throws(ConfigProblem) -> Bool {
    switch text.lowercased() {
    case "yes", "true", "on", "1": return true
    case "no", "false", "off", "0": return false
    default: throw ConfigProblem("'\(text)' is not a boolean (yes or no)")
    }
  }

  static func glob(_ text: String) throws(ConfigProblem) -> Glob {
    guard let glob = Glob(text) else {
      throw ConfigProblem("'\(text)' is not a valid glob (an unclosed [ or a trailing \\)")
    }
    return glob
  }

  static func path(_ text: String) throws(ConfigProblem) -> String {
    guard text.hasPrefix("/") || text.hasPrefix("~/") else {
      throw ConfigProblem("'\(text)' is not an absolute path")
    }
    return text
  }

  /// Whether `text` turns a feature off (`off`, `no`, or nothing).
  static func isOff(_ text: String) -> Bool { ["", "off", "no"].contains(text) }

  /// `90s`, `1.5s`.
  static func seconds(_ value: Double) -> String {
    value == value.rounded() ? "\(Int(value))s" : "\(value)s"
  }

  static func yesNo(_ value: Bool) -> String { value ? "yes" : "no" }
}
