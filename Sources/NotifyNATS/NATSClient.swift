import CNats
import NotifyPaths
import NotifyPosix
import NotifyProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// What a call of the NATS C client (libnats) said went wrong, in one line.
public struct NATSError: Error, Sendable, CustomStringConvertible {
  /// The library's status (`NATS_TIMEOUT`, `NATS_NOT_PERMITTED` …).
  public let status: natsStatus
  /// JetStream's error code, when the server answered one.
  public let code: Int
  public let text: String

  public var description: String { text }

  /// Whether nothing answered a publish: no stream holds its subject (yet, or any more).
  public var isNoResponders: Bool { status == NATS_NO_RESPONDERS }

  /// An error libnats reported through a callback.
  init(status: natsStatus, code: Int, text: String) {
    self.status = status
    self.code = code
    self.text = text
  }

  /// No answer came for a publish within `seconds`, though libnats said nothing of it.
  public static func noAnswer(after seconds: Double) -> NATSError {
    NATSError(status: NATS_TIMEOUT, code: 0, text: "no answer from the stream within \(seconds) s")
  }

  /// What went wrong before libnats was called: it cannot be loaded, a secret cannot be read.
  public init(_ text: String) {
    status = NATS_ERR
    code = 0
    self.text = text
  }

  /// The error of the call that just answered `status` on this thread (`nats_GetLastError`).
  init(_ status: natsStatus, _ what: String, code: jsErrCode = jsErrCode(0)) {
    self.status = status
    self.code = Int(code.rawValue)
    var last = NATS_OK
    var detail =
      nats_GetLastError(&last).map { String(cString: $0) } ?? String(cString: natsStatus_GetText(status))
    // libnats puts where in its source it noticed first: "(conn.c:2088): No server available …".
    if detail.hasPrefix("("), let end = detail.firstIndex(of: ")"), detail[end...].hasPrefix("): ") {
      detail = String(detail[detail.index(end, offsetBy: 3)...])
    }
    // libnats kept no text for it: the status says what it was.
    if detail.isEmpty {
      detail =
        String(cString: natsStatus_GetText(status))
        + (self.code != 0 ? " (JetStream error \(self.code))" : "")
    }
    text = "\(what): \(detail)"
  }

  public var isTimeout: Bool { status == NATS_TIMEOUT }
}

/// libnats, loaded the first time a connection is made (`notifyd_nats_open`): linked, it would be
/// mapped into every `notifyctl` and `notifyd` at start, the relay used or not.
enum NATSLibrary {
  static func open() throws(NATSError) {
    var error = [CChar](repeating: 0, count: 512)
    guard notifyd_nats_open(&error, error.count) == 0 else {
      throw NATSError(error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }
  }
}

/// How to reach and sign in to the NATS servers (`[Relay]`).
public struct NATSSettings: Sendable {
  public var urls: [String]
  /// The connection's name, as the server's monitoring shows it.
  public var name: String
  public var user: String?
  public var password: String?
  public var token: String?
  /// A `.creds` file.
  public var credentials: String?
  /// CA certificates a `tls://` server's must chain to.
  public var tlsCA: String?

  /// The settings of `[Relay]`, the secrets read from their files now (the first line of
  /// `PasswordFile=` and `TokenFile=`); `~/` in a path is the home directory.
  public init(
    urls: [String], name: String, user: String?, passwordFile: String?, tokenFile: String?,
    credentials: String?, tlsCA: String?, environment: (String) -> String?
  ) throws(NATSError) {
    func expanded(_ path: String?) -> String? {
      path.map { SocketPath.expandingHome($0, environment: environment) }
    }
    func firstLine(_ path: String?, _ key: String) throws(NATSError) -> String? {
      guard let path, let file = expanded(path) else { return nil }
      var bytes = [UInt8](repeating: 0, count: 4096)
      do throws(SystemError) {
        let fd = try Posix.open(file, O_RDONLY)
        defer { Posix.close(fd) }
        // A secret is one short line: the first read holds it (a directory fails here, EISDIR).
        let read = bytes.withUnsafeMutableBytes { buffer in
          Result { () throws(SystemError) in try Posix.read(fd, into: buffer) }
        }
        guard case .bytes(let count) = try read.get() else { return "" }
        bytes.removeSubrange(count...)
      } catch {
        throw NATSError("cannot read \(key)\(path): \(error.reason)")
      }
      return String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
    self.urls = urls
    self.name = name
    self.user = user
    password = try firstLine(passwordFile, "PasswordFile=")
    token = try firstLine(tokenFile, "TokenFile=")
    self.credentials = expanded(credentials)
    self.tlsCA = expanded(tlsCA)
  }
}

/// One connection to NATS, with libnats reconnecting (forever, with a backoff) once it has been
/// made; what it hears of its state goes to `onEvent`, on libnats' threads.
public final class NATSConnection: @unchecked Sendable {
  // @unchecked: libnats' connection and JetStream context are thread-safe; the handles are set once.
  public enum ConnectionEvent: Sendable {
    case disconnected
    case reconnected(url: String)
    case closed
    /// An error the server sent on its own (a permissions violation, a slow consumer).
    case error(String)
  }

