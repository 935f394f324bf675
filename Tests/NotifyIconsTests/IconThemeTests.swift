import Foundation
import Testing

@testable import NotifyIcons

/// A clock the test moves.
final class ManualClock: @unchecked Sendable {
  var now = 1000.0
}

@Suite("Icon names found in the icon themes, by the Icon Theme Specification")
struct IconThemeTests {
  /// A data directory holding `files` (icons as a few bytes; `index.theme` files as given).
  func dataDirectory(_ files: [String], indexes: [String: String] = [:]) throws -> String {
    let root = NSTemporaryDirectory() + "notifyd-icon-theme-\(UUID().uuidString)"
    for file in files {
      try write(Data([0x89, 0x50, 0x4E, 0x47]), to: "\(root)/\(file)")
    }
    for (theme, text) in indexes {
      try write(Data(text.utf8), to: "\(root)/icons/\(theme)/index.theme")
    }
    return root
  }

  func write(_ data: Data, to path: String) throws {
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try data.write(to: URL(fileURLWithPath: path))
  }

  func environment(_ root: String) -> [String: String] { ["HOME": "/nonexistent", "XDG_DATA_DIRS": root] }

  /// An `index.theme` with `Inherits=` and directories described as `path: keys`.
  func index(inherits: String? = nil, _ directories: [(String, String)]) -> String {
    var text = "[Icon Theme]\nName=Test\n"
    if let inherits { text += "Inherits=\(inherits)\n" }
    text += "Directories=\(directories.map(\.0).joined(separator: ","))\n"
    for (path, keys) in directories {
      text += "\n[\(path)]\n" + keys.split(separator: " ").joined(separator: "\n") + "\n"
    }
    return text
  }

