/// Where the statements of a TOML file lie, for edits in place: the sections (the top, then one per
/// `[header]` or `[[header]]`, in file order) and the byte span of each `key = value` statement's value.
struct TOMLLayout {
  struct Section {
    /// The header's keys (`[]` for the top of the file).
    var keys: [String]
    var isArrayElement: Bool
    /// Just past the section's last line (its header's, or its last statement's, line break included).
    var end: Int
  }

  /// The top of the file first, then each header's section.
  var sections = [Section(keys: [], isArrayElement: false, end: 0)]
  /// The value of each `key = value` statement: its first byte → just past its last.
  var statementValues: [Int: Int] = [:]
}
