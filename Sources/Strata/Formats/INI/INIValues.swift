/// Values: unquoted (with inline comments and `\` line continuation), double-quoted (escapes) and
/// single-quoted (literal); and the quoted names used in keys and section headers.
extension INIFileParser {
  /// A value's text: bytes of the file as they stand, or a string made from several pieces (quotes,
  /// escapes, continuation lines).
  enum ValueText {
    case bytes(start: Int, end: Int)
    case string(String)
  }

  /// Parses a value starting at `start` (just after the delimiter) on the current line.
  /// - Returns: the text, the line and column it starts at, and where the next line starts. (The caller
  ///   makes the origin: an `Origin` made here and moved out would be copied and destroyed on the way,
  ///   a retain and a release of the path for every value.)
  /// - Parameter keyIndent: the indentation of the key's line; lines indented deeper continue an
  ///   unquoted value, as Python's configparser reads them (`nil`: no such continuation, for directives).
  mutating func parseValue(from start: Int, _ end: Int, _ lineEnd: Int, keyIndent: Int? = nil)
    throws(StrataError) -> (text: ValueText, line: Int, column: Int, next: Int)
  {
    let i = skipSpaces(start, end)
    let (valueLine, valueColumn) = (line, i - lineStart + 1)
    if i < end && bytes[i] == INIByte.doubleQuote {
      let (text, next) = try parseDoubleQuoted(i, end, lineEnd)
      return (.string(text), valueLine, valueColumn, next)
    }
    if i < end && bytes[i] == INIByte.singleQuote {
      var close = i + 1
      while close < end && bytes[close] != INIByte.singleQuote { close += 1 }
      if close == end {
        throw error(
          .syntax, "expected \"'\" to close the value opened at column \(i - lineStart + 1)", at: end)
      }
      try expectLineEnd(after: close + 1, end)
      return (.bytes(start: i + 1, end: close), valueLine, valueColumn, lineEnd + 1)
    }
    var (text, next) = parseUnquoted(i, end, lineEnd)
    // Nearly every value is one line: the array of lines is made only once a second one shows up.
    if let keyIndent, var continued = continuationLine(from: next, deeperThan: keyIndent) {
      var lines = [self.string(text)]
      while true {
        lines += Array(repeating: "", count: continued.blankLinesBefore)
        let (more, after) = parseUnquoted(continued.start, continued.end, continued.lineEnd)
        lines.append(self.string(more))
        next = after
        guard let following = continuationLine(from: next, deeperThan: keyIndent) else { break }
        continued = following
      }
      text = .string(lines.joined(separator: "\n"))
    }
    return (text, valueLine, valueColumn, next)
  }

  /// The value's text as a `String`.
  func string(_ text: ValueText) -> String {
    switch text {
    case .bytes(let start, let end): string(start, end)
    case .string(let string): string
    }
  }

  /// The value read at `line`:`column`: a slice of the file's bytes when it is written as it reads.
  func settingValue(_ text: ValueText, line: Int, column: Int) -> SettingValue {
    switch text {
    case .bytes(let start, let end):
      SettingValue(text: source, start: start, end: end, line: line, column: column)
    case .string(let string):
      SettingValue(.string(string), origin: .file(path: path, line: line, column: column))
    }
  }

  /// The next line that continues a value by its indentation (deeper than `keyIndent`), skipping blank
  /// lines (counted: they stay in the value when more follows) and comment lines (left out, as
  /// configparser does). On success the parser's line counter is on that line.
  private mutating func continuationLine(from position: Int, deeperThan keyIndent: Int) -> (
    start: Int, end: Int, lineEnd: Int, blankLinesBefore: Int
  )? {
    var position = position
    var skipped = 0
    var blanks = 0
    while position < bytes.count {
      // A line that starts with text (the next key, a section) is not indented: the value ends here,
      // without looking for the end of that line.
      let lead = bytes[position]
      if !INIByte.isSpace(lead) && lead != INIByte.newline && lead != INIByte.carriageReturn
        && !INIByte.isCommentStart(lead)
      {
        return nil
      }
      let (nextLineEnd, contentEnd) = lineBounds(from: position)
      let first = skipSpaces(position, contentEnd)
      if first == contentEnd {
        blanks += 1
      } else if !INIByte.isCommentStart(bytes[first]) {
        guard first - position > keyIndent else { return nil }
        line += skipped + 1
        lineStart = position
        return (first, contentEnd, nextLineEnd, blanks)
      }
      skipped += 1
      position = nextLineEnd + 1
    }
    return nil
  }

