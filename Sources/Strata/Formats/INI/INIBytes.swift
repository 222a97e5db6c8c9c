/// Byte constants and small byte-level helpers shared by the INI parser and serializer.
enum INIByte {
  static let tab: UInt8 = 0x09
  static let newline: UInt8 = 0x0A
  static let carriageReturn: UInt8 = 0x0D
  static let space: UInt8 = 0x20
  static let exclamation: UInt8 = 0x21
  static let doubleQuote: UInt8 = 0x22
  static let hash: UInt8 = 0x23
  static let singleQuote: UInt8 = 0x27
  static let dot: UInt8 = 0x2E
  static let colon: UInt8 = 0x3A
  static let semicolon: UInt8 = 0x3B
  static let equals: UInt8 = 0x3D
  static let openBracket: UInt8 = 0x5B
  static let backslash: UInt8 = 0x5C
  static let closeBracket: UInt8 = 0x5D

  @inline(__always) static func isSpace(_ byte: UInt8) -> Bool { byte == space || byte == tab }
  @inline(__always) static func isCommentStart(_ byte: UInt8) -> Bool { byte == hash || byte == semicolon }

  /// The bytes a key line's scan for its delimiter stops at (all below 64), one bit each: `=` `:` `"`
  /// `.` `#` `;`, space and tab (a test checks the constant against the list).
  static let keyLineSpecialBits: UInt64 = 0x2C00_400D_0000_0200

  /// Whether a key line's scan stops at `byte` (see ``keyLineSpecialBits``).
  @inline(__always) static func isKeyLineSpecial(_ byte: UInt8) -> Bool {
    byte < 64 && keyLineSpecialBits &>> UInt64(byte) & 1 != 0
  }

  /// The offset of the first `#` or `;` in `bytes[start..<end]`, or `end`. Reads eight bytes at a time:
  /// most values are longer than a word and hold neither.
  @inline(__always)
  static func firstCommentCandidate(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int
  {
    var i = start
    let base = UnsafeRawPointer(bytes.baseAddress!)
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    while i + 8 <= end {
      let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
      let hashes = word ^ (ones &* UInt64(hash))
      let semicolons = word ^ (ones &* UInt64(semicolon))
      // A zero byte in either marks a match (the classic "has zero byte" test; exact for the lowest).
      let found = ((hashes &- ones) & ~hashes | (semicolons &- ones) & ~semicolons) & highs
      if found != 0 { return i + found.trailingZeroBitCount / 8 }
      i += 8
    }
    while i < end && !isCommentStart(bytes[i]) { i += 1 }
    return i
  }

  /// The value of a hex digit, or `nil`.
  static func hexValue(_ byte: UInt8) -> UInt32? {
    switch byte {
    case 0x30...0x39: UInt32(byte - 0x30)
    case 0x41...0x46: UInt32(byte - 0x41 + 10)
    case 0x61...0x66: UInt32(byte - 0x61 + 10)
    default: nil
    }
  }

  /// Appends the UTF-8 encoding of a scalar.
  static func appendUTF8(_ scalar: Unicode.Scalar, to buffer: inout [UInt8]) {
    buffer.append(contentsOf: UTF8.encode(scalar)!)
  }

  /// A printable rendering of a byte for messages: the character, or `0xNN`.
  static func describe(_ byte: UInt8) -> String {
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    if byte == space { return "a space" }
    if byte == tab { return "a tab" }
    return "byte 0x" + String(byte, radix: 16, uppercase: true)
  }
}

/// UTF-8 validation with the offset of the first bad byte, so that the error can carry a position.
enum INIUTF8 {
  /// The offset of the first byte that is not part of well-formed UTF-8 (no overlongs, surrogates or
  /// values past U+10FFFF), or `nil` when all of `bytes` is valid.
  static func firstInvalidOffset(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    var i = 0
    let count = bytes.count
    guard let base = bytes.baseAddress else { return nil }
    while i < count {
      // Config files are nearly all ASCII: check eight bytes at a time before decoding.
      if i + 8 <= count {
        let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
        if word & 0x8080_8080_8080_8080 == 0 {
          i += 8
          continue
        }
      }
      let lead = base[i]
      if lead < 0x80 {
        i += 1
        continue
      }
      guard let (length, second) = UTF8Sequence.shape(ofLead: lead) else { return i }
      guard i + 1 < count, second.contains(base[i + 1]) else { return i }
      for k in 2..<length {
        guard i + k < count, base[i + k] & 0xC0 == 0x80 else { return i }
      }
      i += length
    }
    return nil
  }

  /// The 1-based line and byte column of `offset`, counting lines from `start`.
  static func position(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>, start: Int) -> (Int, Int) {
    var line = 1
    var lineStart = start
    for i in start..<offset where bytes[i] == INIByte.newline {
      line += 1
      lineStart = i + 1
    }
    return (line, offset - lineStart + 1)
  }
}
