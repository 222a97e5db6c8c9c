/// A reload's parse of an edited file that parses again only the top-level member the edit falls in.
///
/// The bytes before the edit and after it are those of the file as last parsed, so everything outside
/// the edited member parses to what it did, with the same origins, when the edit keeps the number of
/// lines and nothing after the member shares its last line: the new document is the old one with that
/// member's value replaced. The member must parse alone to a value ending exactly where the old bytes
/// resume, with nothing to report. Anything else (an edit across members, in a key, adding a line, a
/// warning, an error) returns `nil`, and the caller parses the whole file, which then also reports what
/// there is to report, where it is.
enum DocumentSplice {
  /// The document and spans of `newBytes`, made from the `old` document of `oldBytes` and its spans, or
  /// `nil` when the edit is not one this can take.
  static func splice<Format: SpliceableFormat>(
    _ old: Document, spans: MemberSpans, oldBytes: [UInt8], newBytes: [UInt8], format: Format,
    options: ParseOptions
  ) -> (document: Document, spans: MemberSpans)? {
    guard spans.format == Format.name, old.diagnostics.isEmpty, old.includedFiles.isEmpty,
      var table = old.root.table,
      table.count == spans.ranges.count
    else { return nil }
    let (prefix, suffix) = ByteComparison.commonEnds(oldBytes, newBytes)
    let oldEnd = oldBytes.count - suffix
    let newEnd = newBytes.count - suffix
    guard let index = spans.member(holding: prefix, oldEnd),
      ByteComparison.lineFeeds(in: oldBytes, prefix..<oldEnd)
        == ByteComparison.lineFeeds(in: newBytes, prefix..<newEnd)
    else { return nil }
    let span = spans.ranges[index]
    // What follows the member on its line moves by the edit's length: it must carry no position.
    var after = span.upperBound
    while after < oldBytes.count, oldBytes[after] != 0x0A {
      guard Format.isFiller(oldBytes[after]) else { return nil }
      after += 1
    }
    guard case .file(_, let line, let column) = table.storage[index].value.origin, line > 0 else {
      return nil
    }
    let delta = newBytes.count - oldBytes.count
    guard
      let member = try? format.parseMember(
        newBytes, at: span.lowerBound, line: line, lineStart: span.lowerBound - (column - 1),
        path: old.path, options: options),
      member.end == span.upperBound + delta, member.diagnostics.isEmpty, let value = member.value
    else { return nil }
    table.replaceValue(atPosition: index, with: value)
    var document = old
    document.root = SettingValue(.table(table), origin: old.root.origin)
    return (document, spans.resized(index, by: delta))
  }
}
