import PackagePlugin

/// Generates a target's Varlink records from its IDL files (`*.varlink`): notifyd-wiregen writes the
/// structs, their readers and writers, and the interface descriptions, into the build directory.
@main
struct WireTypes: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    guard let target = target as? SourceModuleTarget else { return [] }
    let interfaces = target.sourceFiles(withSuffix: "varlink").map(\.url).sorted { $0.path < $1.path }
    guard !interfaces.isEmpty else { return [] }
    let output = context.pluginWorkDirectoryURL.appending(path: "WireTypes.swift")
    return [
      .buildCommand(
        displayName: "Generating \(target.name)'s Varlink records from \(interfaces.count) IDL files",
        executable: try context.tool(named: "notifyd-wiregen").url,
        arguments: [output.path] + interfaces.map(\.path),
        // In a sanitized build (`make asan-test`) the tool is built with AddressSanitizer too: what a
        // generator that exits at once still holds then is no leak to fail the build for.
        environment: ["ASAN_OPTIONS": "detect_leaks=0"],
        inputFiles: interfaces, outputFiles: [output])
    ]
  }
}
