/// Whether bytes are ASCII, a machine word at a time (parsers that can take ASCII text as it stands).
enum ASCIIBytes {
  /// Whether every byte is below 0x80.
  static func all(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = text.baseAddress else { return true }
    let raw = UnsafeRawPointer(base)
    var seen: UInt64 = 0
    var i = 0
    while i + 8 <= text.count {
      seen |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
      i += 8
    }
    while i < text.count {
      seen |= UInt64(base[i])
      i += 1
    }
    return seen & 0x8080_8080_8080_8080 == 0
  }
}
