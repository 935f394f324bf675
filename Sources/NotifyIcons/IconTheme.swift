import Glibc
import NotifyPaths
import NotifyPosix
import NotifyProtocol
import Synchronization

/// Icon names (`dialog-information`, `mail-unread-symbolic`, a program's name) found in the
/// freedesktop icon themes by the Icon Theme Specification's lookup: the configured theme
/// (`[Display] IconTheme=`, Adwaita by default), then the themes it inherits (`Inherits=`, depth
/// first), then `hicolor`, then the pixmaps directories; within a theme, the first directory of
/// its `index.theme` whose `Size`/`Scale`/`Type`/`Threshold` matches the size and scale asked for,
/// else the one nearest. Themes are searched for under `$XDG_DATA_HOME/icons`, `~/.icons` and each
/// `$XDG_DATA_DIRS/icons`.
///
/// PNG and SVG files are icons (the painter reads both); XPM and GTK's pre-rendered
/// `*.symbolic.png` are not. A theme's directories are read once, when a name is first looked up
/// in it, into one table of name → the files that theme has for it, so a lookup is a dictionary
/// read however many names clients invent. The directories read are checked again at most every
/// `freshness` seconds, and a theme whose directories changed (a program installed) is read again.
///
/// Thread-safe: the D-Bus adapter (whether a name is an icon) and the popups (the file to draw)
/// share one through `named(_:environment:)`.
public final class IconTheme: Sendable {
  public let theme: String
  private let baseDirectories: [String]
  private let pixmaps: [String]
  private let state = Mutex(State())

  /// The most themes followed through `Inherits=` from the configured one (a cycle ends sooner).
  static let maximumInheritance = 16
  /// The most base directories searched (`$XDG_DATA_DIRS` is rarely more than a few).
  static let maximumBases = 64
  /// The largest `index.theme` read.
  static let maximumIndexBytes = 1 << 20
  /// Seconds between two checks of whether the themes' directories changed.
  static let freshness = 5.0

  private struct State {
    /// The themes read, by name; nil: no `index.theme` anywhere.
    var themes: [String: ThemeIndex?] = [:]
    /// Pixmaps' icons: name → file.
    var pixmaps: [String: String]?
    /// The directories read, with their modification times when read (nil: missing).
    var stamps: [String: FileStamp?] = [:]
    var checked = -Double.infinity
  }

  /// One theme as its `index.theme` describes it, and its files by name.
  struct ThemeIndex {
    var parents: [String]
    var directories: [ThemeDirectory]
    /// Each name's files, in the specification's order: by directory, then base directory, PNG
    /// before SVG.
    var files: [String: [File]]
  }

  /// A file of a theme: the directory of `ThemeIndex.directories` and the base directory it is in.
  struct File {
    var directory: UInt16
    var base: UInt16
    var svg: Bool
  }

  /// Monotonic seconds, for `freshness`.
  private let clock: @Sendable () -> Double

  public init(
    theme: String = "Adwaita", environment: [String: String],
    clock: @escaping @Sendable () -> Double = { Posix.monotonicNow() }
  ) {
    self.theme = theme
    self.clock = clock
    let data = ConfigLocation.dataDirectories(environment: environment)
    let home = ConfigLocation.home(environment: { environment[$0] })
    baseDirectories = Array(
      (["\(data[0])/icons", "\(home)/.icons"] + data.dropFirst().map { "\($0)/icons" }).prefix(
        Self.maximumBases))
    pixmaps = data.dropFirst().map { "\($0)/pixmaps" }
  }

  private static let shared = Mutex<[String: IconTheme]>([:])

  /// The one `IconTheme` for `theme` in `environment`'s directories, shared by whoever asks, so the
  /// themes are read once per process; asked for on every D-Bus `Notify`, it makes nothing when
  /// it has one. At most four are kept (any one dropped when a fifth is asked for).
  public static func named(_ theme: String, environment: [String: String]) -> IconTheme {
    // What the base directories are made of (`ConfigLocation`), not the directories: no work.
    let key = ([theme] + ["XDG_DATA_HOME", "HOME", "XDG_DATA_DIRS"].map { environment[$0] ?? "" })
      .joined(separator: "\0")
    return shared.withLock { themes in
      if let kept = themes[key] { return kept }
      if themes.count >= 4, let victim = themes.keys.first { themes.removeValue(forKey: victim) }
      let made = IconTheme(theme: theme, environment: environment)
      themes[key] = made
      return made
    }
  }

