/// A format that can parse one member of a file's top-level table again, alone, after an edit inside
/// it (see ``DocumentSplice``).
protocol SpliceableFormat: ConfigFormat {
  /// Parses a file as ``ConfigFormat/parse(_:path:options:)`` does, and says where the members of its
  /// top-level table lie (`nil` when they do not map one to one onto the table's entries).
  func parseRecordingSpans(_ bytes: [UInt8], path: String, options: ParseOptions) throws(StrataError)
    -> (document: Document, spans: MemberSpans?)

  /// Parses the member value that starts at `start` (after optional blanks), on line `line`, which
  /// begins at offset `lineStart`, inside `depth` tables.
  func parseMember(
    _ bytes: [UInt8], at start: Int, line: Int, lineStart: Int, depth: Int, path: String,
    options: ParseOptions
  ) throws(StrataError) -> ParsedMember

  /// Whether a byte may follow a member on its line without starting anything that has a position of
  /// its own (in JSON: blanks, `,` and the closing `}`).
  static func isFiller(_ byte: UInt8) -> Bool
}

/// A member value parsed alone.
struct ParsedMember {
  /// The value (`nil` when the format reads it as unset).
  var value: SettingValue?
  /// Where it lies: from its first byte (after the blanks before it) to just past its last.
  var range: Range<Int>
  /// The warnings found.
  var diagnostics: [Diagnostic]
  /// Where its own members lie, when a full parse would record them (a large table at the top level).
  var nested: MemberSpans?
}
