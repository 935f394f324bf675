// libFuzzer target: Varlink framing and call reading, as the daemon and notifyctl do them.
//
// The input is a byte stream as a client would send it. It goes through VarlinkFramer in two
// chunks (cut where the first byte says, so that messages also straddle reads), and every whole
// message is read as the daemon reads it: one pass through `MethodTable.prepare`, with every method
// of io.notifyd.Queue bound to its parameter type. Parameters the daemon's reader accepts must
// survive the client's encoding (Codable) and the daemon's reader again, unchanged. Messages are
// also decoded as notifyctl decodes replies. Nothing may crash, and the framer may never hold more
// than its limit.
import NotifyProtocol
import NotifyVarlink

/// Every method bound to its real parameter type; the handlers do nothing.
let table: MethodTable = {
  var table = MethodTable(vendor: "fuzz", product: "fuzz", version: "0", url: "https://example.org")
  table.add(interface: Interface.name, description: Interface.description)
  func bind<P: WireDecodable>(_ method: Interface.Method, _ type: P.Type) {
    table.bind(method.qualifiedName, type) { _, _ in }
  }
  bind(.show, ShowParameters.self)
  bind(.progress, ProgressParameters.self)
  bind(.update, UpdateParameters.self)
  bind(.end, EndParameters.self)
  bind(.cancel, CancelParameters.self)
  bind(.invoke, InvokeParameters.self)
  bind(.dismiss, DismissParameters.self)
  bind(.suspend, SuspendParameters.self)
  bind(.get, IDParameters.self)
  bind(.wait, IDParameters.self)
  bind(.history, HistoryParameters.self)
  bind(.watch, WatchParameters.self)
  for method in [Interface.Method.resume, .list, .status, .reload] { bind(method, NoParameters.self) }
  return table
}()

/// The framer's limit here: small, so that the overflow path is reached.
let maximumMessageSize = 4096

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVarlink(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = UnsafeBufferPointer(start: data, count: size)
  var framer = VarlinkFramer(maximumMessageSize: maximumMessageSize)
  let cut = size > 0 ? Int(input[0]) % (size + 1) : 0
  for chunk in [input[0..<cut], input[cut...]] where !chunk.isEmpty {
    let output = framer.append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: chunk)))
    for message in output.messages { decode(message) }
    if output.overflowed { break }
    precondition(framer.pendingCount <= maximumMessageSize, "framer holds \(framer.pendingCount) bytes")
  }
  // The daemon also reads a message that fills the whole input, without a NUL.
  if size <= maximumMessageSize { decode(Array(input)) }
  return 0
}

/// Reads `message` the way the daemon does (`MethodTable.prepare`), then checks the typed
/// parameters of the method it names through the client's encoding and back; reads it as a reply
/// the way notifyctl does.
func decode(_ message: [UInt8]) {
  _ = table.prepare(message)
  let call = envelope(message)
  switch call?.method.split(separator: ".").last.map(String.init) {
  case "Show": roundTrip(ShowParameters.self, message, call!.parameters)
  case "Progress": roundTrip(ProgressParameters.self, message, call!.parameters)
  case "Update": roundTrip(UpdateParameters.self, message, call!.parameters)
  case "End": roundTrip(EndParameters.self, message, call!.parameters)
  case "Cancel": roundTrip(CancelParameters.self, message, call!.parameters)
  case "Invoke": roundTrip(InvokeParameters.self, message, call!.parameters)
  case "Dismiss": roundTrip(DismissParameters.self, message, call!.parameters)
  case "Suspend": roundTrip(SuspendParameters.self, message, call!.parameters)
  case "Get", "Wait": roundTrip(IDParameters.self, message, call!.parameters)
  case "History": roundTrip(HistoryParameters.self, message, call!.parameters)
  case "Watch": roundTrip(WatchParameters.self, message, call!.parameters)
  case "GetInterfaceDescription": roundTrip(InterfaceDescriptionParameters.self, message, call!.parameters)
  default:
    guard (try? VarlinkCoding.decodeReply(message)) != nil else { return }
    let decoders: [([UInt8]) -> Void] = [
      { decodeReply(ShowReply.self, $0) }, { decodeReply(ProgressReply.self, $0) },
      { decodeReply(NoticeReply.self, $0) }, { decodeReply(NoticesReply.self, $0) },
      { decodeReply(CancelReply.self, $0) }, { decodeReply(DismissReply.self, $0) },
      { decodeReply(SuspendReply.self, $0) },
      { decodeReply(StatusReply.self, $0) }, { decodeReply(EventReply.self, $0) },
      { decodeReply(ServiceInfo.self, $0) }, { decodeReply(InterfaceDescriptionReply.self, $0) },
    ]
    decoders[message.count % decoders.count](message)
  }
  if message.count < 64, let text = String(validating: message, as: UTF8.self) {
    _ = DurationParser.seconds(text)
  }
}

/// The method a message names and where its parameters are, by the daemon's reader.
func envelope(_ message: [UInt8]) -> (method: String, parameters: Range<Int>?)? {
  message.withUnsafeBytes { raw in
    var reader = JSONReader(raw)
    var method: String?
    var parameters: Range<Int>?
    do {
      try reader.readObject { reader, name throws(JSONReadError) in
        switch name {
        case "method": method = try reader.readString()
        case "parameters": parameters = try reader.skipValue()
        default: try reader.skipValue()
        }
      }
    } catch {
      return nil
    }
    return method.map { ($0, parameters) }
  }
}

/// Reads parameters as the daemon does; what it accepts must come back unchanged from the client's
/// encoding, read again.
func roundTrip<T: WireDecodable & Codable & Equatable>(_ type: T.Type, _ message: [UInt8], _ range: Range<Int>?) {
  guard let range, let value = read(type, from: message, at: range) else { return }
  guard let encoded = try? VarlinkCoding.call("io.notifyd.Queue.Fuzz", value) else {
    fatalError("\(type): a value the daemon read did not encode: \(value)")
  }
  guard let call = envelope(Array(encoded.dropLast())), let parameters = call.parameters,
    let again = read(type, from: Array(encoded.dropLast()), at: parameters)
  else {
    fatalError("\(type): an encoded value was not read again: \(String(decoding: encoded, as: UTF8.self))")
  }
  precondition(again == value, "\(type): \(value) came back as \(again)")
}

func read<T: WireDecodable>(_ type: T.Type, from message: [UInt8], at range: Range<Int>) -> T? {
  message.withUnsafeBytes { raw in
    var reader = JSONReader(raw).reader(at: range)
    return try? T(reading: &reader)
  }
}

/// Decodes a reply's parameters as notifyctl does; an error must be a `VarlinkError`.
func decodeReply<T: Decodable>(_ type: T.Type, _ message: [UInt8]) {
  do {
    _ = try VarlinkCoding.parameters(type, from: message)
  } catch is VarlinkError {
    return
  } catch {
    fatalError("\(type): parameters threw \(error), not a VarlinkError")
  }
}