  /// The file for icon `name` to be drawn `size` logical pixels wide at `scale` (device pixels per
  /// logical pixel), or nil when no theme and no pixmaps directory has one.
  public func path(forName name: String, size: Int = 48, scale: Int = 1) -> String? {
    guard RequestLimits.isIconName(name) else { return nil }
    return state.withLock { state in
      refreshIfChanged(&state)
      var visited: Set<String> = []
      if let found = find(name, size: size, scale: max(scale, 1), in: theme, &state, &visited) {
        return found
      }
      if !visited.contains("hicolor"),
        let found = find(name, size: size, scale: max(scale, 1), in: "hicolor", &state, &visited)
      {
        return found
      }
      return pixmapsTable(&state)[name]
    }
  }

  /// Whether some theme, or a pixmaps directory, has an icon called `name`.
  public func contains(_ name: String) -> Bool { path(forName: name) != nil }

  // MARK: - The specification's lookup

  /// `FindIconHelper`: the icon in `theme`, else in its parents, depth first.
  private func find(
    _ name: String, size: Int, scale: Int, in theme: String, _ state: inout State,
    _ visited: inout Set<String>
  ) -> String? {
    guard visited.count < Self.maximumInheritance, visited.insert(theme).inserted else { return nil }
    guard let index = self.index(of: theme, &state) else { return nil }
    if let files = index.files[name], let file = Self.best(files, in: index, size: size, scale: scale) {
      let directory = index.directories[Int(file.directory)].path
      return "\(baseDirectories[Int(file.base)])/\(theme)/\(directory)/\(name).\(file.svg ? "svg" : "png")"
    }
    for parent in index.parents {
      if let found = find(name, size: size, scale: scale, in: parent, &state, &visited) { return found }
    }
    return nil
  }

  /// `LookupIcon`: the first file in a directory that matches the size, else the one whose
  /// directory is nearest it; of two equally near, the larger (scaled down, an icon stays sharp;
  /// scaled up, it blurs), then the first.
  static func best(_ files: [File], in index: ThemeIndex, size: Int, scale: Int) -> File? {
    if let exact = files.first(where: {
      index.directories[Int($0.directory)].matches(size: size, scale: scale)
    }) {
      return exact
    }
    func rank(_ file: File) -> (distance: Int, smallness: Int) {
      let directory = index.directories[Int(file.directory)]
      return (directory.distance(size: size, scale: scale), -directory.size * directory.scale)
    }
    return files.min { rank($0) < rank($1) }
  }

  // MARK: - Reading the themes

  /// The theme called `name`, read when first asked for.
  private func index(of name: String, _ state: inout State) -> ThemeIndex? {
    if let read = state.themes[name] { return read }
    let index = readTheme(name, &state.stamps)
    state.themes[name] = index
    return index
  }

  /// Reads `index.theme` from the first base directory that has one, then the files of its
  /// directories in every base directory.
  private func readTheme(_ name: String, _ stamps: inout [String: FileStamp?]) -> ThemeIndex? {
    guard RequestLimits.isIconName(name) else { return nil }
    var description: ThemeDescription?
    for base in baseDirectories {
      let root = "\(base)/\(name)"
      // Recorded even when missing: a theme installed later makes it.
      stamps[base] = FileStamp(path: base)
      stamps[root] = FileStamp(path: root)
      if description == nil,
        let bytes = Posix.readRegularFile("\(root)/index.theme", limit: Self.maximumIndexBytes)
      {
        description = ThemeDescription(String(decoding: bytes, as: UTF8.self))
      }
    }
    guard let description else { return nil }
    var files: [String: [File]] = [:]
    for (number, directory) in description.directories.enumerated() {
      for (baseNumber, base) in baseDirectories.enumerated() {
        let path = "\(base)/\(name)/\(directory.path)"
        // Only what exists is recorded (a few hundred directories, not every one hicolor lists in
        // every base): a directory made later changes its parent's time, and the parent of
        // `48x48/apps` is recorded when it exists, the theme's root always.
        if let parent = path.lastIndex(of: "/").map({ String(path[..<$0]) }), stamps[parent] == nil,
          let stamp = FileStamp(path: parent)
        {
          stamps[parent] = stamp
        }
        guard let stamp = FileStamp(path: path) else { continue }
        stamps[path] = stamp
        // Sorted, so that the PNG of a name comes before its SVG in the same directory.
        for file in Posix.entries(ofDirectory: path).sorted() {
          let svg = file.hasSuffix(".svg")
          guard svg || (file.hasSuffix(".png") && !file.hasSuffix(".symbolic.png")) else { continue }
          let icon = String(file.dropLast(4))
          files[icon, default: []].append(File(directory: UInt16(number), base: UInt16(baseNumber), svg: svg))
        }
      }
    }
    return ThemeIndex(parents: description.parents, directories: description.directories, files: files)
  }

