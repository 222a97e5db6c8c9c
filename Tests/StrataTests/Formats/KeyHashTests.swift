import Testing

@testable import Strata

/// ``KeyHash`` reads keys a word at a time with overlapping loads, and ``KeyInterner`` keeps two
/// candidate slots per key: both must give exactly what byte-by-byte rules give, at every length and at
/// the very end of a buffer.
@Suite("Key hashes and interning")
struct KeyHashTests {
  /// The hash of `bytes` read from an allocation of exactly their size, so that a read past the end
  /// would leave the buffer (and trip the address sanitizer in the fuzz build).
  func exactHash(_ bytes: [UInt8]) -> UInt32 {
    let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
    defer { buffer.deallocate() }
    _ = buffer.initialize(from: bytes)
    return KeyHash.of(UnsafeBufferPointer(buffer))
  }

  @Test("ASCII keys of every length up to 40 hash to a non-zero value; any non-ASCII byte gives 0")
  func asciiAndNonASCIIAtEveryLengthAndPosition() {
    for length in 0...40 {
      let ascii = (0..<length).map { UInt8(0x21 + $0 % 90) }
      let hash = exactHash(ascii)
      #expect(hash != 0, "length \(length)")
      #expect(hash == KeyHash.of(String(decoding: ascii, as: UTF8.self)), "length \(length)")
      for position in 0..<length {
        var marked = ascii
        marked[position] = 0xC3
        #expect(exactHash(marked) == 0, "length \(length), non-ASCII at \(position)")
      }
    }
  }

  @Test("every byte of a key counts: changing any one byte of any length changes the hash")
  func everyByteCounts() {
    for length in 1...40 {
      let key = (0..<length).map { UInt8(0x41 + $0 % 26) }
      let hash = exactHash(key)
      for position in 0..<length {
        var changed = key
        changed[position] = 0x30
        #expect(exactHash(changed) != hash, "length \(length), byte \(position)")
      }
    }
  }

  @Test("keys that differ only in length (a prefix, trailing spaces) hash apart")
  func lengthsHashApart() {
    var seen: [UInt32: String] = [:]
    for length in 0...24 {
      let key = String(repeating: "a", count: length)
      #expect(seen[KeyHash.of(key)] == nil, "\(key) collides with \(seen[KeyHash.of(key)] ?? "")")
      seen[KeyHash.of(key)] = key
    }
    #expect(KeyHash.of("port") != KeyHash.of("port "))
  }

  @Test("a slice at the end of a larger buffer hashes like the same bytes on their own")
  func slicesHashLikeTheirBytes() {
    let text = Array("[section]\noption12 = value\nk = v".utf8)
    text.withUnsafeBufferPointer { whole in
      for start in 0..<whole.count {
        for end in start...whole.count {
          let slice = UnsafeBufferPointer(rebasing: whole[start..<end])
          #expect(KeyHash.of(slice) == exactHash(Array(slice)))
        }
      }
    }
  }

  @Test("the low bits that slot numbers use are spread: twenty option names fill distinct slots")
  func lowBitsSpread() {
    let slots = Set((0..<20).map { KeyHash.of("option\($0)") & 0x3F })
    // Not a fixed answer (that would pin the function); a hash whose low bit is constant, as FNV-1a
    // with `| 1` was, could use at most 32 of the 64 slots and would collide here far more.
    #expect(slots.count >= 14)
    #expect(Set((0..<64).map { KeyHash.of("k\($0)") & 1 }).count == 2)
  }

  @Test("the interner returns the key spelled by the bytes, for repeats, collisions and long keys")
  func internerReturnsTheSpelledKey() {
    var interner = KeyInterner()
    let names =
      (0..<200).map { "option\($0)" } + [
        "a", "", "fifteen-bytes-x", "sixteen-bytes-xx", "caf\u{E9}", "e\u{301}",
      ]
    for round in 0..<3 {
      for name in names {
        var bytes = Array(name.utf8)
        let key = bytes.withUnsafeMutableBufferPointer { buffer in
          let view = UnsafeBufferPointer(buffer)
          return interner.key(view, hash: KeyHash.of(view))
        }
        #expect(key == name, "round \(round)")
        #expect(Array(key.utf8) == Array(name.utf8), "round \(round)")
        bytes.removeAll()
      }
    }
  }

  @Test("INI key lines stop at exactly the special bytes, whatever the byte")
  func keyLineSpecialBytes() {
    let special: Set<UInt8> = [
      INIByte.equals, INIByte.colon, INIByte.doubleQuote, INIByte.dot, INIByte.hash, INIByte.semicolon,
      INIByte.space, INIByte.tab,
    ]
    for byte in UInt8.min...UInt8.max {
      #expect(INIByte.isKeyLineSpecial(byte) == special.contains(byte), "byte \(byte)")
    }
  }
}
