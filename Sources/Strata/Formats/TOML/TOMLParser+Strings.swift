extension TOMLParser {
  /// A string at `pos`: "basic", 'literal', """multi-line basic""" or '''multi-line literal'''.
  mutating func parseString() throws(StrataError) -> String {
    let quote = bytes[pos]
    let startLine = line
    let startColumn = column
    let isLiteral = quote == UInt8(ascii: "'")
    let isMultiline = pos + 2 < bytes.count && bytes[pos + 1] == quote && bytes[pos + 2] == quote
    pos += isMultiline ? 3 : 1
    if isMultiline, pos < bytes.count {
      // A line break right after the opening quotes is not part of the string.
      if bytes[pos] == UInt8(ascii: "\n") || bytes[pos] == UInt8(ascii: "\r") { try newline() }
    }
    var text: [UInt8] = []
    while true {
      guard pos < bytes.count else {
        throw error(
          .unexpectedEnd,
          "unterminated string (started at line \(startLine), column \(startColumn)); close it with "
            + String(repeating: Character(Unicode.Scalar(quote)), count: isMultiline ? 3 : 1))
      }
      let byte = bytes[pos]
      if byte == quote {
        if !isMultiline {
          pos += 1
          break
        }
        var run = 0
        while pos + run < bytes.count, bytes[pos + run] == quote { run += 1 }
        if run < 3 {
          text.append(contentsOf: repeatElement(quote, count: run))
          pos += run
          continue
        }
        if run > 5 {
          throw error(
            .syntax,
            "\(run) quotes in a row in a multi-line string; escape them or use the other kind of quote",
            column: column + 5)
        }
        // Up to two quotes right before the closing three belong to the string.
        text.append(contentsOf: repeatElement(quote, count: run - 3))
        pos += run
        break
      }
      switch byte {
      case UInt8(ascii: "\\") where !isLiteral:
        try readEscape(into: &text, isMultiline: isMultiline)
      case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
        guard isMultiline else {
          throw error(
            .syntax,
            "unterminated string (started at line \(startLine), column \(startColumn)); a line break in a "
              + "string is written \\n, or use a multi-line string (\"\"\"…\"\"\")")
        }
        try newline()
        text.append(UInt8(ascii: "\n"))
      case 0..<0x20 where byte != UInt8(ascii: "\t"), 0x7F:
        throw error(
          .syntax,
          "control character U+\(hex(UInt32(byte), width: 4)) in a string; "
            + (isLiteral
              ? "use a \"basic\" string and write it as an escape"
              : "write it as \\u\(hex(UInt32(byte), width: 4))"))
      default:
        text.append(byte)
        pos += 1
      }
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// Reads the escape at `pos` (a backslash) into `text`.
  private mutating func readEscape(into text: inout [UInt8], isMultiline: Bool) throws(StrataError) {
    let escapeColumn = column
    pos += 1
    guard pos < bytes.count else { throw error(.unexpectedEnd, "unterminated escape at the end of the file") }
    let byte = bytes[pos]
    switch byte {
    case UInt8(ascii: "b"): text.append(0x08)
    case UInt8(ascii: "t"): text.append(0x09)
    case UInt8(ascii: "n"): text.append(0x0A)
    case UInt8(ascii: "f"): text.append(0x0C)
    case UInt8(ascii: "r"): text.append(0x0D)
    case UInt8(ascii: "\""): text.append(0x22)
    case UInt8(ascii: "\\"): text.append(0x5C)
    case UInt8(ascii: "u"), UInt8(ascii: "U"):
      let count = byte == UInt8(ascii: "u") ? 4 : 8
      var scalar: UInt32 = 0
      for offset in 1...count {
        guard pos + offset < bytes.count, let digit = Self.hexDigit(bytes[pos + offset]) else {
          throw error(
            .invalidEscape,
            "\\\(Character(Unicode.Scalar(byte))) takes exactly \(count) hexadecimal digits",
            column: escapeColumn)
        }
        scalar = scalar << 4 | UInt32(digit)
      }
      guard let unicode = Unicode.Scalar(scalar) else {
        throw error(
          .invalidEscape,
          "\\\(Character(Unicode.Scalar(byte)))\(hex(scalar, width: count)) is not a Unicode scalar value "
            + "(surrogates D800-DFFF and values above 10FFFF are not characters)", column: escapeColumn)
      }
      text.append(contentsOf: String(Character(unicode)).utf8)
      pos += count
    case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
      guard isMultiline else {
        throw error(
          .invalidEscape,
          "a backslash followed by a blank is an invalid escape in a one-line string; write a backslash as \\\\",
          column: escapeColumn)
      }
      // A backslash ending a line joins it to the next non-blank character.
      while pos < bytes.count, bytes[pos] == UInt8(ascii: " ") || bytes[pos] == UInt8(ascii: "\t") {
        pos += 1
      }
      guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\n") || bytes[pos] == UInt8(ascii: "\r") else {
        throw error(
          .invalidEscape, "a backslash followed by blanks must end the line (a line-ending backslash)",
          column: escapeColumn)
      }
      while pos < bytes.count {
        switch bytes[pos] {
        case UInt8(ascii: " "), UInt8(ascii: "\t"): pos += 1
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"): try newline()
        default: return
        }
      }
      return
    default:
      throw error(
        .invalidEscape,
        "invalid escape \\\(pos < bytes.count && bytes[pos] < 0x80 && bytes[pos] >= 0x20 ? String(Character(Unicode.Scalar(bytes[pos]))) : "") in a string; "
          + "TOML knows \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX (write a backslash as \\\\, or use a 'literal' string)",
        column: escapeColumn)
    }
    pos += 1
  }

  static func hexDigit(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
