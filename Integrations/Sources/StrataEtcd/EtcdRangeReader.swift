/// Reads the answer to a range request (`{"header": {…}, "kvs": [{"key": "…", "value": "…",
/// "mod_revision": "…"}, …], "count": "…"}`) straight from its bytes: a range of 10,000 keys is 1.5 MB
/// of JSON, which `JSONDecoder` takes most of a start-up to decode.
///
/// It reads any JSON (every other field is skipped, whatever it holds), but only as deep as
/// ``maxDepth``; it stops at the first byte that is not JSON and says where.
struct EtcdRangeReader {
  /// How deeply the skipped values may nest (the answer's own fields are two levels deep).
  static let maxDepth = 64

  /// The header and the entries of `bytes`, a range answer.
  static func read(_ bytes: [UInt8]) throws(EtcdConnection.Failure) -> (
    header: EtcdConnection.Header, entries: [EtcdConnection.Entry]
  ) {
    do {
      return try bytes.withUnsafeBufferPointer { buffer throws(Problem) in
        var reader = EtcdRangeReader(bytes: buffer)
        return try reader.answer()
      }
    } catch {
      throw EtcdConnection.Failure(
        description:
          "the server's range answer is not the JSON expected: \(error.message) at byte \(error.offset)")
    }
  }

  /// Why the bytes could not be read, and where.
  struct Problem: Error {
    var message: String
    var offset: Int
  }

  private let bytes: UnsafeBufferPointer<UInt8>
  private var position = 0

  private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  /// The whole answer: one object.
  private mutating func answer() throws(Problem) -> (
    header: EtcdConnection.Header, entries: [EtcdConnection.Entry]
  ) {
    var header = EtcdConnection.Header(revision: 0, cluster: 0)
    var entries: [EtcdConnection.Entry] = []
    try object { reader, name throws(Problem) in
      switch name {
      case "header":
        try reader.object { reader, name throws(Problem) in
          switch name {
          case "revision": header.revision = try reader.number(Int.self)
          case "cluster_id": header.cluster = try reader.number(UInt64.self)
          default: try reader.skipValue(depth: 2)
          }
        }
      case "kvs":
        try reader.array { reader throws(Problem) in entries.append(try reader.entry()) }
      default:
        try reader.skipValue(depth: 1)
      }
    }
    skipSpaces()
    guard position == bytes.count else { throw problem("more after the answer") }
    return (header, entries)
  }

  /// One key and its value: `{"key": "…", "value": "…", "mod_revision": "…", …}`.
  private mutating func entry() throws(Problem) -> EtcdConnection.Entry {
    var entry = EtcdConnection.Entry(key: [], value: [], modRevision: 0)
    var hasKey = false
    try object { reader, name throws(Problem) in
      switch name {
      case "key":
        entry.key = try reader.base64()
        hasKey = true
      case "value": entry.value = try reader.base64()
      case "mod_revision": entry.modRevision = try reader.number(Int.self)
      default: try reader.skipValue(depth: 3)
      }
    }
    guard hasKey else { throw problem("an entry without a key") }
    return entry
  }

  /// Reads an object, calling `member` with each member's name (the reader at its value).
  private mutating func object(
    _ member: (inout EtcdRangeReader, String) throws(Problem) -> Void
  ) throws(Problem) {
    try expect(UInt8(ascii: "{"))
    skipSpaces()
    if peek() == UInt8(ascii: "}") {
      position += 1
      return
    }
    while true {
      skipSpaces()
      let name = try string()
      skipSpaces()
      try expect(UInt8(ascii: ":"))
      skipSpaces()
      try member(&self, name)
      skipSpaces()
      switch next() {
      case UInt8(ascii: ","): continue
      case UInt8(ascii: "}"): return
      default: throw problem("expected ',' or '}' in an object", back: 1)
      }
    }
  }

  /// Reads an array, calling `element` with the reader at each element.
  private mutating func array(_ element: (inout EtcdRangeReader) throws(Problem) -> Void) throws(Problem) {
    try expect(UInt8(ascii: "["))
    skipSpaces()
    if peek() == UInt8(ascii: "]") {
      position += 1
      return
    }
    while true {
      skipSpaces()
      try element(&self)
      skipSpaces()
      switch next() {
      case UInt8(ascii: ","): continue
      case UInt8(ascii: "]"): return
      default: throw problem("expected ',' or ']' in an array", back: 1)
      }
    }
  }