  /// The pixmaps directories' icons, read when first asked for.
  private func pixmapsTable(_ state: inout State) -> [String: String] {
    if let table = state.pixmaps { return table }
    var table: [String: String] = [:]
    for directory in pixmaps {
      state.stamps[directory] = FileStamp(path: directory)
      for file in Posix.entries(ofDirectory: directory).sorted()
      where file.hasSuffix(".png") || file.hasSuffix(".svg") {
        let name = String(file.dropLast(4))
        if table[name] == nil { table[name] = "\(directory)/\(file)" }
      }
    }
    state.pixmaps = table
    return table
  }

  /// Forgets every theme read when a directory read has changed since (checked at most every
  /// `freshness` seconds), so that the next lookup reads them again.
  private func refreshIfChanged(_ state: inout State) {
    let now = clock()
    guard now - state.checked >= Self.freshness else { return }
    state.checked = now
    if state.stamps.contains(where: { FileStamp(path: $0.key) != $0.value }) { state = State(checked: now) }
  }
}

/// A theme directory's sizes, from its section of `index.theme`.
struct ThemeDirectory: Equatable {
  enum Kind: Equatable { case fixed, scalable, threshold }
  var path: String
  var size: Int
  var scale = 1
  var kind = Kind.threshold
  var minimum: Int
  var maximum: Int
  var threshold = 2

  init(path: String, size: Int) {
    self.path = path
    self.size = size
    minimum = size
    maximum = size
  }

  /// `DirectoryMatchesSize`: the directory's scale, and the size within its range.
  func matches(size wanted: Int, scale wantedScale: Int) -> Bool {
    scale == wantedScale && distance(size: wanted, scale: wantedScale) == 0
  }

  /// `DirectorySizeDistance`, in device pixels (the specification's threshold case corrected to
  /// measure from `Size ± Threshold`, as every implementation does).
  func distance(size wanted: Int, scale wantedScale: Int) -> Int {
    let pixels = wanted * wantedScale
    let (low, high): (Int, Int)
    switch kind {
    case .fixed: (low, high) = (size, size)
    case .scalable: (low, high) = (minimum, maximum)
    case .threshold: (low, high) = (size - threshold, size + threshold)
    }
    if pixels < low * scale { return low * scale - pixels }
    if pixels > high * scale { return pixels - high * scale }
    return 0
  }
}

/// What notifyd reads of an `index.theme`: `Inherits=`, and the directories `Directories=` and
/// `ScaledDirectories=` list with their `Size= Scale= Type= MinSize= MaxSize= Threshold=`. A
/// directory without a valid `Size=` is skipped, as the specification requires it.
struct ThemeDescription {
  var parents: [String] = []
  var directories: [ThemeDirectory] = []

  /// The most directories read of one theme (on Debian 12 Adwaita lists 94, hicolor 649).
  static let maximumDirectories = 4096

  init(_ text: String) {
    var sections: [String: [String: String]] = [:]
    var current: String?
    for line in text.split(whereSeparator: \.isNewline) {
      let line = String(line.trimmingWhitespace())
      if line.isEmpty || line.hasPrefix("#") { continue }
      if line.hasPrefix("["), line.hasSuffix("]") {
        current = String(line.dropFirst().dropLast())
        continue
      }
      guard let current, let equals = line.firstIndex(of: "=") else { continue }
      let key = String(line[..<equals].trimmingWhitespace())
      let value = String(line[line.index(after: equals)...].trimmingWhitespace())
      if sections[current, default: [:]][key] == nil { sections[current, default: [:]][key] = value }
    }
    func list(_ value: String?) -> [String] {
      (value ?? "").split(separator: ",").map { String($0.trimmingWhitespace()) }.filter { !$0.isEmpty }
    }
    let theme = sections["Icon Theme"] ?? [:]
    parents = list(theme["Inherits"])
    var seen: Set<String> = []
    for path in list(theme["Directories"]) + list(theme["ScaledDirectories"]) {
      guard directories.count < Self.maximumDirectories, seen.insert(path).inserted,
        !path.split(separator: "/").contains(".."), let keys = sections[path],
        let size = keys["Size"].flatMap({ Int($0) }), size > 0
      else { continue }
      var directory = ThemeDirectory(path: path, size: size)
      if let scale = keys["Scale"].flatMap({ Int($0) }), scale > 0 { directory.scale = scale }
      switch keys["Type"] {
      case "Fixed": directory.kind = .fixed
      case "Scalable": directory.kind = .scalable
      default: directory.kind = .threshold
      }
      if let minimum = keys["MinSize"].flatMap({ Int($0) }) { directory.minimum = minimum }
      if let maximum = keys["MaxSize"].flatMap({ Int($0) }) { directory.maximum = maximum }
      if let threshold = keys["Threshold"].flatMap({ Int($0) }), threshold >= 0 {
        directory.threshold = threshold
      }
      directories.append(directory)
    }
  }
}