  let handle: OpaquePointer
  let jetStream: OpaquePointer

  /// What the C callbacks reach through their closure pointer.
  private final class EventBox {
    let onEvent: @Sendable (ConnectionEvent) -> Void
    init(_ onEvent: @escaping @Sendable (ConnectionEvent) -> Void) { self.onEvent = onEvent }
  }

  /// Connects, or throws why not (libnats missing, no server answers, authorization, TLS). Without
  /// `onEvent`, no callback is set: nothing of this process runs on libnats' threads.
  public init(_ settings: NATSSettings, onEvent: (@Sendable (ConnectionEvent) -> Void)?) throws(NATSError) {
    try NATSLibrary.open()
    var options: OpaquePointer?
    var status = natsOptions_Create(&options)
    guard status == NATS_OK, let options else { throw NATSError(status, "cannot make the options") }
    defer { natsOptions_Destroy(options) }
    let box = onEvent.map { Unmanaged.passRetained(EventBox($0)) }
    func check(_ status: natsStatus, _ what: String) throws(NATSError) {
      guard status == NATS_OK else {
        box?.release()
        throw NATSError(status, what)
      }
    }
    status = withCStrings(settings.urls) { natsOptions_SetServers(options, $0, $1) }
    try check(status, "bad URL=")
    try check(natsOptions_SetName(options, settings.name), "name")
    if let user = settings.user {
      try check(natsOptions_SetUserInfo(options, user, settings.password), "User=")
    }
    if let token = settings.token { try check(natsOptions_SetToken(options, token), "TokenFile=") }
    if let credentials = settings.credentials {
      try check(natsOptions_SetUserCredentialsFromFiles(options, credentials, nil), "Credentials=")
    }
    if settings.urls.contains(where: { $0.hasPrefix("tls://") }) || settings.tlsCA != nil {
      try check(natsOptions_SetSecure(options, true), "TLS")
      if let ca = settings.tlsCA { try check(natsOptions_LoadCATrustedCertificates(options, ca), "TLSCA=") }
    }
    // Once connected, libnats reconnects for ever: a server restart, a node of a cluster lost.
    try check(natsOptions_SetMaxReconnect(options, -1), "reconnect")
    try check(natsOptions_SetReconnectWait(options, 250), "reconnect")
    try check(natsOptions_SetReconnectJitter(options, 100, 500), "reconnect")
    try check(natsOptions_SetTimeout(options, 2000), "timeout")
    if let box {
      let closure = box.toOpaque()
      try check(
        natsOptions_SetDisconnectedCB(
          options,
          { _, closure in
            Unmanaged<EventBox>.fromOpaque(closure!).takeUnretainedValue().onEvent(.disconnected)
          },
          closure), "callbacks")
      try check(
        natsOptions_SetReconnectedCB(
          options,
          { connection, closure in
            var buffer = [CChar](repeating: 0, count: 256)
            _ = natsConnection_GetConnectedUrl(connection, &buffer, buffer.count)
            let url = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            Unmanaged<EventBox>.fromOpaque(closure!).takeUnretainedValue().onEvent(.reconnected(url: url))
          }, closure), "callbacks")
      try check(
        natsOptions_SetClosedCB(
          options,
          { _, closure in
            // The last callback libnats makes for a connection (on its own thread, after a close or
            // a destroy returned): the box goes with it.
            let box = Unmanaged<EventBox>.fromOpaque(closure!)
            box.takeUnretainedValue().onEvent(.closed)
            box.release()
          }, closure), "callbacks")
      try check(
        natsOptions_SetErrorHandler(
          options,
          { connection, _, status, closure in
            var text: UnsafePointer<CChar>?
            _ = natsConnection_GetLastError(connection, &text)
            let message = text.map { String(cString: $0) } ?? String(cString: natsStatus_GetText(status))
            Unmanaged<EventBox>.fromOpaque(closure!).takeUnretainedValue().onEvent(.error(message))
          }, closure), "callbacks")
    }
    var connection: OpaquePointer?
    status = natsConnection_Connect(&connection, options)
    guard status == NATS_OK, let connection else {
      let error = NATSError(status, "cannot connect to \(settings.urls.joined(separator: ", "))")
      box?.release()
      throw error
    }
    var jsOptions = jsOptions()
    jsOptions_Init(&jsOptions)
    jsOptions.Wait = 5000
    var context: OpaquePointer?
    status = natsConnection_JetStream(&context, connection, &jsOptions)
    guard status == NATS_OK, let context else {
      let error = NATSError(status, "JetStream")
      // Connected: the closed callback releases the box.
      natsConnection_Destroy(connection)
      throw error
    }
    handle = connection
    jetStream = context
  }