  /// A 64-bit number, written as a string (the gateway's way) or as a number.
  private mutating func number<Value: FixedWidthInteger>(_ type: Value.Type) throws(Problem) -> Value {
    let start = position
    let text: Substring
    if peek() == UInt8(ascii: "\"") {
      text = Substring(try string())
    } else {
      while let byte = peek(),
        byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
      {
        position += 1
      }
      text = Substring(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }
    guard let value = Value(text) else {
      position = start
      throw problem("expected a number")
    }
    return value
  }

  /// The bytes of a base64 string.
  private mutating func base64() throws(Problem) -> [UInt8] {
    let start = position
    let text = try stringBytes()
    guard let decoded = EtcdBase64.decode(text) else {
      position = start
      throw problem("a string that is not base64")
    }
    return decoded
  }

  /// A string's text.
  private mutating func string() throws(Problem) -> String {
    String(decoding: try stringBytes(), as: UTF8.self)
  }

  /// A string's bytes, its escapes decoded.
  private mutating func stringBytes() throws(Problem) -> [UInt8] {
    try expect(UInt8(ascii: "\""))
    let start = position
    // The common case: no escape, so the bytes are the string's.
    while let byte = peek(), byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
      guard byte >= 0x20 else { throw problem("a control character in a string") }
      position += 1
    }
    var text = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
    while true {
      guard let byte = next() else { throw problem("a string without its closing quote") }
      switch byte {
      case UInt8(ascii: "\""):
        return text
      case UInt8(ascii: "\\"):
        try escape(into: &text)
      case ..<0x20:
        throw problem("a control character in a string", back: 1)
      default:
        text.append(byte)
      }
    }
  }

  /// Decodes the escape after a backslash into `text`.
  private mutating func escape(into text: inout [UInt8]) throws(Problem) {
    guard let kind = next() else { throw problem("a string without its closing quote") }
    switch kind {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(kind)
    case UInt8(ascii: "b"): text.append(0x08)
    case UInt8(ascii: "f"): text.append(0x0C)
    case UInt8(ascii: "n"): text.append(0x0A)
    case UInt8(ascii: "r"): text.append(0x0D)
    case UInt8(ascii: "t"): text.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = try hex4()
      if (0xD800..<0xDC00).contains(scalar) {
        guard next() == UInt8(ascii: "\\"), next() == UInt8(ascii: "u") else {
          throw problem("a lone surrogate escape", back: 2)
        }
        let low = try hex4()
        guard (0xDC00..<0xE000).contains(low) else { throw problem("a lone surrogate escape", back: 6) }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      }
      guard let unicode = Unicode.Scalar(scalar) else { throw problem("a lone surrogate escape", back: 6) }
      text += Array(String(Character(unicode)).utf8)
    default:
      throw problem("an unknown escape", back: 2)
    }
  }

  /// Four hex digits of a `\u` escape.
  private mutating func hex4() throws(Problem) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard let byte = next(), let digit = Self.hexDigit(byte) else {
        throw problem("a bad \\u escape", back: 1)
      }
      value = value << 4 | digit
    }
    return value
  }

  private static func hexDigit(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
  }

  /// Skips any JSON value at `depth` (a deeper one than ``maxDepth`` is refused).
  private mutating func skipValue(depth: Int) throws(Problem) {
    guard depth <= Self.maxDepth else { throw problem("values nested deeper than \(Self.maxDepth)") }
    switch peek() {
    case UInt8(ascii: "{"): try object { reader, _ throws(Problem) in try reader.skipValue(depth: depth + 1) }
    case UInt8(ascii: "["): try array { reader throws(Problem) in try reader.skipValue(depth: depth + 1) }
    case UInt8(ascii: "\""): _ = try stringBytes()
    case UInt8(ascii: "t"): try word("true")
    case UInt8(ascii: "f"): try word("false")
    case UInt8(ascii: "n"): try word("null")
    default:
      let start = position
      while let byte = peek(), Self.isNumberByte(byte) { position += 1 }
      guard position > start else { throw problem("expected a value") }
    }
  }

  private static func isNumberByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
      UInt8(ascii: "e"), UInt8(ascii: "E"):
      true
    default: false
    }
  }

  /// Reads the literal `word`.
  private mutating func word(_ word: StaticString) throws(Problem) {
    let start = position
    for expected in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
      guard next() == expected else {
        position = start
        throw problem("expected a value")
      }
    }
  }

  private mutating func expect(_ byte: UInt8) throws(Problem) {
    guard peek() == byte else {
      throw problem("expected '\(Character(Unicode.Scalar(byte)))'")
    }
    position += 1
  }

  private func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

  private mutating func next() -> UInt8? {
    guard position < bytes.count else { return nil }
    defer { position += 1 }
    return bytes[position]
  }

  private mutating func skipSpaces() {
    while let byte = peek(),
      byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
        || byte == UInt8(ascii: "\t")
    {
      position += 1
    }
  }

  /// A problem at the current position, less `back` bytes.
  private func problem(_ message: String, back: Int = 0) -> Problem {
    Problem(message: message, offset: max(0, position - back))
  }
}
