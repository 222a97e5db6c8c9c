import StrataPlatform

/// Parses the bytes of one INI file into a session's tree, line by line, at the byte level.
///
/// Only keys and values become `String`s (one per token, straight from the buffer when nothing needs
/// unescaping); everything else is positions into the buffer.
struct INIFileParser {
  let bytes: UnsafeBufferPointer<UInt8>
  /// The file: its path, and its bytes, which values are slices of.
  let source: SourceText
  /// The file's path (stored apart from `source`, so that passing it on costs no retain).
  let path: String
  let session: INIParseSession
  /// The current line (1-based) and the offset where it starts; a column is `offset - lineStart + 1`.
  var line = 0
  var lineStart = 0
  /// The current section and its path. An included file starts at the top level (the catalog's INIDialect article).
  var section: INITable
  var sectionPath: [String] = []
  /// Reused for each key, so a line allocates no array.
  var parts: [INIPathPart] = []
  /// The one-part keys read so far, so that a name repeated in every section is made once.
  var keys = KeyInterner()

  /// Parses one file's bytes into the session's tree. The parser, which holds a pointer into them,
  /// lives only inside this call (its initializer is private).
  static func run(_ bytes: UnsafeBufferPointer<UInt8>, source: SourceText, session: INIParseSession)
    throws(StrataError)
  {
    var parser = INIFileParser(bytes: bytes, source: source, session: session)
    try parser.run()
  }

  private init(bytes: UnsafeBufferPointer<UInt8>, source: SourceText, session: INIParseSession) {
    self.bytes = bytes
    self.source = source
    self.path = source.path
    self.session = session
    self.section = session.tree.root
  }

  func error(_ code: StrataError.Code, _ message: String, at offset: Int) -> StrataError {
    StrataError(code, message, path: path, line: line, column: offset - lineStart + 1)
  }

  func origin(at offset: Int) -> Origin {
    .file(path: path, line: line, column: offset - lineStart + 1)
  }

  /// The end of the line starting at `start` (the offset of its `\n`, or the end of the buffer) and the end
  /// of its content (before a `\r\n`'s `\r`).
  func lineBounds(from start: Int) -> (lineEnd: Int, contentEnd: Int) {
    let count = bytes.count
    var lineEnd = count
    if start < count, let found = memchr(bytes.baseAddress! + start, Int32(INIByte.newline), count - start) {
      lineEnd = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - bytes.baseAddress!
    }
    var contentEnd = lineEnd
    if contentEnd > start && bytes[contentEnd - 1] == INIByte.carriageReturn { contentEnd -= 1 }
    return (lineEnd, contentEnd)
  }

  @inline(__always) func skipSpaces(_ i: Int, _ end: Int) -> Int {
    var i = i
    while i < end && INIByte.isSpace(bytes[i]) { i += 1 }
    return i
  }

  @inline(__always) func trimEnd(_ start: Int, _ end: Int) -> Int {
    var end = end
    while end > start && INIByte.isSpace(bytes[end - 1]) { end -= 1 }
    return end
  }

  func string(_ start: Int, _ end: Int) -> String {
    String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
  }

  /// Parses the whole buffer.
  mutating func run() throws(StrataError) {
    var pos = 0
    if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { pos = 3 }
    if let bad = INIUTF8.firstInvalidOffset(bytes) {
      let (badLine, badColumn) = INIUTF8.position(of: bad, in: bytes, start: pos)
      throw StrataError(
        .invalidUTF8, "invalid UTF-8 (byte 0x\(String(bytes[bad], radix: 16, uppercase: true)))", path: path,
        line: badLine, column: badColumn)
    }
    // A NUL byte is valid UTF-8 but never text (`/proc/self/environ` named as a file is all NULs).
    if !bytes.isEmpty, let found = memchr(bytes.baseAddress!, 0, bytes.count) {
      let offset = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - bytes.baseAddress!
      let (nulLine, nulColumn) = INIUTF8.position(of: offset, in: bytes, start: pos)
      throw StrataError(
        .syntax, "a NUL byte (\\0): this is not a text file", path: path, line: nulLine, column: nulColumn)
    }
    let count = bytes.count
    while pos < count {
      line += 1
      lineStart = pos
      let (lineEnd, contentEnd) = lineBounds(from: pos)
      let i = skipSpaces(pos, contentEnd)
      var next = lineEnd + 1
      if i < contentEnd {
        switch bytes[i] {
        case INIByte.hash, INIByte.semicolon: break
        case INIByte.openBracket: try parseHeader(i, contentEnd)
        case INIByte.exclamation: next = try parseDirective(i, contentEnd, lineEnd)
        default: next = try parseKeyLine(i, contentEnd, lineEnd)
        }
      }
      pos = next
    }
  }

