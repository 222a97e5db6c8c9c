/// Strings and numbers. Both work on byte ranges of the input and build a `String` or number once,
/// never character by character.
extension JSONParser {
  /// Parses a string value starting at the opening quote at `pos`, leaving `pos` after the closing
  /// quote: a slice of the file when it has no escapes and the file is at hand, so that no `String` is
  /// made until the value is read.
  mutating func parseStringValue(line: Int, column: Int) throws(StrataError) -> SettingValue {
    pos += 1
    let start = pos
    if try scanToPlainStringEnd(line: line, column: column) {
      pos += 1
      if let source {
        return SettingValue(text: source, start: start, end: pos - 1, line: line, column: column)
      }
      return SettingValue(.string(string(start, pos - 1)), origin: origin(line, column))
    }
    let text = try parseEscapedString(from: start, line: line, column: column)
    return SettingValue(.string(text), origin: origin(line, column))
  }

  /// Parses a string starting at the opening quote at `pos`, leaving `pos` after the closing quote.
  mutating func parseString() throws(StrataError) -> String {
    let startLine = line
    let startColumn = column
    pos += 1
    let start = pos
    if try scanToPlainStringEnd(line: startLine, column: startColumn) {
      pos += 1
      return string(start, pos - 1)
    }
    return try parseEscapedString(from: start, line: startLine, column: startColumn)
  }

  private func string(_ start: Int, _ end: Int) -> String {
    String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
  }

  /// Moves `pos` (inside a string that starts at `line`:`column`) to its closing quote (`true`) or to
  /// its first backslash (`false`), checking UTF-8 and control characters on the way.
  private mutating func scanToPlainStringEnd(line startLine: Int, column startColumn: Int) throws(StrataError)
    -> Bool
  {
    let count = bytes.count
    while pos < count {
      // Eight bytes at a time up to the first byte that needs a look (a quote, a backslash, a control
      // character or non-ASCII), which the byte-wise code below then handles.
      if pos + 8 <= count {
        let word = UnsafeRawPointer(bytes.baseAddress! + pos).loadUnaligned(as: UInt64.self)
        let special = Self.specialBytes(word)
        if special == 0 {
          pos += 8
          continue
        }
        pos += special.trailingZeroBitCount / 8
      }
      let byte = bytes[pos]
      if byte == UInt8(ascii: "\"") { return true }
      if byte == UInt8(ascii: "\\") { return false }
      if byte < 0x20 { throw controlCharacterError(byte, line: startLine, column: startColumn) }
      pos = byte < 0x80 ? pos + 1 : try validatedSequenceEnd(at: pos)
    }
    throw unterminated(line: startLine, column: startColumn)
  }

  /// High bits marking a word's bytes that are a quote, a backslash, a control character or non-ASCII:
  /// zero when there is none, and the lowest mark is exactly the first such byte (marks above it may be
  /// spurious).
  ///
  /// Below the first such byte, every byte is printable ASCII, so subtracting 0x20 from it, or 1 after
  /// XOR with `"` or `\`, neither borrows nor sets its high bit; at that byte, one of the tests does.
  @inline(__always) static func specialBytes(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    let quotes = word ^ (ones &* 0x22)
    let backslashes = word ^ (ones &* 0x5C)
    return (word | (word &- ones &* 0x20) | (quotes &- ones) | (backslashes &- ones)) & highs
  }

  /// Parses a key (a string at `pos`) with its ``KeyHash``: plain ASCII keys are interned, anything else
  /// is read as any string.
  mutating func parseKeyString() throws(StrataError) -> (String, UInt32) {
    let start = pos + 1
    var end = start
    // To the first byte that is not plain ASCII text, eight at a time; a key is plain when that byte is
    // its closing quote. Anything else (an escape, a control character, non-ASCII, the last bytes of
    // the file) is read as any string.
    while end + 8 <= bytes.count {
      let special = Self.specialBytes(
        UnsafeRawPointer(bytes.baseAddress! + end).loadUnaligned(as: UInt64.self))
      if special == 0 {
        end += 8
        continue
      }
      end += special.trailingZeroBitCount / 8
      guard bytes[end] == UInt8(ascii: "\"") else { break }
      let raw = UnsafeBufferPointer(rebasing: bytes[start..<end])
      let hash = KeyHash.of(raw)
      pos = end + 1
      return (keys.key(raw, hash: hash), hash)
    }
    let key = try parseString()
    return (key, KeyHash.of(key))
  }

