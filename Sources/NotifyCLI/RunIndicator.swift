import FoundationEssentials
import Glibc
import NotifyProtocol

/// The progress indicator `run` shows for its command, on a best-effort basis.
///
/// - Important: nothing here may fail the command: when the daemon cannot be reached, or stops
///   answering, the indicator says so once on standard error and then does nothing.
final class RunIndicator {
  /// How long a call may take before the daemon counts as unreachable, so that a hung daemon
  /// cannot hang a build.
  static let callTimeout: Int = 2

  private var client: VarlinkClient?
  private let id: Int
  private let console: any Console

  private init(client: VarlinkClient, id: Int, console: any Console) {
    self.client = client
    self.id = id
    self.console = console
  }

  /// Connects and starts the indicator, or says why not on standard error and returns `nil`.
  static func start(socketPath: String, parameters: ProgressParameters, console: any Console) -> RunIndicator?
  {
    do {
      let client = try VarlinkClient(path: socketPath)
      setTimeouts(on: client.fileDescriptor, seconds: callTimeout)
      let reply = try client.call(.progress, parameters, returning: ProgressReply.self)
      return RunIndicator(client: client, id: reply.id, console: console)
    } catch {
      console.printError("notifyctl: \(error), running without a progress indicator")
      return nil
    }
  }

  /// Replaces the indicator's body.
  func update(body: String) {
    perform(.update, UpdateParameters(id: id, body: body))
  }

  /// Ends the indicator normally with `message`.
  func end(message: String) {
    perform(.end, EndParameters(id: id, message: message))
    client = nil
  }

  /// Cancels the indicator.
  func cancel() {
    perform(.cancel, CancelParameters(id: id))
    client = nil
  }

  /// Calls `method`; after the first failure the indicator is dropped.
  private func perform(_ method: Interface.Method, _ parameters: some Encodable) {
    guard let client else { return }
    do {
      _ = try client.call(method, parameters, returning: JSONValue.self)
    } catch let error as ClientError {
      console.printError("notifyctl: \(error), ignoring")
      self.client = nil
    } catch {
      // An error reply means the indicator is gone already (it timed out or was cancelled):
      // nothing the user needs to hear about while their command runs.
      self.client = nil
    }
  }

  /// Sets `SO_RCVTIMEO` and `SO_SNDTIMEO` on `fd` (wraps `setsockopt(2)`).
  private static func setTimeouts(on fd: Int32, seconds: Int) {
    var timeout = timeval(tv_sec: seconds, tv_usec: 0)
    let size = socklen_t(MemoryLayout<timeval>.size)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, size)
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, size)
  }
}
