import Testing

@testable import Strata

/// The byte-class and word-at-a-time helpers of the XML property list reader, against byte-by-byte rules.
@Suite("XML plist scanning helpers")
struct XMLPropertyListScanningTests {
  @Test("element-name bytes are exactly ASCII letters, digits, - _ . : and every non-ASCII byte")
  func nameBytes() {
    for byte in UInt8.min...UInt8.max {
      let scalar = Unicode.Scalar(byte)
      let expected =
        byte >= 0x80
        || (("a"..."z").contains(Character(scalar))
          || ("A"..."Z").contains(Character(scalar)) || ("0"..."9").contains(Character(scalar))
          || "-_.:".unicodeScalars.contains(scalar))
      #expect(byte.isNameByte == expected, "byte \(byte)")
    }
  }

  /// Line and column of `offset` counted one byte at a time (`\n`, a lone `\r`, and `\r\n` end lines).
  func naivePosition(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
    var line = 1
    var lineStart = 0
    for i in 0..<min(offset, bytes.count) {
      let c = bytes[i]
      if c == 0x0A || (c == 0x0D && (i + 1 >= bytes.count || bytes[i + 1] != 0x0A)) {
        line += 1
        lineStart = i + 1
      }
    }
    return (line, offset - lineStart + 1)
  }

  @Test("the line counter gives every offset's position, asked in order, in steps, and going back")
  func lineCounterAtEveryOffset() {
    let texts = [
      "", "\n", "a", "abcdefg", "abcdefgh", "a\nb", "\n\n\n\n\n\n\n\n\n", "<a>\n\t<b>x</b>\n</a>\n",
      "12345678\n12345678\n1234567\n123456789\n", "no newline at the end, longer than a word",
      "a\r\nb\rc\n\rd\r", "x\r",
    ]
    for text in texts {
      // An allocation of exactly the text's size: a read past its end would leave it.
      let bytes = Array(text.utf8)
      let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
      defer { buffer.deallocate() }
      _ = buffer.initialize(from: bytes)
      let view = UnsafeBufferPointer(buffer)
      for step in 1...9 {
        var counter = LineCounter()
        for offset in stride(from: 0, through: bytes.count, by: step) {
          let found = counter.position(of: offset, in: view)
          let expected = naivePosition(of: offset, in: bytes)
          #expect(
            found.line == expected.line && found.column == expected.column,
            "\(text.debugDescription) offset \(offset) step \(step)")
        }
        // Asking for an earlier offset starts the count again.
        let back = counter.position(of: 0, in: view)
        #expect(back.line == 1 && back.column == 1, "\(text.debugDescription) back to 0")
      }
    }
  }
}
