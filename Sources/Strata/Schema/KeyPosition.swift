/// Where a key is written, found from where its value is: the parsers record the position of values,
/// and a message about a key (an unknown key) should point at the key.
struct KeyPosition {
  /// Reads files (a root prefix applied), each once.
  let resolvePath: @Sendable (String) -> String
  private var lines: [String: [Substring]] = [:]

  init(resolvePath: @escaping @Sendable (String) -> String) {
    self.resolvePath = resolvePath
  }

  /// The origin of `name`'s key: the last place before the value, on the value's line, where the name
  /// is written (bare, or in quotes as JSON writes it). The value's own origin when it cannot be found
  /// (a property list puts `<key>` on another line).
  mutating func origin(ofKey name: String, valueOrigin: Origin) -> Origin {
    guard case .file(let path, let line, let column) = valueOrigin, line > 0 else { return valueOrigin }
    if lines[path] == nil {
      let bytes = (try? FileReader.read(resolvePath(path), reportedAs: path, limit: 16 << 20)) ?? nil
      lines[path] = String(decoding: bytes ?? [], as: UTF8.self).split(
        separator: "\n", omittingEmptySubsequences: false)
    }
    guard let text = lines[path], line <= text.count else { return valueOrigin }
    let before = Array(text[line - 1].utf8.prefix(max(column - 1, 0)))
    for written in ["\"" + name + "\"", name] {
      let needle = Array(written.utf8)
      guard needle.count <= before.count else { continue }
      for start in stride(from: before.count - needle.count, through: 0, by: -1)
      where Array(before[start..<(start + needle.count)]) == needle {
        return .file(path: path, line: line, column: start + 1)
      }
    }
    return valueOrigin
  }
}
