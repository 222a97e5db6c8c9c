/// One `KEY=value` assignment of a dotenv file: what it says and where each part is, for the tree
/// builder (origins, duplicates) and the in-place editor (which bytes to replace or remove).
struct DotEnvEntry: Sendable {
  /// The name as written (`DB__POOL_SIZE`), without `export`.
  var key: String
  /// The names the key maps to (`["db", "pool_size"]`); see ``DotEnvKeys``.
  var names: [String]
  /// The value, quotes removed and escapes decoded.
  var value: String
  /// Where the key starts (1-based line, byte column).
  var keyLine: Int
  var keyColumn: Int
  /// Where the value starts: its opening quote, its first byte, or just after `=` for an empty value.
  var valueLine: Int
  var valueColumn: Int
  /// The bytes of the value as written, quotes included (an inline comment is not part of it).
  var valueRange: Range<Int>
  /// The bytes of the whole assignment: from the start of its first line to after its last line break.
  var lines: Range<Int>
}
