/// Changes one key of an INI file in place: only the lines of that key change; comments, blank lines,
/// order and every other value stay byte for byte.
///
/// - Setting an existing key replaces just its value (the key's spelling, the spacing around `=`, and an
///   inline comment stay); when the key is set several times, the last (effective) one is edited. A value
///   continued over several lines is replaced whole, on one line. An array (`key[] = …` lines) is
///   replaced by new `key[]` lines at the place of the first.
/// - A missing key is added at the end of its section (`[a.b]` or `[a "b"]` for `a.b.c`), or under the
///   nearest enclosing section as a dotted key, or in a new section appended at the end. Keys that only
///   an `!include`d file sets are added to this file, where they win.
/// - Removing deletes every line that sets the key in this file. A table value is applied leaf by leaf.
/// - A file that does not parse is never edited: its parse error is thrown.
extension INIFormat: EditableFormat {
  /// Sets or removes one key, changing only its lines (see above).
  func edit(
    _ bytes: [UInt8], setting value: SettingValue?, at key: String, path: String, options: ParseOptions
  )
    throws(StrataError) -> [UInt8]
  {
    var editor = INIEditor(bytes: bytes, path: path, options: options)
    try editor.apply(value, at: key)
    return editor.bytes
  }
}

struct INIEditor {
  var bytes: [UInt8]
  let path: String
  let options: ParseOptions
  /// `\r\n` when the file uses it, so added lines match.
  let newline: [UInt8]

  init(bytes: [UInt8], path: String, options: ParseOptions) {
    self.bytes = bytes
    self.path = path
    self.options = options
    newline = bytes.firstRange(of: [13, 10]) != nil ? [13, 10] : [10]
  }

  mutating func apply(_ value: SettingValue?, at key: String) throws(StrataError) {
    let current = try parse()
    if case .table(let table)? = value?.kind {
      try applyLeafByLeaf(table, at: key, current: current.value(at: key)) {
        (value, key) throws(StrataError) in
        try apply(value, at: key)
      }
      return
    }
    if case .array(let items)? = value?.kind, items.contains(where: { $0.isTable || $0.typeName == "array" })
    {
      throw StrataError(
        .typeMismatch, "INI cannot represent an array of tables or arrays at \(key)", path: path)
    }
    guard let value else {
      // Remove every occurrence: each pass deletes the effective one, until none is left in this file.
      var root = current
      while let node = root.value(at: key), node.origin.path == path, !node.isTable {
        deleteLines(of: node)
        root = try parse()
      }
      return
    }
    if let node = current.value(at: key), node.origin.path == path, !node.isTable {
      try replace(node, with: value, key: key)
    } else {
      try insert(value, at: key)
    }
  }

  private func parse() throws(StrataError) -> SettingValue {
    if bytes.isEmpty { return .emptyTable(origin: .file(path: path, line: 0, column: 0)) }
    return try INIFormat().parse(bytes, path: path, options: options).root
  }

  // MARK: Lines

  /// The byte offset where each line starts (line 1 at index 0).
  private var lineStarts: [Int] {
    var starts = [0]
    for (index, byte) in bytes.enumerated() where byte == 10 { starts.append(index + 1) }
    return starts
  }

  /// The byte range of line `number` (1-based), without its line break.
  private func lineRange(_ number: Int, _ starts: [Int]) -> Range<Int> {
    let start = starts[number - 1]
    var end = number < starts.count ? starts[number] - 1 : bytes.count
    if end > start && bytes[end - 1] == 13 { end -= 1 }
    return start..<end
  }

