/// Changes one key of a TOML file in place: only the bytes of that key's value (or the one line added
/// or removed) change; comments, blank lines, order and every other value stay byte for byte.
///
/// - Setting a key written as `key = value` replaces just the value; a comment after it stays.
/// - A missing key is added as the last line of the section of its nearest table written as a
///   `[header]` (as a dotted key when tables between are missing), at the top of the file for a
///   top-level key, or in a new `[section]` at the end of the file.
/// - Removing deletes the line(s) of the `key = value` statement. A table value is applied leaf by leaf.
/// - Where no such edit can express the change (a key inside an inline table or an array, a new array of
///   tables), the whole file is written again from the tree, and its comments are lost.
/// - A file that does not parse is never edited: its parse error is thrown.
extension TOMLFormat: EditableFormat {
  /// Sets or removes one key, changing only its bytes where it can (see above).
  func edit(
    _ bytes: [UInt8], setting value: SettingValue?, at key: String, path: String, options: ParseOptions
  )
    throws(StrataError) -> [UInt8]
  {
    var editor = TOMLEditor(bytes: bytes, path: path, options: options)
    try editor.apply(value, at: key)
    return editor.bytes
  }
}

struct TOMLEditor {
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
    let (root, _) = try parse()
    if case .table(let table)? = value?.kind, !table.isEmpty {
      try applyLeafByLeaf(table, at: key, current: root.value(at: key)) { (value, key) throws(StrataError) in
        try apply(value, at: key)
      }
      return
    }
    let before = bytes
    if try editInPlace(value, at: SettingKey.names(in: key), root: root),
      let (edited, _) = try? parse(), edited.value(at: key) == value
    {
      return
    }
    // The whole file from the tree: the change no single span can make.
    bytes = before
    var tree = root
    if let value { tree.set(value, at: key) } else { tree.remove(at: key) }
    bytes = try TOMLSerializer.serialize(tree)
  }

  /// Makes the change by replacing, adding or removing one span; `false` when it cannot.
  private mutating func editInPlace(_ value: SettingValue?, at names: [String], root: SettingValue)
    throws(StrataError) -> Bool
  {
    let (_, layout) = try parse()
    let node = root.value(atComponents: names)
    if let node, !node.isTable {
      guard let start = offset(of: node.origin), let end = layout.statementValues[start] else { return false }
      guard let value else {
        removeLines(from: start, to: end)
        return true
      }
      guard let text = try inlineText(value) else { return false }
      bytes.replaceSubrange(start..<end, with: text)
      return true
    }
    guard let value, node == nil, let text = try inlineText(value) else { return value == nil && node == nil }
    // The nearest table written as a header (the last such section), else the top of the file.
    for count in stride(from: names.count - 1, through: 0, by: -1) {
      let prefix = Array(names.prefix(count))
      guard let section = layout.sections.lastIndex(where: { $0.keys == prefix && !$0.isArrayElement }) else {
        continue
      }
      if count == 0, names.count > 1 { break }
      let line = Array((TOMLTree.written(names.dropFirst(count)) + " = ").utf8) + text + newline
      insert(line, at: layout.sections[section].end)
      return true
    }
    // A new section at the end of the file.
    var added: [UInt8] = []
    if !bytes.isEmpty {
      if bytes.last != UInt8(ascii: "\n") { added += newline }
      added += newline
    }
    added += Array(("[" + TOMLTree.written(names.dropLast()) + "]").utf8) + newline
    added += Array((TOMLTree.written(names.suffix(1)) + " = ").utf8) + text + newline
    bytes += added
    return true
  }

  /// Inserts a whole line where a section ends, after a line break if the file lacks one there.
  private mutating func insert(_ line: [UInt8], at offset: Int) {
    var text = line
    if offset > 0, bytes[offset - 1] != UInt8(ascii: "\n") { text = newline + text }
    bytes.insert(contentsOf: text, at: offset)
  }

  /// Removes the lines from the one holding `start` to the one holding `end - 1`, line break included.
  private mutating func removeLines(from start: Int, to end: Int) {
    var first = start
    while first > 0, bytes[first - 1] != UInt8(ascii: "\n") { first -= 1 }
    var last = end
    while last < bytes.count, bytes[last] != UInt8(ascii: "\n") { last += 1 }
    if last < bytes.count { last += 1 }
    bytes.removeSubrange(first..<last)
  }

  /// A value as written after `=`; `nil` for what a line cannot hold (an array of tables is written as
  /// `[[headers]]`, through the whole-file path).
  private func inlineText(_ value: SettingValue) throws(StrataError) -> [UInt8]? {
    let wrapped = SettingValue(.table(SettingTable([("v", value)])), origin: value.origin)
    let text = try TOMLSerializer.serialize(wrapped)
    guard text.starts(with: Array("v = ".utf8)), text.last == UInt8(ascii: "\n") else { return nil }
    return Array(text[4..<(text.count - 1)])
  }

  /// The byte offset of a value's origin in this file, or `nil`.
  private func offset(of origin: Origin) -> Int? {
    guard case .file(let file, let line, let column) = origin, file == path, line > 0 else { return nil }
    var lineStart = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    var current = 1
    var index = 0
    while current < line, index < bytes.count {
      if bytes[index] == UInt8(ascii: "\n") {
        current += 1
        lineStart = index + 1
      }
      index += 1
    }
    return current == line ? lineStart + column - 1 : nil
  }

  private func parse() throws(StrataError) -> (SettingValue, TOMLLayout) {
    if bytes.isEmpty { return (.emptyTable(origin: .file(path: path, line: 0, column: 0)), TOMLLayout()) }
    return try TOMLParser.parseWithLayout(bytes, path: path, options: options)
  }
}
