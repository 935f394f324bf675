/// What a connection still has to write to its client, in order: whole replies as bytes, and long
/// replies as streams encoded a piece at a time while the client reads.
///
/// `unsentBytes` counts only bytes already encoded — the queued replies and at most
/// `encodeAhead` (plus one piece) of a stream — so a slow-reader limit on it judges the client's
/// reading, not a reply's length.
struct OutputQueue {
  /// How far ahead of the client a stream is encoded.
  static let encodeAhead = 256 << 10

  private enum Segment {
    case bytes([UInt8])
    case stream(any ReplyStream)
  }

  /// Encoded bytes to write next; `buffer[sent...]` is unsent.
  private var buffer: [UInt8] = []
  private var sent = 0
  /// What follows `buffer`, oldest first; `later[laterStart...]` is still queued.
  private var later: [Segment] = []
  private var laterStart = 0
  /// The stream being encoded into `buffer`, when one is.
  private var current: (any ReplyStream)?

  /// Encoded bytes not yet written.
  private(set) var unsentBytes = 0
  /// Long replies not yet encoded to their end.
  private(set) var openStreams = 0

  /// Whether nothing is left to write.
  var isEmpty: Bool { sent == buffer.count && current == nil && laterStart == later.count }

  mutating func append(_ bytes: [UInt8]) {
    unsentBytes += bytes.count
    if current == nil && laterStart == later.count {
      buffer.append(contentsOf: bytes)
    } else {
      later.append(.bytes(bytes))
    }
  }

  mutating func append(_ stream: any ReplyStream) {
    openStreams += 1
    later.append(.stream(stream))
  }

  /// The next bytes to write (empty only when the queue is), encoding ahead from a stream first.
  mutating func withUnsentBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result
  {
    refill()
    return try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[sent...])) }
  }

  /// Marks `count` bytes from the front as written.
  mutating func consume(_ count: Int) {
    sent += count
    unsentBytes -= count
    if sent == buffer.count {
      // Keep a modest buffer for the next replies; let a long one's memory go.
      buffer.removeAll(keepingCapacity: buffer.capacity <= Self.encodeAhead * 2)
      sent = 0
    }
  }

  /// Drops everything, releasing streams and their snapshots.
  mutating func removeAll() {
    self = OutputQueue()
  }

  /// Tops `buffer` up to `encodeAhead` from the stream in progress and the segments after it.
  private mutating func refill() {
    while buffer.count - sent < Self.encodeAhead {
      if var stream = current {
        current = nil
        if let piece = stream.nextPiece() {
          current = stream
          append(encoded: piece)
        } else {
          openStreams -= 1
        }
        continue
      }
      guard laterStart < later.count else { break }
      let next = later[laterStart]
      later[laterStart] = .bytes([])
      laterStart += 1
      if laterStart == later.count {
        later.removeAll(keepingCapacity: true)
        laterStart = 0
      }
      switch next {
      case .bytes(let bytes):
        // Already counted in `unsentBytes` when it was queued.
        compact()
        buffer.append(contentsOf: bytes)
      case .stream(let stream):
        current = stream
      }
    }
  }

  private mutating func append(encoded piece: [UInt8]) {
    compact()
    unsentBytes += piece.count
    buffer.append(contentsOf: piece)
  }

  /// Drops the written front of `buffer` before it grows, so it never holds more than it must.
  private mutating func compact() {
    guard sent > 0 else { return }
    buffer.removeFirst(sent)
    sent = 0
  }
}
