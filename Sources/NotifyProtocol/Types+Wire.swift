// The daemon's replies and events written straight to JSON (`JSONWriter`): their shapes are fixed,
// so no general-purpose encoder is needed. Absent optionals are left out, as `JSONEncoder` leaves
// them out, so that clients decoding with Codable read the same values.

/// A value the daemon writes without a general-purpose encoder.
public protocol WireEncodable {
  /// Writes the value at the writer's position.
  func write(to writer: inout JSONWriter)
}

extension Action: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("key", key)
    writer.key("label", label)
    writer.endObject()
  }
}

extension Notice: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("id", id)
    writer.key("kind", kind)
    writer.key("title", title)
    writer.key("body", body)
    writer.key("app", app)
    writer.key("urgency", urgency)
    writer.key("style", style)
    writer.key("icon", icon)
    if let hints {
      writer.key("hints")
      hints.write(to: &writer)
    }
    writer.key("tag", tag)
    writer.key("key", key)
    writer.key("value", value)
    writer.key("delay", delay)
    writer.key("fadeIn", fadeIn)
    writer.key("hold", hold)
    writer.key("fadeOut", fadeOut)
    writer.key("easeIn", easeIn)
    writer.key("easeOut", easeOut)
    writer.key("timeout", timeout)
    writer.key("after", after)
    if let actions {
      writer.key("actions")
      writer.write(actions)
    }
    writer.key("invoked", invoked)
    writer.key("count", count)
    writer.key("foldedInto", foldedInto)
    if let origin {
      writer.key("origin")
      origin.write(to: &writer)
    }
    writer.key("phase", phase)
    writer.key("opacity", opacity)
    writer.key("outcome", outcome)
    writer.key("message", message)
    writer.key("created", created)
    writer.key("shown", shown)
    writer.key("finished", finished)
    writer.endObject()
  }
}

extension Hints: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("category", category)
    writer.key("desktopEntry", desktopEntry)
    writer.key("transient", transient)
    writer.key("resident", resident)
    writer.key("soundFile", soundFile)
    writer.key("soundName", soundName)
    writer.key("silent", silent)
    writer.endObject()
  }
}

extension Event: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writeMembers(to: &writer)
    if let notices {
      writer.key("notices")
      writer.write(notices)
    }
    writer.endObject()
  }

  /// Every member but `notices`, which a long snapshot streams after them.
  public func writeMembers(to writer: inout JSONWriter) {
    writer.key("kind", kind)
    writer.key("at", at)
    writer.key("id", id)
    if let notice {
      writer.key("notice")
      notice.write(to: &writer)
    }
    writer.key("phase", phase)
    writer.key("opacity", opacity)
    writer.key("suspended", suspended)
    if let doNotDisturb {
      writer.key("doNotDisturb")
      doNotDisturb.write(to: &writer)
    }
    writer.key("activationToken", activationToken)
  }
}

extension DoNotDisturb: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("reason", reason)
    writer.key("allow", allow)
    writer.key("until", until)
    writer.endObject()
  }
}

extension IdleState: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("idle", idle)
    writer.key("source", source)
    writer.key("reason", reason)
    writer.endObject()
  }
}

extension DisplayState: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("backend", backend)
    writer.key("drawing", drawing)
    writer.key("detail", detail)
    writer.endObject()
  }
}

extension NoticeOrigin: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("host", host)
    writer.key("store", store)
    writer.key("id", id)
    writer.key("sent", sent)
    writer.endObject()
  }
}

extension RelayState: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("state", state)
    writer.key("detail", detail)
    writer.key("outbox", outbox)
    writer.key("dropped", dropped)
    writer.endObject()
  }
}

extension JSONWriter {
  /// An array of values.
  public mutating func write(_ values: [some WireEncodable]) {
    beginArray()
    for value in values { value.write(to: &self) }
    endArray()
  }
}

extension ShowReply: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("id", id)
    writer.endObject()
  }
}

extension ProgressReply: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("id", id)
    writer.key("existing", existing)
    writer.endObject()
  }
}

extension NoticeReply: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("notice")
    notice.write(to: &writer)
    writer.endObject()
  }
}

extension CancelReply: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("cancelled")
    writer.beginArray()
    for id in cancelled { writer.integer(id) }
    writer.endArray()
    writer.endObject()
  }
}

extension DismissReply: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("dismissed")
    writer.beginArray()
    for id in dismissed { writer.integer(id) }
    writer.endArray()
    writer.endObject()
  }
}

extension SuspendReply: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("suspended", suspended)
    writer.endObject()
  }
}

extension StatusReply: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("version", version)
    writer.key("suspended", suspended)
    writer.key("suspendedUntil", suspendedUntil)
    if let doNotDisturb {
      writer.key("doNotDisturb")
      doNotDisturb.write(to: &writer)
    }
    writer.key("resumedUntil", resumedUntil)
    if let idle {
      writer.key("idle")
      idle.write(to: &writer)
    }
    if let display {
      writer.key("display")
      display.write(to: &writer)
    }
    if let relay {
      writer.key("relay")
      relay.write(to: &writer)
    }
    writer.key("waiting", waiting)
    writer.key("queued", queued)
    writer.key("visible", visible)
    writer.key("finished", finished)
    writer.endObject()
  }
}

extension EventReply: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("event")
    event.write(to: &writer)
    writer.endObject()
  }
}

extension NoParameters: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.endObject()
  }
}

extension ServiceInfo: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("vendor", vendor)
    writer.key("product", product)
    writer.key("version", version)
    writer.key("url", url)
    writer.key("interfaces")
    writer.beginArray()
    for interface in interfaces { writer.string(interface) }
    writer.endArray()
    writer.endObject()
  }
}

extension InterfaceDescriptionReply: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("description", description)
    writer.endObject()
  }
}

extension JSONValue: WireEncodable {
  public func write(to writer: inout JSONWriter) {
    switch self {
    case .null: writer.null()
    case .bool(let value): writer.bool(value)
    case .number(let value): writer.number(value)
    case .string(let value): writer.string(value)
    case .array(let values):
      writer.beginArray()
      for value in values { value.write(to: &writer) }
      writer.endArray()
    case .object(let members):
      writer.beginObject()
      for name in members.keys.sorted() {
        writer.dynamicKey(name)
        members[name]!.write(to: &writer)
      }
      writer.endObject()
    }
  }
}

/// One whole Varlink message, framed: the envelope of a reply around its parameters, and the NUL.
public enum VarlinkReplyFrame {
  /// `{"parameters":…}\0`, with `"continues":true` when the call goes on.
  public static func encode(_ parameters: some WireEncodable, continues: Bool = false) -> [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("parameters")
    parameters.write(to: &writer)
    if continues {
      writer.key("continues")
      writer.bool(true)
    }
    writer.endObject()
    writer.bytes.append(0)
    return writer.bytes
  }

  /// An error reply, framed: `{"error":NAME,"parameters":{…}}\0`.
  public static func encode(_ error: VarlinkError) -> [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("error", error.name)
    writer.key("parameters")
    JSONValue.object(error.parameters).write(to: &writer)
    writer.endObject()
    writer.bytes.append(0)
    return writer.bytes
  }
}