  // MARK: Section headers

  /// `[a.b "c"]`: dotted parts, optionally git's whitespace-separated quoted subsection.
  mutating func parseHeader(_ open: Int, _ end: Int) throws(StrataError) {
    parts.removeAll(keepingCapacity: true)
    var p = skipSpaces(open + 1, end)
    while true {
      guard p < end else {
        throw error(.syntax, "expected ']' to close the section header", at: end)
      }
      let byte = bytes[p]
      if byte == INIByte.doubleQuote {
        let partLine = line
        let column = p - lineStart + 1
        var q = p
        let name = try parseQuotedName(&q, end)
        parts.append(INIPathPart(name: name, line: partLine, column: column))
        p = skipSpaces(q, end)
        guard p < end else { throw error(.syntax, "expected ']' to close the section header", at: end) }
        switch bytes[p] {
        case INIByte.closeBracket: break
        case INIByte.dot: p = skipSpaces(p + 1, end)
        case INIByte.doubleQuote: break
        default:
          throw error(
            .syntax, "expected '.' or ']' after a quoted name, found \(INIByte.describe(bytes[p]))", at: p)
        }
        if p < end && bytes[p] == INIByte.closeBracket { break }
        continue
      }
      if byte == INIByte.closeBracket || byte == INIByte.dot {
        throw error(
          .syntax, parts.isEmpty ? "expected a section name" : "expected a section name after '.'", at: p)
      }
      var q = p
      while q < end {
        let c = bytes[q]
        if c == INIByte.dot || c == INIByte.closeBracket || c == INIByte.doubleQuote { break }
        if c == INIByte.openBracket {
          throw error(.syntax, "unexpected '[' in a section name; expected ']'", at: q)
        }
        q += 1
      }
      let nameEnd = trimEnd(p, q)
      parts.append(INIPathPart(name: string(p, nameEnd), line: line, column: p - lineStart + 1))
      guard q < end else { throw error(.syntax, "expected ']' to close the section header", at: end) }
      if bytes[q] == INIByte.closeBracket {
        p = q
        break
      }
      if bytes[q] == INIByte.doubleQuote {
        // git's `[remote "origin"]`: the quoted subsection must be set off by whitespace.
        guard nameEnd < q else {
          throw error(.syntax, "expected a space before the quoted subsection name", at: q)
        }
        p = q
        continue
      }
      p = skipSpaces(q + 1, end)
    }
    let after = skipSpaces(p + 1, end)
    if after < end && !INIByte.isCommentStart(bytes[after]) {
      throw error(
        .syntax, "expected the end of the line after ']', found \(INIByte.describe(bytes[after]))", at: after)
    }
    let headerOrigin = origin(at: open)
    session.tree.sectionCapacity = min(max(section.count, 16), 256)
    section = try session.tree.table(
      at: parts[...], below: session.tree.root, prefix: [], origin: headerOrigin, file: path)
    sectionPath = parts.map(\.name)
  }

  // MARK: Keys

