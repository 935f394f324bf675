import NotifyConfig
import NotifyCore
import NotifyProtocol

// A person's input on the cards: the pointer, clicks, the reply field.
extension DisplayMachine {
  /// What the point (`x`, `y`) of surface `key` is on.
  func target(on key: SurfaceKey, x: Double, y: Double) -> (state: SurfaceState, target: CardTarget)? {
    guard let state = surfaces[key] else { return nil }
    let geometry = measure.geometry(of: state.shown.card, height: state.shown.height)
    return (state, geometry.target(x: x, y: y))
  }

  /// The pointer is at (`x`, `y`) of `key`: the button under it is lit and, with `HoverHolds=`, the
  /// notice's hold stands still while it stays. A move that changes neither the card nor the part
  /// of it changes nothing.
  mutating func pointerMoved(_ key: SurfaceKey, x: Double, y: Double) {
    guard !centerOpen, let (_, target) = target(on: key, x: x, y: y) else { return }
    let entered = pointer?.key.id != key.id
    guard entered || pointer?.key != key || pointer?.target != target else { return }
    pointer = (key, target)
    if entered && settings.hoverHolds { actions.append(.request(.pointer(over: key.id))) }
    needsSettle = true
  }

  /// The pointer left the cards: the hold of the card it was over goes on.
  mutating func pointerLeft() {
    guard pointer != nil else { return }
    pointer = nil
    if settings.hoverHolds { actions.append(.request(.pointer(over: nil))) }
    needsSettle = true
  }

  /// `button` pressed at (`x`, `y`) of `key`: what it asks (`CardPress`), by that button's binding
  /// for its notice.
  mutating func press(_ button: PopupButton, on key: SurfaceKey, x: Double, y: Double) {
    guard !centerOpen, let (state, target) = target(on: key, x: x, y: y) else { return }
    let press = CardPress(button, on: target, of: state.shown.card, binding: binding(of: button, for: key.id))
    switch press {
    case .invoke(let action): actions.append(.request(.invoke(id: key.id, action: action, from: key)))
    case .dismiss: actions.append(.request(.dismiss(key.id)))
    case .dismissAll: actions.append(.request(.dismissAll))
    case .menu: actions.append(.request(.menu(key.id)))
    case .snooze:
      guard let time = settings.snooze.first else { return }
      actions.append(.request(.snooze(key.id, until: time)))
    case .focusField:
      guard editing?.id != key.id else { return }
      editing = (key.id, "")
      actions.append(.request(.typing(in: key.id)))
      actions.append(.keyboard(key))
      needsSettle = true
    case .nothing: break
    }
  }

  /// A key while a reply field has the keyboard: text is typed (up to
  /// `RequestLimits.maximumReplyLength` bytes), Backspace takes the last character back, Enter
  /// sends what is typed (`Reply`), Escape gives up.
  mutating func keyPressed(_ key: KeyInput) {
    guard !centerOpen, var editing else { return }
    switch key {
    case .text(let text):
      guard (editing.text + text).utf8.count <= RequestLimits.maximumReplyLength else { return }
      editing.text += text
    case .backspace:
      guard !editing.text.isEmpty else { return }
      editing.text.removeLast()
    case .escape:
      stopEditing(tellBackend: true)
      return
    case .enter:
      guard !editing.text.isEmpty else { return }
      stopEditing(tellBackend: true)
      actions.append(.request(.reply(id: editing.id, text: editing.text)))
      return
    case .up, .down, .pageUp, .pageDown, .home, .end, .delete:
      return
    }
    self.editing = editing
    needsSettle = true
  }

  /// The reply field gives the keyboard back; nothing is sent.
  mutating func stopEditing(tellBackend: Bool) {
    editing = nil
    actions.append(.request(.typing(in: nil)))
    if tellBackend && traits != nil { actions.append(.keyboard(nil)) }
    needsSettle = true
  }
}
