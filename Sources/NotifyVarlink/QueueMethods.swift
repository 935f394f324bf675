import NotifyCore
import NotifyProtocol
import NotifyService
import Synchronization

/// The methods of `io.notifyd.Queue`, bound in a `MethodTable`: each reads its typed parameters,
/// calls the service, and replies. Changes reply once committed (`NoticeService` owns that rule).
public enum QueueMethods {
  /// What `Center` asks of the popups: the action, and where the answer goes (whether the center
  /// is open now, or why nothing is drawn).
  public typealias CenterControl =
    @Sendable (CenterAction, @escaping @Sendable (Result<Bool, VarlinkError>) -> Void) -> Void

  /// A table with `org.varlink.service` and every method of `io.notifyd.Queue` bound to `service`;
  /// `reload` re-reads the configuration and answers once it is in force; `center` opens and closes
  /// the notification center.
  public static func table(
    service: NoticeService, reload: @escaping @Sendable () -> Result<Void, VarlinkError>,
    center: @escaping CenterControl = { _, done in done(.failure(.noDisplay("this server draws nothing"))) }
  ) -> MethodTable {
    var table = MethodTable(
      vendor: "notifyd", product: "notifyd", version: Interface.version,
      url: "https://github.com/notifyd/notifyd")
    table.add(interface: Interface.name, description: Interface.description)
    let queue = service.notices
    let events = EncodedEvents()

    func bind<P: WireDecodable>(
      _ method: Interface.Method, _ type: P.Type, _ completion: MethodTable.Completion = .prompt,
      _ handler: @escaping @Sendable (P, Responder) -> Void
    ) {
      table.bind(method.qualifiedName, type, completion: completion, handler: handler)
    }

    bind(.show, ShowParameters.self) { request, call in
      service.show(request) { call.answer($0.map(ShowReply.init(id:))) }
    }
    bind(.progress, ProgressParameters.self) { request, call in
      service.progress(request) { call.answer($0) }
    }
    bind(.update, UpdateParameters.self) { request, call in
      service.update(request) { call.answer($0.map(NoticeReply.init(notice:))) }
    }
    bind(.end, EndParameters.self) { request, call in
      service.end(request) { call.answer($0.map(NoticeReply.init(notice:))) }
    }
    bind(.cancel, CancelParameters.self) { request, call in
      service.cancel(request) { call.answer($0.map(CancelReply.init(cancelled:))) }
    }
    bind(.dismiss, DismissParameters.self) { request, call in
      service.dismiss(request) { call.answer($0.map(DismissReply.init(dismissed:))) }
    }
    bind(.invoke, InvokeParameters.self) { request, call in
      service.invoke(request) { call.answer($0.map(NoticeReply.init(notice:))) }
    }
    bind(.reply, ReplyParameters.self) { request, call in
      service.reply(request) { call.answer($0.map(NoticeReply.init(notice:))) }
    }
    bind(.snooze, SnoozeParameters.self) { request, call in
      service.snooze(request) { call.answer($0.map(NoticeReply.init(notice:))) }
    }
    bind(.unsnooze, IDParameters.self) { request, call in
      service.unsnooze(request) { call.answer($0.map(NoticeReply.init(notice:))) }
    }
    bind(.read, ReadParameters.self) { request, call in
      service.read(request) { call.answer($0.map(ReadReply.init(read:))) }
    }
    bind(.restore, RestoreParameters.self) { request, call in
      service.restore(request) { call.answer($0.map(RestoreReply.init(restored:))) }
    }
    bind(.forget, ForgetParameters.self) { request, call in
      service.forget(request) { call.answer($0.map(ForgetReply.init(forgotten:))) }
    }
    bind(.suspend, SuspendParameters.self) { request, call in
      service.suspend(request) { call.answer($0.map(SuspendReply.init(suspended:))) }
    }
    bind(.resume, NoParameters.self) { _, call in
      service.resume { call.answer($0.map(SuspendReply.init(suspended:))) }
    }
    bind(.get, IDParameters.self) { request, call in
      call.answer(Result { () throws(QueueError) in NoticeReply(notice: try queue.get(request.id)) })
    }
    bind(.list, ListParameters.self) { request, call in
      let notices = queue.list(held: request.held ?? false, snoozed: request.snoozed ?? false)
      call.reply(streaming: ArrayReplyStream(field: "notices", elements: notices))
    }
    bind(.history, HistoryParameters.self) { request, call in
      do throws(QueueError) {
        call.reply(streaming: ArrayReplyStream(field: "notices", elements: try service.history(request)))
      } catch {
        call.fail(Self.varlinkError(error))
      }
    }
    bind(.status, NoParameters.self) { _, call in
      call.reply(queue.status())
    }
    bind(.wait, IDParameters.self, .eventual) { request, call in
      do throws(QueueError) {
        let wait = try queue.wait(request.id) { notice in call.reply(NoticeReply(notice: notice)) }
        call.onClose { wait.cancel() }
      } catch {
        call.fail(Self.varlinkError(error))
      }
    }
    bind(.watch, WatchParameters.self, .eventual) { request, call in
      guard call.more else {
        call.fail(.expectedMore)
        return
      }
      do throws(QueueError) {
        let subscription = try queue.watch(frames: request.frames ?? false, fps: request.fps) {
          event, number in
          if event.kind == .snapshot, let notices = event.notices {
            // Every unfinished notice: as long as List, so encoded as the client reads.
            call.reply(streaming: ArrayReplyStream(snapshot: event, elements: notices), continues: true)
          } else {
            call.reply(events.encoded(event, number: number), continues: true)
          }
        }
        call.onClose { subscription.cancel() }
      } catch {
        call.fail(Self.varlinkError(error))
      }
    }
    bind(.center, CenterParameters.self, .eventual) { request, call in
      center(request.action ?? .toggle) { result in
        switch result {
        case .success(let open): call.reply(CenterReply(open: open))
        case .failure(let error): call.fail(error)
        }
      }
    }
    bind(.reload, NoParameters.self) { _, call in
      switch reload() {
      case .success: call.reply(NoParameters())
      case .failure(let error): call.fail(error)
      }
    }
    return table
  }

