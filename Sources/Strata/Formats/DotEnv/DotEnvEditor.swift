/// Changes one key of a dotenv file in place: only the assignments of that key change; comments, blank
/// lines, order, `export`, spacing and inline comments stay byte for byte.
///
/// - Setting a key replaces just the value of its last (effective) assignment; a missing key is appended
///   as `NAME=value` (names joined with `.`).
/// - Removing deletes every assignment of the key and of the keys under it.
/// - A table is applied leaf by leaf; keys under it that the new table lacks are removed. Assignments
///   that would conflict (a value where a table goes, or the reverse) are removed.
/// - A file that does not parse is never edited: its parse error is thrown. Arrays are a
///   `typeMismatch`.
extension DotEnvFormat: EditableFormat {
  /// Sets or removes one key, changing only its lines (see above).
  func edit(
    _ bytes: [UInt8], setting value: SettingValue?, at key: String, path: String, options: ParseOptions
  )
    throws(StrataError) -> [UInt8]
  {
    var editor = DotEnvEditor(bytes: bytes, path: path, options: options)
    try editor.apply(value, at: SettingKey.names(in: key))
    return editor.bytes
  }
}

struct DotEnvEditor {
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

  mutating func apply(_ value: SettingValue?, at names: [String]) throws(StrataError) {
    guard let value else {
      try remove { $0.starts(with: names) }
      return
    }
    switch value.kind {
    case .table(let table):
      // The values on the way to the table give way to it.
      try remove { $0.count <= names.count && names.starts(with: $0) }
      var leaves: Set<[String]> = []
      try setLeaves(of: table, at: names, into: &leaves)
      try remove { $0.count > names.count && $0.starts(with: names) && !leaves.contains($0) }
    case .array:
      throw StrataError(.typeMismatch, "a dotenv file cannot hold an array (at \(SettingKey.join(names)))")
    default:
      try set(value, at: names)
    }
  }

  private mutating func setLeaves(
    of table: SettingTable, at names: [String], into leaves: inout Set<[String]>
  )
    throws(StrataError)
  {
    for (name, child) in table {
      let childNames = names + [name]
      if case .table(let nested) = child.kind {
        try setLeaves(of: nested, at: childNames, into: &leaves)
      } else {
        try apply(child, at: childNames)
        leaves.insert(childNames)
      }
    }
  }

  /// Sets a scalar: replaces the value of its last assignment, or appends one.
  private mutating func set(_ value: SettingValue, at names: [String]) throws(StrataError) {
    let key = SettingKey.join(names)
    // Values on the way (`a=1` when setting `a.b`) and keys under it (`a.b=1` when setting `a`) conflict.
    try remove { $0 != names && ($0.starts(with: names) || names.starts(with: $0)) }
    let encoded = try DotEnvSerializer.encodedValue(value, key: key)
    if let last = try entries().last(where: { $0.names == names }) {
      bytes.replaceSubrange(last.valueRange, with: encoded)
      return
    }
    let line = try DotEnvSerializer.line(for: names, value: value)
    if let end = bytes.last, end != UInt8(ascii: "\n") { bytes += newline }
    bytes += line + newline
  }

  /// Deletes the assignments whose names satisfy `matches`, each with its lines, and the earlier ones
  /// that only those overrode: with `a.b=1`, `a=2`, `a.c=3`, removing `a=2` alone would bring `a.b` back.
  private mutating func remove(where matches: ([String]) -> Bool) throws(StrataError) {
    let entries = try entries()
    var removed = entries.map { matches($0.names) }
    guard removed.contains(true) else { return }
    // Last first: whether an assignment goes depends only on the later ones, already decided.
    for index in entries.indices.reversed() where !removed[index] {
      let overriders = entries.indices[(index + 1)...].filter {
        Self.overrides(entries[$0].names, entries[index].names)
      }
      removed[index] = !overriders.isEmpty && overriders.allSatisfy { removed[$0] }
    }
    for index in entries.indices.reversed() where removed[index] {
      bytes.removeSubrange(entries[index].lines)
    }
  }

  /// Whether a later assignment to `later` replaces an earlier one to `earlier`: the same key, a value
  /// where the earlier one's table was, or a table where its value was.
  private static func overrides(_ later: [String], _ earlier: [String]) -> Bool {
    later.starts(with: earlier) || earlier.starts(with: later)
  }

  private func entries() throws(StrataError) -> [DotEnvEntry] {
    try DotEnvParser.entries(of: bytes, path: path, maxDepth: options.maxDepth)
  }
}
