import Foundation
import NotifyCore
import NotifyProtocol
import Testing

@testable import NotifyConfig

/// notifyd.conf(5) and the example config against `ConfigTable`: every key in the table is in both,
/// with its true default, and nothing else is.
@Suite("ConfigTable and its documents")
struct ConfigTableTests {
  private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  private static func read(_ path: String) throws -> String {
    try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
  }

  /// Where a key stands in a document: its section's name and form, and the urgency or rule it is in.
  private struct Place: Hashable, CustomStringConvertible {
    var section: String
    var form: ConfigSection.Form
    var key: String
    var description: String { "[\(section)\(form == .single ? "" : ":…")] \(key)=" }
  }

  private static let timingKeys = Set(ConfigTable.timingFields.map(\.name))
  private static let lookKeys = Set(ConfigTable.lookFields.map(\.name))

  private static func everyPlace() -> Set<Place> {
    Set(
      ConfigTable.sections.flatMap { section in
        section.keys.map { Place(section: section.name, form: section.form, key: $0.name) }
      })
  }

  /// Two values the same: equal text, or durations of the same length (`2m` and `120s`).
  private static func same(_ a: String, _ b: String) -> Bool {
    if a == b { return true }
    guard let x = DurationParser.seconds(a), let y = DurationParser.seconds(b) else { return false }
    return x == y
  }

  // MARK: - The example config

  /// The `#Key=value` lines of the example, with the section (or commented rule) they stand in.
  private static func exampleLines() throws -> [(section: String, key: String, value: String)] {
    var section = ""
    var lines: [(String, String, String)] = []
    for raw in try read("config/notifyd.conf").split(separator: "\n", omittingEmptySubsequences: false) {
      var line = String(raw)
      if line.hasPrefix("[") || line.hasPrefix("#[") {
        section = String(line.drop { $0 == "#" || $0 == "[" }.prefix { $0 != "]" })
        continue
      }
      guard line.hasPrefix("#"), !line.hasPrefix("# ") else { continue }
      line.removeFirst()
      guard let equals = line.firstIndex(of: "="), line[..<equals].allSatisfy(\.isLetter) else { continue }
      lines.append((section, String(line[..<equals]), String(line[line.index(after: equals)...])))
    }
    return lines
  }

  @Test func exampleConfig_showsEveryKeyWithItsTrueDefault_andNothingElse() throws {
    let lines = try Self.exampleLines()
    var seen = Set<Place>()
    let defaults = Config()
    for (header, name, value) in lines {
      let (section, suffix) = try #require(ConfigTable.section(for: header), "[\(header)] is no section")
      let key = try #require(section.key(name), "[\(header)] \(name)= is no key of the table")
      seen.insert(Place(section: section.name, form: section.form, key: name))
      let scope: ConfigScope
      switch section.form {
      case .single: scope = .whole
      case .perUrgency: scope = .urgency(try #require(suffix.flatMap(Urgency.init(rawValue:))))
      case .named: continue  // a rule's keys have no defaults: the example's values are examples
      }
      let truth = key.value(in: defaults, scope: scope) ?? ""
      #expect(Self.same(value, truth), "[\(header)] \(name)=\(value), but the default is '\(truth)'")
    }
    // A per-urgency key that is unset for every urgency (it takes [Timing]'s) needs no line.
    let needed = Self.everyPlace().filter { place in
      guard place.form == .perUrgency,
        let section = ConfigTable.sections.first(where: {
          $0.name == place.section && $0.form == .perUrgency
        })
      else { return true }
      return Urgency.allCases.contains {
        section.key(place.key)?.value(in: defaults, scope: .urgency($0)) != nil
      }
    }
    #expect(
      needed.subtracting(seen).isEmpty,
      "not in the example: \(needed.subtracting(seen).sorted { "\($0)" < "\($1)" })")
  }

  @Test func exampleConfig_isAcceptedAsItStands() throws {
    let config = try ConfigLoader.load(Self.repository.appendingPathComponent("config/notifyd.conf").path)
    #expect(config == Config())
  }

  // MARK: - notifyd.conf(5)

