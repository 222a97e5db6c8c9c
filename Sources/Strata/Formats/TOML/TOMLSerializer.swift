#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Writes a tree as TOML: a table's scalars and arrays as `key = value` lines, then each table under a
/// `[header]` and each array of tables as `[[header]]` elements.
///
/// Dates become offset date-times in UTC (`1979-05-27T07:32:00Z`, with a fraction when there is one);
/// data becomes a base64 string. An array that holds tables among other values is written inline, its
/// tables as `{ inline = tables }`.
struct TOMLSerializer {
  /// The deepest nesting written (the recursion stays within a small thread stack).
  static let maxDepth = 512

  private var output: [UInt8] = []

  /// Serializes a table.
  static func serialize(_ value: SettingValue) throws(StrataError) -> [UInt8] {
    guard let table = value.table else {
      throw StrataError(
        .typeMismatch, "a configuration file must hold a table at the top, found a \(value.typeName)")
    }
    var serializer = TOMLSerializer()
    try serializer.writeSection(table, path: [], depth: 0)
    return serializer.output
  }

  /// A key as TOML writes it: bare when it can be, else a basic string.
  static func key(_ name: String) -> String {
    if !name.isEmpty, name.utf8.allSatisfy(TOMLParser.isBareKeyByte) { return name }
    return quoted(name)
  }

  /// A basic string with the escapes TOML needs.
  static func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case "\u{08}": result += "\\b"
      case "\u{0C}": result += "\\f"
      case "\u{00}"..."\u{1F}", "\u{7F}": result += "\\u" + hex(scalar.value, width: 4)
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }

  /// Whether an array is written as `[[header]]` elements: a non-empty array of tables only.
  private static func isArrayOfTables(_ value: SettingValue) -> Bool {
    guard case .array(let elements) = value.kind, !elements.isEmpty else { return false }
    return elements.allSatisfy(\.isTable)
  }

  private mutating func writeSection(_ table: SettingTable, path: [String], depth: Int) throws(StrataError) {
    try checkDepth(depth)
    for entry in table where !entry.value.isTable && !Self.isArrayOfTables(entry.value) {
      output.append(contentsOf: (Self.key(entry.key) + " = ").utf8)
      try writeInline(entry.value, depth: depth + 1)
      output.append(UInt8(ascii: "\n"))
    }
    for entry in table where entry.value.isTable || Self.isArrayOfTables(entry.value) {
      let childPath = path + [entry.key]
      let header = childPath.map(Self.key).joined(separator: ".")
      if let child = entry.value.table {
        output.append(contentsOf: ((output.isEmpty ? "" : "\n") + "[" + header + "]\n").utf8)
        try writeSection(child, path: childPath, depth: depth + 1)
      } else if case .array(let elements) = entry.value.kind {
        for element in elements {
          output.append(contentsOf: ((output.isEmpty ? "" : "\n") + "[[" + header + "]]\n").utf8)
          try writeSection(element.table ?? SettingTable(), path: childPath, depth: depth + 1)
        }
      }
    }
  }

  private mutating func writeInline(_ value: SettingValue, depth: Int) throws(StrataError) {
    switch value.kind {
    case .string(let text): output.append(contentsOf: Self.quoted(text).utf8)
    case .integer(let number): output.append(contentsOf: String(number).utf8)
    case .unsignedInteger(let number):
      throw StrataError(
        .typeMismatch,
        "cannot write \(number) (at \(value.origin)): TOML integers are signed 64-bit, up to \(Int.max)")
    case .double(let number): output.append(contentsOf: Self.double(number).utf8)
    case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
    case .date(let date): output.append(contentsOf: try Self.dateText(date).utf8)
    case .data(let data): output.append(contentsOf: Self.quoted(data.base64EncodedString()).utf8)
    case .array(let elements):
      try checkDepth(depth)
      output.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { output.append(contentsOf: ", ".utf8) }
        try writeInline(element, depth: depth + 1)
      }
      output.append(UInt8(ascii: "]"))
    case .table(let table):
      try checkDepth(depth)
      guard !table.isEmpty else { return output.append(contentsOf: "{}".utf8) }
      output.append(contentsOf: "{ ".utf8)
      for (index, entry) in table.enumerated() {
        if index > 0 { output.append(contentsOf: ", ".utf8) }
        output.append(contentsOf: (Self.key(entry.key) + " = ").utf8)
        try writeInline(entry.value, depth: depth + 1)
      }
      output.append(contentsOf: " }".utf8)
    }
  }

  private func checkDepth(_ depth: Int) throws(StrataError) {
    guard depth >= Self.maxDepth else { return }
    throw StrataError(
      .nestingTooDeep, "cannot write arrays and tables nested more than \(Self.maxDepth) deep")
  }

  /// A float that reads back equal: `inf`, `nan`, or Swift's shortest round-trip form with `.0` added
  /// where it would read as an integer.
  static func double(_ number: Double) -> String {
    if number.isNaN { return "nan" }
    if number.isInfinite { return number < 0 ? "-inf" : "inf" }
    let text = number.description
    return text.contains(where: { $0 == "." || $0 == "e" }) ? text : text + ".0"
  }

  /// An offset date-time in UTC: `1979-05-27T07:32:00Z`, with the fraction of a second when there is
  /// one (to the microsecond). TOML's years have four digits: an instant just past 9999 (or before 0000)
  /// in UTC is written at the offset `-23:59` (`+23:59`) that brings it within them.
  static func dateText(_ date: Date) throws(StrataError) -> String {
    let interval = date.timeIntervalSince1970
    var seconds = Int(interval.rounded(.down))
    var micros = Int(((interval - Double(seconds)) * 1_000_000).rounded())
    if micros == 1_000_000 {
      seconds += 1
      micros = 0
    }
    let widest = 23 * 3600 + 59 * 60
    var suffix = "Z"
    if seconds >= 253_402_300_800 {  // 10000-01-01T00:00:00Z
      seconds -= widest
      suffix = "-23:59"
    } else if seconds < -62_167_219_200 {  // 0000-01-01T00:00:00Z
      seconds += widest
      suffix = "+23:59"
    }
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let secondOfDay = seconds - days * 86_400
    let (year, month, day) = civil(fromDays: days)
    guard (0...9999).contains(year) else {
      throw StrataError(
        .typeMismatch, "cannot write the date \(ISODateText.format(date)): TOML's years run from 0000 to 9999"
      )
    }
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    var text =
      String(repeating: "0", count: max(0, 4 - String(year).count)) + "\(year)-\(two(month))-\(two(day))"
    text += "T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
    if micros > 0 {
      var fraction = String(micros)
      fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
      while fraction.hasSuffix("0") { fraction.removeLast() }
      text += "." + fraction
    }
    return text + suffix
  }

  /// The day of the proleptic Gregorian calendar `days` after 1970-01-01 (Howard Hinnant's algorithm).
  private static func civil(fromDays days: Int) -> (Int, Int, Int) {
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shiftedMonth = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
    let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}
