import Foundation
import NotifyCore
import NotifyProtocol

/// The daemon's Varlink methods: `org.varlink.service` and `io.notifyd.Queue`, translated into
/// calls on one `NoticeQueue`.
public struct QueueService: VarlinkService {
  private let queue: NoticeQueue
  private let reload: @Sendable () -> Result<Void, VarlinkError>

  /// A service for `queue`; `reload` re-reads the configuration and answers once it is in force.
  public init(queue: NoticeQueue, reload: @escaping @Sendable () -> Result<Void, VarlinkError>) {
    self.queue = queue
    self.reload = reload
  }

  public func handle(_ call: CallHeaderInfo, message: [UInt8], responder: Responder) {
    do {
      try route(call, message: message, responder: responder)
    } catch let error as VarlinkError {
      responder.reply(VarlinkCoding.reply(error))
    } catch let error as QueueError {
      responder.reply(VarlinkCoding.reply(Self.varlinkError(error)))
    } catch {
      responder.reply(VarlinkCoding.reply(.invalidArgument("(message)", "\(error)")))
    }
  }

  /// The Varlink error for a queue error.
  public static func varlinkError(_ error: QueueError) -> VarlinkError {
    switch error {
    case .noSuchNotice(let id): return .noSuchNotice(id)
    case .invalidArgument(let field, let reason): return .invalidArgument(field, reason)
    case .queueFull(let capacity): return .queueFull(capacity)
    }
  }

  private func route(_ call: CallHeaderInfo, message: [UInt8], responder: Responder) throws {
    func parameters<T: Decodable>(_ type: T.Type) throws -> T {
      try VarlinkCoding.parameters(type, from: message)
    }
    func reply(_ value: some Encodable) throws {
      responder.reply(try VarlinkCoding.reply(value))
    }

    switch call.method {
    case "org.varlink.service.GetInfo":
      try reply(
        ServiceInfo(
          vendor: "notifyd", product: "notifyd", version: Interface.version,
          url: "https://github.com/notifyd/notifyd", interfaces: [Interface.service, Interface.name]))
      return
    case "org.varlink.service.GetInterfaceDescription":
      let request = try parameters(InterfaceDescriptionParameters.self)
      switch request.interface {
      case Interface.name: try reply(InterfaceDescriptionReply(description: Interface.description))
      case Interface.service: try reply(InterfaceDescriptionReply(description: Interface.serviceDescription))
      default:
        throw VarlinkError(Interface.ErrorName.interfaceNotFound, ["interface": .string(request.interface)])
      }
      return
    default:
      break
    }

    guard let dot = call.method.lastIndex(of: "."), dot != call.method.startIndex else {
      throw VarlinkError(Interface.ErrorName.interfaceNotFound, ["interface": .string(call.method)])
    }
    let interface = String(call.method[..<dot])
    guard interface == Interface.name || interface == Interface.service else {
      throw VarlinkError(Interface.ErrorName.interfaceNotFound, ["interface": .string(interface)])
    }
    guard interface == Interface.name, let method = Interface.Method(rawValue: String(call.method[call.method.index(after: dot)...]))
    else { throw VarlinkError.methodNotFound(call.method) }

    switch method {
    case .show:
      try reply(ShowReply(id: try queue.show(parameters(ShowParameters.self))))
    case .progress:
      let result = try queue.progress(parameters(ProgressParameters.self))
      try reply(ProgressReply(id: result.id, existing: result.existing))
    case .update:
      try reply(NoticeReply(notice: try queue.update(parameters(UpdateParameters.self))))
    case .end:
      try reply(NoticeReply(notice: try queue.end(parameters(EndParameters.self))))
    case .cancel:
      try reply(CancelReply(cancelled: try queue.cancel(parameters(CancelParameters.self))))
    case .invoke:
      try reply(NoticeReply(notice: try queue.invoke(parameters(InvokeParameters.self))))
    case .suspend:
      let request = try parameters(SuspendParameters.self)
      try reply(SuspendReply(suspended: try queue.suspend(for: request.duration)))
    case .resume:
      _ = try parameters(NoParameters.self)
      try reply(SuspendReply(suspended: queue.resume()))
    case .get:
      try reply(NoticeReply(notice: try queue.get(parameters(IDParameters.self).id)))
    case .list:
      try reply(NoticesReply(notices: queue.list()))
    case .history:
      let request = try parameters(HistoryParameters.self)
      if let limit = request.limit, limit < 0 {
        throw VarlinkError.invalidArgument("limit", "must not be negative")
      }
      try reply(NoticesReply(notices: queue.history(request)))
    case .status:
      try reply(queue.status())
    case .wait:
      let id = try parameters(IDParameters.self).id
      try queue.wait(id) { notice in
        if let bytes = try? VarlinkCoding.reply(NoticeReply(notice: notice)) { responder.reply(bytes) }
      }
    case .watch:
      let request = try parameters(WatchParameters.self)
      guard call.more else { throw VarlinkError.expectedMore }
      let subscription = try queue.watch(frames: request.frames ?? false, fps: request.fps) { event in
        if let bytes = try? VarlinkCoding.reply(EventReply(event: event), continues: true) {
          responder.reply(bytes, continues: true)
        }
      }
      responder.onClose { subscription.cancel() }
    case .reload:
      switch reload() {
      case .success: try reply(NoParameters())
      case .failure(let error): throw error
      }
    }
  }
}
