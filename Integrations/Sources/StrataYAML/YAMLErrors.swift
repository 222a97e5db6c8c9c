import Strata
import Yams

/// Yams' errors as ``StrataError``s, at Strata's lines and byte columns.
enum YAMLErrors {
  /// The error for bytes that are not UTF-8, at the first bad byte.
  static func invalidUTF8(in text: YAMLText, path: String) -> StrataError {
    var offset = 0
    var iterator = text.bytes.makeIterator()
    var decoder = UTF8()
    var valid = 0
    decoding: while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar):
        valid += UTF8.width(scalar)
      case .emptyInput:
        break decoding
      case .error:
        offset = valid
        break decoding
      }
    }
    let (line, column) = text.position(ofOffset: offset)
    return StrataError(
      .invalidUTF8, "the file is not UTF-8 (YAML files are read as UTF-8)", path: path, line: line,
      column: column)
  }

  /// A Yams error with its position.
  static func strataError(_ error: YamlError, text: inout YAMLText, string: String, path: String)
    -> StrataError
  {
    func located(_ code: StrataError.Code, _ message: String, _ mark: Mark) -> StrataError {
      let (line, column) = text.position(of: mark)
      return StrataError(code, message, path: path, line: line, column: column)
    }
    switch error {
    case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _):
      return located(.syntax, message(problem, context, text: &text), mark)
    case .composer(let context, let problem, let mark, _):
      if context?.text == "expected a single document in the stream" {
        return located(
          .syntax,
          "a second YAML document starts here; a configuration file holds one document (split the file or "
            + "remove the '---')", mark)
      }
      if problem == "found undefined alias", let message = undefinedAlias(at: mark, text: &text) {
        return located(.syntax, message, mark)
      }
      return located(.syntax, message(problem, context, text: &text), mark)
    case .reader(let problem, let offset, _, _):
      // Yams counts the offset in characters of the string it was given.
      let characters = offset ?? 0
      let index =
        string.index(string.startIndex, offsetBy: characters, limitedBy: string.endIndex) ?? string.endIndex
      let (line, column) = text.position(ofOffset: string.utf8.distance(from: string.startIndex, to: index))
      return StrataError(.syntax, problem, path: path, line: line, column: column)
    case .duplicatedKeysInMapping(let duplicates, let context):
      return duplicateKey(duplicates, first: context.mark, text: &text, path: path)
    default:
      return StrataError(.syntax, "\(error)", path: path)
    }
  }

  /// What an alias that names no finished anchor is: inside the node its own anchor names (a value
  /// that would contain itself, which libyaml leaves undefined and Strata refuses), or before any
  /// anchor of its name. `nil` when the alias cannot be read at `mark`.
  private static func undefinedAlias(at mark: Mark, text: inout YAMLText) -> String? {
    let bytes = text.bytes
    let start = text.offset(of: mark)
    guard start < bytes.count, bytes[start] == UInt8(ascii: "*") else { return nil }
    func isNameByte(_ byte: UInt8) -> Bool {
      !(byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: ",")
        || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "{")
        || byte == UInt8(ascii: "}"))
    }
    var end = start + 1
    while end < bytes.count && isNameByte(bytes[end]) { end += 1 }
    let name = Array(bytes[(start + 1)..<end])
    let anchor = [UInt8(ascii: "&")] + name
    // The last `&name` before the alias, as a whole token.
    var offset = start - anchor.count
    while offset >= 0 {
      if bytes[offset..<(offset + anchor.count)].elementsEqual(anchor)
        && (offset + anchor.count == bytes.count || !isNameByte(bytes[offset + anchor.count]))
      {
        let (line, column) = text.position(ofOffset: offset)
        let shown = String(decoding: name, as: UTF8.self)
        return "the alias *\(shown) is inside the node its anchor &\(shown) (at \(line):\(column)) names: "
          + "a value that contains itself has no end, and is refused"
      }
      offset -= 1
    }
    let shown = String(decoding: name, as: UTF8.self)
    return "the alias *\(shown) names no anchor: an anchor '&\(shown)' must come before its aliases"
  }

  /// libyaml's problem, and its context at Strata's line and byte column.
  private static func message(_ problem: String, _ context: YamlError.Context?, text: inout YAMLText)
    -> String
  {
    guard let context, !context.text.isEmpty else { return problem }
    let (line, column) = text.position(of: context.mark)
    return "\(problem) (\(context.text) at \(line):\(column))"
  }

  /// A repeated key: Yams reports the first of its places; the second is the next place after it where
  /// the same name is written as a key at the same column (a block mapping) or later on the line (a
  /// flow mapping).
  private static func duplicateKey(
    _ names: [String], first mark: Mark, text: inout YAMLText, path: String
  ) -> StrataError {
    let name = names.sorted().first ?? ""
    let firstOffset = text.offset(of: mark)
    let (line, column) = text.position(ofOffset: firstOffset)
    let forms = [name, "\"\(name)\"", "'\(name)'"].map { Array($0.utf8) }
    let bytes = text.bytes
    var second: (line: Int, column: Int)? = nil
    var offset = firstOffset + 1
    search: while offset < bytes.count {
      for form in forms
      where offset + form.count <= bytes.count && bytes[offset..<(offset + form.count)].elementsEqual(form) {
        var after = offset + form.count
        while after < bytes.count && bytes[after] == 0x20 { after += 1 }
        let previous = offset > 0 ? bytes[offset - 1] : 0x0A
        let startsToken =
          previous == 0x20 || previous == 0x0A || previous == UInt8(ascii: "{")
          || previous == UInt8(ascii: ",")
        let position = text.position(ofOffset: offset)
        if startsToken, after < bytes.count, bytes[after] == UInt8(ascii: ":"),
          position.line == line || position.column == column
        {
          second = position
          break search
        }
      }
      offset += 1
    }
    let names = names.count == 1 ? "'\(name)'" : names.sorted().map { "'\($0)'" }.joined(separator: ", ")
    guard let second else {
      return StrataError(
        .duplicateKey, "duplicate key \(names) in this mapping", path: path, line: line, column: column)
    }
    return StrataError(
      .duplicateKey, "duplicate key \(names) (first at \(path):\(line):\(column))", path: path,
      line: second.line,
      column: second.column)
  }
}
