import Foundation

// notifyd-wiregen: the Swift side of notifyd's Varlink interfaces, generated from their IDL files at
// build time (the WireTypes plugin runs it for NotifyProtocol). A notice's fields, and every other
// record's, are written once, in the IDL; from it come the structs, their memberwise initializers,
// the daemon's one-pass readers and writers, and the descriptions `GetInterfaceDescription` returns.
//
// Usage: notifyd-wiregen OUTPUT IDL...

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count > 1 else {
  FileHandle.standardError.write(Data("usage: notifyd-wiregen OUTPUT IDL...\n".utf8))
  exit(2)
}
do {
  let files = try arguments.dropFirst().map { path in
    (
      name: URL(fileURLWithPath: path).lastPathComponent,
      text: try String(contentsOfFile: path, encoding: .utf8)
    )
  }
  try generate(files).write(toFile: arguments[0], atomically: true, encoding: .utf8)
} catch {
  FileHandle.standardError.write(Data("notifyd-wiregen: \(error)\n".utf8))
  exit(1)
}