  /// The lines of an existing scalar or array node: its own line (and continuation lines), or for an
  /// array the line of each element.
  private func lines(of node: SettingValue) -> [Int] {
    if case .array(let items) = node.kind, !items.isEmpty {
      return items.compactMap { item in
        if case .file(_, let line, _) = item.origin { return line }
        return nil
      }
    }
    guard case .file(_, let line, let column) = node.origin, line > 0 else { return [] }
    var result = [line]
    let starts = lineStarts
    // A value continued with a trailing backslash owns the following lines too (the parser's rule: when
    // the next line reads as the rest of the value).
    while result.last! < starts.count, endsWithContinuation(lineRange(result.last!, starts)),
      continuesAValue(lineRange(result.last! + 1, starts))
    {
      result.append(result.last! + 1)
    }
    // An unquoted value also owns the lines indented deeper than its key (configparser's rule), with
    // the blank and comment lines between them.
    let firstRange = lineRange(line, starts)
    let valueStart = firstRange.lowerBound + column - 1
    let quoted = valueStart < firstRange.upperBound && [34, 39].contains(bytes[valueStart])
    guard !quoted else { return result }
    let keyIndent = indentation(of: firstRange)
    var candidate = result.last! + 1
    while candidate <= starts.count {
      let range = lineRange(candidate, starts)
      let indent = indentation(of: range)
      if indent == range.count || isComment(range) {
        candidate += 1
        continue
      }
      guard indent > keyIndent else { break }
      result += Array((result.last! + 1)...candidate)
      candidate += 1
    }
    return result
  }

  private func endsWithContinuation(_ range: Range<Int>) -> Bool {
    var end = range.upperBound
    while end > range.lowerBound && (bytes[end - 1] == 32 || bytes[end - 1] == 9) { end -= 1 }
    return end > range.lowerBound && bytes[end - 1] == UInt8(ascii: "\\")
  }

  /// The number of blanks a line starts with.
  private func indentation(of range: Range<Int>) -> Int {
    var index = range.lowerBound
    while index < range.upperBound && (bytes[index] == 32 || bytes[index] == 9) { index += 1 }
    return index - range.lowerBound
  }

  private func isComment(_ range: Range<Int>) -> Bool {
    let start = range.lowerBound + indentation(of: range)
    return start < range.upperBound
      && (bytes[start] == UInt8(ascii: "#") || bytes[start] == UInt8(ascii: ";"))
  }

