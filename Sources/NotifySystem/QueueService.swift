import Foundation
import NotifyCore
import NotifyProtocol

/// The daemon's Varlink methods: `org.varlink.service` and `io.notifyd.Queue`, translated into
/// calls on one `NoticeQueue`.
public struct QueueService: VarlinkService {
  private let queue: NoticeQueue
  private let store: NoticeStore?
  private let reload: @Sendable () -> Result<Void, VarlinkError>

  /// A service for `queue`; changes are acknowledged only once `store` has committed them;
  /// `reload` re-reads the configuration and answers once it is in force.
  public init(
    queue: NoticeQueue, store: NoticeStore? = nil,
    reload: @escaping @Sendable () -> Result<Void, VarlinkError>
  ) {
    self.queue = queue
    self.store = store
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
    /// Replies with a list of notices of any length, encoded as the client reads it.
    @Sendable func reply(notices: [Notice]) throws {
      responder.reply(streaming: try ArrayReplyStream(NoParameters(), field: "notices", elements: notices))
    }
    /// Replies once the store has committed the change; a notice it could not store is withdrawn.
    func replyDurably(_ value: some Encodable, withdrawing id: Int? = nil) throws {
      let bytes = try VarlinkCoding.reply(value)
      guard let store else {
        responder.reply(bytes)
        return
      }
      store.sync { [queue] error in
        guard let error else {
          responder.reply(bytes)
          return
        }
        if let id { _ = try? queue.cancel(CancelParameters(id: id, now: true)) }
        responder.reply(VarlinkCoding.reply(.storeFailed("\(error)")))
      }
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
    guard interface == Interface.name,
      let method = Interface.Method(rawValue: String(call.method[call.method.index(after: dot)...]))
    else { throw VarlinkError.methodNotFound(call.method) }

    switch method {
    case .show:
      let id = try queue.show(parameters(ShowParameters.self))
      try replyDurably(ShowReply(id: id), withdrawing: id)
    case .progress:
      let result = try queue.progress(parameters(ProgressParameters.self))
      try replyDurably(
        ProgressReply(id: result.id, existing: result.existing),
        withdrawing: result.existing ? nil : result.id)
    case .update:
      try replyDurably(NoticeReply(notice: try queue.update(parameters(UpdateParameters.self))))
    case .end:
      try replyDurably(NoticeReply(notice: try queue.end(parameters(EndParameters.self))))
    case .cancel:
      try replyDurably(CancelReply(cancelled: try queue.cancel(parameters(CancelParameters.self))))
    case .invoke:
      try replyDurably(NoticeReply(notice: try queue.invoke(parameters(InvokeParameters.self))))
    case .suspend:
      let request = try parameters(SuspendParameters.self)
      try replyDurably(SuspendReply(suspended: try queue.suspend(for: request.duration)))
    case .resume:
      _ = try parameters(NoParameters.self)
      try replyDurably(SuspendReply(suspended: queue.resume()))
    case .get:
      try reply(NoticeReply(notice: try queue.get(parameters(IDParameters.self).id)))
    case .list:
      _ = try parameters(NoParameters.self)
      try reply(notices: queue.list())
    case .history:
      let request = try parameters(HistoryParameters.self)
      if let limit = request.limit, limit < 0 {
        throw VarlinkError.invalidArgument("limit", "must not be negative")
      }
      guard let store else {
        try reply(notices: queue.history(request))
        return
      }
      store.history(request) { result in
        switch result {
        case .success(let notices):
          do {
            try reply(notices: notices)
          } catch {
            responder.reply(VarlinkCoding.reply(.invalidArgument("(reply)", "\(error)")))
          }
        case .failure(let error):
          responder.reply(VarlinkCoding.reply(.storeFailed("\(error)")))
        }
      }
    case .status:
      try reply(queue.status())
    case .wait:
      let id = try parameters(IDParameters.self).id
      let wait = try queue.wait(id) { notice in
        if let bytes = try? VarlinkCoding.reply(NoticeReply(notice: notice)) { responder.reply(bytes) }
      }
      responder.onClose { wait.cancel() }
    case .watch:
      let request = try parameters(WatchParameters.self)
      guard call.more else { throw VarlinkError.expectedMore }
      let subscription = try queue.watch(frames: request.frames ?? false, fps: request.fps) { event in
        if event.kind == .snapshot, let notices = event.notices {
          // Every unfinished notice: as long as List, so encoded as the client reads.
          var rest = event
          rest.notices = nil
          if let stream = try? ArrayReplyStream(
            rest, field: "notices", elements: notices, under: ["event"], continues: true)
          {
            responder.reply(streaming: stream, continues: true)
          }
        } else if let bytes = try? VarlinkCoding.reply(EventReply(event: event), continues: true) {
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
