import NotifyPosix
import NotifyProtocol

/// Icon names (`dialog-information`, a program's name) found as PNG files in the freedesktop icon
/// themes, as a D-Bus client's `app_icon` or `image-path` may give them: the configured theme
/// (`[Display] IconTheme=`, Adwaita by default), then `hicolor`, then `/usr/share/pixmaps`, under
/// `$XDG_DATA_HOME/icons`, `~/.icons` and each `$XDG_DATA_DIRS/icons`.
///
/// Cairo reads PNG only, so the fixed-size directories are used (not `scalable`'s SVGs), the size
/// nearest the card's 48 pixels first (`size`) (a larger one before a smaller one). The themes' directories
/// are read once, when the first name is looked up, into one table of name → file: a lookup is a
/// dictionary read however many names clients invent, and the table holds one path per icon the
/// themes have (a few thousand).
///
/// - Important: not thread-safe; one owner queue.
public final class IconTheme {
  public let theme: String
  /// The edge, in pixels, whose icons are preferred.
  public let size: Int
  private let baseDirectories: [String]
  private let pixmaps: [String]
  private var table: [String: String]?

  /// The longest icon name looked up.
  public static let maximumNameLength = 255

  /// The themes' icons for `theme`, the size nearest `size` pixels (a card's icon) first.
  public init(theme: String = "Adwaita", environment: [String: String], size: Int = 48) {
    self.theme = theme
    self.size = size
    let data = ConfigLocation.dataDirectories(environment: environment)
    let home = ConfigLocation.home(environment: { environment[$0] })
    baseDirectories = ["\(data[0])/icons", "\(home)/.icons"] + data.dropFirst().map { "\($0)/icons" }
    pixmaps = data.dropFirst().map { "\($0)/pixmaps" }
  }

  /// The PNG file for icon `name`, or nil when no theme has one (or `name` is not a plain name).
  public func path(forName name: String) -> String? {
    guard !name.isEmpty, name.utf8.count <= Self.maximumNameLength, !name.contains("/"), !name.hasPrefix(".")
    else { return nil }
    if table == nil { table = readThemes() }
    return table?[name]
  }

  /// Every icon name of the themes, with its best file: the configured theme before hicolor before
  /// pixmaps, and within a theme the size nearest 48 pixels.
  private func readThemes() -> [String: String] {
    var table: [String: String] = [:]
    var themes = [theme]
    if theme != "hicolor" { themes.append("hicolor") }
    for theme in themes {
      for base in baseDirectories {
        let root = "\(base)/\(theme)"
        let sizes = Posix.entries(ofDirectory: root).compactMap { name -> (name: String, edge: Int)? in
          let parts = name.split(separator: "x")
          guard parts.count == 2, let edge = Int(parts[0]), Int(parts[1]) == edge else { return nil }
          return (name, edge)
        }
        for size in sizes.sorted(by: { preference($0.edge) < preference($1.edge) }) {
          for context in Posix.entries(ofDirectory: "\(root)/\(size.name)").sorted() {
            let directory = "\(root)/\(size.name)/\(context)"
            for file in Posix.entries(ofDirectory: directory) {
              guard file.hasSuffix(".png"), !file.hasSuffix(".symbolic.png") else { continue }
              let name = String(file.dropLast(4))
              if table[name] == nil { table[name] = "\(directory)/\(file)" }
            }
          }
        }
      }
    }
    for directory in pixmaps {
      for file in Posix.entries(ofDirectory: directory) where file.hasSuffix(".png") {
        let name = String(file.dropLast(4))
        if table[name] == nil { table[name] = "\(directory)/\(file)" }
      }
    }
    return table
  }

  /// How well an icon `edge` pixels wide suits the size asked for (lower is better): that size,
  /// then larger ones nearest first (scaled down well), then smaller ones largest first.
  func preference(_ edge: Int) -> Int {
    edge >= size ? edge - size : 10_000 + (size - edge)
  }
}
