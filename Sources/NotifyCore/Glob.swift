/// A shell-style glob (`*`, `?`, `[abc]`, `[a-z]`, `[!x]`, `\\` escapes) matched against whole strings.
public struct Glob: Sendable, Equatable, CustomStringConvertible {
  private enum Token: Sendable, Equatable {
    case literal(Character)
    case any
    case anyRun
    case set(ranges: [ClosedRange<Character>], negated: Bool)
  }

  /// The pattern as written.
  public let pattern: String
  private let tokens: [Token]

  /// Compiles `pattern`, or returns `nil` if a bracket is never closed or the pattern ends in `\\`.
  public init?(_ pattern: String) {
    self.pattern = pattern
    var tokens: [Token] = []
    var characters = Array(pattern)[...]
    while let character = characters.popFirst() {
      switch character {
      case "*": tokens.append(.anyRun)
      case "?": tokens.append(.any)
      case "\\":
        guard let escaped = characters.popFirst() else { return nil }
        tokens.append(.literal(escaped))
      case "[":
        var negated = false
        if characters.first == "!" || characters.first == "^" {
          negated = true
          characters.removeFirst()
        }
        var ranges: [ClosedRange<Character>] = []
        var first = true
        var closed = false
        while let member = characters.popFirst() {
          if member == "]" && !first {
            closed = true
            break
          }
          first = false
          if characters.count >= 2, characters.first == "-", characters.dropFirst().first != "]" {
            characters.removeFirst()
            let upper = characters.removeFirst()
            guard member <= upper else { return nil }
            ranges.append(member...upper)
          } else {
            ranges.append(member...member)
          }
        }
        guard closed else { return nil }
        tokens.append(.set(ranges: ranges, negated: negated))
      default:
        tokens.append(.literal(character))
      }
    }
    self.tokens = tokens
  }

  public var description: String { pattern }

  /// Whether `text` matches the whole pattern.
  public func matches(_ text: String) -> Bool {
    let characters = Array(text)
    // Iterative matching with one backtrack point for the last `*`, as fnmatch does.
    var t = 0
    var c = 0
    var starToken: Int?
    var starCharacter = 0
    while c < characters.count {
      if t < tokens.count {
        switch tokens[t] {
        case .anyRun:
          starToken = t
          starCharacter = c
          t += 1
          continue
        case .any:
          t += 1
          c += 1
          continue
        case .literal(let expected) where expected == characters[c]:
          t += 1
          c += 1
          continue
        case .set(let ranges, let negated) where ranges.contains { $0.contains(characters[c]) } != negated:
          t += 1
          c += 1
          continue
        default:
          break
        }
      }
      guard let star = starToken else { return false }
      t = star + 1
      starCharacter += 1
      c = starCharacter
    }
    while t < tokens.count, tokens[t] == .anyRun { t += 1 }
    return t == tokens.count
  }
}
