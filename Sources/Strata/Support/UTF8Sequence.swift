/// The shape of a well-formed multi-byte UTF-8 sequence (Unicode 3.9, table 3-7): no overlong forms, no
/// surrogates, nothing above U+10FFFF. Shared by the parsers that validate bytes as they scan them.
enum UTF8Sequence {
  /// For a lead byte of 0x80 or more: the sequence's length and the range its second byte must fall
  /// in (the other continuation bytes are 0x80…0xBF). `nil` when no sequence starts with `lead`.
  @inline(__always)
  static func shape(ofLead lead: UInt8) -> (length: Int, second: ClosedRange<UInt8>)? {
    switch lead {
    case 0xC2...0xDF: (2, 0x80...0xBF)
    case 0xE0: (3, 0xA0...0xBF)
    case 0xE1...0xEC, 0xEE...0xEF: (3, 0x80...0xBF)
    case 0xED: (3, 0x80...0x9F)
    case 0xF0: (4, 0x90...0xBF)
    case 0xF1...0xF3: (4, 0x80...0xBF)
    case 0xF4: (4, 0x80...0x8F)
    default: nil
    }
  }
}
