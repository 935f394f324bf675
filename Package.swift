// swift-tools-version:6.0
import PackageDescription

/// The release binaries' linking, as Debian's hardening asks (see the notifyd target).
let releaseLinking = ["-Xlinker", "-z", "-Xlinker", "now"]

// Every target lists exactly the modules of this package it imports (ArchitectureTests checks it,
// and that docs/ARCHITECTURE.md's "may use" column says the same).
let package = Package(
  name: "notifyd",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "notifyd", targets: ["notifyd"]),
    .executable(name: "notifyctl", targets: ["notifyctl"]),
  ],
  targets: [
    // MARK: - Below everything

    // Linux calls glibc declares only under _GNU_SOURCE (accept4, pipe2, eventfd, memfd_create),
    // epoll through functions that keep the packed `epoll_event` on the C side, and malloc.h.
    .systemLibrary(name: "CLinux"),
    // The one seam for system calls, daemon and client alike: thin wrappers naming the call they wrap.
    .target(name: "NotifyPosix", dependencies: ["CLinux"]),
    // The Varlink wire format (framing, the one-pass JSON reader and writer), the message types and
    // the client: FoundationEssentials only. Optimized in debug builds too: every call and every
    // event goes through its reader and writer, and the end-to-end load tests run the debug daemon
    // (unoptimized, encoding events for 32 watchers took most of its time under load).
    // Its records (structs, memberwise initializers, readers and writers) and descriptions are
    // generated at build time from its IDL files, *.varlink, by notifyd-wiregen (the WireTypes plugin).
    .target(
      name: "NotifyProtocol", dependencies: ["NotifyPosix"],
      swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))], plugins: ["WireTypes"]),
    // The generator of the Varlink records from the IDL, a build tool: Foundation only.
    .executableTarget(name: "notifyd-wiregen"),
    // Where things are, for the daemon and notifyctl alike: the socket (one rule), the config file,
    // the XDG state and data directories. No Foundation, as the wire.
    .target(name: "NotifyPaths", dependencies: ["NotifyPosix"]),
    .plugin(name: "WireTypes", capability: .buildTool(), dependencies: ["notifyd-wiregen"]),
    // What the engine and the daemon's adapters share below them: the logger, the one lock, the
    // daemon's serial dispatch root, the reconnect backoff, the heaps of timers.
    .target(name: "NotifySupport"),
    // What the unit tests share: the manual clock, a log sink that keeps its lines, the seeded
    // generator. No product depends on it.
    .target(name: "NotifyTestSupport", dependencies: ["NotifyCore", "NotifySupport"]),

    // MARK: - The engine and its configuration

    // The timeline, NotificationOperation, the queue engine and its settings: no C, no sockets.
    .target(name: "NotifyCore", dependencies: ["NotifyProtocol", "NotifyPosix", "NotifySupport"]),
    // libinih (config tokenizing) through a module map.
    .systemLibrary(name: "CInih", pkgConfig: "inih", providers: [.apt(["libinih-dev"])]),
    // The whole configuration as one table of sections and keys (name, values, default, doc): the
    // parser, `--check-config` and the tests read it; the settings of every part; the file read by
    // libinih.
    .target(name: "NotifyConfig", dependencies: ["NotifyCore", "NotifyProtocol", "NotifyPaths", "CInih"]),
    // The one path every front end takes into the engine: commit, then reply; withdraw on failure.
    .target(name: "NotifyService", dependencies: ["NotifyCore", "NotifyProtocol", "NotifySupport"]),

    // MARK: - Adapters

    // The Varlink transport: the event loop, the server and its connections, the method table, and
    // io.notifyd.Queue bound to the service.
    .target(
      name: "NotifyVarlink",
      dependencies: ["NotifyService", "NotifyCore", "NotifyProtocol", "NotifyPosix", "NotifySupport"]),
    // libsqlite3 (the store) through a module map.
    .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    // The durable store: SQLite rows, migrations, group commit on the loop's turn.
    .target(
      name: "NotifyStore",
      dependencies: [
        "NotifyCore", "NotifyConfig", "NotifyProtocol", "NotifyPosix", "NotifySupport", "CSQLite",
      ]),
    // libsystemd through a module map.
    .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
    // The sd-bus vtable of org.freedesktop.Notifications: the few lines of C Swift cannot express.
    .target(name: "CNotifyBus", linkerSettings: [.linkedLibrary("systemd")]),
    // Icons that both the D-Bus adapter and the popups need, without drawing: raw pixels as clients
    // send them, the store that keeps them as files, icon names found in the freedesktop themes.
    .target(name: "NotifyIcons", dependencies: ["NotifyPosix", "NotifyProtocol", "NotifyPaths"]),
    // Notices spoken through speech-dispatcher, over its SSIP socket.
    .target(name: "NotifySpeech", dependencies: ["NotifyPosix", "NotifySupport"]),
    // The desktop bridge over D-Bus (sd-bus): the forwarder, the freedesktop server, logind's idle
    // hint. It draws nothing: the icon store is handed in.
    .target(
      name: "NotifyDBus",
      dependencies: [
        "NotifyService", "NotifyCore", "NotifyConfig", "NotifyIcons", "NotifyProtocol", "NotifySupport",
        "CNotifyBus",
      ]),
    // libnats (the NATS C client, with JetStream), loaded with dlopen when the relay is first used:
    // its header, and a hidden forwarding function for each of its functions notifyd calls.
    .target(name: "CNats"),
    // The NATS connection, JetStream publishing and consuming, over libnats: for the daemon's relay
    // and for `notifyctl --relay`.
    .target(name: "NotifyNATS", dependencies: ["NotifyProtocol", "NotifyPaths", "NotifyPosix", "CNats"]),
    // The relay through NATS JetStream (DESIGN §10): what to publish as the store commits, the
    // outbox in order, consuming durably, showing through the service and acknowledging after the
    // commit.
    .target(
      name: "NotifyRelay",
      dependencies: [
        "NotifyService", "NotifyCore", "NotifyConfig", "NotifyProtocol", "NotifyNATS", "NotifySupport",
      ]),
    // cairo and pango (the popups' drawing and text) through a module map.
    .systemLibrary(
      name: "CPangoCairo", pkgConfig: "pangocairo", providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]),
    // libxkbcommon: what a key types, for the reply field.
    .systemLibrary(name: "CXkbcommon", pkgConfig: "xkbcommon", providers: [.apt(["libxkbcommon-dev"])]),
    // librsvg (SVG icons), loaded with dlopen when the first SVG icon is drawn: one function that
    // renders a document, over librsvg's own declarations (glib's and cairo's paths come from
    // CPangoCairo's pkg-config; librsvg's and gdk-pixbuf's are fixed on Debian).
    .target(
      name: "CRsvg", dependencies: ["CPangoCairo"],
      cSettings: [.unsafeFlags(["-I/usr/include/librsvg-2.0", "-I/usr/include/gdk-pixbuf-2.0"])]),
    // The popups the same for every backend: the stack, the painter and layout (cairo, pango).
    .target(
      name: "NotifyDisplay",
      dependencies: [
        "NotifyService", "NotifyCore", "NotifyConfig", "NotifyIcons", "NotifyProtocol", "NotifyPosix",
        "NotifySupport",
        "CPangoCairo", "CXkbcommon", "CRsvg",
      ]),
    // libwayland-client and the glue wayland-scanner generates from protocols/*.xml.
    .target(name: "CWayland", linkerSettings: [.linkedLibrary("wayland-client")]),
    // The popups on Wayland: layer-shell surfaces, shared-memory buffers, frame callbacks, the pointer.
    .target(
      name: "NotifyWayland",
      dependencies: ["NotifyDisplay", "NotifyConfig", "NotifyCore", "NotifyPosix", "CWayland", "CPangoCairo"]),
    // libxcb with RandR, XFixes and Shape through a module map.
    .systemLibrary(
      name: "CXcb", pkgConfig: "xcb",
      providers: [
        .apt([
          "libxcb1-dev", "libxcb-randr0-dev", "libxcb-xfixes0-dev", "libxcb-shape0-dev",
          "libxcb-screensaver0-dev",
        ])
      ]),
    // The popups on X11: override-redirect windows, PutImage frames, RandR monitors, the pointer.
    .target(
      name: "NotifyX11",
      dependencies: [
        "NotifyDisplay", "NotifyCore", "NotifyConfig", "NotifyProtocol", "NotifyPosix", "CXcb", "CPangoCairo",
      ]),

    // MARK: - The programs

    // The daemon's composition: logging, systemd, hooks, and the parts wired together.
    .target(
      name: "NotifyDaemon",
      dependencies: [
        "NotifyVarlink", "NotifyStore", "NotifyDBus", "NotifyDisplay", "NotifyWayland", "NotifyX11",
        "NotifyRelay", "NotifySpeech", "NotifyService", "NotifyCore", "NotifyConfig", "NotifyProtocol",
        "NotifyPaths", "NotifyPosix", "NotifySupport", "CSystemd", "CLinux",
      ]),
    // notifyctl's argument parsing and commands.
    .target(name: "NotifyCLI", dependencies: ["NotifyProtocol", "NotifyPaths", "NotifyPosix", "NotifyNATS"]),
    // Release builds link the Swift runtime and Foundation statically: no relocation of shared
    // Swift libraries at start, and only the code the daemon uses is mapped (docs/PERFORMANCE.md).
    // As Debian hardens its programs, relocations are resolved at start and then made read-only
    // (`-z now`, beside the linker's default `-z relro`).
    .executableTarget(
      name: "notifyd",
      dependencies: ["NotifyDaemon", "NotifyConfig", "NotifyCore", "NotifyProtocol", "NotifySupport"],
      linkerSettings: [
        .unsafeFlags(["-static-stdlib"] + releaseLinking, .when(configuration: .release)),
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
        .unsafeFlags(["-static-stdlib"]), .unsafeFlags(releaseLinking, .when(configuration: .release)),
        .linkedLibrary("_FoundationCollections"),
        .linkedLibrary("_FoundationCShims"), .linkedLibrary("swiftSynchronization"),
      ]),
    // `make bench`: the figures of DESIGN §8 beside their budgets and a peer measured in the same run.
    .executableTarget(
      name: "notifyd-bench", dependencies: ["NotifyProtocol", "NotifyPosix", "NotifyNATS", "CSystemd"]),

    // MARK: - Tests, one target per source target; the end-to-end suites are in tests/ (pytest)

    .testTarget(name: "NotifyPosixTests", dependencies: ["NotifyPosix"]),
    .testTarget(name: "NotifyProtocolTests", dependencies: ["NotifyProtocol"]),
    .testTarget(name: "NotifyWireGenTests", dependencies: ["notifyd-wiregen"]),
    .testTarget(
      name: "NotifyCoreTests",
      dependencies: ["NotifyCore", "NotifyProtocol", "NotifySupport", "NotifyTestSupport"]),
    .testTarget(name: "NotifyConfigTests", dependencies: ["NotifyConfig", "NotifyCore", "NotifyProtocol"]),
    .testTarget(name: "NotifyCLITests", dependencies: ["NotifyCLI", "NotifyPaths", "NotifyProtocol"]),
    .testTarget(
      name: "NotifyServiceTests",
      dependencies: ["NotifyService", "NotifyCore", "NotifyProtocol", "NotifySupport", "NotifyTestSupport"]),
    .testTarget(
      name: "NotifyVarlinkTests",
      dependencies: [
        "NotifyVarlink", "NotifyService", "NotifyCore", "NotifyProtocol", "NotifyPosix", "NotifySupport",
      ]),
    .testTarget(
      name: "NotifyStoreTests",
      dependencies: ["NotifyStore", "NotifyCore", "NotifyProtocol", "NotifySupport"],
      exclude: ["Fixtures"]),
    .testTarget(
      name: "NotifyDBusTests",
      dependencies: [
        "NotifyDBus", "NotifyDisplay", "NotifyIcons", "NotifyCore", "NotifyProtocol", "NotifySupport",
      ]),
    .testTarget(name: "NotifyIconsTests", dependencies: ["NotifyIcons"]),
    .testTarget(name: "NotifySpeechTests", dependencies: ["NotifySpeech"]),
    .testTarget(name: "NotifyDaemonTests", dependencies: ["NotifyDaemon", "NotifyProtocol"]),
    .testTarget(
      name: "NotifyDisplayTests",
      dependencies: [
        "NotifyDisplay", "NotifyConfig", "NotifyIcons", "NotifyCore", "NotifyProtocol", "NotifyService",
        "NotifySupport", "NotifyTestSupport", "CPangoCairo",
      ]),
    .testTarget(
      name: "NotifyRelayTests",
      dependencies: [
        "NotifyRelay", "NotifyNATS", "NotifyProtocol", "NotifyConfig", "NotifyCore", "NotifyService",
        "NotifySupport", "NotifyTestSupport",
      ]),
    // The house itself: the module graph against the imports and docs/ARCHITECTURE.md.
    .testTarget(name: "ArchitectureTests"),
  ],
  swiftLanguageModes: [.v6]
)

// NOTIFYD_TEST_TARGETS (names, comma-separated) keeps only those test targets: `make test`'s Thread
// Sanitizer build runs the engine's suites alone, and compiling the other eleven under TSan cost
// half its CPU (scripts/test.py).
if let wanted = Context.environment["NOTIFYD_TEST_TARGETS"] {
  let names = Set(wanted.split(separator: ",").map(String.init))
  package.targets.removeAll { $0.type == .test && !names.contains($0.name) }
}

// NOTIFYD_LEAVE_OUT (names, comma-separated) builds without those targets, the products of those
// names and the targets that name them: `make test`'s sanitized builds leave out the bench
// (scripts/test.py).
if let unwanted = Context.environment["NOTIFYD_LEAVE_OUT"] {
  let names = Set(unwanted.split(separator: ",").map(String.init))
  func named(_ dependency: Target.Dependency) -> Bool {
    switch dependency {
    case .targetItem(let name, _), .byNameItem(let name, _): return names.contains(name)
    default: return false
    }
  }
  package.products.removeAll { names.contains($0.name) }
  package.targets.removeAll { names.contains($0.name) || $0.dependencies.contains(where: named) }
}