  /// An unquoted value: up to an inline comment (`#` or `;` after whitespace), trimmed; a `\` as the
  /// last non-blank character joins the next line (its leading whitespace dropped) when that line looks
  /// like the rest of the value; before a line that starts something else (a key, a section, a comment,
  /// a blank line, the end of the file), the `\` is kept as text, with a warning.
  private mutating func parseUnquoted(_ start: Int, _ end: Int, _ lineEnd: Int) -> (ValueText, Int) {
    var segmentStart = start
    var end = end
    var lineEnd = lineEnd
    var joined: [UInt8]? = nil
    while true {
      var stop = end
      var hasComment = false
      var j = INIByte.firstCommentCandidate(in: bytes, from: segmentStart, to: end)
      while j < end {
        if j == lineStart || INIByte.isSpace(bytes[j - 1]) {
          stop = j
          hasComment = true
          break
        }
        j = INIByte.firstCommentCandidate(in: bytes, from: j + 1, to: end)
      }
      let trimmed = trimEnd(segmentStart, stop)
      if !hasComment && trimmed > segmentStart && bytes[trimmed - 1] == INIByte.backslash {
        if lineContinuesAValue(lineEnd + 1) {
          if joined == nil { joined = [] }
          joined!.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segmentStart..<(trimmed - 1)]))
          line += 1
          lineStart = lineEnd + 1
          (lineEnd, end) = lineBounds(from: lineStart)
          segmentStart = skipSpaces(lineStart, end)
          continue
        }
        session.tree.diagnostics.append(
          Diagnostic(
            .warning,
            error(
              .syntax,
              "the value ends with '\\', but the next line does not continue it; the '\\' is kept as text "
                + "(indent the next line to continue the value, or quote the value to silence this)",
              at: trimmed - 1)))
      }
      guard var joined else { return (.bytes(start: segmentStart, end: trimmed), lineEnd + 1) }
      joined.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segmentStart..<trimmed]))
      while let last = joined.last, INIByte.isSpace(last) { joined.removeLast() }
      return (.string(String(decoding: joined, as: UTF8.self)), lineEnd + 1)
    }
  }

  /// Whether the line at `position` reads as the rest of a value cut by a trailing `\`: it is indented,
  /// or it is text that is not a key (no `=` or `:`), a section, a directive or a comment.
  private func lineContinuesAValue(_ position: Int) -> Bool {
    guard position < bytes.count else { return false }
    let (_, contentEnd) = lineBounds(from: position)
    let first = skipSpaces(position, contentEnd)
    guard first < contentEnd else { return false }
    if first > position { return true }
    let byte = bytes[first]
    if INIByte.isCommentStart(byte) || byte == INIByte.openBracket || byte == INIByte.exclamation {
      return false
    }
    return !UnsafeBufferPointer(rebasing: bytes[first..<contentEnd]).contains {
      $0 == INIByte.equals || $0 == INIByte.colon
    }
  }

  /// A double-quoted value; a `\` at the end of a line inside the quotes continues it on the next line.
  private mutating func parseDoubleQuoted(_ open: Int, _ end: Int, _ lineEnd: Int) throws(StrataError) -> (
    String, Int
  ) {
    let openLine = line
    let openColumn = open - lineStart + 1
    var p = open + 1
    // Fast path: no escapes, closed on this line.
    while p < end && bytes[p] != INIByte.doubleQuote && bytes[p] != INIByte.backslash { p += 1 }
    if p < end && bytes[p] == INIByte.doubleQuote {
      try expectLineEnd(after: p + 1, end)
      return (string(open + 1, p), lineEnd + 1)
    }
    var buffer = Array(UnsafeBufferPointer(rebasing: bytes[(open + 1)..<p]))
    var end = end
    var lineEnd = lineEnd
    while true {
      guard p < end else {
        throw error(
          .syntax, "expected '\"' to close the value opened at line \(openLine), column \(openColumn)",
          at: end)
      }
      let c = bytes[p]
      if c == INIByte.doubleQuote { break }
      if c == INIByte.backslash && p + 1 == end {
        if lineEnd >= bytes.count {
          throw error(.unexpectedEnd, "the file ends after a line continuation '\\' in a quoted value", at: p)
        }
        line += 1
        lineStart = lineEnd + 1
        (lineEnd, end) = lineBounds(from: lineStart)
        p = skipSpaces(lineStart, end)
        continue
      }
      if c == INIByte.backslash {
        try decodeEscape(&p, end, into: &buffer)
        continue
      }
      buffer.append(c)
      p += 1
    }
    try expectLineEnd(after: p + 1, end)
    return (String(decoding: buffer, as: UTF8.self), lineEnd + 1)
  }

  /// After a closing quote: only whitespace, then the end of the line or a comment.
  func expectLineEnd(after start: Int, _ end: Int) throws(StrataError) {
    let p = skipSpaces(start, end)
    if p < end && !INIByte.isCommentStart(bytes[p]) {
      throw error(
        .syntax,
        "expected the end of the line or a comment after the closing quote, found "
          + INIByte.describe(bytes[p]), at: p)
    }
  }

  /// Decodes the escape at `p` (a backslash) into `buffer` and moves `p` past it.
  func decodeEscape(_ p: inout Int, _ end: Int, into buffer: inout [UInt8]) throws(StrataError) {
    let expected = "expected \\\" \\\\ \\n \\t \\r or \\uXXXX"
    guard p + 1 < end else { throw error(.invalidEscape, "a lone '\\' at the end; \(expected)", at: p) }
    switch bytes[p + 1] {
    case INIByte.doubleQuote: buffer.append(INIByte.doubleQuote)
    case INIByte.backslash: buffer.append(INIByte.backslash)
    case UInt8(ascii: "n"): buffer.append(INIByte.newline)
    case UInt8(ascii: "t"): buffer.append(INIByte.tab)
    case UInt8(ascii: "r"): buffer.append(INIByte.carriageReturn)
    case UInt8(ascii: "u"):
      guard var scalar = hex4(p + 2, end) else {
        throw error(.invalidEscape, "expected four hex digits after '\\u'", at: p)
      }
      var length = 6
      if (0xD800...0xDBFF).contains(scalar) {
        // A UTF-16 surrogate pair, as JSON writes characters outside the BMP.
        guard p + 7 < end, bytes[p + 6] == INIByte.backslash, bytes[p + 7] == UInt8(ascii: "u"),
          let low = hex4(p + 8, end), (0xDC00...0xDFFF).contains(low)
        else {
          throw error(.invalidEscape, "a high surrogate '\\u' escape must be followed by a low one", at: p)
        }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        length = 12
      }
      guard let decoded = Unicode.Scalar(scalar) else {
        throw error(.invalidEscape, "'\\u' escape of a lone surrogate", at: p)
      }
      INIByte.appendUTF8(decoded, to: &buffer)
      p += length
      return
    default:
      let shown = bytes[p + 1] < 0x80 ? INIByte.describe(bytes[p + 1]) : "a non-ASCII character"
      throw error(.invalidEscape, "invalid escape: '\\' followed by \(shown); \(expected)", at: p)
    }
    p += 2
  }

  private func hex4(_ start: Int, _ end: Int) -> UInt32? {
    guard start + 4 <= end else { return nil }
    var value: UInt32 = 0
    for k in start..<(start + 4) {
      guard let digit = INIByte.hexValue(bytes[k]) else { return nil }
      value = value << 4 | digit
    }
    return value
  }

  /// A quoted key part or subsection name at `p` (its opening quote); moves `p` past the closing quote.
  func parseQuotedName(_ p: inout Int, _ end: Int) throws(StrataError) -> String {
    let open = p
    var buffer: [UInt8] = []
    p += 1
    while true {
      guard p < end else {
        throw error(
          .syntax, "expected '\"' to close the name opened at column \(open - lineStart + 1)", at: end)
      }
      let c = bytes[p]
      if c == INIByte.doubleQuote { break }
      if c == INIByte.backslash {
        try decodeEscape(&p, end, into: &buffer)
      } else {
        buffer.append(c)
        p += 1
      }
    }
    p += 1
    return String(decoding: buffer, as: UTF8.self)
  }

  /// The offset just past the quoted name at `p`, without decoding it (escapes are checked later).
  func skipQuotedName(_ p: Int, _ end: Int) throws(StrataError) -> Int {
    var q = p + 1
    while q < end {
      if bytes[q] == INIByte.doubleQuote { return q + 1 }
      q += bytes[q] == INIByte.backslash ? 2 : 1
    }
    throw error(.syntax, "expected '\"' to close the name opened at column \(p - lineStart + 1)", at: end)
  }
}
