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
        inputFiles: interfaces, outputFiles: [output])
    ]
  }
}
