extension Config {
  /// The effective configuration as a config file, every key with its value in force, in the order
  /// of `ConfigTable`.
  public func rendered() -> String {
    var lines: [String] = []
    for section in ConfigTable.sections {
      for (suffix, scope) in section.scopes(self) {
        var present = section.keys.compactMap { key in
          key.value(in: self, scope: scope).map { "\(key.name)=\($0)" }
        }
        if section.form == .named, present.isEmpty {
          present.append("# matches every notice and changes nothing=")
        }
        guard !present.isEmpty else { continue }
        if !lines.isEmpty { lines.append("") }
        lines.append("[\(section.name)\(suffix.map { ":\($0)" } ?? "")]")
        lines.append(contentsOf: present)
        lines.append(contentsOf: section.notes(self, scope))
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