  /// The slow path, once a backslash shows up: bytes are copied to a buffer with escapes decoded.
  private mutating func parseEscapedString(from start: Int, line startLine: Int, column startColumn: Int)
    throws(StrataError) -> String
  {
    var buffer: [UInt8] = []
    buffer.reserveCapacity(pos - start + 16)
    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<pos]))
    while pos < bytes.count {
      let byte = bytes[pos]
      if byte == UInt8(ascii: "\"") {
        pos += 1
        return String(decoding: buffer, as: UTF8.self)
      }
      if byte == UInt8(ascii: "\\") {
        try appendEscape(to: &buffer)
      } else if byte < 0x20 {
        throw controlCharacterError(byte, line: startLine, column: startColumn)
      } else if byte < 0x80 {
        buffer.append(byte)
        pos += 1
      } else {
        let end = try validatedSequenceEnd(at: pos)
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[pos..<end]))
        pos = end
      }
    }
    throw unterminated(line: startLine, column: startColumn)
  }

  /// Decodes the escape at `pos` (a backslash) into UTF-8.
  private mutating func appendEscape(to buffer: inout [UInt8]) throws(StrataError) {
    let escapeColumn = column
    guard pos + 1 < bytes.count else {
      pos += 1
      throw error(.unexpectedEnd, "unterminated escape at end of file")
    }
    let simple: UInt8
    switch bytes[pos + 1] {
    case UInt8(ascii: "\""): simple = UInt8(ascii: "\"")
    case UInt8(ascii: "\\"): simple = UInt8(ascii: "\\")
    case UInt8(ascii: "/"): simple = UInt8(ascii: "/")
    case UInt8(ascii: "b"): simple = 0x08
    case UInt8(ascii: "f"): simple = 0x0C
    case UInt8(ascii: "n"): simple = 0x0A
    case UInt8(ascii: "r"): simple = 0x0D
    case UInt8(ascii: "t"): simple = 0x09
    case UInt8(ascii: "u"):
      try appendUnicodeEscape(to: &buffer)
      return
    case let other:
      pos += 1
      let escape =
        (0x21..<0x7F).contains(other)
        ? "'\\\(Character(Unicode.Scalar(other)))'" : "'\\' followed by \(found())"
      throw error(
        .invalidEscape,
        "invalid escape \(escape) in a string; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX",
        column: escapeColumn)
    }
    buffer.append(simple)
    pos += 2
  }

  /// Decodes `\uXXXX`, combining a surrogate pair written as two escapes.
  private mutating func appendUnicodeEscape(to buffer: inout [UInt8]) throws(StrataError) {
    let escapeColumn = column
    let unit = try hexEscape()
    var scalarValue = UInt32(unit)
    if (0xDC00...0xDFFF).contains(unit) {
      throw error(
        .invalidEscape,
        "lone low surrogate \\u\(hex(UInt32(unit), width: 4)); it must follow a high surrogate (\\uD800-\\uDBFF)",
        column: escapeColumn)
    }
    if (0xD800...0xDBFF).contains(unit) {
      let isEscape =
        pos + 1 < bytes.count && bytes[pos] == UInt8(ascii: "\\") && bytes[pos + 1] == UInt8(ascii: "u")
      let low = isEscape ? try hexEscape() : nil
      guard let low, (0xDC00...0xDFFF).contains(low) else {
        throw error(
          .invalidEscape,
          "lone high surrogate \\u\(hex(UInt32(unit), width: 4)); it must be followed by a low surrogate (\\uDC00-\\uDFFF)",
          column: escapeColumn)
      }
      scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
    }
    // Surrogates were handled above, so the value is always a valid scalar.
    let scalar = Unicode.Scalar(scalarValue)!
    buffer.append(contentsOf: UTF8.encode(scalar)!)
  }

  /// Reads `\uXXXX` at `pos` and returns the code unit, leaving `pos` after it.
  private mutating func hexEscape() throws(StrataError) -> UInt16 {
    let escapeColumn = column
    var unit: UInt16 = 0
    for offset in 2..<6 {
      guard pos + offset < bytes.count else {
        pos = bytes.count
        throw error(.unexpectedEnd, "unterminated \\u escape at end of file")
      }
      let byte = bytes[pos + offset]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default:
        throw error(
          .invalidEscape, "a \\u escape needs four hexadecimal digits", column: escapeColumn)
      }
      unit = unit << 4 | UInt16(digit)
    }
    pos += 6
    return unit
  }

  /// Checks the UTF-8 sequence starting at `start` (a byte >= 0x80) and returns the offset after it.
  ///
  /// Follows the table of well-formed sequences in the Unicode standard (3.9): no overlong forms, no
  /// surrogates, nothing above U+10FFFF.
  func validatedSequenceEnd(at start: Int) throws(StrataError) -> Int {
    let lead = bytes[start]
    guard let (length, second) = UTF8Sequence.shape(ofLead: lead) else { throw invalidUTF8(at: start) }
    guard start + length <= bytes.count, second.contains(bytes[start + 1]) else {
      throw invalidUTF8(at: start)
    }
    for offset in 2..<length where bytes[start + offset] & 0xC0 != 0x80 {
      throw invalidUTF8(at: start)
    }
    return start + length
  }

  private func invalidUTF8(at offset: Int) -> StrataError {
    error(
      .invalidUTF8, "invalid UTF-8 byte 0x\(hex(UInt32(bytes[offset]), width: 2))",
      column: offset - lineStart + 1)
  }

  private func unterminated(line startLine: Int, column startColumn: Int) -> StrataError {
    error(.unexpectedEnd, "unterminated string (started at line \(startLine), column \(startColumn))")
  }

  private func controlCharacterError(_ byte: UInt8, line startLine: Int, column startColumn: Int)
    -> StrataError
  {
    if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
      return error(
        .syntax,
        "unterminated string (started at line \(startLine), column \(startColumn)); a line break in a string must be written as \\n"
      )
    }
    return error(
      .syntax,
      "control character U+\(hex(UInt32(byte), width: 4)) in a string must be escaped (as \\u\(hex(UInt32(byte), width: 4)))"
    )
  }

  /// Parses a number at `pos`: an integer when it has no fraction or exponent and fits 64 bits, else a
  /// double.
  mutating func parseNumber() throws(StrataError) -> SettingValue.Kind {
    let start = pos
    let startColumn = column
    let negative = bytes[pos] == UInt8(ascii: "-")
    if negative { pos += 1 }
    guard pos < bytes.count, isDigit(bytes[pos]) else {
      if pos >= bytes.count { throw error(.unexpectedEnd, "expected a digit after '-', found end of file") }
      throw error(.invalidNumber, "expected a digit after '-', found \(found())")
    }
    // Significant digits are kept exactly while they fit 64 bits; past that the slow path reads the text.
    var mantissa: UInt64 = 0
    var overflow = false
    if bytes[pos] == UInt8(ascii: "0") {
      pos += 1
      if pos < bytes.count, isDigit(bytes[pos]) {
        throw error(.invalidNumber, "a number must not start with a leading zero", column: startColumn)
      }
    } else {
      while pos < bytes.count, isDigit(bytes[pos]) {
        accumulate(bytes[pos], into: &mantissa, overflow: &overflow)
        pos += 1
      }
    }
    var isInteger = true
    var fractionDigits = 0
    if pos < bytes.count, bytes[pos] == UInt8(ascii: ".") {
      isInteger = false
      pos += 1
      guard pos < bytes.count, isDigit(bytes[pos]) else {
        throw error(
          pos < bytes.count ? .invalidNumber : .unexpectedEnd, "expected a digit after '.', found \(found())")
      }
      while pos < bytes.count, isDigit(bytes[pos]) {
        accumulate(bytes[pos], into: &mantissa, overflow: &overflow)
        fractionDigits += 1
        pos += 1
      }
    }
    var exponent = 0
    if pos < bytes.count, bytes[pos] | 0x20 == UInt8(ascii: "e") {
      isInteger = false
      pos += 1
      var negativeExponent = false
      if pos < bytes.count, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") {
        negativeExponent = bytes[pos] == UInt8(ascii: "-")
        pos += 1
      }
      guard pos < bytes.count, isDigit(bytes[pos]) else {
        throw error(
          pos < bytes.count ? .invalidNumber : .unexpectedEnd,
          "expected a digit in the exponent, found \(found())")
      }
      while pos < bytes.count, isDigit(bytes[pos]) {
        // Capped: beyond this the value is infinite or zero anyway, and the slow path decides.
        if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[pos] - UInt8(ascii: "0")) }
        pos += 1
      }
      if negativeExponent { exponent = -exponent }
    }

    if isInteger, !overflow {
      if negative, mantissa <= UInt64(Int64.max) + 1 {
        return .integer(Int(truncatingIfNeeded: 0 &- mantissa))
      }
      if !negative, mantissa <= UInt64(Int64.max) { return .integer(Int(mantissa)) }
    }
    // Clinger's fast path: both operands are exact doubles, so one multiplication or division rounds
    // correctly.
    let scale = exponent - fractionDigits
    if !overflow, mantissa < 1 << 53, (-22...22).contains(scale) {
      var value = Double(mantissa)
      value = scale < 0 ? value / powersOfTen[-scale] : value * powersOfTen[scale]
      return .double(negative ? -value : value)
    }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<pos]), as: UTF8.self)
    guard let value = Double(text), value.isFinite else {
      // A pathological exponent can be thousands of digits long; the message needs only its start.
      let shown = text.utf8.count > 40 ? text.prefix(40) + "…" : Substring(text)
      throw error(.invalidNumber, "number \(shown) is too large for a double", column: startColumn)
    }
    return .double(value)
  }

  private func isDigit(_ byte: UInt8) -> Bool {
    byte &- UInt8(ascii: "0") < 10
  }

  private func accumulate(_ byte: UInt8, into mantissa: inout UInt64, overflow: inout Bool) {
    let (times10, o1) = mantissa.multipliedReportingOverflow(by: 10)
    let (sum, o2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
    if o1 || o2 { overflow = true } else { mantissa = sum }
  }
}

/// 10^0 through 10^22, every one exactly representable as a double.
let powersOfTen: [Double] = [
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
  1e19, 1e20, 1e21, 1e22,
]
