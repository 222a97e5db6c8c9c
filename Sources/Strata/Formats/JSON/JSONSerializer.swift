#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Writes a tree as pretty-printed JSON: two-space indent, keys in table order, a newline at the end.
///
/// Dates become ISO 8601 strings and data becomes base64 strings, since JSON has neither; reading the
/// file back gives strings in their place.
struct JSONSerializer {
  /// The deepest nesting written. Trees this deep do not come from files (the parser stops at
  /// `ParseOptions.maxDepth`), and the limit keeps the recursion within a small thread stack.
  static let maxDepth = 512

  private var output: [UInt8] = []
  /// One line (`{"a": 1, "b": [2, 3]}`) instead of indented lines, for JSON-lines output.
  private var compact = false
  /// Whether an infinite or NaN double is written as the string `"inf"`, `"-inf"` or `"nan"` (a view
  /// of the values, such as `config-dump`'s) rather than refused (a file, which would read back
  /// different).
  private var nonFiniteAsText = false

  /// Serializes any value (a table, for a configuration file).
  /// - Parameter nonFiniteAsText: write an infinite or NaN double as `"inf"`, `"-inf"` or `"nan"`
  ///   instead of refusing it.
  static func serialize(_ value: SettingValue, nonFiniteAsText: Bool = false) throws(StrataError) -> [UInt8] {
    var serializer = JSONSerializer()
    serializer.nonFiniteAsText = nonFiniteAsText
    try serializer.write(value, depth: 0)
    serializer.output.append(UInt8(ascii: "\n"))
    return serializer.output
  }

  /// Serializes any value on one line, without the final newline: `{"key": "a", "new": [1, 2]}`.
  static func serializeLine(_ value: SettingValue) throws(StrataError) -> String {
    var serializer = JSONSerializer()
    serializer.compact = true
    serializer.nonFiniteAsText = true
    try serializer.write(value, depth: 0)
    return String(decoding: serializer.output, as: UTF8.self)
  }

  private mutating func write(_ value: SettingValue, depth: Int) throws(StrataError) {
    switch value.kind {
    case .string(let text): writeString(text)
    case .integer(let number): output.append(contentsOf: String(number).utf8)
    case .unsignedInteger(let number): output.append(contentsOf: String(number).utf8)
    case .double(let number): try writeDouble(number, origin: value.origin)
    case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
    case .date(let date): writeString(ISODateText.format(date))
    case .data(let data): writeString(data.base64EncodedString())
    case .array(let elements):
      guard !elements.isEmpty else { return output.append(contentsOf: "[]".utf8) }
      try checkDepth(depth, origin: value.origin)
      output.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { output.append(contentsOf: compact ? ", ".utf8 : ",".utf8) }
        newline(depth + 1)
        try write(element, depth: depth + 1)
      }
      newline(depth)
      output.append(UInt8(ascii: "]"))
    case .table(let table):
      guard !table.isEmpty else { return output.append(contentsOf: "{}".utf8) }
      try checkDepth(depth, origin: value.origin)
      output.append(UInt8(ascii: "{"))
      for (index, entry) in table.storage.enumerated() {
        if index > 0 { output.append(contentsOf: compact ? ", ".utf8 : ",".utf8) }
        newline(depth + 1)
        writeString(entry.key)
        output.append(contentsOf: ": ".utf8)
        try write(entry.value, depth: depth + 1)
      }
      newline(depth)
      output.append(UInt8(ascii: "}"))
    }
  }

  private func checkDepth(_ depth: Int, origin: Origin) throws(StrataError) {
    guard depth >= Self.maxDepth else { return }
    throw StrataError(
      .nestingTooDeep, "cannot write arrays and tables nested more than \(Self.maxDepth) deep (at \(origin))")
  }

  private mutating func newline(_ depth: Int) {
    if compact { return }
    output.append(UInt8(ascii: "\n"))
    output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
  }

  /// Writes a double so that it reads back as a double with the same value: the shortest form that
  /// round-trips (Swift's `description`), with `.0` added when that form would read as an integer.
  private mutating func writeDouble(_ number: Double, origin: Origin) throws(StrataError) {
    guard number.isFinite else {
      if nonFiniteAsText { return writeString(number.isNaN ? "nan" : number < 0 ? "-inf" : "inf") }
      throw StrataError(
        .invalidValue, "cannot write \(number) (at \(origin)): JSON has no infinity or NaN")
    }
    let text = number.description
    output.append(contentsOf: text.utf8)
    if !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") }) {
      output.append(contentsOf: ".0".utf8)
    }
  }

  private mutating func writeString(_ text: String) {
    output.append(UInt8(ascii: "\""))
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
      case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
      case UInt8(ascii: "\n"): output.append(contentsOf: #"\n"#.utf8)
      case UInt8(ascii: "\r"): output.append(contentsOf: #"\r"#.utf8)
      case UInt8(ascii: "\t"): output.append(contentsOf: #"\t"#.utf8)
      case 0x08: output.append(contentsOf: #"\b"#.utf8)
      case 0x0C: output.append(contentsOf: #"\f"#.utf8)
      case 0..<0x20: output.append(contentsOf: "\\u\(hex(UInt32(byte), width: 4))".utf8)
      default: output.append(byte)
      }
    }
    output.append(UInt8(ascii: "\""))
  }
}