  /// Whether a line reads as the rest of a value cut by a trailing `\\` (the parser's rule).
  private func continuesAValue(_ range: Range<Int>) -> Bool {
    let indent = indentation(of: range)
    guard indent < range.count else { return false }
    if indent > 0 { return true }
    let first = bytes[range.lowerBound]
    if [UInt8(ascii: "#"), UInt8(ascii: ";"), UInt8(ascii: "["), UInt8(ascii: "!")].contains(first) {
      return false
    }
    return !bytes[range].contains { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: ":") }
  }

  private mutating func deleteLines(of node: SettingValue) {
    let starts = lineStarts
    for line in lines(of: node).sorted(by: >) {
      let start = starts[line - 1]
      let end = line < starts.count ? starts[line] : bytes.count
      bytes.removeSubrange(start..<end)
    }
  }

  // MARK: Replacing

  private mutating func replace(_ node: SettingValue, with value: SettingValue, key: String)
    throws(StrataError)
  {
    let starts = lineStarts
    let owned = lines(of: node)
    guard let first = owned.first else { return try insert(value, at: key) }
    let firstRange = lineRange(first, starts)
    let isArray: Bool
    if case .array = node.kind { isArray = true } else { isArray = false }
    if isArray || value.kind.isArray {
      // Arrays are whole lines: rewrite them as `name[] = v` (or `name = v`) at the first one's place.
      let name = keySpelling(in: firstRange, fallback: key)
      let replacement = lines(name: name, value: value)
      let start = starts[first - 1]
      let lastLine = owned.max()!
      let end = lastLine < starts.count ? starts[lastLine] : bytes.count
      bytes.replaceSubrange(start..<end, with: replacement)
      return
    }
    guard case .file(_, _, let column) = node.origin else { return }
    // The parser counts line 1's columns after a byte-order mark.
    let bom = first == 1 && bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    let valueStart = firstRange.lowerBound + bom + column - 1
    let lastRange = lineRange(owned.last!, starts)
    let valueEnd = owned.count > 1 ? lastRange.upperBound : endOfValue(from: valueStart, in: firstRange)
    var replacement = INISerializer.encodedValue(INISerializer.text(of: value))
    // `deps =` with the value on the lines below: keep the usual space after the delimiter.
    if valueStart == firstRange.upperBound, valueStart > firstRange.lowerBound,
      [UInt8(ascii: "="), UInt8(ascii: ":")].contains(bytes[valueStart - 1])
    {
      replacement.insert(32, at: 0)
    }
    bytes.replaceSubrange(valueStart..<valueEnd, with: replacement)
  }

  /// Where a value that starts at `start` ends: after its closing quote, or before an inline comment
  /// and trailing blanks.
  private func endOfValue(from start: Int, in line: Range<Int>) -> Int {
    guard start < line.upperBound else { return start }
    let quote = bytes[start]
    if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
      var index = start + 1
      while index < line.upperBound {
        if quote == UInt8(ascii: "\"") && bytes[index] == UInt8(ascii: "\\") {
          index += 2
          continue
        }
        if bytes[index] == quote { return index + 1 }
        index += 1
      }
      return line.upperBound
    }
    var end = line.upperBound
    var index = start
    while index < line.upperBound {
      let byte = bytes[index]
      if (byte == UInt8(ascii: "#") || byte == UInt8(ascii: ";")) && index > start
        && (bytes[index - 1] == 32 || bytes[index - 1] == 9)
      {
        end = index
        break
      }
      index += 1
    }
    while end > start && (bytes[end - 1] == 32 || bytes[end - 1] == 9) { end -= 1 }
    return end
  }

  /// The key as written at the start of a line (`allowed_origins` of `allowed_origins[] = …`).
  private func keySpelling(in line: Range<Int>, fallback: String) -> [UInt8] {
    var start = line.lowerBound
    while start < line.upperBound && (bytes[start] == 32 || bytes[start] == 9) { start += 1 }
    var end = start
    while end < line.upperBound
      && ![UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "[")].contains(bytes[end])
    {
      end += 1
    }
    while end > start && (bytes[end - 1] == 32 || bytes[end - 1] == 9) { end -= 1 }
    if end > start { return Array(bytes[start..<end]) }
    return INISerializer.encodedName(SettingKey.lastName(of: fallback))
  }

  /// `name = v` for a scalar, or one `name[] = v` line per element.
  private func lines(name: [UInt8], value: SettingValue) -> [UInt8] {
    var output: [UInt8] = []
    if case .array(let items) = value.kind {
      for item in items {
        output +=
          name + Array("[] = ".utf8) + INISerializer.encodedValue(INISerializer.text(of: item)) + newline
      }
    } else {
      output += name + Array(" = ".utf8) + INISerializer.encodedValue(INISerializer.text(of: value)) + newline
    }
    return output
  }
}

extension INIEditor {
  /// A section header: its line and its name's components (`[a.b]` and `[a "b"]` are both `a`, `b`).
  struct Header {
    var line: Int
    var components: [String]
  }

