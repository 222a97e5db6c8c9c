extension JSONFormat: SpliceableFormat {
  func parseRecordingSpans(_ bytes: [UInt8], path: String, options: ParseOptions) throws(StrataError)
    -> (document: Document, spans: MemberSpans?)
  {
    let result = try JSONParser.parseDocument(
      bytes, path: path, maxDepth: options.maxDepth,
      spanRecorder: JSONSpanRecorder(nestedThreshold: nestedSpanThreshold))
    // parseDocument rejects anything but an object at the top, so the value is always present.
    let root = result.value ?? .emptyTable(origin: .file(path: path, line: 1, column: 1))
    return (Document(path: path, root: root, diagnostics: result.diagnostics), result.memberSpans)
  }

  func parseMember(
    _ bytes: [UInt8], at start: Int, line: Int, lineStart: Int, depth: Int, path: String,
    options: ParseOptions
  ) throws(StrataError) -> ParsedMember {
    // A top-level member's own members are recorded as a full parse records them (for a large object);
    // none deeper.
    let member = try JSONParser.parseMember(
      bytes, at: start, line: line, lineStart: lineStart, path: path,
      maxDepth: max(options.maxDepth - depth, 0),
      spanRecorder: depth == 1 ? JSONSpanRecorder(nestedThreshold: .max) : nil)
    let isLarge = member.end - member.start >= nestedSpanThreshold
    let nested = isLarge && member.memberSpans?.ranges.isEmpty == false ? member.memberSpans : nil
    return ParsedMember(
      value: member.value, range: member.start..<member.end, diagnostics: member.diagnostics, nested: nested)
  }

  static func isFiller(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: ","), UInt8(ascii: "}"): true
    default: false
    }
  }
}
