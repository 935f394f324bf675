import Foundation
import Testing

/// The house: what each target of Package.swift declares, what its files import, and what
/// docs/ARCHITECTURE.md says it may use, are the same.
@Suite("The module graph")
struct ModuleGraphTests {
  private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  private static func read(_ path: String) throws -> String {
    try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
  }

  /// A target of Package.swift: its kind and the targets it depends on.
  struct Target {
    var kind: String
    var dependencies: Set<String>
    var folder: String {
      switch kind {
      case "testTarget": "Tests/\(name)"
      case "plugin": "Plugins/\(name)"
      default: "Sources/\(name)"
      }
    }
    var name: String
  }

  /// Every target of Package.swift, by name.
  static func targets() throws -> [String: Target] {
    let manifest = try read("Package.swift")
    var targets: [String: Target] = [:]
    let call = try Regex(
      #"\.(target|executableTarget|testTarget|systemLibrary|plugin)\(\s*name:\s*"([A-Za-z0-9-]+)""#)
    let matches = manifest.matches(of: call)
    for (index, match) in matches.enumerated() {
      let kind = String(match.output[1].substring!)
      let name = String(match.output[2].substring!)
      // The call runs to the next target's: its dependencies are the first list after the name.
      let end = index + 1 < matches.count ? matches[index + 1].range.lowerBound : manifest.endIndex
      let body = manifest[match.range.upperBound..<end]
      var dependencies = Set<String>()
      if let list = body.firstRange(of: "dependencies:"),
        let close = body[list.upperBound...].firstIndex(of: "]")
      {
        for quoted in body[list.upperBound..<close].matches(of: try Regex(#""([A-Za-z0-9-]+)""#)) {
          dependencies.insert(String(quoted.output[1].substring!))
        }
      }
      targets[name] = Target(kind: kind, dependencies: dependencies, name: name)
    }
    return targets
  }

  /// The modules of this package that the Swift files under `folder` import.
  static func imports(under folder: String, known: Set<String>) throws -> Set<String> {
    let root = repository.appendingPathComponent(folder)
    guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
      return []
    }
    var modules = Set<String>()
    let line = try Regex(
      #"^(?:@testable |@_implementationOnly |public |internal )?import (?:struct |enum |class )?([A-Za-z0-9_]+)"#
    )
    .anchorsMatchLineEndings()
    for case let file as URL in files where file.pathExtension == "swift" {
      let text = try String(contentsOf: file, encoding: .utf8)
      for match in text.matches(of: line) {
        // A target's module name has `_` where its name has `-` (notifyd-wiregen).
        let module = String(match.output[1].substring!)
        if let target = known.first(where: { $0.replacingOccurrences(of: "-", with: "_") == module }) {
          modules.insert(target)
        }
      }
    }
    return modules
  }

  @Test func everyTarget_declaresExactlyWhatItImports() throws {
    let targets = try Self.targets()
    #expect(targets.count > 20, "Package.swift was not read")
    let known = Set(targets.keys)
    // A plugin's dependencies are the tools it runs, not modules it imports.
    for target in targets.values where !["systemLibrary", "plugin"].contains(target.kind) {
      let imported = try Self.imports(under: target.folder, known: known)
      // A C target (`C…`) holds no Swift; its dependencies are for its headers and the linker.
      if imported.isEmpty && (target.dependencies.isEmpty || target.name.hasPrefix("C")) { continue }
      #expect(
        imported == target.dependencies,
        "\(target.name) imports \(imported.sorted()) but declares \(target.dependencies.sorted())")
    }
  }

  @Test func theGraphHasNoCycle_andTheAdaptersDoNotKnowEachOther() throws {
    let targets = try Self.targets()
    func reaches(_ from: String, _ to: String, seen: inout Set<String>) -> Bool {
      for next in targets[from]?.dependencies ?? [] where seen.insert(next).inserted {
        if next == to || reaches(next, to, seen: &seen) { return true }
      }
      return false
    }
    for name in targets.keys {
      var seen = Set<String>()
      #expect(!reaches(name, name, seen: &seen), "\(name) depends on itself")
    }
    // Each adapter translates between the OS and the service; only the daemon composes them.
    let adapters = ["NotifyVarlink", "NotifyStore", "NotifyDBus", "NotifyRelay", "NotifyDisplay"]
    for adapter in adapters {
      var seen = Set<String>()
      for other in adapters where other != adapter {
        seen = []
        #expect(!reaches(adapter, other, seen: &seen), "\(adapter) reaches \(other)")
      }
    }
    // The engine and what is below it know no adapter, no C library but Linux's calls.
    var below = Set<String>()
    _ = reaches("NotifyCore", "", seen: &below)
    #expect(below == ["NotifyProtocol", "NotifyPosix", "NotifySupport", "CLinux"])
    // notifyctl stays small: no engine, no daemon.
    var client = Set<String>()
    _ = reaches("NotifyCLI", "", seen: &client)
    #expect(client.isDisjoint(with: ["NotifyCore", "NotifySupport", "NotifyConfig", "NotifyDaemon"]))
  }

  /// docs/ARCHITECTURE.md's table of parts: a row per Swift target that is not a test, whose "may
  /// use" column names (in backticks) exactly the targets it depends on.
  @Test func architectureDoc_mayUseColumn_matchesPackageSwift() throws {
    let targets = try Self.targets()
    let known = Set(targets.keys)
    var rows: [String: Set<String>] = [:]
    let name = try Regex(#"`([A-Za-z0-9-]+)`"#)
    for line in try Self.read("docs/ARCHITECTURE.md").split(separator: "\n") where line.hasPrefix("| `") {
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard cells.count >= 4 else { continue }
      let names = cells[1].matches(of: name).map { String($0.output[1].substring!) }.filter(known.contains)
      let mayUse = Set(cells[cells.count - 2].matches(of: name).map { String($0.output[1].substring!) })
        .intersection(known)
      for target in names { rows[target] = mayUse }
    }
    let documented = targets.values.filter { ["target", "executableTarget"].contains($0.kind) }
      .filter { !$0.name.hasPrefix("C") }
    for target in documented {
      let row = try #require(rows[target.name], "\(target.name) has no row in docs/ARCHITECTURE.md")
      #expect(
        row == target.dependencies,
        "ARCHITECTURE.md says \(target.name) may use \(row.sorted()); Package.swift: \(target.dependencies.sorted())"
      )
    }
  }
}
