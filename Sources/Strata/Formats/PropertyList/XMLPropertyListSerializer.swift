#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Writes XML property lists as Apple's tools do: tab indentation, the DOCTYPE, `<plist version="1.0">`.
struct XMLPropertyListSerializer {
  private var out: [UInt8] = []

  /// The bytes of an XML property list holding `value`.
  static func serialize(_ value: SettingValue) throws(StrataError) -> [UInt8] {
    var serializer = XMLPropertyListSerializer()
    serializer.append(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0">

      """)
    try serializer.write(value, depth: 0)
    serializer.append("</plist>\n")
    return serializer.out
  }

  private mutating func append(_ s: String) { out.append(contentsOf: s.utf8) }

  private mutating func indent(_ depth: Int) {
    for _ in 0..<depth { out.append(.tab) }
  }

  private mutating func write(_ value: SettingValue, depth: Int) throws(StrataError) {
    indent(depth)
    switch value.kind {
    case .string(let s):
      append("<string>")
      try escape(s)
      append("</string>\n")
    case .integer(let i):
      append("<integer>\(i)</integer>\n")
    case .unsignedInteger(let u):
      append("<integer>\(u)</integer>\n")
    case .double(let d):
      // `description` is the shortest text that reads back as the same Double, and spells infinities
      // and NaN as `inf`, `-inf`, `nan`, as plistlib does.
      append("<real>\(d.description)</real>\n")
    case .bool(let b):
      append(b ? "<true/>\n" : "<false/>\n")
    case .date(let d):
      // A binary plist can hold any finite date; XML's text has four-digit years.
      guard xmlDateSeconds.contains(d.timeIntervalSince1970) else {
        throw StrataError(
          .invalidValue,
          "the date \(d.timeIntervalSince1970) s from 1970 cannot be written in an XML property list, "
            + "which holds the years 0000 to 9999; use binary")
      }
      append("<date>\(formatDate(d))</date>\n")
    case .data(let d):
      writeData(d, depth: depth)
    case .array(let items):
      try checkDepth(depth)
      guard !items.isEmpty else { return append("<array/>\n") }
      append("<array>\n")
      for item in items { try write(item, depth: depth + 1) }
      indent(depth)
      append("</array>\n")
    case .table(let table):
      try checkDepth(depth)
      guard !table.isEmpty else { return append("<dict/>\n") }
      append("<dict>\n")
      for (key, item) in table {
        indent(depth + 1)
        append("<key>")
        try escape(key)
        append("</key>\n")
        try write(item, depth: depth + 1)
      }
      indent(depth)
      append("</dict>\n")
    }
  }

  private func checkDepth(_ depth: Int) throws(StrataError) {
    guard depth < PropertyListFormat.maxSerializedDepth else {
      throw StrataError(
        .nestingTooDeep,
        "arrays and tables nested deeper than \(PropertyListFormat.maxSerializedDepth) levels")
    }
  }

  /// Base64 on its own lines, as Apple writes it, so long data stays readable in an editor.
  private mutating func writeData(_ data: Data, depth: Int) {
    guard !data.isEmpty else { return append("<data></data>\n") }
    append("<data>\n")
    let encoded = Array(data.base64EncodedString().utf8)
    let width = max(16, 76 - 8 * depth)
    var start = 0
    while start < encoded.count {
      indent(depth)
      out.append(contentsOf: encoded[start..<min(start + width, encoded.count)])
      out.append(.newline)
      start += width
    }
    indent(depth)
    append("</data>\n")
  }

  /// Escapes `& < >`, and CR so that it survives XML's line-end normalization.
  private mutating func escape(_ s: String) throws(StrataError) {
    for byte in s.utf8 {
      switch byte {
      case .amp: append("&amp;")
      case .lt: append("&lt;")
      case .gt: append("&gt;")
      case .cr: append("&#13;")
      case .tab, .newline: out.append(byte)
      case 0..<0x20, 0x7F:
        throw StrataError(
          .invalidValue,
          "control character 0x\(String(byte, radix: 16)) cannot be written in an XML property list; use binary"
        )
      default: out.append(byte)
      }
    }
  }
}
