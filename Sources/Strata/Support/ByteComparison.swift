import StrataPlatform

/// Comparisons of whole byte buffers, a machine word at a time.
enum ByteComparison {
  /// Whether both buffers hold the same bytes.
  static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    return a.withUnsafeBytes { a in
      b.withUnsafeBytes { b in a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
    }
  }

  /// The length of the longest common prefix of `a` and `b`, and that of the longest common suffix of
  /// what is left after it (so that the two never overlap): `a[prefix..<a.count - suffix]` was replaced
  /// by `b[prefix..<b.count - suffix]`.
  static func commonEnds(_ a: [UInt8], _ b: [UInt8]) -> (prefix: Int, suffix: Int) {
    a.withUnsafeBytes { a in
      b.withUnsafeBytes { b in
        let shorter = min(a.count, b.count)
        var prefix = 0
        while prefix + 8 <= shorter,
          a.loadUnaligned(fromByteOffset: prefix, as: UInt64.self)
            == b.loadUnaligned(fromByteOffset: prefix, as: UInt64.self)
        {
          prefix += 8
        }
        while prefix < shorter, a[prefix] == b[prefix] { prefix += 1 }
        let limit = shorter - prefix
        var suffix = 0
        while suffix + 8 <= limit,
          a.loadUnaligned(fromByteOffset: a.count - suffix - 8, as: UInt64.self)
            == b.loadUnaligned(fromByteOffset: b.count - suffix - 8, as: UInt64.self)
        {
          suffix += 8
        }
        while suffix < limit, a[a.count - suffix - 1] == b[b.count - suffix - 1] { suffix += 1 }
        return (prefix, suffix)
      }
    }
  }

  /// The number of line feeds in `bytes[range]`.
  static func lineFeeds(in bytes: [UInt8], _ range: Range<Int>) -> Int {
    var count = 0
    for index in range where bytes[index] == 0x0A { count += 1 }
    return count
  }
}
