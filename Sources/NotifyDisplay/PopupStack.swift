import NotifyConfig
import NotifyCore
import NotifyProtocol

/// The visible notices and what they show, as the engine's events tell them: newest first.
public struct PopupStack: Sendable {
  /// The card a notice shows (its look resolved).
  private let card: @Sendable (Notice) -> Card
  /// Every unfinished notice the engine told of.
  public private(set) var cards: [Int: Card] = [:]
  public private(set) var phases: [Int: Phase] = [:]
  /// Visible notices (fading in, holding, fading out), newest first.
  public private(set) var visible: [Int] = []

  /// A stack whose notices show as `card` makes them (default: in their urgency's built-in look).
  public init(card: @escaping @Sendable (Notice) -> Card = { Card($0) }) { self.card = card }

  /// Applies `event`; answers whether anything changed, and the notice whose phase changed.
  mutating func apply(_ event: Event) -> (changed: Bool, phaseOf: Int?) {
    switch event.kind {
    case .snapshot:
      cards.removeAll()
      phases.removeAll()
      visible.removeAll()
      let notices = (event.notices ?? []).sorted { ($0.shown ?? 0, $0.id) > ($1.shown ?? 0, $1.id) }
      for notice in notices {
        cards[notice.id] = card(notice)
        phases[notice.id] = notice.phase
        if notice.phase.isVisible { visible.append(notice.id) }
      }
      return (true, nil)
    case .added, .updated:
      guard let notice = event.notice else { return (false, nil) }
      cards[notice.id] = card(notice)
      setPhase(notice.phase, of: notice.id)
      return (true, notice.id)
    case .phase:
      guard let id = event.id, let phase = event.phase else { return (false, nil) }
      setPhase(phase, of: id)
      return (true, id)
    case .finished:
      guard let id = event.id ?? event.notice?.id else { return (false, nil) }
      cards[id] = nil
      phases[id] = nil
      visible.removeAll { $0 == id }
      return (true, nil)
    case .frame, .invoked, .replied, .suspended, .resumed, .read, .forgotten:
      return (false, nil)
    }
  }

  /// The visible cards each output shows (newest first), for `outputs` by name in their order, and
  /// `nil` for "where the focus is" when `focused` names none of them (the compositor's choice).
  /// A card goes where its look's `Output=` says: the focused output; every output (`all`); the
  /// output of its name, else the focused one.
  public func byOutput(_ outputs: [String], focused: String?) -> [(output: String?, ids: [Int])] {
    let focused = focused.flatMap { outputs.contains($0) ? $0 : nil }
    var groups: [String?: [Int]] = [:]
    for id in visible {
      guard let card = cards[id] else { continue }
      let targets: [String?]
      switch card.look.output {
      case .focused: targets = [focused]
      case .all: targets = outputs.isEmpty ? [focused] : outputs
      case .named(let name): targets = outputs.contains(name) ? [name] : [focused]
      }
      for target in targets { groups[target, default: []].append(id) }
    }
    return (outputs.map { Optional($0) } + [nil]).compactMap { key in groups[key].map { (key, $0) } }
  }

  private mutating func setPhase(_ phase: Phase, of id: Int) {
    phases[id] = phase
    if phase.isVisible {
      if !visible.contains(id) { visible.insert(id, at: 0) }
    } else {
      visible.removeAll { $0 == id }
    }
  }
}
