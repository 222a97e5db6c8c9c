/// Whether a file holds nothing but blanks and line breaks (after a UTF-8 byte-order mark): an empty
/// document in every format, as a zero-byte file is, not a JSON or plist syntax error.
func isBlankDocument(_ bytes: [UInt8]) -> Bool {
  let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
  return body.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
}