  /// The section headers, in order.
  private var headers: [Header] {
    let starts = lineStarts
    var result: [Header] = []
    for line in 1...starts.count {
      let range = lineRange(line, starts)
      var text = String(decoding: bytes[range], as: UTF8.self)
      if line == 1 && text.hasPrefix("\u{FEFF}") { text.removeFirst() }
      let trimmed = text.drop { $0 == " " || $0 == "\t" }
      guard trimmed.hasPrefix("["), let close = trimmed.lastIndex(of: "]") else { continue }
      let inner = trimmed[trimmed.index(after: trimmed.startIndex)..<close]
      var components: [String] = []
      if let quote = inner.firstIndex(of: "\"") {
        components = inner[..<quote].split(separator: ".").map { $0.trimmingSpaces }
        var sub = String(inner[inner.index(after: quote)...])
        if sub.hasSuffix("\"") { sub.removeLast() }
        components.append(sub.replacing("\\\"", with: "\"").replacing("\\\\", with: "\\"))
      } else {
        components = inner.split(separator: ".", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
      }
      result.append(Header(line: line, components: components))
    }
    return result
  }

  /// Adds `key = value` where it belongs: the last section named by the longest prefix of the key,
  /// else a new section at the end (or the top, for a key without a section).
  mutating func insert(_ value: SettingValue, at key: String) throws(StrataError) {
    let components = SettingKey.names(in: key)
    let headers = self.headers
    let starts = lineStarts
    for split in stride(from: components.count - 1, through: 0, by: -1) {
      let section = Array(components[..<split])
      let rest = components[split...].map { INISerializer.encodedName($0) }.joinedWithDots
      if split == 0 {
        // A key without a section goes before the first header; one that has a section but found none
        // gets a new section.
        guard components.count == 1 else { break }
        // After the last top-level key, else just before the first section (below any leading comment).
        let end = headers.first?.line ?? (starts.count + 1)
        insertLines(
          lines(name: rest, value: value), after: lastKeyLine(in: 1..<end, starts), orAt: end, starts)
        return
      }
      guard let header = headers.last(where: { $0.components == section }) else { continue }
      let next = headers.first { $0.line > header.line }?.line ?? (starts.count + 1)
      insertLines(
        lines(name: rest, value: value), after: lastKeyLine(in: (header.line + 1)..<next, starts),
        orAt: header.line + 1, starts)
      return
    }
    // No section for it: a new one at the end.
    if !bytes.isEmpty && bytes.last != 10 { bytes += newline }
    if !bytes.isEmpty { bytes += newline }
    let section = components.dropLast().map { INISerializer.encodedName($0) }.joinedWithDots
    bytes += [UInt8(ascii: "[")] + section + [UInt8(ascii: "]")] + newline
    bytes += lines(name: INISerializer.encodedName(components.last!), value: value)
  }

  /// The last line in `range` that holds a key (not blank, not a comment).
  private func lastKeyLine(in range: Range<Int>, _ starts: [Int]) -> Int? {
    range.reversed().first { line in
      guard line <= starts.count else { return false }
      let text = bytes[lineRange(line, starts)].drop { $0 == 32 || $0 == 9 }
      guard let first = text.first else { return false }
      return first != UInt8(ascii: "#") && first != UInt8(ascii: ";")
    }
  }

  /// Inserts whole lines after line `after`, or before line `orAt` when there is none.
  private mutating func insertLines(_ lines: [UInt8], after: Int?, orAt line: Int, _ starts: [Int]) {
    var offset: Int
    if let after {
      offset = after < starts.count ? starts[after] : bytes.count
      if offset == bytes.count && !bytes.isEmpty && bytes.last != 10 {
        bytes += newline
        offset = bytes.count
      }
    } else {
      offset = line <= starts.count ? starts[line - 1] : bytes.count
    }
    if offset == bytes.count && !bytes.isEmpty && bytes.last != 10 {
      bytes += newline
      offset = bytes.count
    }
    // Never in front of a byte-order mark.
    if offset == 0 && bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
    bytes.insert(contentsOf: lines, at: offset)
  }
}

extension [[UInt8]] {
  /// The parts joined with `.`.
  fileprivate var joinedWithDots: [UInt8] {
    var result: [UInt8] = []
    for (index, part) in enumerated() {
      if index > 0 { result.append(UInt8(ascii: ".")) }
      result += part
    }
    return result
  }
}

extension Substring {
  fileprivate var trimmingSpaces: String {
    String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
  }
}

extension SettingValue.Kind {
  fileprivate var isArray: Bool {
    if case .array = self { return true }
    return false
  }
}