  /// `key = value`, `key: value`, `a.b = v`, `"quoted.key" = v`, `key[] = v`, or a bare flag.
  /// - Returns: where the next line starts (a value may continue over several lines).
  mutating func parseKeyLine(_ start: Int, _ end: Int, _ lineEnd: Int) throws(StrataError) -> Int {
    // Find the delimiter: the first '=' or ':' outside a quoted key part, unless a comment comes first.
    var p = start
    var atPartStart = true
    var isPlain = true  // no dots, no quotes: a one-part key
    var delimiter = -1
    var stop = end
    scan: while p < end {
      let c = bytes[p]
      if !INIByte.isKeyLineSpecial(c) {
        // A run of plain name bytes: skipped without the switch below.
        p += 1
        while p < end && !INIByte.isKeyLineSpecial(bytes[p]) { p += 1 }
        atPartStart = false
        continue
      }
      switch c {
      case INIByte.equals, INIByte.colon:
        delimiter = p
        break scan
      case INIByte.doubleQuote where atPartStart:
        isPlain = false
        do {
          p = try skipQuotedName(p, end)
        } catch {
          // A quote that never closes on a line with no `=` or `:` is part of a flag's name, taken
          // literally (systemd's tmpfiles lines); before a delimiter it is a broken quoted key.
          let rest = UnsafeBufferPointer(rebasing: bytes[p..<end])
          guard rest.contains(INIByte.equals) || rest.contains(INIByte.colon) else { break scan }
          throw error
        }
        atPartStart = false
        continue
      case INIByte.dot:
        isPlain = false
        atPartStart = true
      case INIByte.hash, INIByte.semicolon:
        if INIByte.isSpace(bytes[p - 1]) {
          stop = p
          break scan
        }
        atPartStart = false
      case INIByte.space, INIByte.tab: break
      default: atPartStart = false
      }
      p += 1
    }
    if delimiter < 0 {
      // A name alone (MySQL's `quick`) is a flag, taken literally: no dots, quotes or `[]`.
      let nameEnd = trimEnd(start, stop)
      let value = SettingValue(.string("true"), origin: origin(at: start))
      parts.removeAll(keepingCapacity: true)
      parts.append(INIPathPart(name: string(start, nameEnd), line: line, column: start - lineStart + 1))
      try session.tree.set(value, at: parts, in: section, prefix: sectionPath, append: false, file: path)
      return lineEnd + 1
    }
    let keyEnd = trimEnd(start, delimiter)
    if keyEnd == start {
      throw error(.syntax, "expected a key before \(INIByte.describe(bytes[delimiter]))", at: delimiter)
    }
    if isPlain && !(keyEnd - start >= 2 && bytes[keyEnd - 1] == INIByte.closeBracket) {
      let keyBytes = UnsafeBufferPointer(rebasing: bytes[start..<keyEnd])
      let hash = INITable.keyHash(keyBytes)
      let key = keys.key(keyBytes, hash: hash)
      let (keyLine, keyColumn) = (line, start - lineStart + 1)  // a value may move on to later lines
      let (value, valueLine, valueColumn, next) = try parseValue(
        from: delimiter + 1, end, lineEnd, keyIndent: start - lineStart)
      try session.tree.set(
        settingValue(value, line: valueLine, column: valueColumn), key: key, hash: hash, line: keyLine,
        column: keyColumn, in: section, prefix: sectionPath, file: path)
      return next
    }
    let isArray = try parseKeyParts(start, keyEnd)
    let (value, valueLine, valueColumn, next) = try parseValue(
      from: delimiter + 1, end, lineEnd, keyIndent: start - lineStart)
    try session.tree.set(
      settingValue(value, line: valueLine, column: valueColumn), at: parts, in: section, prefix: sectionPath,
      append: isArray, file: path)
    return next
  }

  /// Splits `[start, end)` (trimmed, non-empty) into `parts`.
  /// - Returns: whether the key ends in `[]`.
  mutating func parseKeyParts(_ start: Int, _ end: Int) throws(StrataError) -> Bool {
    parts.removeAll(keepingCapacity: true)
    var p = start
    while true {
      p = skipSpaces(p, end)
      guard p < end else { throw error(.syntax, "expected a key name after '.'", at: p) }
      if bytes[p] == INIByte.doubleQuote {
        let column = p - lineStart + 1
        let name = try parseQuotedName(&p, end)
        parts.append(INIPathPart(name: name, line: line, column: column))
        p = skipSpaces(p, end)
        if p == end { return false }
        if bytes[p] == INIByte.dot {
          p += 1
          continue
        }
        if p + 2 == end && bytes[p] == INIByte.openBracket && bytes[p + 1] == INIByte.closeBracket {
          return true
        }
        throw error(
          .syntax, "expected '.' or '=' after a quoted key, found \(INIByte.describe(bytes[p]))", at: p)
      }
      var q = p
      while q < end && bytes[q] != INIByte.dot { q += 1 }
      if q == p { throw error(.syntax, "expected a key name before '.'", at: p) }
      var nameEnd = trimEnd(p, q)
      var isArray = false
      if q == end && nameEnd - p >= 2 && bytes[nameEnd - 2] == INIByte.openBracket
        && bytes[nameEnd - 1] == INIByte.closeBracket
      {
        isArray = true
        nameEnd = trimEnd(p, nameEnd - 2)
        if nameEnd == p { throw error(.syntax, "expected a key name before '[]'", at: p) }
      }
      parts.append(INIPathPart(name: string(p, nameEnd), line: line, column: p - lineStart + 1))
      if q == end { return isArray }
      p = q + 1
    }
  }
}
