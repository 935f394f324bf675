import Foundation
import Testing

@testable import NotifyIcons

@Suite("Icon names found in the icon themes")
struct IconThemeTests {
  /// A data directory with a theme, hicolor and pixmaps laid out as Debian lays them out.
  func dataDirectory(_ files: [String]) throws -> String {
    let root = NSTemporaryDirectory() + "notifyd-icon-theme-\(UUID().uuidString)"
    for file in files {
      let path = "\(root)/\(file)"
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try Data([0x89, 0x50, 0x4E, 0x47]).write(to: URL(fileURLWithPath: path))
    }
    return root
  }

  @Test func aName_findsTheThemesPNG_nearest48Pixels_thenHicolor_thenPixmaps() throws {
    let root = try dataDirectory([
      "icons/Adwaita/256x256/legacy/dialog-information.png",
      "icons/Adwaita/48x48/legacy/dialog-information.png",
      "icons/Adwaita/16x16/legacy/dialog-information.png", "icons/Adwaita/48x48/status/weather.symbolic.png",
      "icons/Adwaita/scalable/apps/svg-only.svg", "icons/hicolor/32x32/apps/firefox.png",
      "icons/hicolor/64x64/apps/firefox.png", "icons/hicolor/48x48/apps/dialog-information.png",
      "pixmaps/debian-logo.png", "icons/Adwaita/24x24/apps/small-only.png",
    ])
    defer { try? FileManager.default.removeItem(atPath: root) }
    let theme = IconTheme(environment: ["HOME": "/nonexistent", "XDG_DATA_DIRS": root])
    #expect(
      theme.path(forName: "dialog-information") == "\(root)/icons/Adwaita/48x48/legacy/dialog-information.png"
    )
    #expect(theme.path(forName: "firefox") == "\(root)/icons/hicolor/64x64/apps/firefox.png")
    #expect(theme.path(forName: "debian-logo") == "\(root)/pixmaps/debian-logo.png")
    #expect(theme.path(forName: "small-only") == "\(root)/icons/Adwaita/24x24/apps/small-only.png")
    // Symbolic icons and SVGs are not what cairo draws; paths and invented names find nothing.
    for name in [
      "weather", "weather.symbolic", "svg-only", "../pixmaps/debian-logo", ".hidden", "", "no-such-icon",
    ] {
      #expect(theme.path(forName: name) == nil, "\(name)")
    }
    // Another theme named: its own icons first, hicolor's still found.
    let hicolor = IconTheme(theme: "hicolor", environment: ["HOME": "/nonexistent", "XDG_DATA_DIRS": root])
    #expect(
      hicolor.path(forName: "dialog-information") == "\(root)/icons/hicolor/48x48/apps/dialog-information.png"
    )
  }

  @Test func preference_is48ThenLargerNearestThenSmallerLargest() {
    let theme = IconTheme(environment: [:])
    let edges = [16, 256, 48, 32, 64, 96].sorted { theme.preference($0) < theme.preference($1) }
    #expect(edges == [48, 64, 96, 256, 32, 16])
    let small = IconTheme(environment: [:], size: 24)
    #expect(
      [16, 256, 48, 32, 24].sorted { small.preference($0) < small.preference($1) } == [24, 32, 48, 256, 16])
  }
}