  deinit {
    jsCtx_Destroy(jetStream)
    // The box is released by the closed callback, which comes after this, on libnats' thread.
    natsConnection_Destroy(handle)
  }

  /// The URL of the server connected to now, if any.
  public var connectedURL: String? {
    var buffer = [CChar](repeating: 0, count: 256)
    guard natsConnection_GetConnectedUrl(handle, &buffer, buffer.count) == NATS_OK, buffer[0] != 0 else {
      return nil
    }
    return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  }

  public var isConnected: Bool { natsConnection_Status(handle) == NATS_CONN_STATUS_CONNECTED }

  /// Closes the connection: no more callbacks but `closed`.
  public func close() { natsConnection_Close(handle) }

  // MARK: - JetStream

  /// The relay's stream for `subjects` (`RelayStream`), made if missing: file storage, limited by
  /// age and size, duplicates dropped by message id, replicated when `servers` make a cluster.
  public func ensureStream(for subjects: RelaySubjects, servers: Int) throws(NATSError) {
    let name = subjects.stream
    var info: UnsafeMutablePointer<jsStreamInfo>?
    var code = jsErrCode(0)
    var status = js_GetStreamInfo(&info, jetStream, name, nil, &code)
    if status == NATS_OK {
      jsStreamInfo_Destroy(info)
      return
    }
    guard status == NATS_NOT_FOUND || code == JSStreamNotFoundErr else {
      throw NATSError(status, "cannot look up stream \(name)", code: code)
    }
    var config = jsStreamConfig()
    jsStreamConfig_Init(&config)
    config.Storage = js_FileStorage
    config.MaxAge = Int64(RelayStream.maxAge * 1e9)
    config.MaxBytes = RelayStream.maxBytes
    config.Replicas = Int64(RelayStream.replicas(servers: servers))
    config.Duplicates = Int64(RelayStream.duplicateWindow * 1e9)
    status = withCStrings([name, subjects.streamSubjects]) { strings, _ in
      config.Name = strings[0]
      config.Subjects = strings + 1
      config.SubjectsLen = 1
      return js_AddStream(&info, jetStream, &config, nil, &code)
    }
    guard status == NATS_OK else { throw NATSError(status, "cannot create stream \(name)", code: code) }
    jsStreamInfo_Destroy(info)
  }

  /// Publishes `payload` on `subject` with JetStream message id `id`, and waits for the stream's
  /// acknowledgement; answers whether the stream took it as a duplicate.
  @discardableResult
  public func publish(_ payload: [UInt8], on subject: String, id: String, wait: Double) throws(NATSError)
    -> Bool
  {
    var options = jsPubOptions()
    jsPubOptions_Init(&options)
    options.MaxWait = Int64(wait * 1000)
    var ack: UnsafeMutablePointer<jsPubAck>?
    var code = jsErrCode(0)
    let status = id.withCString { messageID in
      options.MsgId = messageID
      return payload.withUnsafeBytes { bytes in
        js_Publish(&ack, jetStream, subject, bytes.baseAddress, Int32(bytes.count), &options, &code)
      }
    }
    guard status == NATS_OK else { throw NATSError(status, "cannot publish to \(subject)", code: code) }
    let duplicate = ack?.pointee.Duplicate ?? false
    jsPubAck_Destroy(ack)
    return duplicate
  }

