/// Where a key is written, found from where its value is: the parsers record the position of values,
/// and a message about a key (an unknown key) should point at the key.
struct KeyPosition {
  /// Reads files (a root prefix applied), each once.
  let resolvePath: @Sendable (String) -> String
  private var lines: [String: [Substring]] = [:]

  init(resolvePath: @escaping @Sendable (String) -> String) {
    self.resolvePath = resolvePath
  }

  /// The origin of a key, from its names and its value's origin: the last place before the value, on
  /// the value's line, where the key is written (a dotted INI key from its first name, a quoted JSON
  /// name, or a bare name); else the nearest of the three lines above that writes its last name as a
  /// JSON name or a property list `<key>`. The value's own origin when it cannot be found.
  mutating func origin(ofKey names: [String], valueOrigin: Origin) -> Origin {
    guard case .file(let path, let line, let column) = valueOrigin, line > 0, let name = names.last else {
      return valueOrigin
    }
    if lines[path] == nil {
      let bytes = (try? FileReader.read(resolvePath(path), reportedAs: path, limit: 16 << 20)) ?? nil
      lines[path] = String(decoding: bytes ?? [], as: UTF8.self).split(
        separator: "\n", omittingEmptySubsequences: false)
    }
    guard let text = lines[path], line <= text.count else { return valueOrigin }
    let before = Array(text[line - 1].utf8.prefix(max(column - 1, 0)))
    var written: [(text: String, bare: Bool)] = []
    if names.count > 1 {
      for count in stride(from: names.count, through: 2, by: -1) {
        written.append((names.suffix(count).joined(separator: "."), true))
      }
    }
    written += [("<key>" + name + "</key>", false), ("\"" + name + "\"", false), (name, true)]
    for (form, bare) in written {
      if let start = Self.lastOccurrence(of: form, in: before, bare: bare) {
        return .file(path: path, line: line, column: start + 1)
      }
    }
    for above in stride(from: line - 1, through: max(line - 3, 1), by: -1) {
      let bytes = Array(text[above - 1].utf8)
      for form in ["<key>" + name + "</key>", "\"" + name + "\""] {
        if let start = Self.lastOccurrence(of: form, in: bytes, bare: false) {
          return .file(path: path, line: above, column: start + 1)
        }
      }
    }
    return valueOrigin
  }

  /// Where `form` last starts in `bytes`; a bare name must not continue a longer word on its left.
  private static func lastOccurrence(of form: String, in bytes: [UInt8], bare: Bool) -> Int? {
    let needle = Array(form.utf8)
    guard !needle.isEmpty, needle.count <= bytes.count else { return nil }
    for start in stride(from: bytes.count - needle.count, through: 0, by: -1)
    where Array(bytes[start..<(start + needle.count)]) == needle {
      if bare && start > 0 {
        let left = bytes[start - 1]
        let isWord =
          (left >= 0x30 && left <= 0x39) || (left >= 0x41 && left <= 0x5A) || (left >= 0x61 && left <= 0x7A)
          || left == UInt8(ascii: "_") || left == UInt8(ascii: "-") || left == UInt8(ascii: ".")
          || left >= 0x80
        if isWord { continue }
      }
      return start
    }
    return nil
  }
}
