extension StringProtocol {
  /// The text without spaces and tabs at either end: a value as an INI file or a list in one
  /// variable writes it (`[Relay] URL=a, b`).
  public var trimmingSpaces: String {
    var slice = Substring(self)
    while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
    while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
    return String(slice)
  }
}
