// libFuzzer target: Varlink framing and request decoding, as the daemon and notifyctl do them.
//
// The input is a byte stream as a client would send it. It goes through VarlinkFramer in two
// chunks (cut where the first byte says, so that messages also straddle reads), and every whole
// message is decoded as a call envelope and then as the parameters of the method it names (every
// method of io.notifyd.Queue and org.varlink.service), or else as a reply of one of the reply
// types. Whatever decodes must encode again and decode to the same value. Nothing may crash, and
// the framer may never hold more than its limit.
import NotifyProtocol

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

/// Decodes `message` the way the daemon does (the call envelope, then the parameters of the method
/// it names) and the way notifyctl does (a reply, then its parameters); a message that names no
/// known method is decoded as one of the types, chosen by its length, so that every type is reached.
func decode(_ message: [UInt8]) {
  let method = (try? VarlinkCoding.decodeCall(message))?.method
  switch method.map({ String($0.split(separator: ".").last ?? "") }) {
  case "Show": roundTrip(ShowParameters.self, message)
  case "Progress": roundTrip(ProgressParameters.self, message)
  case "Update": roundTrip(UpdateParameters.self, message)
  case "End": roundTrip(EndParameters.self, message)
  case "Cancel": roundTrip(CancelParameters.self, message)
  case "Invoke": roundTrip(InvokeParameters.self, message)
  case "Suspend": roundTrip(SuspendParameters.self, message)
  case "Get", "Wait": roundTrip(IDParameters.self, message)
  case "History": roundTrip(HistoryParameters.self, message)
  case "Watch": roundTrip(WatchParameters.self, message)
  case "Resume", "List", "Status", "Reload", "GetInfo": roundTrip(NoParameters.self, message)
  case "GetInterfaceDescription": roundTrip(InterfaceDescriptionParameters.self, message)
  default:
    guard (try? VarlinkCoding.decodeReply(message)) != nil else { return }
    let decoders: [([UInt8]) -> Void] = [
      { roundTrip(ShowReply.self, $0) }, { roundTrip(ProgressReply.self, $0) },
      { roundTrip(NoticeReply.self, $0) }, { roundTrip(NoticesReply.self, $0) },
      { roundTrip(CancelReply.self, $0) }, { roundTrip(SuspendReply.self, $0) },
      { roundTrip(StatusReply.self, $0) }, { roundTrip(EventReply.self, $0) },
      { roundTrip(ServiceInfo.self, $0) }, { roundTrip(InterfaceDescriptionReply.self, $0) },
      { roundTrip(ShowParameters.self, $0) }, { roundTrip(ProgressParameters.self, $0) },
      { roundTrip(HistoryParameters.self, $0) },
    ]
    decoders[message.count % decoders.count](message)
  }
  if message.count < 64, let text = String(validating: message, as: UTF8.self) {
    _ = DurationParser.seconds(text)
  }
}

/// Decodes `message`'s parameters as `type`; what decodes must survive encoding and decoding again.
func roundTrip<T: Codable & Equatable>(_ type: T.Type, _ message: [UInt8]) {
  let value: T
  do {
    value = try VarlinkCoding.parameters(type, from: message)
  } catch is VarlinkError {
    return
  } catch {
    fatalError("\(type): parameters threw \(error), not a VarlinkError")
  }
  guard let encoded = try? VarlinkCoding.call("io.notifyd.Queue.Fuzz", value) else {
    fatalError("\(type): a decoded value did not encode: \(value)")
  }
  guard let again = try? VarlinkCoding.parameters(type, from: Array(encoded.dropLast())) else {
    fatalError("\(type): an encoded value did not decode: \(String(decoding: encoded, as: UTF8.self))")
  }
  precondition(again == value, "\(type): \(value) came back as \(again)")
}