  /// The keys each `## [Section]` heading of the man page defines (`*Key=*…` at the start of a line),
  /// with the value a term gives inline (`*Anchor=top-right*`) or its paragraph as `Default: *…*`.
  private static func manPageKeys() throws -> [Place: String?] {
    var keys: [Place: String?] = [:]
    var sections: [(name: String, form: ConfigSection.Form)] = []
    // Under `# TIMING` and `# LOOKS`: the keys every section that has them all takes.
    var shared: Set<String>?
    var lastTerm: [Place] = []
    let lines = try read("man/notifyd.conf.5.scd").split(separator: "\n", omittingEmptySubsequences: false)
    let term = try Regex(#"\*([A-Za-z]+)=([^*]*)\*"#)
    let stated = try Regex(#"Default:\s+\*([^*]+)\*"#)
    for raw in lines {
      let line = String(raw)
      if line.hasPrefix("# ") {
        shared = line == "# TIMING" ? Self.timingKeys : line == "# LOOKS" ? Self.lookKeys : nil
        sections = []
        continue
      }
      if line.hasPrefix("## ") {
        shared = nil
        sections = line.matches(of: try Regex(#"\[([A-Za-z]+)(:?)[^\]]*\]"#)).compactMap { match in
          let name = String(match.output[1].substring ?? "")
          let colon = !(match.output[2].substring?.isEmpty ?? true)
          let form = ConfigTable.sections.first { $0.name == name && ($0.form == .single) != colon }?.form
          return form.map { (name, $0) }
        }
        continue
      }
      if line.hasPrefix("*") {
        let targets: [(String, ConfigSection.Form)] =
          shared.map { keys in
            ConfigTable.sections.filter { keys.isSubset(of: $0.keys.map(\.name)) }.map { ($0.name, $0.form) }
          } ?? sections
        lastTerm = []
        for match in line.matches(of: term) {
          let key = String(match.output[1].substring ?? "")
          // `*Sync=full*|*normal*` lists the choices; `*Anchor=top-right*` gives the default.
          let choices = line[match.range.upperBound...].hasPrefix("|")
          let inline = choices ? "" : String(match.output[2].substring ?? "")
          for (section, form) in targets {
            let place = Place(section: section, form: form, key: key)
            keys[place] = inline.isEmpty ? nil : inline
            lastTerm.append(place)
          }
        }
        continue
      }
      if lastTerm.count == 1 || Set(lastTerm.map(\.key)).count == 1, let match = line.firstMatch(of: stated) {
        for place in lastTerm where keys[place]! == nil {
          keys[place] = String(match.output[1].substring ?? "")
        }
      }
    }
    return keys
  }

  @Test func manPage_definesEveryKey_andNothingElse() throws {
    let documented = Set(try Self.manPageKeys().keys)
    let table = Self.everyPlace()
    #expect(table.subtracting(documented).isEmpty, "not in notifyd.conf(5): \(table.subtracting(documented))")
    #expect(
      documented.subtracting(table).isEmpty,
      "in notifyd.conf(5), not in the table: \(documented.subtracting(table))")
  }

  @Test func manPage_statesTrueDefaults() throws {
    let defaults = Config()
    for (place, stated) in try Self.manPageKeys() {
      guard let stated, place.form == .single,
        let key = ConfigTable.sections.first(where: { $0.name == place.section && $0.form == .single })?.key(
          place.key),
        let truth = key.value(in: defaults)
      else { continue }
      #expect(Self.same(stated, truth), "notifyd.conf(5) says \(place)\(stated), the default is \(truth)")
    }
  }

  // MARK: - The table itself

  @Test func everyKey_hasADocLine_andWhatItTakes() {
    for section in ConfigTable.sections {
      #expect(!section.doc.isEmpty)
      for key in section.keys {
        #expect(!key.doc.isEmpty && !key.doc.contains("\n"), "[\(section.name)] \(key.name)")
        #expect(!key.values.isEmpty, "[\(section.name)] \(key.name)")
      }
      #expect(Set(section.keys.map(\.name)).count == section.keys.count, "a key twice in [\(section.name)]")
    }
  }

  @Test func everyShownValue_readsBackToTheSameConfig() throws {
    // What --check-config writes is a config file that gives the same values (explicitly: the
    // layers below [Timing] are written out), so writing what it reads back changes nothing.
    var config = Config()
    config.queue.maxVisible = 3
    config.queue.timing.hold = 2.5
    config.queue.urgencyTiming[.low] = TimingOverrides(fadeIn: 0.25)
    config.queue.perApp = FloodLimit(count: 20, period: 60)
    config.display.idleAfter = nil
    config.display.urgencyLooks[.critical] = LookOverrides()
    config.display.urgencyLooks[.critical]?.background = RGBA(hex: "#10203040")!
    config.display.look.padding = 6
    config.display.ruleLooks["quiet"] = LookOverrides()
    config.display.ruleLooks["quiet"]?.format = try CardFormat("%a: <b>%s</b>\\n%b")
    config.display.ruleLooks["quiet"]?.layer = .overlay
    var rule = Rule(name: "quiet", matchApp: Glob("backup*"), urgency: .low)
    rule.bypassDoNotDisturb = false
    config.queue.rules = [rule]
    config.socketPath = "/run/n.sock"
    config.storePath = "/var/n.db"
    config.relay.subject = "me.notices"
    config.relay.host = "desk"
    let text = config.rendered()
    let reread = try ConfigParser.parse(try ConfigLoader.entries(text: text), file: "rendered")
    #expect(reread.rendered() == text)
    #expect(
      reread.queue.resolve(app: "backup-home", tag: nil, title: "t", urgency: nil, explicit: .init())
        == config.queue.resolve(app: "backup-home", tag: nil, title: "t", urgency: nil, explicit: .init()))
    #expect(reread.queue.perApp == config.queue.perApp)
    // The looks come to the same, though the reread file sets explicitly what was built in.
    for urgency in Urgency.allCases {
      #expect(reread.display.look(for: urgency) == config.display.look(for: urgency))
      #expect(
        reread.display.look(for: urgency, rules: ["quiet"])
          == config.display.look(for: urgency, rules: ["quiet"]))
    }
    var looksApart = reread.display
    (looksApart.look, looksApart.urgencyLooks) = (config.display.look, config.display.urgencyLooks)
    #expect(looksApart == config.display)
    #expect(
      (reread.socketPath, reread.storePath, reread.relay) == (
        config.socketPath, config.storePath, config.relay
      ))
  }

  @Test func aKeyOfNoSection_isRefusedWithItsSection() {
    #expect(
      throws: ConfigError.invalidValue(
        file: "t", line: 1, key: "Colour", reason: "unknown key in [Display:low]")
    ) {
      try ConfigParser.parse(
        [ConfigEntry(section: "Display:low", key: "Colour", value: "#000000", line: 1)], file: "t")
    }
  }
}
