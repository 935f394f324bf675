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

  /// A target of Package.swift: its kind (as `swift package dump-package` names it: `regular`,
  /// `executable`, `test`, `system`, `plugin`), its folder and the targets it depends on.
  struct Target {
    var name: String
    var kind: String
    var folder: String
    var dependencies: Set<String>
  }

  /// Every target of Package.swift, by name, as SwiftPM itself reads the manifest
  /// (`swift package dump-package`, in a scratch folder of its own: the `swift test` that runs
  /// this holds the package's own).
  static func targets() throws -> [String: Target] {
    let scratch = FileManager.default.temporaryDirectory
      .appendingPathComponent("notifyd-dump-package-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let swift = Process()
    swift.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    swift.arguments = [
      "swift", "package", "--package-path", repository.path, "--scratch-path", scratch.path, "dump-package",
    ]
    let output = Pipe()
    let errors = Pipe()
    swift.standardOutput = output
    swift.standardError = errors
    try swift.run()
    let json = output.fileHandleForReading.readDataToEndOfFile()
    let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    swift.waitUntilExit()
    try #require(
      swift.terminationStatus == 0, "swift package dump-package exited \(swift.terminationStatus): \(said)")
    let manifest = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
    let entries = try #require(manifest["targets"] as? [[String: Any]])
    var targets: [String: Target] = [:]
    for entry in entries {
      let name = try #require(entry["name"] as? String)
      let kind = try #require(entry["type"] as? String)
      // A dependency is {"byName": [name, condition]}, {"target": […]} or {"product": […]}.
      let dependencies = (entry["dependencies"] as? [[String: Any]] ?? []).compactMap {
        ($0.values.first as? [Any])?.first as? String
      }
      let folder =
        entry["path"] as? String
        ?? (kind == "test" ? "Tests/\(name)" : kind == "plugin" ? "Plugins/\(name)" : "Sources/\(name)")
      targets[name] = Target(name: name, kind: kind, folder: folder, dependencies: Set(dependencies))
    }
    return targets
  }

  /// The module a line of Swift imports, if it is an import: indented (inside `#if`), with
  /// attributes (`@testable`, `@preconcurrency`, `@_implementationOnly`), an access level
  /// (`public`, `package`, `internal` …), or of one declaration (`import struct Foo.Bar`).
  static func importedModule(in line: Substring) -> Substring? {
    var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })[...]
    while let word = words.first, word.hasPrefix("@") { words.removeFirst() }
    let accessLevels: Set<Substring> = ["public", "package", "internal", "fileprivate", "private", "open"]
    if let word = words.first, accessLevels.contains(word) { words.removeFirst() }
    guard words.first == "import" else { return nil }
    words.removeFirst()
    let kinds: Set<Substring> = ["struct", "enum", "class", "protocol", "typealias", "func", "var", "let"]
    if let word = words.first, kinds.contains(word) { words.removeFirst() }
    guard let path = words.first else { return nil }
    return path.split(separator: ".").first
  }

  /// The modules of this package that the Swift files under `folder` import.
  static func imports(under folder: String, known: Set<String>) throws -> Set<String> {
    let root = repository.appendingPathComponent(folder)
    guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
      return []
    }
    var modules = Set<String>()
    for case let file as URL in files where file.pathExtension == "swift" {
      let text = try String(contentsOf: file, encoding: .utf8)
      for line in text.split(separator: "\n") {
        guard let module = importedModule(in: line) else { continue }
        // A target's module name has `_` where its name has `-` (notifyd-wiregen).
        if let target = known.first(where: { $0.replacingOccurrences(of: "-", with: "_") == module }) {
          modules.insert(target)
        }
      }
    }
    return modules
  }

  @Test(
    arguments: [
      ("import NotifyCore", "NotifyCore"),
      ("  import Glibc", "Glibc"),
      ("\t@preconcurrency import CWayland", "CWayland"),
      ("package import NotifySupport", "NotifySupport"),
      ("@testable import NotifyDisplay", "NotifyDisplay"),
      ("@_spi(Testing) public import NotifyProtocol", "NotifyProtocol"),
      ("@preconcurrency internal import struct NotifyCore.Timeline", "NotifyCore"),
      ("/// import NotifyCore in a comment", nil),
      ("let important = 1", nil),
    ] as [(String, String?)])
  func anImport_isSeenHoweverItIsWritten(line: String, module: String?) {
    #expect(Self.importedModule(in: line[...]).map(String.init) == module)
  }

  @Test func everyTarget_declaresExactlyWhatItImports() throws {
    let targets = try Self.targets()
    #expect(targets.count > 20, "Package.swift was not read")
    let known = Set(targets.keys)
    // A plugin's dependencies are the tools it runs, not modules it imports.
    for target in targets.values where !["system", "plugin"].contains(target.kind) {
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
    // Each adapter translates between the OS and the service; only the daemon composes them. The
    // few edges between adapters are these: a display backend draws what the display decided, the
    // relay speaks NATS, and icons lie below the bus and the popups that both show them.
    let adapters = [
      "NotifyVarlink", "NotifyStore", "NotifyDBus", "NotifyRelay", "NotifyNATS", "NotifyDisplay",
      "NotifyWayland",
      "NotifyX11", "NotifyIcons",
    ]
    let allowed: Set<[String]> = [
      ["NotifyWayland", "NotifyDisplay"], ["NotifyX11", "NotifyDisplay"], ["NotifyRelay", "NotifyNATS"],
      ["NotifyDisplay", "NotifyIcons"], ["NotifyDBus", "NotifyIcons"],
    ]
    for adapter in adapters {
      let known = try #require(targets[adapter], "\(adapter) is not a target")
      for other in adapters where other != adapter && known.dependencies.contains(other) {
        #expect(allowed.contains([adapter, other]), "\(adapter) depends on \(other)")
      }
    }
    // Neither display backend reaches the other.
    var seen = Set<String>()
    #expect(!reaches("NotifyWayland", "NotifyX11", seen: &seen))
    seen = []
    #expect(!reaches("NotifyX11", "NotifyWayland", seen: &seen))
    // The engine and what is below it know no adapter, no C library but Linux's calls.
    var below = Set<String>()
    _ = reaches("NotifyCore", "", seen: &below)
    #expect(below == ["NotifyProtocol", "NotifyPosix", "NotifySupport", "CLinux"])
    // notifyctl stays small: no engine, no daemon.
    var client = Set<String>()
    _ = reaches("NotifyCLI", "", seen: &client)
    #expect(client.isDisjoint(with: ["NotifyCore", "NotifySupport", "NotifyConfig", "NotifyDaemon"]))
  }

  /// Whether `line` holds the engine itself: names `NoticeQueue` as a type or makes one (not one of
  /// its nested names, `NoticeQueue.Subscription`, and not in a comment).
  static func holdsTheEngine(_ line: Substring) -> Bool {
    let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    return code.contains(try! Regex(#"\bNoticeQueue\b(?!\s*\.)"#))
  }

  @Test(arguments: [
    ("  private let queue: NoticeQueue", true),
    ("  init(engine: NoticeQueue?, log: Logger) {", true),
    ("    let queue = NoticeQueue(scheduler: TimingThread())", true),
    ("    if let queue = notices as? NoticeQueue { queue.dismiss(request) }", true),
    ("  private var subscription: NoticeQueue.Subscription?", false),
    ("    guard count <= NoticeQueue.maximumActions else { return }", false),
    ("  /// draws at the opacity the engine gives (`NoticeQueue.appearances`); a NoticeQueue", false),
  ])
  func aLineHoldingTheEngine_isSeen(line: String, holds: Bool) {
    #expect(Self.holdsTheEngine(line[...]) == holds)
  }

  /// Every change a person or a client makes goes through `NoticeService` (DESIGN §17): outside the
  /// engine, the service and the daemon's composition, no source holds a `NoticeQueue`, so none can
  /// call its changing methods; they read through `NoticeReading` and change through the service.
  @Test func onlyTheServiceAndTheComposition_holdTheEngine() throws {
    let allowed: Set<String> = ["NotifyCore", "NotifyService", "NotifyDaemon"]
    var holders: [String] = []
    for target in try Self.targets().values
    where ["regular", "executable"].contains(target.kind) && !allowed.contains(target.name) {
      let root = Self.repository.appendingPathComponent(target.folder)
      guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
        continue
      }
      for case let file as URL in files where file.pathExtension == "swift" {
        let lines = try String(contentsOf: file, encoding: .utf8).split(
          separator: "\n", omittingEmptySubsequences: false)
        for (number, line) in lines.enumerated() where Self.holdsTheEngine(line) {
          holders.append("\(target.folder)/\(file.lastPathComponent):\(number + 1): \(line)")
        }
      }
    }
    #expect(
      holders.isEmpty,
      "hold the engine instead of going through NoticeService:\n\(holders.joined(separator: "\n"))")
  }

  /// The cards' path from the engine to pixels (DESIGN §17): the engine's events and presentations
  /// come in, and nothing on the way reads the engine (under its lock) or changes it but through the
  /// requests the `DisplayMachine` lists. The machine is a pure value: no Dispatch, no cairo, no
  /// service; the backends know the display only as a `DisplayHost`. The center alone still
  /// queries what it lists (`PopupDisplay+Center.swift`: the history, as a client's `History` does).
  @Test func theCardsPath_readsNothingFromTheEngine_andTheBackendsOnlyTranslate() throws {
    var findings: [String] = []
    func scan(_ folder: String, skip: Set<String> = [], _ check: (String, Substring) -> String?) throws {
      let root = Self.repository.appendingPathComponent(folder)
      let files = try FileManager.default.contentsOfDirectory(at: root, includingPropertiesForKeys: nil)
      for file in files.sorted(by: { $0.path < $1.path })
      where file.pathExtension == "swift" && !skip.contains(file.lastPathComponent) {
        let lines = try String(contentsOf: file, encoding: .utf8).split(
          separator: "\n", omittingEmptySubsequences: false)
        for (number, line) in lines.enumerated()
        where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
          if let why = check(file.lastPathComponent, line) {
            findings.append("\(folder)/\(file.lastPathComponent):\(number + 1): \(why): \(line)")
          }
        }
      }
    }
    let engineRead = try Regex(#"\bnotices\.(?!now\b|present\()"#)
    // The center lists what the engine has as it opens and as events come, as `notifyctl history`
    // does: reads, once per change at most, never per frame.
    let centerListing = try Regex(#"\bnotices\.(status\(\)|list\(\)|forEachFinished\(|wallTime\b)"#)
    let reads = try Regex(#"\b(appearances|matchingRules|fullscreenPolicy)\("#)
    let display = try Regex(#"\b(PopupDisplay|NoticeService)\b|\bservice\."#)
    try scan("Sources/NotifyDisplay") { file, line in
      let listing = file == "PopupDisplay+Center.swift" && line.contains(centerListing)
      if (line.contains(engineRead) && !listing) || line.contains(reads) { return "reads the engine" }
      let machine = file.hasPrefix("DisplayMachine") || file == "CenterMachine.swift"
      if machine,
        line.hasPrefix("import ")
          && !["import NotifyConfig", "import NotifyCore", "import NotifyProtocol"].contains(line)
      {
        return "the machine is a pure value"
      }
      if machine, line.contains("service.") || line.contains("DispatchQueue") || line.contains("notices.") {
        return "the machine calls out"
      }
      return nil
    }
    for backend in ["Sources/NotifyWayland", "Sources/NotifyX11"] {
      try scan(backend) { _, line in
        if line.contains(reads) || line.contains(engineRead) { return "reads the engine" }
        if line.contains(display) {
          return "a backend reaches past its DisplayHost"
        }
        return nil
      }
    }
    #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
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
    let documented = targets.values.filter { ["regular", "executable"].contains($0.kind) }
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
