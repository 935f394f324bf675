// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "notifyd",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "notifyd", targets: ["notifyd"]),
    .executable(name: "notifyctl", targets: ["notifyctl"]),
  ],
  targets: [
    // The Varlink wire format, the message types and the client: FoundationEssentials only.
    .target(name: "NotifyProtocol"),
    // The timeline, NotificationOperation and the queue engine: no C, no sockets.
    .target(name: "NotifyCore", dependencies: ["NotifyProtocol"]),
    // libsystemd through a module map.
    .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
    // libinih (config tokenizing) through a module map.
    .systemLibrary(name: "CInih", pkgConfig: "inih", providers: [.apt(["libinih-dev"])]),
    // libsqlite3 (the store) through a module map.
    .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    // Linux calls glibc declares only under _GNU_SOURCE (accept4), through a module map.
    .systemLibrary(name: "CLinux"),
    // The sd-bus vtable of org.freedesktop.Notifications: the few lines of C Swift cannot express.
    .target(name: "CNotifyBus", linkerSettings: [.linkedLibrary("systemd")]),
    // Sockets, signals, the Varlink server, systemd: everything that touches the OS.
    .target(
      name: "NotifySystem",
      dependencies: [
        "NotifyCore", "NotifyProtocol", "NotifyDisplay", "NotifyWayland", "CSystemd", "CInih", "CSQLite",
        "CNotifyBus", "CLinux",
      ]),
    // cairo and pango (the popups' drawing and text) through a module map.
    .systemLibrary(
      name: "CPangoCairo", pkgConfig: "pangocairo", providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]),
    // libwayland-client and the glue wayland-scanner generates from protocols/*.xml.
    .target(name: "CWayland", linkerSettings: [.linkedLibrary("wayland-client")]),
    // The popups' painter and layout (cairo, pango), the same for every backend.
    .target(name: "NotifyDisplay", dependencies: ["NotifyCore", "NotifyProtocol", "CPangoCairo"]),
    // The popups on Wayland: layer-shell surfaces, shared-memory buffers, frame callbacks, the pointer.
    .target(name: "NotifyWayland", dependencies: ["NotifyDisplay", "NotifyCore", "CWayland", "CPangoCairo"]),
    // notifyctl's argument parsing and commands.
    .target(name: "NotifyCLI", dependencies: ["NotifyProtocol"]),
    // Release builds link the Swift runtime and Foundation statically: no relocation of shared
    // Swift libraries at start, and only the code the daemon uses is mapped (docs/PERFORMANCE.md).
    .executableTarget(
      name: "notifyd", dependencies: ["NotifySystem"],
      linkerSettings: [
        .unsafeFlags(["-static-stdlib"], .when(configuration: .release)),
        .linkedLibrary("CoreFoundation", .when(configuration: .release)),
        .linkedLibrary("_FoundationICU", .when(configuration: .release)),
        .linkedLibrary("_FoundationCollections", .when(configuration: .release)),
        .linkedLibrary("_FoundationCShims", .when(configuration: .release)),
        .linkedLibrary("swiftSynchronization", .when(configuration: .release)),
      ]),
    // Linked with the Swift runtime and FoundationEssentials statically: no dynamic symbol
    // resolution at start, so `notifyctl` starts as fast as a C tool (docs/PERFORMANCE.md).
    .executableTarget(
      name: "notifyctl", dependencies: ["NotifyCLI"],
      linkerSettings: [
        .unsafeFlags(["-static-stdlib"]), .linkedLibrary("_FoundationCollections"),
        .linkedLibrary("_FoundationCShims"), .linkedLibrary("swiftSynchronization"),
      ]),
    // `make bench`: the figures of DESIGN §8 beside their budgets and a peer measured in the same run.
    .executableTarget(name: "notifyd-bench", dependencies: ["NotifyProtocol", "CSystemd"]),
    .testTarget(name: "NotifyProtocolTests", dependencies: ["NotifyProtocol"]),
    .testTarget(name: "NotifyCoreTests", dependencies: ["NotifyCore"]),
    .testTarget(name: "NotifyCLITests", dependencies: ["NotifyCLI"]),
    .testTarget(name: "NotifySystemTests", dependencies: ["NotifySystem", "NotifyDisplay"]),
    .testTarget(name: "NotifyDisplayTests", dependencies: ["NotifyDisplay"]),
  ],
  swiftLanguageModes: [.v6]
)