  /// The Varlink error for a queue error.
  public static func varlinkError(_ error: QueueError) -> VarlinkError {
    switch error {
    case .noSuchNotice(let id): return .noSuchNotice(id)
    case .invalidArgument(let field, let reason): return .invalidArgument(field, reason)
    case .queueFull(let capacity): return .queueFull(capacity)
    }
  }

  /// The Varlink error for a change the service did not acknowledge.
  public static func varlinkError(_ error: ServiceError) -> VarlinkError {
    switch error {
    case .queue(let error): return varlinkError(error)
    case .storeFailed(let reason): return .storeFailed(reason)
    }
  }
}

extension Responder {
  /// Replies with the value, or with the error the service gave.
  fileprivate func answer(_ result: Result<some WireEncodable, ServiceError>) {
    switch result {
    case .success(let value): reply(value)
    case .failure(let error): fail(QueueMethods.varlinkError(error))
    }
  }

  /// Replies with the value, or with the error the engine gave.
  fileprivate func answer(_ result: Result<some WireEncodable, QueueError>) {
    answer(result.mapError(ServiceError.queue))
  }
}

/// The last event encoded for watchers: the engine hands one event to every watcher's sink in a
/// row, under one number, so it is encoded once however many watchers receive it.
final class EncodedEvents: Sendable {
  private let last = Mutex<(number: UInt64, bytes: [UInt8])>((0, []))

  /// The framed `Watch` reply for event `number`.
  func encoded(_ event: Event, number: UInt64) -> [UInt8] {
    if let cached = last.withLock({ $0.number == number && number != 0 ? $0.bytes : nil }) { return cached }
    let bytes = VarlinkReplyFrame.encode(EventReply(event: event), continues: true)
    last.withLock { $0 = (number, bytes) }
    return bytes
  }
}
