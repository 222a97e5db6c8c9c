/// A reload's parse of an edited file that parses again only the member the edit falls in.
///
/// The bytes before the edit and after it are those of the file as last parsed, so everything outside
/// the edited member parses to what it did, with the same origins, when the edit keeps the number of
/// lines and nothing after the member shares its last line: the new document is the old one with that
/// member's value replaced. The member is a member of the top-level table, or of one of its large member
/// tables when their members' spans were recorded (``MemberSpans/nested``). It must parse alone to a
/// value ending exactly where the old bytes resume, with nothing to report. Anything else (an edit
/// across members, in a key, adding a line, a warning, an error) returns `nil`, and the caller parses
/// the whole file, which then also reports what there is to report, where it is.
enum DocumentSplice {
  /// The document and spans of `newBytes`, made from the `old` document of `oldBytes` and its spans, or
  /// `nil` when the edit is not one this can take.
  static func splice<Format: SpliceableFormat>(
    _ old: Document, spans: MemberSpans, oldBytes: [UInt8], newBytes: [UInt8], format: Format,
    options: ParseOptions
  ) -> (document: Document, spans: MemberSpans)? {
    guard spans.format == Format.name, old.diagnostics.isEmpty, old.includedFiles.isEmpty,
      let table = old.root.table
    else { return nil }
    let (prefix, suffix) = ByteComparison.commonEnds(oldBytes, newBytes)
    let edit = Edit(
      oldBytes: oldBytes, newBytes: newBytes, region: prefix..<(oldBytes.count - suffix),
      delta: newBytes.count - oldBytes.count, path: old.path, options: options)
    guard
      ByteComparison.lineFeeds(in: oldBytes, edit.region)
        == ByteComparison.lineFeeds(in: newBytes, prefix..<(newBytes.count - suffix)),
      let (newTable, newSpans) = edit.splice(table, spans: spans, depth: 1, format: format)
    else { return nil }
    var document = old
    document.root = SettingValue(.table(newTable), origin: old.root.origin)
    return (document, newSpans)
  }

  /// One edit: the bytes before and after, and where they differ.
  private struct Edit {
    let oldBytes: [UInt8]
    let newBytes: [UInt8]
    /// The replaced bytes, as offsets into `oldBytes`.
    let region: Range<Int>
    /// How much longer the file became.
    let delta: Int
    let path: String
    let options: ParseOptions

    /// `table` (the table at `depth`, whose members lie at `spans`) with the member holding the edit
    /// parsed again, and the spans after the edit; `nil` when the edit is not inside one member or the
    /// member does not parse alone cleanly.
    func splice<Format: SpliceableFormat>(
      _ table: SettingTable, spans: MemberSpans, depth: Int, format: Format
    ) -> (SettingTable, MemberSpans)? {
      guard table.count == spans.ranges.count,
        let index = spans.member(holding: region.lowerBound, region.upperBound)
      else { return nil }
      var table = table
      let old = table.storage[index].value
      if let inner = spans.nested[index] {
        // A large member table: the edit must fall in one of its members.
        guard let oldInner = old.table,
          let (newInner, newSpans) = splice(oldInner, spans: inner, depth: depth + 1, format: format)
        else { return nil }
        table.replaceValue(atPosition: index, with: SettingValue(.table(newInner), origin: old.origin))
        let range = spans.ranges[index]
        return (
          table,
          spans.resized(index, to: range.lowerBound..<(range.upperBound + delta), by: delta, nested: newSpans)
        )
      }
      let span = spans.ranges[index]
      // What follows the member on its line moves by the edit's length: it must carry no position.
      var after = span.upperBound
      while after < oldBytes.count, oldBytes[after] != 0x0A {
        guard Format.isFiller(oldBytes[after]) else { return nil }
        after += 1
      }
      guard case .file(_, let line, let column) = old.origin, line > 0,
        let member = try? format.parseMember(
          newBytes, at: span.lowerBound, line: line, lineStart: span.lowerBound - (column - 1), depth: depth,
          path: path, options: options),
        member.range.upperBound == span.upperBound + delta, member.diagnostics.isEmpty,
        let value = member.value
      else { return nil }
      table.replaceValue(atPosition: index, with: value)
      // Blanks put in front of the value move its start.
      return (table, spans.resized(index, to: member.range, by: delta, nested: member.nested))
    }
  }
}