  /// A pull subscription through the durable consumer `durable` of `stream`, filtered on
  /// `subject`: explicit acknowledgement, `ackWait` before a redelivery, at most `maxAckPending`
  /// delivered and not yet acknowledged.
  ///
  /// Delivered in stream order from the first message not acknowledged: a consumer left with
  /// messages delivered and never acknowledged (its last subscriber was killed mid-batch) is made
  /// again from its acknowledgement floor, so that those come first rather than after `ackWait`,
  /// behind newer ones.
  public func pullSubscribe(
    stream: String, subject: String, durable: String, ackWait: Double, maxAckPending: Int
  ) throws(NATSError) -> NATSSubscription {
    var code = jsErrCode(0)
    var startSequence: UInt64?
    var exists = false
    var info: UnsafeMutablePointer<jsConsumerInfo>?
    var status = js_GetConsumerInfo(&info, jetStream, stream, durable, nil, &code)
    if status == NATS_OK, let consumer = info?.pointee {
      exists = true
      if consumer.NumAckPending > 0 { startSequence = consumer.AckFloor.Stream + 1 }
      jsConsumerInfo_Destroy(info)
      if startSequence != nil {
        status = js_DeleteConsumer(jetStream, stream, durable, nil, &code)
        guard status == NATS_OK else {
          throw NATSError(
            status, "cannot restart consumer \(durable) at its acknowledged messages", code: code)
        }
      }
    } else if status != NATS_NOT_FOUND, code != JSConsumerNotFoundErr {
      throw NATSError(status, "cannot look up consumer \(durable)", code: code)
    }
    var options = jsSubOptions()
    jsSubOptions_Init(&options)
    var subscription: OpaquePointer?
    status = stream.withCString { streamName in
      durable.withCString { durableName in
        options.Stream = streamName
        options.Config.Durable = durableName
        options.Config.AckPolicy = js_AckExplicit
        if let startSequence {
          options.Config.DeliverPolicy = js_DeliverByStartSequence
          options.Config.OptStartSeq = startSequence
        } else if !exists {
          options.Config.DeliverPolicy = js_DeliverAll
        }
        options.Config.AckWait = Int64(ackWait * 1e9)
        options.Config.MaxAckPending = Int64(maxAckPending)
        return js_PullSubscribe(&subscription, jetStream, subject, durableName, nil, &options, &code)
      }
    }
    guard status == NATS_OK, let subscription else {
      throw NATSError(status, "cannot consume \(subject) as \(durable)", code: code)
    }
    return NATSSubscription(handle: subscription)
  }
}

extension NATSConnection {
  /// What the stream receives on `subject` from now on, pushed to an ephemeral consumer that goes
  /// with the subscription; read with `next(timeout:)`.
  public func subscribeToNew(stream: String, subject: String) throws(NATSError) -> NATSSubscription {
    var options = jsSubOptions()
    jsSubOptions_Init(&options)
    var code = jsErrCode(0)
    var subscription: OpaquePointer?
    let status = stream.withCString { streamName in
      options.Stream = streamName
      options.Config.DeliverPolicy = js_DeliverNew
      options.Config.AckPolicy = js_AckNone
      return js_SubscribeSync(&subscription, jetStream, subject, nil, &options, &code)
    }
    guard status == NATS_OK, let subscription else {
      throw NATSError(status, "cannot subscribe to \(subject)", code: code)
    }
    return NATSSubscription(handle: subscription)
  }
}

/// Publishing to JetStream without waiting for each acknowledgement: each message published
/// resolves once, acknowledged by the stream or failed (an error, or no answer within `wait`),
/// through `onResult(messageID, error)` on a libnats thread. The caller bounds how many are in
/// flight; libnats refuses more than `window` (after a short stall).
public final class NATSAsyncPublisher: @unchecked Sendable {
  // @unchecked: libnats' JetStream context is thread-safe; the handles are set once.
  private let connection: NATSConnection
  private let context: OpaquePointer
  private let box: Unmanaged<ResultBox>
  private let wait: Double

  private final class ResultBox {
    let onResult: @Sendable (String, NATSError?) -> Void
    /// Guards `publishing` and `retired` (a pthread mutex, which ThreadSanitizer sees; it does not
    /// see `Synchronization.Mutex`'s futex on Linux, and reported a race under it).
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// How many `publish` calls are running.
    private var publishing = 0
    /// The messages whose result came while one ran.
    private var retired: [OpaquePointer] = []

