// libFuzzer target: the config file, read by libinih (ConfigLoader.entries(text:)) and turned
// into a Config by ConfigParser, as the daemon and `notifyd --check-config` do. Nothing may
// crash; a refused file must say where (a line within the file); an accepted one must render.
import NotifyConfig

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  // Lines as the reader counts them: by the byte 0x0A ("\r\n" is one Character in Swift).
  let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).count
  do throws(ConfigError) {
    let entries = try ConfigLoader.entries(text: text, name: "fuzz.conf")
    for entry in entries {
      precondition((1...lines).contains(entry.line), "entry \(entry) outside lines 1...\(lines)")
    }
    let config = try ConfigParser.parse(entries, file: "fuzz.conf")
    _ = config.rendered()
  } catch {
    switch error {
    case .invalidValue(_, let line, _, _), .syntax(_, let line, _):
      precondition((1...max(lines, 1)).contains(line), "\(error) names a line outside 1...\(lines)")
    case .unreadable: break
    }
    _ = error.description
  }
  return 0
}
