import NotifyConfig
import NotifyCore
import NotifyProtocol

/// Where each card goes: a pure function of the cards' sizes, the settings and the output's
/// size, shared by every backend.
///
/// Cards stack from the anchor, newest at the anchor end: with a top anchor the newest is at the
/// top and older ones move down; with a bottom anchor the newest is at the bottom. `center`
/// stacks downwards from a top edge chosen so that the whole stack is centred.
public enum PopupLayout {
  /// The output edges a card is held against (a layer surface's anchor).
  public struct Edges: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    // The values of zwlr_layer_surface_v1.anchor.
    public static let top = Edges(rawValue: 1)
    public static let bottom = Edges(rawValue: 2)
    public static let left = Edges(rawValue: 4)
    public static let right = Edges(rawValue: 8)
  }

  /// A card's place: the edges it is held against with the distance from each, and the rectangle
  /// that makes on an output of the given size.
  public struct Placement: Sendable, Equatable {
    public var edges: Edges
    public var top = 0
    public var right = 0
    public var bottom = 0
    public var left = 0
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
  }

  /// A card as the layout sees it: its size in logical pixels and its urgency.
  public typealias Item = (width: Int, height: Int, urgency: Urgency)

  /// The placements of `cards` (newest first) on an output `outputWidth` × `outputHeight` pixels,
  /// each held against the anchor's side (or centred) at its own width, one for each card, `nil`
  /// for those left out. While the stack would leave the output, the least urgent card waits off
  /// screen, the oldest of them first: a critical notice is not pushed away by a stream of normal
  /// ones. The newest card always shows.
  public static func place(
    _ cards: [Item], settings: DisplaySettings, outputWidth: Int, outputHeight: Int
  ) -> [Placement?] {
    let margin = settings.margin
    let anchor = settings.anchor
    let stackHeight = { (kept: [Int]) in
      kept.reduce(0) { $0 + cards[$1].height } + settings.gap * max(kept.count - 1, 0)
    }
    var kept = Array(cards.indices)
    while kept.count > 1 && stackHeight(kept) + 2 * margin > outputHeight {
      // The least urgent, and of those the oldest (the last): never the newest, kept.first.
      let waiting = kept.dropFirst().min { (cards[$0].urgency, -$0) < (cards[$1].urgency, -$1) }!
      kept.removeAll { $0 == waiting }
    }
    // The side each card holds to, and its left edge for a width.
    let (horizontal, left): (Edges, (Int) -> Int)
    switch anchor {
    case .topLeft, .bottomLeft: (horizontal, left) = (.left, { _ in margin })
    case .topRight, .bottomRight: (horizontal, left) = (.right, { outputWidth - margin - $0 })
    case .topCenter, .bottomCenter, .center: (horizontal, left) = ([], { (outputWidth - $0) / 2 })
    }
    let total = stackHeight(kept)
    var offset = anchor == .center ? max((outputHeight - total) / 2, margin) : margin
    var placements: [Placement?] = Array(repeating: nil, count: cards.count)
    for index in kept {
      let (width, height, _) = cards[index]
      var placement = Placement(edges: horizontal, x: left(width), y: 0, width: width, height: height)
      if horizontal.contains(.left) { placement.left = margin }
      if horizontal.contains(.right) { placement.right = margin }
      if anchor.stacksDown {
        placement.edges.insert(.top)
        placement.top = offset
        placement.y = offset
      } else {
        placement.edges.insert(.bottom)
        placement.bottom = offset
        placement.y = outputHeight - offset - height
      }
      placements[index] = placement
      offset += height + settings.gap
    }
    return placements
  }
}
