import NotifyCore
import NotifyProtocol

/// Turns the entries of a config file into a `Config` through `ConfigTable`, refusing any section,
/// key or value it does not know.
public enum ConfigParser {
  /// Parses `entries` read from `file`, in file order.
  public static func parse(_ entries: [ConfigEntry], file: String) throws(ConfigError) -> Config {
    var config = Config()
    var rules: [String: Int] = [:]
    for entry in entries {
      func invalid(_ reason: String) -> ConfigError {
        .invalidValue(file: file, line: entry.line, key: entry.key, reason: reason)
      }
      guard let (section, suffix) = ConfigTable.section(for: entry.section) else {
        throw invalid("unknown section [\(entry.section)]")
      }
      let scope: ConfigScope
      switch section.form {
      case .single:
        scope = .whole
      case .perUrgency:
        guard let urgency = suffix.flatMap(Urgency.init(rawValue:)) else {
          throw invalid("unknown urgency in [\(entry.section)]; use low, normal or critical")
        }
        scope = .urgency(urgency)
      case .named:
        guard let name = suffix, !name.isEmpty else {
          throw invalid("a rule needs a name: [\(section.name):NAME]")
        }
        if rules[name] == nil {
          rules[name] = config.queue.rules.count
          config.queue.rules.append(Rule(name: name))
        }
        scope = .rule(rules[name]!)
      }
      guard let key = section.key(entry.key) else { throw invalid("unknown key in [\(entry.section)]") }
      do {
        try key.read(entry.value, into: &config, scope: scope)
      } catch {
        throw invalid(error.reason)
      }
    }
    for section in ConfigTable.sections {
      guard let conflict = section.check(config) else { continue }
      let line = entries.last { $0.section == section.name && $0.key == conflict.lineOf }?.line ?? 0
      throw .invalidValue(file: file, line: line, key: conflict.key, reason: conflict.reason)
    }
    return config
  }
}
