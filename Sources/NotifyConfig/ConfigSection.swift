import NotifyCore
import NotifyProtocol

/// A section of notifyd.conf: its name, how many of it a file may have, and its keys in the order
/// `--check-config` shows them.
public struct ConfigSection: Sendable {
  /// How a section's header is written.
  public enum Form: Sendable, Equatable {
    /// `[Queue]`: one.
    case single
    /// `[Urgency:low]`: one per urgency.
    case perUrgency
    /// `[Rule:NAME]`: any number, each named.
    case named
  }

  /// What is wrong with a section's keys taken together: reported at the last line of `lineOf`.
  struct Conflict: Sendable {
    var key: String
    var lineOf: String
    var reason: String
  }

  public let name: String
  public let form: Form
  /// One line of doc.
  public let doc: String
  public let keys: [ConfigKey]
  /// The headers `--check-config` writes for this section of `config`, with the scope of each.
  let scopes: @Sendable (Config) -> [(suffix: String?, scope: ConfigScope)]
  /// Checks the keys of the section together, once the whole file is read.
  let check: @Sendable (Config) -> Conflict?
  /// Comment lines `--check-config` writes after a scope's keys (what a rule's look comes to).
  var notes: @Sendable (Config, ConfigScope) -> [String] = { _, _ in [] }

  /// The key named `name`.
  public func key(_ name: String) -> ConfigKey? { keys.first { $0.name == name } }

  /// `[Queue]`: keys of the part of `Config` at `path`; `view`, when given, is what they show
  /// instead (a layer shown over the built-in one below it).
  static func single<Target>(
    _ name: String, _ path: WritableKeyPath<Config, Target> & Sendable,
    view: (@Sendable (Config) -> Target)? = nil, doc: String, _ fields: [Field<Target>],
    check: @escaping @Sendable (Config) -> Conflict? = { _ in nil }
  ) -> ConfigSection {
    let view = view ?? { $0[keyPath: path] }
    return ConfigSection(
      name: name, form: .single, doc: doc,
      keys: fields.map { field in
        field.lifted(
          modify: { config, _, body throws(ConfigProblem) in try body(&config[keyPath: path]) },
          view: { config, _ in view(config) })
      },
      scopes: { _ in [(nil, .whole)] }, check: check)
  }

  /// `[Urgency:low]`: keys of one urgency's `Target`, which `modify` reads into and `view` shows.
  static func perUrgency<Target>(
    _ name: String,
    modify:
      @escaping @Sendable (inout Config, Urgency, (inout Target) throws(ConfigProblem) -> Void)
      throws(ConfigProblem) -> Void,
    view: @escaping @Sendable (Config, Urgency) -> Target, doc: String, _ fields: [Field<Target>]
  ) -> ConfigSection {
    ConfigSection(
      name: name, form: .perUrgency, doc: doc,
      keys: fields.map { field in
        field.lifted(
          modify: { config, scope, body throws(ConfigProblem) in
            guard case .urgency(let urgency) = scope else { return }
            try modify(&config, urgency, body)
          },
          view: { config, scope in
            guard case .urgency(let urgency) = scope else { return view(config, .normal) }
            return view(config, urgency)
          })
      },
      scopes: { _ in Urgency.allCases.map { ($0.rawValue, .urgency($0)) } }, check: { _ in nil })
  }

  /// `[Rule:NAME]`: keys of one rule, and the keys of the look it gives its cards (kept with the
  /// display's settings, by the rule's name).
  static func rules(doc: String, _ fields: [Field<Rule>], looks: [Field<LookOverrides>]) -> ConfigSection {
    let ruleKeys = fields.map { field in
      field.lifted(
        modify: { config, scope, body throws(ConfigProblem) in
          guard case .rule(let index) = scope else { return }
          try body(&config.queue.rules[index])
        },
        view: { config, scope in
          guard case .rule(let index) = scope else { return Rule(name: "") }
          return config.queue.rules[index]
        })
    }
    let lookKeys = looks.map { field in
      field.lifted(
        modify: { config, scope, body throws(ConfigProblem) in
          guard case .rule(let index) = scope else { return }
          try body(&config.display.ruleLooks[config.queue.rules[index].name, default: LookOverrides()])
        },
        view: { config, scope in
          guard case .rule(let index) = scope else { return LookOverrides() }
          return config.display.ruleLooks[config.queue.rules[index].name] ?? LookOverrides()
        })
    }
    return ConfigSection(
      name: "Rule", form: .named, doc: doc, keys: ruleKeys + lookKeys,
      scopes: { config in config.queue.rules.enumerated().map { ($1.name, .rule($0)) } }, check: { _ in nil },
      notes: { config, scope in
        // The whole look of the rule's cards, as if it were the only rule a notice matched.
        guard case .rule(let index) = scope else { return [] }
        let rule = config.queue.rules[index]
        guard config.display.ruleLooks[rule.name].map({ !$0.isEmpty }) ?? false else { return [] }
        let urgency = rule.urgency ?? rule.matchUrgency ?? .normal
        let look = LookOverrides(config.display.look(for: urgency, rules: [rule.name]))
        let keys = looks.compactMap { field in field.show(look).map { "\(field.name)=\($0)" } }
        return [
          "# the look of its cards (\(urgency.rawValue), over [Display] and [Display:\(urgency.rawValue)]):"
        ]
          + stride(from: 0, to: keys.count, by: 5).map {
            "#   " + keys[$0..<min($0 + 5, keys.count)].joined(separator: " ")
          }
      })
  }
}
