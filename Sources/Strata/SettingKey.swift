/// How a key — a path of names through the configuration tree — is written as one string.
///
/// A key is a sequence of names, and a name may itself contain a dot: the JSON document
/// `{"a.b": 1, "a": {"b": 2}}` has two different keys. Trees (``SettingValue`` and ``SettingTable``)
/// keep names as they are; wherever a path is written as one string (``Snapshot`` keys, `config-dump
/// --key`, diagnostics, events), the names are joined with `.`, and a name that is empty, contains a
/// `.`, or starts with `"` is written in double quotes, with `"` and `\` inside escaped by a backslash
/// (as git config writes a subsection name):
///
/// | names | key |
/// |---|---|
/// | `server`, `port` | `server.port` |
/// | `a.b` | `"a.b"` |
/// | `www`, `listen.owner` | `www."listen.owner"` |
/// | `./package.json`, `name` | `"./package.json".name` |
///
/// Every sequence of names has exactly one key, and ``names(in:)`` gives the names back. Nothing in
/// Strata splits a key at a dot in any other way.
public enum SettingKey {
  /// The key of a path of names.
  public static func join(_ names: some Sequence<String>) -> String {
    var key = ""
    var first = true
    for name in names {
      if !first { key += "." }
      first = false
      key += written(name)
    }
    return key
  }

  /// The key of `name` below `parent` (the root when `parent` is empty).
  static func appending(_ name: String, to parent: String) -> String {
    parent.isEmpty ? written(name) : parent + "." + written(name)
  }

  /// The names of a key, in order; the empty key (the root) has none.
  ///
  /// Reading is lenient, so that any text a person types means something: a quote left open runs to the
  /// end of the key, and a backslash in a quoted name before anything other than `"` or `\` is kept.
  public static func names(in key: String) -> [String] {
    if key.isEmpty { return [] }
    // The common case, a key with no quoted name, splits over the key's own bytes: a store looks up
    // each of its settings' keys this way, and the bytes cost about half of what the UTF-8 view's
    // indices do (780 instructions for `g0050.s50` against 1,400, in a cold start's lookups).
    if let names = key.utf8.withContiguousStorageIfAvailable(Self.unquotedNames), let names {
      return names
    }
    if !key.utf8.contains(UInt8(ascii: "\"")) {
      // Over the UTF-8 bytes: splitting the `String` itself would find grapheme boundaries, which costs
      // more than the rest of a lookup. A dot is one byte, so every piece ends on a scalar boundary.
      let utf8 = key.utf8
      var names: [String] = []
      var start = utf8.startIndex
      var index = start
      while index != utf8.endIndex {
        if utf8[index] == UInt8(ascii: ".") {
          names.append(String(Substring(utf8[start..<index])))
          start = utf8.index(after: index)
        }
        index = utf8.index(after: index)
      }
      names.append(String(Substring(utf8[start..<utf8.endIndex])))
      return names
    }
    var names: [String] = []
    var scalars = key.unicodeScalars[...]
    while true {
      var name = ""
      if scalars.first == "\"" {
        scalars = scalars.dropFirst()
        while let scalar = scalars.first {
          scalars = scalars.dropFirst()
          if scalar == "\"" { break }
          if scalar == "\\", let next = scalars.first, next == "\"" || next == "\\" {
            name.unicodeScalars.append(next)
            scalars = scalars.dropFirst()
          } else {
            name.unicodeScalars.append(scalar)
          }
        }
        // Text between a closing quote and the next dot belongs to the same name.
        while let scalar = scalars.first, scalar != "." {
          name.unicodeScalars.append(scalar)
          scalars = scalars.dropFirst()
        }
      } else {
        while let scalar = scalars.first, scalar != "." {
          name.unicodeScalars.append(scalar)
          scalars = scalars.dropFirst()
        }
      }
      names.append(name)
      guard scalars.first == "." else { break }
      scalars = scalars.dropFirst()
    }
    return names
  }

  /// The names of a key given as its UTF-8 bytes, split at each dot, or `nil` when it has a quoted
  /// name. A dot is one byte, so every piece is whole UTF-8. The buffer is the key's own storage, read
  /// only inside `withContiguousStorageIfAvailable`.
  private static func unquotedNames(_ bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
    if bytes.contains(UInt8(ascii: "\"")) { return nil }
    var names: [String] = []
    var start = 0
    for index in bytes.indices where bytes[index] == UInt8(ascii: ".") {
      names.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
      start = index + 1
    }
    names.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self))
    return names
  }

  /// The key of the table that holds `key`, or `nil` for a key of one name.
  package static func parent(of key: String) -> String? {
    let names = names(in: key)
    return names.count > 1 ? join(names.dropLast()) : nil
  }

  /// The last name of a key (`port` for `server.port`), unquoted.
  static func lastName(of key: String) -> String {
    names(in: key).last ?? ""
  }

  /// Whether `key` is `ancestor` or lies below it.
  package static func isKey(_ key: String, within ancestor: String) -> Bool {
    if ancestor.isEmpty || key == ancestor { return true }
    return key.hasPrefix(ancestor) && key.utf8.dropFirst(ancestor.utf8.count).first == UInt8(ascii: ".")
  }

  /// A name as it is written in a key: quoted when it is empty, holds a dot, or starts with a quote.
  static func written(_ name: String) -> String {
    guard needsQuotes(name) else { return name }
    var out = "\""
    for scalar in name.unicodeScalars {
      if scalar == "\"" || scalar == "\\" { out += "\\" }
      out.unicodeScalars.append(scalar)
    }
    return out + "\""
  }

  private static func needsQuotes(_ name: String) -> Bool {
    guard let first = name.utf8.first else { return true }
    return first == UInt8(ascii: "\"") || name.utf8.contains(UInt8(ascii: "."))
  }
}