    init(_ onResult: @escaping @Sendable (String, NATSError?) -> Void) {
      self.onResult = onResult
      pthread_mutex_init(lock, nil)
    }

    deinit {
      for message in retired { natsMsg_Destroy(message) }
      pthread_mutex_destroy(lock)
      lock.deallocate()
    }

    /// A message's result has come: destroyed at once unless a `publish` is running, since
    /// libnats 3.4 may still be sending it then (`publish`); else once none is.
    func retire(_ message: OpaquePointer) {
      pthread_mutex_lock(lock)
      let now = publishing == 0
      if !now { retired.append(message) }
      pthread_mutex_unlock(lock)
      if now { natsMsg_Destroy(message) }
    }

    func beginPublishing() {
      pthread_mutex_lock(lock)
      publishing += 1
      pthread_mutex_unlock(lock)
    }

    func endPublishing() {
      pthread_mutex_lock(lock)
      publishing -= 1
      var done: [OpaquePointer] = []
      if publishing == 0 { swap(&done, &retired) }
      pthread_mutex_unlock(lock)
      for message in done { natsMsg_Destroy(message) }
    }
  }

  public init(
    _ connection: NATSConnection, window: Int, wait: Double,
    onResult: @escaping @Sendable (String, NATSError?) -> Void
  ) throws(NATSError) {
    self.connection = connection
    self.wait = wait
    let box = Unmanaged.passRetained(ResultBox(onResult))
    var options = jsOptions()
    jsOptions_Init(&options)
    options.Wait = Int64(wait * 1000)
    options.PublishAsync.MaxPending = Int64(window)
    options.PublishAsync.StallWait = Int64(wait * 1000)
    options.PublishAsync.AckHandlerClosure = box.toOpaque()
    options.PublishAsync.AckHandler = { _, message, ack, failure, closure in
      var value: UnsafePointer<CChar>?
      let id =
        natsMsgHeader_Get(message, "Nats-Msg-Id", &value) == NATS_OK ? value.map { String(cString: $0) } : nil
      let error = failure.map { failure in
        NATSError(
          status: failure.pointee.Err, code: Int(failure.pointee.ErrCode.rawValue),
          text: failure.pointee.ErrText.map { String(cString: $0) }
            ?? String(cString: natsStatus_GetText(failure.pointee.Err)))
      }
      let box = Unmanaged<ResultBox>.fromOpaque(closure!).takeUnretainedValue()
      if let id { box.onResult(id, ack == nil ? error : nil) }
      if let message { box.retire(message) }
    }
    var context: OpaquePointer?
    let status = natsConnection_JetStream(&context, connection.handle, &options)
    guard status == NATS_OK, let context else {
      box.release()
      throw NATSError(status, "JetStream")
    }
    self.context = context
    self.box = box
  }

  deinit {
    var options = jsPubOptions()
    jsPubOptions_Init(&options)
    options.MaxWait = Int64(wait * 1000)
    // The pending ones resolve (or time out) before the closure goes.
    _ = js_PublishAsyncComplete(context, &options)
    jsCtx_Destroy(context)
    box.release()
  }

  /// Sends `payload` on `subject` with the message id `id`; its result comes through `onResult`.
  ///
  /// libnats 3.4 (Debian 12's) files the message among the pending ones before it sends it, and
  /// sends it outside its lock: a message whose `MaxWait` ran out meanwhile (a connection slow to
  /// take it, NATS restarting) has its result handed to `onResult` while it is being sent, and
  /// destroying it then was a use after free (the ASan soak: a SEGV in `natsMsgHeader_encodedLen`).
  /// So a message whose result comes while a `publish` runs is destroyed once none does.
  public func publish(_ payload: [UInt8], on subject: String, id: String) throws(NATSError) {
    box.takeUnretainedValue().beginPublishing()
    defer { box.takeUnretainedValue().endPublishing() }
    var options = jsPubOptions()
    jsPubOptions_Init(&options)
    options.MaxWait = Int64(wait * 1000)
    let status = id.withCString { messageID in
      options.MsgId = messageID
      return payload.withUnsafeBytes { bytes in
        js_PublishAsync(context, subject, bytes.baseAddress, Int32(bytes.count), &options)
      }
    }
    guard status == NATS_OK else { throw NATSError(status, "cannot publish to \(subject)") }
  }
}

/// A JetStream subscription: pulled a batch at a time (`fetch`), or pushed (`next`).
public final class NATSSubscription: @unchecked Sendable {
  // @unchecked: used by one thread at a time (the relay's consumer).
  let handle: OpaquePointer

