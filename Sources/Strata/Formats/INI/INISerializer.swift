#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Writes a tree as INI: top-level scalars first, then one `[a.b]` section per table, in table order.
///
/// Everything becomes text, so parsing the output gives back the tree with every scalar as a string.
struct INISerializer {
  private var output: [UInt8] = []
  /// Whether each value line ends with its origin as a comment (`port = 8443  ; /etc/demo/demo.ini:6:8`).
  private var withOrigins = false

  static func serialize(_ value: SettingValue, withOrigins: Bool = false) throws(StrataError) -> [UInt8] {
    guard case .table(let table) = value.kind else {
      throw StrataError(.typeMismatch, "INI needs a table at the top, not a \(value.typeName)")
    }
    var serializer = INISerializer()
    serializer.withOrigins = withOrigins
    try serializer.writeScalars(of: table, path: [])
    try serializer.writeSections(of: table, path: [])
    return serializer.output
  }

  /// A value as it is written after `=`: bare when safe, else double-quoted.
  static func encodedValue(_ text: String) -> [UInt8] {
    var serializer = INISerializer()
    serializer.writeValue(text)
    serializer.output.removeLast()  // the newline
    return serializer.output
  }

  /// A key or name part as written: bare when it reads back as itself, else quoted.
  static func encodedName(_ name: String) -> [UInt8] {
    var serializer = INISerializer()
    serializer.writeName(name)
    return serializer.output
  }

  /// The scalars and arrays of scalars of a table, as `key = value` lines.
  private mutating func writeScalars(of table: SettingTable, path: [String]) throws(StrataError) {
    for (key, value) in table {
      switch value.kind {
      case .table: continue
      case .array(let items):
        if items.isEmpty {
          throw StrataError(.typeMismatch, "INI cannot represent an empty array at \(dotted(path, key))")
        }
        for item in items {
          switch item.kind {
          case .table:
            throw StrataError(
              .typeMismatch, "INI cannot represent an array of tables at \(dotted(path, key))")
          case .array:
            throw StrataError(.typeMismatch, "INI cannot represent nested arrays at \(dotted(path, key))")
          default:
            writeName(key)
            output.append(contentsOf: "[] = ".utf8)
            writeValue(Self.text(of: item))
            writeOrigin(item.origin)
          }
        }
      default:
        writeName(key)
        output.append(contentsOf: " = ".utf8)
        writeValue(Self.text(of: value))
        writeOrigin(value.origin)
      }
    }
  }

  /// Ends the line just written with `  ; origin` (read back, an inline comment).
  private mutating func writeOrigin(_ origin: Origin) {
    guard withOrigins else { return }
    output.removeLast()  // the newline
    output.append(contentsOf: "  ; \(origin.description.escapingControlCharacters)\n".utf8)
  }

  /// A section per nested table. A table holding only tables gets no header of its own: the headers of
  /// its children create it.
  private mutating func writeSections(of table: SettingTable, path: [String]) throws(StrataError) {
    for (key, value) in table {
      guard case .table(let child) = value.kind else { continue }
      let childPath = path + [key]
      let hasOnlyTables = !child.isEmpty && child.allSatisfy { $0.value.isTable }
      if !hasOnlyTables {
        if !output.isEmpty { output.append(INIByte.newline) }
        output.append(INIByte.openBracket)
        for (index, part) in childPath.enumerated() {
          if index > 0 { output.append(INIByte.dot) }
          writeName(part)
        }
        output.append(contentsOf: "]\n".utf8)
        try writeScalars(of: child, path: childPath)
      }
      try writeSections(of: child, path: childPath)
    }
  }

  private func dotted(_ path: [String], _ key: String) -> String { SettingKey.join(path + [key]) }

  /// The text of a scalar: strings as they are, other types as their usual text form.
  static func text(of value: SettingValue) -> String {
    switch value.kind {
    case .string(let s): s
    case .integer(let i): String(i)
    case .unsignedInteger(let u): String(u)
    case .double(let d): d.description
    case .bool(let b): b ? "true" : "false"
    case .date(let d): ISODateText.format(d)
    case .data(let d): d.base64EncodedString()
    case .array, .table: ""
    }
  }

  /// A key or section name: bare when it reads back as itself, else quoted. A leading U+FEFF is quoted
  /// because as the file's first key the reader would take it for a byte order mark.
  private mutating func writeName(_ name: String) {
    let bare =
      !name.isEmpty && !name.utf8.starts(with: [0xEF, 0xBB, 0xBF])
      && name.utf8.allSatisfy { byte in
        switch byte {
        case 0x00...0x20, 0x7F, INIByte.doubleQuote, INIByte.singleQuote, INIByte.hash, INIByte.semicolon,
          INIByte.dot, INIByte.colon, INIByte.equals, INIByte.openBracket, INIByte.closeBracket,
          INIByte.backslash, INIByte.exclamation:
          false
        default: true
        }
      }
    if bare { output.append(contentsOf: name.utf8) } else { writeQuoted(name) }
  }

  /// A value: bare when safe, else double-quoted. Bare needs no leading or trailing blanks, no comment
  /// or quote characters, no backslash (continuation) and no control characters.
  private mutating func writeValue(_ text: String) {
    let utf8 = text.utf8
    let bare =
      !utf8.isEmpty && !INIByte.isSpace(utf8.first!) && !INIByte.isSpace(utf8.last!)
      && utf8.allSatisfy { byte in
        switch byte {
        case 0x00...0x08, 0x0A...0x1F, 0x7F, INIByte.doubleQuote, INIByte.singleQuote, INIByte.hash,
          INIByte.semicolon, INIByte.backslash:
          false
        default: true
        }
      }
    if bare { output.append(contentsOf: utf8) } else { writeQuoted(text) }
    output.append(INIByte.newline)
  }

  private mutating func writeQuoted(_ text: String) {
    output.append(INIByte.doubleQuote)
    for byte in text.utf8 {
      switch byte {
      case INIByte.doubleQuote: output.append(contentsOf: "\\\"".utf8)
      case INIByte.backslash: output.append(contentsOf: "\\\\".utf8)
      case INIByte.newline: output.append(contentsOf: "\\n".utf8)
      case INIByte.tab: output.append(contentsOf: "\\t".utf8)
      case INIByte.carriageReturn: output.append(contentsOf: "\\r".utf8)
      case 0x00...0x1F, 0x7F:
        let hex = String(byte, radix: 16, uppercase: true)
        output.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
      default: output.append(byte)
      }
    }
    output.append(INIByte.doubleQuote)
  }
}
