import Foundation
import NotifyCore
import NotifyProtocol
import Testing

@testable import NotifyConfig

@Suite("ConfigLoader (libinih)")
struct ConfigLoaderTests {
  @Test func entries_carryTheirSectionsAndLineNumbers() throws {
    let text = """
      # a comment
      [Queue]
      MaxVisible=2

      ; another comment
      [Timing]
      Hold = 3s
      """
    let entries = try ConfigLoader.entries(text: text, name: "x.conf")
    #expect(
      entries == [
        ConfigEntry(section: "Queue", key: "MaxVisible", value: "2", line: 3),
        ConfigEntry(section: "Timing", key: "Hold", value: "3s", line: 7),
      ])
  }

  @Test func valueWithSemicolon_isKeptWhole() throws {
    let entries = try ConfigLoader.entries(text: "[Hooks]\nOnShow=echo a ; echo b # not a comment\n")
    #expect(entries.first?.value == "echo a ; echo b # not a comment")
  }

  @Test func longLine_isReadWhole() throws {
    let command = String(repeating: "x", count: 5000)
    let text = "[Hooks]\nOnFinish=\(command)\nOnShow=after\n"
    let entries = try ConfigLoader.entries(text: text)
    #expect(entries.first?.value == command)
    #expect(entries.last == ConfigEntry(section: "Hooks", key: "OnShow", value: "after", line: 3))
  }

  @Test func garbageLine_isASyntaxErrorAtItsLine() {
    #expect(
      throws: ConfigError.syntax(
        file: "g.conf", line: 3, reason: "not a [Section], Key=Value or comment line")
    ) {
      try ConfigLoader.entries(text: "[Queue]\nMaxVisible=1\nthis is not ini\n", name: "g.conf")
    }
  }

  @Test func keyBeforeAnySection_isRefused() {
    #expect(throws: ConfigError.syntax(file: "k.conf", line: 1, reason: "Hold= stands before any [Section]"))
    {
      try ConfigLoader.entries(text: "Hold=1\n", name: "k.conf")
    }
  }

  @Test func missingFile_isUnreadable() {
    #expect(
      throws: ConfigError.unreadable(file: "/nonexistent/notifyd.conf", reason: "No such file or directory")
    ) {
      try ConfigLoader.load("/nonexistent/notifyd.conf")
    }
  }

  @Test func exampleConfig_passes() throws {
    let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("config/notifyd.conf").path
    let config = try ConfigLoader.load(example)
    #expect(config == Config())
  }

  @Test func locate_prefersExplicitThenXDGConfigHomeThenConfigDirs() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("notifyd-locate-\(UUID())").path
    defer { try? FileManager.default.removeItem(atPath: root) }
    for dir in ["home/notifyd", "dir1/notifyd", "dir2/notifyd"] {
      try FileManager.default.createDirectory(atPath: "\(root)/\(dir)", withIntermediateDirectories: true)
    }
    _ = FileManager.default.createFile(atPath: "\(root)/dir2/notifyd/notifyd.conf", contents: Data())
    let environment = [
      "XDG_CONFIG_HOME": "\(root)/home", "XDG_CONFIG_DIRS": "\(root)/dir1:\(root)/dir2", "HOME": root,
    ]
    #expect(
      ConfigLoader.locate(explicit: nil, environment: environment) == "\(root)/dir2/notifyd/notifyd.conf")
    _ = FileManager.default.createFile(atPath: "\(root)/home/notifyd/notifyd.conf", contents: Data())
    #expect(
      ConfigLoader.locate(explicit: nil, environment: environment) == "\(root)/home/notifyd/notifyd.conf")
    #expect(ConfigLoader.locate(explicit: "/x.conf", environment: environment) == "/x.conf")
    #expect(
      ConfigLoader.locate(
        explicit: nil, environment: ["HOME": "\(root)/none", "XDG_CONFIG_DIRS": "\(root)/none"]) == nil)
  }
}
