#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Writes binary property lists (`bplist00`): objects, then the offset table, then the 32-byte trailer.
struct BinaryPropertyListSerializer {
  private var out: [UInt8] = Array("bplist00".utf8)
  private var offsets: [Int] = []
  private var nextObject = 0
  private var referenceSize = 1

  /// The bytes of a binary property list holding `value`.
  static func serialize(_ value: SettingValue) throws(StrataError) -> [UInt8] {
    var serializer = BinaryPropertyListSerializer()
    let count = try objectCount(value, depth: 0)
    serializer.referenceSize = byteWidth(UInt64(count - 1))
    serializer.offsets = Array(repeating: 0, count: count)
    _ = serializer.write(value)
    let tableOffset = serializer.out.count
    let offsetSize = byteWidth(UInt64(tableOffset))
    for offset in serializer.offsets { serializer.appendUInt(UInt64(offset), size: offsetSize) }
    serializer.out.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(serializer.referenceSize)])
    serializer.appendUInt(UInt64(count), size: 8)
    serializer.appendUInt(0, size: 8)
    serializer.appendUInt(UInt64(tableOffset), size: 8)
    return serializer.out
  }

  /// Objects in the tree (dict keys are objects too), checking the depth on the way.
  private static func objectCount(_ value: SettingValue, depth: Int) throws(StrataError) -> Int {
    switch value.kind {
    case .array(let items):
      try checkDepth(depth)
      var count = 1
      for item in items { count += try objectCount(item, depth: depth + 1) }
      return count
    case .table(let table):
      try checkDepth(depth)
      var count = 1 + table.count
      for (_, item) in table { count += try objectCount(item, depth: depth + 1) }
      return count
    default:
      return 1
    }
  }

  private static func checkDepth(_ depth: Int) throws(StrataError) {
    guard depth < PropertyListFormat.maxSerializedDepth else {
      throw StrataError(
        .nestingTooDeep,
        "arrays and tables nested deeper than \(PropertyListFormat.maxSerializedDepth) levels")
    }
  }

  /// Writes `value` (children first) and returns its object number.
  private mutating func write(_ value: SettingValue) -> Int {
    let object = nextObject
    nextObject += 1
    switch value.kind {
    case .array(let items):
      let references = items.map { write($0) }
      offsets[object] = out.count
      appendMarker(0xA, count: references.count)
      for reference in references { appendUInt(UInt64(reference), size: referenceSize) }
    case .table(let table):
      var references = table.map { writeString($0.key) }
      references += table.map { write($0.value) }
      offsets[object] = out.count
      appendMarker(0xD, count: table.count)
      for reference in references { appendUInt(UInt64(reference), size: referenceSize) }
    case .string(let s):
      nextObject -= 1
      _ = writeString(s)
    default:
      offsets[object] = out.count
      writeScalar(value.kind)
    }
    return object
  }

  private mutating func writeString(_ s: String) -> Int {
    let object = nextObject
    nextObject += 1
    offsets[object] = out.count
    if s.utf8.allSatisfy({ $0 < 0x80 }) {
      appendMarker(0x5, count: s.utf8.count)
      out.append(contentsOf: s.utf8)
    } else {
      appendMarker(0x6, count: s.utf16.count)
      for unit in s.utf16 { appendUInt(UInt64(unit), size: 2) }
    }
    return object
  }

  private mutating func writeScalar(_ kind: SettingValue.Kind) {
    switch kind {
    case .bool(let b): out.append(b ? 0x09 : 0x08)
    case .integer(let i): appendInteger(i)
    case .unsignedInteger(let u):
      // Above Int64.max: a 16-byte integer with a zero high half, as Apple's writer and plistlib do.
      out.append(0x14)
      appendUInt(0, size: 8)
      appendUInt(UInt64(u), size: 8)
    case .double(let d):
      out.append(0x23)
      appendUInt(d.bitPattern, size: 8)
    case .date(let d):
      out.append(0x33)
      appendUInt(d.timeIntervalSinceReferenceDate.bitPattern, size: 8)
    case .data(let d):
      appendMarker(0x4, count: d.count)
      out.append(contentsOf: d)
    default: break
    }
  }

  /// Non-negative integers take the fewest of 1, 2, 4 bytes (read as unsigned); the rest take 8 (signed).
  private mutating func appendInteger(_ i: Int) {
    let size = i < 0 ? 8 : byteWidth(UInt64(i))
    let exponent: UInt8 = size == 1 ? 0 : size == 2 ? 1 : size <= 4 ? 2 : 3
    out.append(0x10 | exponent)
    appendUInt(UInt64(bitPattern: Int64(i)), size: 1 << Int(exponent))
  }

  private mutating func appendMarker(_ type: UInt8, count: Int) {
    if count < 15 {
      out.append(type << 4 | UInt8(count))
    } else {
      out.append(type << 4 | 0xF)
      appendInteger(count)
    }
  }

  private mutating func appendUInt(_ value: UInt64, size: Int) {
    for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
      out.append(UInt8(truncatingIfNeeded: value >> shift))
    }
  }
}

/// The fewest bytes (1, 2, 4 or 8) that hold `value`.
private func byteWidth(_ value: UInt64) -> Int {
  value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
}
