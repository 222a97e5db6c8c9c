/// Standard base64 (RFC 4648, with padding), as etcd's gateway writes keys and values.
enum EtcdBase64 {
  /// The bytes `text` encodes, or `nil` when it is not padded base64.
  static func decode(_ text: [UInt8]) -> [UInt8]? {
    guard text.count % 4 == 0 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.count / 4 * 3)
    var index = 0
    while index < text.count {
      let last = index + 4 == text.count
      guard let a = value(text[index]), let b = value(text[index + 1]) else { return nil }
      bytes.append(a << 2 | b >> 4)
      let (third, fourth) = (text[index + 2], text[index + 3])
      if last && third == UInt8(ascii: "=") {
        guard fourth == UInt8(ascii: "="), b & 0x0F == 0 else { return nil }
        return bytes
      }
      guard let c = value(third) else { return nil }
      bytes.append((b & 0x0F) << 4 | c >> 2)
      if last && fourth == UInt8(ascii: "=") {
        guard c & 0x03 == 0 else { return nil }
        return bytes
      }
      guard let d = value(fourth) else { return nil }
      bytes.append((c & 0x03) << 6 | d)
      index += 4
    }
    return bytes
  }

  /// The six bits a base64 character stands for.
  private static func value(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
    case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
    case UInt8(ascii: "+"): 62
    case UInt8(ascii: "/"): 63
    default: nil
    }
  }
}
