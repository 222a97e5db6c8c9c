extension TOMLParser {
  /// An open array or inline table.
  private struct Frame {
    var origin: Origin
    /// The elements of an array; `nil` for an inline table.
    var items: [SettingValue]?
    /// The keys of an inline table, with TOML's rules for its dotted keys.
    var table: TOMLTree?
    /// The key whose value is being read, and where it is.
    var keys: [String] = []
    var keyOrigin: Origin
  }

  /// Parses one value with everything nested in it, without recursion.
  /// - Parameter depth: how deep the value's table is, for the nesting limit.
  mutating func parseValue(depth: Int) throws(StrataError) -> SettingValue {
    var frames: [Frame] = []
    parsing: while true {
      let origin = here
      guard pos < bytes.count else { throw error(.unexpectedEnd, "expected a value, found end of file") }
      var value: SettingValue
      switch bytes[pos] {
      case UInt8(ascii: "["):
        try checkDepth(depth + frames.count + 1, at: origin)
        pos += 1
        try skipArrayBlanks()
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "]") {
          pos += 1
          value = SettingValue(.array([]), origin: origin)
        } else {
          frames.append(Frame(origin: origin, items: [], keyOrigin: origin))
          continue parsing
        }
      case UInt8(ascii: "{"):
        try checkDepth(depth + frames.count + 1, at: origin)
        pos += 1
        skipBlanks()
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "}") {
          pos += 1
          value = SettingValue(.table(SettingTable()), origin: origin)
        } else {
          var frame = Frame(
            origin: origin,
            table: TOMLTree(path: path, origin: origin, maxDepth: maxDepth, maxValues: maxValues),
            keyOrigin: origin)
          try readInlineKey(into: &frame)
          frames.append(frame)
          continue parsing
        }
      default:
        value = try parseScalar()
      }
      try tree.count(1, at: origin)

      // A value is complete: store it in its container, closing every container that ends here.
      while !frames.isEmpty {
        let top = frames.count - 1
        if frames[top].items != nil {
          frames[top].items!.append(value)
          try skipArrayBlanks()
          guard pos < bytes.count else {
            throw error(.unexpectedEnd, "expected ',' or ']' after an array element, found end of file")
          }
          if bytes[pos] == UInt8(ascii: ",") {
            pos += 1
            try skipArrayBlanks()
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: "]") else { continue parsing }
          } else if bytes[pos] != UInt8(ascii: "]") {
            throw error(.syntax, "expected ',' or ']' after an array element, found \(found())")
          }
          pos += 1
          value = SettingValue(.array(frames[top].items!), origin: frames[top].origin)
        } else {
          try frames[top].table!.set(
            frames[top].keys, to: value, in: 0, section: 0, at: frames[top].keyOrigin)
          skipBlanks()
          guard pos < bytes.count else {
            throw error(
              .unexpectedEnd, "expected ',' or '}' after an inline table's value, found end of file")
          }
          if bytes[pos] == UInt8(ascii: ",") {
            pos += 1
            skipBlanks()
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "}") {
              throw error(.syntax, "an inline table cannot end with ',' (TOML 1.0); remove the last comma")
            }
            try readInlineKey(into: &frames[top])
            continue parsing
          }
          guard bytes[pos] == UInt8(ascii: "}") else {
            throw error(
              .syntax,
              "expected ',' or '}' after an inline table's value, found \(found()); an inline table is "
                + "written on one line")
          }
          pos += 1
          value = frames[top].table!.build()
        }
        frames.removeLast()
      }
      return value
    }
  }

  /// Reads `key =` of an inline table into its frame.
  private mutating func readInlineKey(into frame: inout Frame) throws(StrataError) {
    frame.keyOrigin = here
    guard pos < bytes.count, bytes[pos] != UInt8(ascii: "\n"), bytes[pos] != UInt8(ascii: "\r") else {
      throw error(
        .syntax,
        "expected a key in the inline table, found \(found()); an inline table is written on one line")
    }
    frame.keys = try parseKey()
    try expectEquals(after: frame.keys)
  }

  /// Skips what may stand between array elements: blanks, line breaks and comments.
  private mutating func skipArrayBlanks() throws(StrataError) {
    while pos < bytes.count {
      switch bytes[pos] {
      case UInt8(ascii: " "), UInt8(ascii: "\t"): pos += 1
      case UInt8(ascii: "\n"), UInt8(ascii: "\r"): try newline()
      case UInt8(ascii: "#"): try skipComment()
      default: return
      }
    }
  }

  /// A string, number, boolean, date or time at `pos`.
  private mutating func parseScalar() throws(StrataError) -> SettingValue {
    let origin = here
    let byte = bytes[pos]
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "'"):
      return SettingValue(.string(try parseString()), origin: origin)
    case UInt8(ascii: "t"), UInt8(ascii: "f"):
      let literal = byte == UInt8(ascii: "t") ? "true" : "false"
      guard matches(literal) else { throw invalidValue() }
      pos += literal.utf8.count
      try expectValueEnd()
      return SettingValue(.bool(byte == UInt8(ascii: "t")), origin: origin)
    case UInt8(ascii: "0")...UInt8(ascii: "9"):
      if let kind = try parseDateOrTime() {
        try expectValueEnd()
        return SettingValue(kind, origin: origin)
      }
      fallthrough
    case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "i"), UInt8(ascii: "n"):
      let kind = try parseNumber()
      try expectValueEnd()
      return SettingValue(kind, origin: origin)
    default:
      throw invalidValue()
    }
  }

  /// Whether the bytes at `pos` spell `literal`.
  func matches(_ literal: String) -> Bool {
    let utf8 = Array(literal.utf8)
    guard pos + utf8.count <= bytes.count else { return false }
    return (0..<utf8.count).allSatisfy { bytes[pos + $0] == utf8[$0] }
  }

  /// Refuses a value that does not end where a value may end.
  func expectValueEnd() throws(StrataError) {
    guard pos < bytes.count else { return }
    switch bytes[pos] {
    case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ","),
      UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: "#"):
      return
    default:
      throw error(.syntax, "unexpected \(found()) after the value; a string must be quoted")
    }
  }

  func invalidValue() -> StrataError {
    error(
      .syntax,
      "expected a value, found \(found()); strings are quoted (\"…\" or '…'), booleans are true and false")
  }
}