  @Test func aName_findsTheDirectoryMatchingSizeAndScale_elseTheNearest() throws {
    let root = try dataDirectory(
      [
        "icons/Test/16x16/status/info.png", "icons/Test/48x48/status/info.png",
        "icons/Test/48x48@2/status/info.png", "icons/Test/256x256/status/info.png",
        "icons/Test/scalable/status/info-symbolic.svg", "icons/Test/48x48/status/info-symbolic.symbolic.png",
        "icons/Test/32x32/apps/app.png", "icons/Test/64x64/apps/app.png",
        "icons/Test/scalable/apps/both.svg", "icons/Test/48x48/apps/both.png",
        "icons/Test/48x48/apps/both.svg",
        "icons/Test/22x22/apps/near.png", "icons/Test/unlisted/apps/hidden.png",
      ],
      indexes: [
        "Test": index([
          ("16x16/status", "Size=16 Type=Fixed"), ("48x48/status", "Size=48 Type=Fixed"),
          ("48x48@2/status", "Size=48 Scale=2 Type=Fixed"), ("256x256/status", "Size=256 Type=Fixed"),
          ("scalable/status", "Size=16 MinSize=8 MaxSize=512 Type=Scalable"),
          ("32x32/apps", "Size=32 Type=Fixed"), ("64x64/apps", "Size=64 Type=Fixed"),
          ("48x48/apps", "Size=48 Type=Fixed"),
          ("scalable/apps", "Size=48 MinSize=8 MaxSize=512 Type=Scalable"),
          ("22x22/apps", "Size=22"),
        ])
      ])
    defer { try? FileManager.default.removeItem(atPath: root) }
    let theme = IconTheme(theme: "Test", environment: environment(root))
    let icons = "\(root)/icons/Test"
    // The directory whose Size and Scale match.
    #expect(theme.path(forName: "info") == "\(icons)/48x48/status/info.png")
    #expect(theme.path(forName: "info", size: 48, scale: 2) == "\(icons)/48x48@2/status/info.png")
    #expect(theme.path(forName: "info", size: 16) == "\(icons)/16x16/status/info.png")
    // None matches: the nearest in device pixels (64 for 48 at 1; 256 for 96 at 2 is farther than
    // 48@2's, 48 at scale 2 being 96 device pixels).
    #expect(theme.path(forName: "app") == "\(icons)/64x64/apps/app.png")
    #expect(theme.path(forName: "app", size: 40) == "\(icons)/32x32/apps/app.png")
    #expect(theme.path(forName: "info", size: 100, scale: 2) == "\(icons)/256x256/status/info.png")
    // A scalable directory matches any size within MinSize…MaxSize; the first listed that
    // matches wins, and in one directory the PNG before the SVG.
    #expect(theme.path(forName: "info-symbolic") == "\(icons)/scalable/status/info-symbolic.svg")
    #expect(
      theme.path(forName: "info-symbolic", size: 24, scale: 3) == "\(icons)/scalable/status/info-symbolic.svg"
    )
    #expect(theme.path(forName: "both") == "\(icons)/48x48/apps/both.png")
    #expect(theme.path(forName: "both", size: 64) == "\(icons)/scalable/apps/both.svg")
    // Type defaults to Threshold (2): 22 matches 20 to 24.
    #expect(theme.path(forName: "near", size: 24) == "\(icons)/22x22/apps/near.png")
    // A directory index.theme does not list is not the theme's.
    #expect(theme.path(forName: "hidden") == nil)
    #expect(theme.contains("app") && !theme.contains("hidden"))
  }

  @Test func aTheme_inheritsDepthFirst_thenHicolor_thenPixmaps_andACycleEnds() throws {
    let root = try dataDirectory(
      [
        "icons/Child/48x48/apps/own.png", "icons/Parent/48x48/apps/own.png",
        "icons/Parent/48x48/apps/parents.png", "icons/Grand/48x48/apps/grand.png",
        "icons/Other/48x48/apps/grand.png", "icons/Other/48x48/apps/other.png",
        "icons/hicolor/48x48/apps/firefox.png", "icons/hicolor/48x48/apps/grand.png",
        "pixmaps/debian-logo.png", "pixmaps/firefox.png",
      ],
      indexes: [
        "Child": index(inherits: "Parent,Other", [("48x48/apps", "Size=48 Type=Fixed")]),
        "Parent": index(inherits: "Grand", [("48x48/apps", "Size=48 Type=Fixed")]),
        "Grand": index(inherits: "Child", [("48x48/apps", "Size=48 Type=Fixed")]),
        "Other": index([("48x48/apps", "Size=48 Type=Fixed")]),
        "hicolor": index([("48x48/apps", "Size=48 Type=Fixed")]),
      ])
    defer { try? FileManager.default.removeItem(atPath: root) }
    let theme = IconTheme(theme: "Child", environment: environment(root))
    #expect(theme.path(forName: "own") == "\(root)/icons/Child/48x48/apps/own.png")
    #expect(theme.path(forName: "parents") == "\(root)/icons/Parent/48x48/apps/parents.png")
    // Depth first: Parent's parent Grand before Child's second parent Other.
    #expect(theme.path(forName: "grand") == "\(root)/icons/Grand/48x48/apps/grand.png")
    #expect(theme.path(forName: "other") == "\(root)/icons/Other/48x48/apps/other.png")
    #expect(theme.path(forName: "firefox") == "\(root)/icons/hicolor/48x48/apps/firefox.png")
    #expect(theme.path(forName: "debian-logo") == "\(root)/pixmaps/debian-logo.png")
    // Grand inherits Child: the cycle ends, and a name nobody has is nil.
    #expect(theme.path(forName: "no-such-icon") == nil)
    // A theme nobody installed: straight to hicolor.
    let missing = IconTheme(theme: "Missing", environment: environment(root))
    #expect(missing.path(forName: "firefox") == "\(root)/icons/hicolor/48x48/apps/firefox.png")
  }

  @Test func aThemeSpreadOverBaseDirectories_readsItsIndexFromTheFirst_andFilesFromEach() throws {
    let home = try dataDirectory(
      ["icons/Test/48x48/apps/mine.png"], indexes: ["Test": index([("48x48/apps", "Size=48 Type=Fixed")])])
    let system = try dataDirectory(
      [
        "icons/Test/48x48/apps/mine.png", "icons/Test/48x48/apps/system.png", "icons/Test/96x96/apps/big.png",
      ],
      indexes: [
        "Test": index([("48x48/apps", "Size=48 Type=Fixed"), ("96x96/apps", "Size=96 Type=Fixed")])
      ])
    defer {
      try? FileManager.default.removeItem(atPath: home)
      try? FileManager.default.removeItem(atPath: system)
    }
    let theme = IconTheme(
      theme: "Test", environment: ["HOME": "/nonexistent", "XDG_DATA_HOME": home, "XDG_DATA_DIRS": system])
    #expect(theme.path(forName: "mine") == "\(home)/icons/Test/48x48/apps/mine.png")
    #expect(theme.path(forName: "system") == "\(system)/icons/Test/48x48/apps/system.png")
    // The home index lists no 96x96: the system's directory is not the theme's.
    #expect(theme.path(forName: "big") == nil)
  }

  @Test func namesThatAreNotNames_findNothing_andBadIndexesAreSkipped() throws {
    let root = try dataDirectory(
      ["icons/Test/48x48/apps/app.png", "icons/Test/bad/apps/app.png", "pixmaps/logo.png"],
      indexes: [
        "Test": """
        [Icon Theme]
        Directories = bad/apps, 48x48/apps ,../../pixmaps,
        [bad/apps]
        Size=zero
        [48x48/apps]
        Size = 48
        Type = Fixed
        [../../pixmaps]
        Size=48
        """
      ])
    defer { try? FileManager.default.removeItem(atPath: root) }
    let theme = IconTheme(theme: "Test", environment: environment(root))
    #expect(theme.path(forName: "app") == "\(root)/icons/Test/48x48/apps/app.png")
    for name in ["../pixmaps/logo", "/etc/passwd", ".hidden", "", "a\nb", String(repeating: "a", count: 256)]
    {
      #expect(theme.path(forName: name) == nil, "\(name)")
    }
  }

  @Test func anIconInstalledWhileRunning_isFoundOnceTheDirectoriesAreCheckedAgain() throws {
    let root = try dataDirectory(
      ["icons/hicolor/48x48/apps/old.png"],
      indexes: ["hicolor": index([("48x48/apps", "Size=48 Type=Fixed")])])
    defer { try? FileManager.default.removeItem(atPath: root) }
    let clock = ManualClock()
    let theme = IconTheme(theme: "hicolor", environment: environment(root), clock: { clock.now })
    #expect(theme.path(forName: "old") != nil)
    #expect(theme.path(forName: "new") == nil)
    try write(Data([0x89]), to: "\(root)/icons/hicolor/48x48/apps/new.png")
    // Within `freshness` of the last check the table is kept; from then on, the changed
    // directory is read again.
    clock.now += IconTheme.freshness - 0.1
    #expect(theme.path(forName: "new") == nil)
    clock.now += 0.1
    #expect(theme.path(forName: "new") == "\(root)/icons/hicolor/48x48/apps/new.png")
    #expect(theme.path(forName: "old") != nil)
  }

  @Test func sharedThemes_areOnePerThemeAndDirectories() {
    let first = IconTheme.named("Adwaita", environment: ["HOME": "/a"])
    #expect(IconTheme.named("Adwaita", environment: ["HOME": "/a"]) === first)
    #expect(IconTheme.named("Adwaita", environment: ["HOME": "/b"]) !== first)
  }

  @Test func adwaita_hasItsSymbolicIconsAsSVG_andItsLegacyOnesAsPNG() throws {
    try #require(FileManager.default.fileExists(atPath: "/usr/share/icons/Adwaita/index.theme"))
    let theme = IconTheme(environment: ["HOME": "/nonexistent", "XDG_DATA_DIRS": "/usr/share"])
    #expect(
      theme.path(forName: "dialog-information-symbolic")
        == "/usr/share/icons/Adwaita/scalable/status/dialog-information-symbolic.svg")
    #expect(
      theme.path(forName: "dialog-information")
        == "/usr/share/icons/Adwaita/48x48/legacy/dialog-information.png")
    #expect(
      theme.path(forName: "dialog-information", size: 24)
        == "/usr/share/icons/Adwaita/24x24/legacy/dialog-information.png")
  }
}
