/// The columns of a table as a statement lists them: a column's place in the list is its case's
/// (`rawValue`), and its SQL name is the case's name in snake case (`fadeIn` → `fade_in`,
/// `messageID` → `message_id`). Statements bind and read a column by its case, so a column's
/// place is written once, in the enumeration.
protocol TableColumn: CaseIterable, RawRepresentable where RawValue == Int32 {}

extension TableColumn {
  /// The column's name in SQL.
  var name: String {
    var name = ""
    var previous: Character?
    for character in String(describing: self) {
      if character.isUppercase, let previous, previous.isLowercase { name.append("_") }
      name.append(Character(character.lowercased()))
      previous = character
    }
    return name
  }

  /// Every column, in order, as `SELECT` and `INSERT` list them.
  static var list: String { allCases.map(\.name).joined(separator: ", ") }

  /// The column's parameter in a statement that binds every column in order: `?1` for the first.
  var parameter: Int32 { rawValue + 1 }

  /// Every column's parameter, in order, as `INSERT … VALUES` lists them: `?1, ?2, …`.
  static var parameters: String { allCases.map { "?\($0.parameter)" }.joined(separator: ", ") }
}

extension SQLiteDatabase.Statement {
  func bind<Column: TableColumn>(_ column: Column, _ value: Int?) { bind(column.parameter, value) }
  func bind<Column: TableColumn>(_ column: Column, _ value: Double?) { bind(column.parameter, value) }
  func bind<Column: TableColumn>(_ column: Column, _ value: String?) { bind(column.parameter, value) }

  func integer<Column: TableColumn>(_ column: Column) -> Int { integer(column.rawValue) }
  func optionalInteger<Column: TableColumn>(_ column: Column) -> Int? { optionalInteger(column.rawValue) }
  func real<Column: TableColumn>(_ column: Column) -> Double { real(column.rawValue) }
  func optionalReal<Column: TableColumn>(_ column: Column) -> Double? { optionalReal(column.rawValue) }
  func text<Column: TableColumn>(_ column: Column) -> String? { text(column.rawValue) }
}
