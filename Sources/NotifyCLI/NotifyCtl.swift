import Glibc
import NotifyPaths
import NotifyProtocol

/// The `notifyctl` program: parses its arguments, runs the command, and maps errors to exit statuses.
public enum NotifyCtl {
  /// Runs `notifyctl` with `arguments` (without the program name) and returns its exit status.
  ///
  /// - Parameters:
  ///   - console: where output goes; the process's standard output and error by default.
  ///   - environment: looks up environment variables, for the socket path.
  public static func main(
    _ arguments: [String], console: any Console = StandardConsole(),
    environment: @escaping (String) -> String? = { name in getenv(name).map { String(cString: $0) } }
  ) -> Int32 {
    let invocation: Invocation
    do {
      invocation = try CommandParser.parse(arguments, workingDirectory: currentDirectory())
    } catch {
      console.printError("notifyctl: \(error)")
      return ExitStatus.usage.rawValue
    }
    if let relay = invocation.relay, case .show(let parameters, let wait) = invocation.command {
      do {
        return try RelayShow(urls: relay, console: console, environment: environment).run(
          parameters, wait: wait
        )
        .rawValue
      } catch {
        console.printError("notifyctl: \(error)")
        return ExitStatus.failure.rawValue
      }
    }
    // The config file is read only when neither --socket nor NOTIFYD_SOCKET says where to go.
    let option = invocation.socketPath
    let configured =
      (option ?? "").isEmpty && (environment("NOTIFYD_SOCKET") ?? "").isEmpty
      ? ConfigLocation.configuredSocketPath(environment: environment) : nil
    let socketPath = SocketPath.resolve(
      option: option, environment: environment, configured: configured, uid: getuid())
    do {
      var runner = CommandRunner(socketPath: socketPath, console: console)
      runner.environment = environment
      return try runner.run(invocation.command)
    } catch {
      // ClientError and VarlinkError describe themselves in one line that names the socket or the field.
      console.printError("notifyctl: \(error)")
      return ExitStatus.failure.rawValue
    }
  }

  /// The process's working directory; "/" when it cannot be read (removed, or too long).
  private static func currentDirectory() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return "/" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
