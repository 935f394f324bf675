import NotifyProtocol

/// Reads the values of options and arguments, throwing a `UsageError` that names the option.
enum ValueParser {
  /// The longest duration the daemon accepts: a day.
  static let maximumDuration: Double = 86400

  /// Reads a duration (`1.5`, `1.5s`, `300ms`, `2m`, `1h`) of at most a day.
  static func duration(_ text: String, option: String) throws(UsageError) -> Double {
    guard let seconds = DurationParser.seconds(text) else {
      throw .invalidValue(option: option, value: text, reason: "a duration (like 1.5, 1.5s, 300ms, 2m, 1h)")
    }
    guard seconds <= maximumDuration else {
      throw .invalidValue(option: option, value: text, reason: "a duration of at most a day")
    }
    return seconds
  }

  /// The extensions that make an `--icon` value a file rather than an icon name.
  static let imageExtensions = [".png", ".svg", ".svgz", ".jpg", ".jpeg", ".xpm"]

  /// Reads an icon: a file path (with a `/`, or ending in an image's extension) made absolute
  /// against `workingDirectory`, else an icon theme's name (`dialog-warning`).
  static func icon(_ text: String, option: String, workingDirectory: String) throws(UsageError) -> String {
    let lowered = text.lowercased()
    guard !text.contains("/"), !imageExtensions.contains(where: lowered.hasSuffix) else {
      return try path(text, option: option, workingDirectory: workingDirectory)
    }
    guard RequestLimits.isIconName(text) else {
      throw .invalidValue(option: option, value: text, reason: "an image file or an icon name")
    }
    return text
  }

  /// Reads a file path, made absolute against `workingDirectory`.
  static func path(_ text: String, option: String, workingDirectory: String) throws(UsageError) -> String {
    guard !text.isEmpty else { throw .invalidValue(option: option, value: text, reason: "a file path") }
    if text.hasPrefix("/") { return text }
    return workingDirectory.hasSuffix("/") ? workingDirectory + text : workingDirectory + "/" + text
  }

  /// Reads a decimal integer no less than `minimum`.
  static func integer(_ text: String, option: String, minimum: Int = 0) throws(UsageError) -> Int {
    guard let value = Int(text), value >= minimum else {
      throw .invalidValue(option: option, value: text, reason: "an integer of at least \(minimum)")
    }
    return value
  }

  /// Reads a notice id: a positive integer, optionally written as `#12` as `list` prints it.
  static func noticeID(_ text: String, option: String) throws(UsageError) -> Int {
    let digits = text.hasPrefix("#") ? String(text.dropFirst()) : text
    guard let id = Int(digits), id > 0 else {
      throw .invalidValue(option: option, value: text, reason: "a notice id (a positive integer)")
    }
    return id
  }

  /// Reads one of the cases of an enumeration spelled as in the interface (`easeInOut`).
  static func choice<Choice: RawRepresentable & CaseIterable>(
    _ text: String, option: String, _ type: Choice.Type
  ) throws(UsageError) -> Choice where Choice.RawValue == String {
    guard let choice = Choice(rawValue: text) else {
      let names = Choice.allCases.map(\.rawValue).joined(separator: ", ")
      throw .invalidValue(option: option, value: text, reason: "one of \(names)")
    }
    return choice
  }

  /// Reads an action written `KEY=LABEL`, or just `KEY` to use the key as its label.
  static func action(_ text: String, option: String) throws(UsageError) -> Action {
    let key: Substring
    let label: Substring
    if let equals = text.firstIndex(of: "=") {
      key = text[..<equals]
      label = text[text.index(after: equals)...]
    } else {
      key = text[...]
      label = key
    }
    guard !key.isEmpty, !label.isEmpty else {
      throw .invalidValue(option: option, value: text, reason: "an action (KEY=LABEL)")
    }
    return Action(key: String(key), label: String(label))
  }

  /// Reads a point in time: a duration with a unit (`2h`, `30m`) means that long ago; a bare
  /// number is seconds since the Unix epoch.
  static func timeReference(_ text: String, option: String) throws(UsageError) -> TimeReference {
    if let epoch = Double(text), epoch.isFinite, epoch >= 0 {
      return .epoch(epoch)
    }
    guard let seconds = DurationParser.seconds(text) else {
      throw .invalidValue(
        option: option, value: text, reason: "a time (a duration ago like 2h, or seconds since the epoch)")
    }
    return .ago(seconds)
  }

  /// `--relay`'s servers: one URL, or several comma-separated (a cluster).
  static func relayURLs(_ text: String, option: String) throws(UsageError) -> [String] {
    let urls: [String]
    do {
      urls = try RelayStream.servers(text)
    } catch {
      throw .invalidValue(option: option, value: error.field, reason: "a nats:// or tls:// URL")
    }
    guard !urls.isEmpty else {
      throw .invalidValue(option: option, value: text, reason: "a nats:// or tls:// URL")
    }
    return urls
  }

  /// Reads a JSON object, as `call` takes for its parameters.
  static func jsonObject(_ text: String, option: String) throws(UsageError) -> JSONValue {
    let value: JSONValue
    do {
      value = try JSONText.parse(text)
    } catch {
      throw .invalidValue(option: option, value: text, reason: "valid JSON")
    }
    guard value.objectValue != nil else {
      throw .invalidValue(option: option, value: text, reason: "a JSON object")
    }
    return value
  }
}
