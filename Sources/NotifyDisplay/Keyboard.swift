import CXkbcommon
import Glibc

/// What a key pressed while a card's reply field, or the notification center, has the keyboard
/// does to it.
public enum KeyInput: Equatable, Sendable {
  /// Text typed.
  case text(String)
  /// The last character goes.
  case backspace
  /// The reply is sent.
  case enter
  /// The field gives up the keyboard; nothing is sent.
  case escape
  /// Keys that move through the center's list; a reply field ignores them.
  case up
  case down
  case pageUp
  case pageDown
  case home
  case end
  case delete

  /// What the key whose keysym is `keysym` does: Return, Escape and BackSpace by name, else the
  /// text it types (libxkbcommon's `xkb_keysym_to_utf8`), else nothing (a modifier, an arrow).
  public init?(keysym: UInt32) {
    switch keysym {
    case 0xff0d, 0xff8d: self = .enter  // Return, KP_Enter
    case 0xff1b: self = .escape
    case 0xff08: self = .backspace
    case 0xff52, 0xff97: self = .up  // Up, KP_Up
    case 0xff54, 0xff99: self = .down
    case 0xff55, 0xff9a: self = .pageUp
    case 0xff56, 0xff9b: self = .pageDown
    case 0xff50, 0xff95: self = .home
    case 0xff57, 0xff9c: self = .end
    case 0xffff, 0xff9f: self = .delete
    default:
      var buffer = [CChar](repeating: 0, count: 16)
      let length = xkb_keysym_to_utf8(keysym, &buffer, buffer.count)
      guard length > 1 else { return nil }
      let text = String(decoding: buffer.prefix(Int(length) - 1).map { UInt8(bitPattern: $0) }, as: UTF8.self)
      // Control characters (Tab, Delete) are not typed into a one-line field.
      guard let scalar = text.unicodeScalars.first, scalar.value >= 0x20, scalar.value != 0x7f else {
        return nil
      }
      self = .text(text)
    }
  }
}

/// A Wayland seat's keyboard as the compositor describes it: its keymap and the modifiers in
/// force (libxkbcommon), so that a key code becomes what it types in the layout the person uses.
public final class XkbKeyboard {
  private let context: OpaquePointer
  private let keymap: OpaquePointer
  private let state: OpaquePointer

  /// A keyboard with the keymap `text` (`xkb_v1` format, as `wl_keyboard.keymap` sends it); `nil`
  /// when libxkbcommon cannot read it.
  public init?(keymap text: String) {
    guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else { return nil }
    guard
      let keymap = xkb_keymap_new_from_string(
        context, text, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS)
    else {
      xkb_context_unref(context)
      return nil
    }
    guard let state = xkb_state_new(keymap) else {
      xkb_keymap_unref(keymap)
      xkb_context_unref(context)
      return nil
    }
    self.context = context
    self.keymap = keymap
    self.state = state
  }

  deinit {
    xkb_state_unref(state)
    xkb_keymap_unref(keymap)
    xkb_context_unref(context)
  }

  /// `wl_keyboard.modifiers`: the modifiers and group in force now.
  public func setModifiers(depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) {
    xkb_state_update_mask(state, depressed, latched, locked, 0, 0, group)
  }

  /// What the key with Linux input code `code` does, pressed now.
  public func pressed(_ code: UInt32) -> KeyInput? {
    KeyInput(keysym: xkb_state_key_get_one_sym(state, code + 8))
  }
}