  init(handle: OpaquePointer) { self.handle = handle }

  deinit {
    natsSubscription_Destroy(handle)
  }

  /// The next message pushed, waiting at most `timeout` seconds; `nil` on a timeout.
  public func next(timeout: Double) throws(NATSError) -> NATSMessage? {
    var message: OpaquePointer?
    let status = natsSubscription_NextMsg(&message, handle, Int64(timeout * 1000))
    if status == NATS_TIMEOUT { return nil }
    guard status == NATS_OK, let message else { throw NATSError(status, "cannot receive") }
    return NATSMessage(handle: message)
  }

  /// Up to `batch` messages, waiting at most `timeout` seconds for the first; none on a timeout.
  ///
  /// While messages a past request brought are still waiting in the subscription (they came after
  /// its fetch had timed out), one is fetched at a time. libnats 3.4 (Debian 12's) takes the
  /// waiting ones first, then asks the server for `batch` less those and waits until it holds
  /// that many: with more than half of `batch` waiting it never does, and writes past the end of
  /// its list of `batch` until the fetch times out (nats.c #749, fixed in 3.8.2). An AddressSanitizer
  /// run caught the relay reading the 257th of 256 while NATS was killed mid-stream. With `batch`
  /// 1 the count reaches what it waits for at once.
  public func fetch(batch: Int, timeout: Double) throws(NATSError) -> [NATSMessage] {
    var waiting: Int32 = 0
    var waitingBytes: Int32 = 0
    let asked =
      natsSubscription_GetPending(handle, &waiting, &waitingBytes) == NATS_OK && waiting > 0 ? 1 : batch
    var list = natsMsgList()
    var code = jsErrCode(0)
    let status = natsSubscription_Fetch(&list, handle, Int32(asked), Int64(timeout * 1000), &code)
    if status == NATS_TIMEOUT { return [] }
    guard status == NATS_OK else { throw NATSError(status, "cannot fetch", code: code) }
    var messages: [NATSMessage] = []
    messages.reserveCapacity(Int(list.Count))
    for index in 0..<Int(list.Count) {
      if let message = list.Msgs[index] {
        messages.append(NATSMessage(handle: message))
        // The list no longer owns it: `NATSMessage` destroys it.
        list.Msgs[index] = nil
      }
    }
    natsMsgList_Destroy(&list)
    return messages
  }
}

/// One message delivered by JetStream; acknowledged (or terminated) once, destroyed with it.
public final class NATSMessage: @unchecked Sendable {
  // @unchecked: libnats' message calls are safe from any thread; each is called once.
  let handle: OpaquePointer

  init(handle: OpaquePointer) { self.handle = handle }

  deinit {
    natsMsg_Destroy(handle)
  }

  public var subject: String { String(cString: natsMsg_GetSubject(handle)) }
  public var count: Int { Int(natsMsg_GetDataLength(handle)) }

  /// The payload's bytes, for the duration of `body`.
  public func withPayload<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
    let data = natsMsg_GetData(handle)
    return try body(UnsafeRawBufferPointer(start: data, count: count))
  }

  /// Done with it: JetStream does not deliver it again.
  public func ack() { _ = natsMsg_Ack(handle, nil) }
  /// Never to be delivered again, as not a notice.
  public func terminate() { _ = natsMsg_Term(handle, nil) }
  /// Still being worked on: the redelivery timer starts over.
  public func inProgress() { _ = natsMsg_InProgress(handle, nil) }
}

/// `strings` as C strings, for a libnats call that takes an array of them: valid during `body`,
/// which gets the array and its count. Swift allocates them (not `strdup`), so whatever allocator
/// the process runs with frees them.
private func withCStrings<T>(
  _ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>, Int32) -> T
) -> T {
  let copies = strings.map { string -> UnsafeMutablePointer<CChar> in
    let bytes = Array(string.utf8CString)
    let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
    copy.initialize(from: bytes, count: bytes.count)
    return copy
  }
  defer { copies.forEach { $0.deallocate() } }
  var pointers = copies.map { UnsafePointer($0) as UnsafePointer<CChar>? }
  return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!, Int32($0.count)) }
}
