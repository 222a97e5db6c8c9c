#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The bytes of a binary property list (`bplist00`), its trailer, and the decoding of single objects:
/// everything a parse reads and never changes.
///
/// Apart from the parser's own state, so that the parser's calls into it pass a few words rather than a
/// copy of the whole parser (which the compiler made for each call on the parser itself).
struct BinaryPropertyListReader {
  let bytes: UnsafeBufferPointer<UInt8>
  let path: String
  /// The size in bytes of an entry of the offset table, 1…8.
  let offsetSize: Int
  /// The size in bytes of an object reference, 1…8.
  let referenceSize: Int
  let objectCount: Int
  /// Where the offset table starts: the end of the object area.
  let offsetTable: Int
  /// The top object.
  let top: Int

  /// Reads and checks the trailer.
  init(_ bytes: UnsafeBufferPointer<UInt8>, path: String) throws(StrataError) {
    func invalid(_ message: String) -> StrataError {
      StrataError(.invalidPropertyList, "binary plist: \(message)", path: path)
    }
    func readUInt(at position: Int) -> UInt64 {
      var value: UInt64 = 0
      for i in position..<(position + 8) { value = value << 8 | UInt64(bytes[i]) }
      return value
    }
    self.bytes = bytes
    self.path = path
    let trailer = bytes.count - 32
    guard bytes.count >= 8 + 1 + 32 else {
      throw invalid("file too short (\(bytes.count) bytes) for a binary plist")
    }
    offsetSize = Int(bytes[trailer + 6])
    referenceSize = Int(bytes[trailer + 7])
    guard (1...8).contains(offsetSize) else {
      throw invalid("offset size \(offsetSize) in the trailer is not 1…8")
    }
    guard (1...8).contains(referenceSize) else {
      throw invalid("object reference size \(referenceSize) in the trailer is not 1…8")
    }
    let count = readUInt(at: trailer + 8)
    let top = readUInt(at: trailer + 16)
    let table = readUInt(at: trailer + 24)
    guard table >= 9, table <= UInt64(trailer) else {
      throw invalid("offset table offset \(table) is outside the object area 9…\(trailer)")
    }
    offsetTable = Int(table)
    guard count >= 1, count <= UInt64((trailer - offsetTable) / offsetSize), count <= UInt64(Int32.max) else {
      throw invalid("object count \(count) does not fit the offset table at offset \(offsetTable)")
    }
    objectCount = Int(count)
    guard top < count else { throw invalid("top object \(top) is not below the object count \(count)") }
    self.top = Int(top)
  }

  /// Decodes a non-container object at `offset`.
  func scalar(at offset: Int) throws(StrataError) -> SettingValue.Kind {
    let marker = bytes[offset]
    let info = Int(marker & 0x0F)
    switch marker >> 4 {
    case 0x0:
      switch marker {
      case 0x08: return .bool(false)
      case 0x09: return .bool(true)
      case 0x00: throw invalid("null object at offset \(offset) is not supported")
      default: throw invalid("unsupported object marker 0x\(hex(marker)) at offset \(offset)")
      }
    case 0x1:
      return try integer(at: offset)
    case 0x2:
      guard info == 2 || info == 3 else { throw invalid("real of \(1 << info) bytes at offset \(offset)") }
      try require(offset + 1, 1 << info, "real at offset \(offset)")
      let bits = readUInt(at: offset + 1, size: 1 << info)
      return .double(info == 2 ? Double(Float(bitPattern: UInt32(bits))) : Double(bitPattern: bits))
    case 0x3:
      guard marker == 0x33 else {
        throw invalid("unsupported object marker 0x\(hex(marker)) at offset \(offset)")
      }
      try require(offset + 1, 8, "date at offset \(offset)")
      let seconds = Double(bitPattern: readUInt(at: offset + 1, size: 8))
      guard seconds.isFinite else { throw invalid("date at offset \(offset) is not a finite number") }
      return .date(Date(timeIntervalSinceReferenceDate: seconds))
    case 0x4:
      let (count, start) = try countAndStart(at: offset, elementSize: 1)
      return .data(Data(UnsafeBufferPointer(rebasing: bytes[start..<(start + count)])))
    case 0x5:
      let (count, start) = try countAndStart(at: offset, elementSize: 1)
      let text = UnsafeBufferPointer(rebasing: bytes[start..<(start + count)])
      guard ASCIIBytes.all(text) else {
        throw invalid("ASCII string at offset \(offset) has non-ASCII bytes")
      }
      return .string(String(decoding: text, as: UTF8.self))
    case 0x6:
      let (count, start) = try countAndStart(at: offset, elementSize: 2)
      let units = (0..<count).lazy.map {
        UInt16(self.bytes[start + 2 * $0]) << 8 | UInt16(self.bytes[start + 2 * $0 + 1])
      }
      guard let s = String(validating: units, as: UTF16.self) else {
        throw invalid("UTF-16 string at offset \(offset) is not valid UTF-16")
      }
      return .string(s)
    case 0x7:
      let (count, start) = try countAndStart(at: offset, elementSize: 1)
      guard
        let s = String(
          validating: UnsafeBufferPointer(rebasing: bytes[start..<(start + count)]), as: UTF8.self)
      else { throw invalid("UTF-8 string at offset \(offset) is not valid UTF-8") }
      return .string(s)
    case 0x8:
      throw invalid("UID object at offset \(offset) is not supported (keyed archives are not configuration)")
    case 0xC:
      throw invalid("set object at offset \(offset) is not supported")
    default:
      throw invalid("unknown object marker 0x\(hex(marker)) at offset \(offset)")
    }
  }

  /// Reads an integer object (1, 2, 4, 8 or 16 bytes, big-endian) at `offset`.
  func integer(at offset: Int) throws(StrataError) -> SettingValue.Kind {
    let marker = bytes[offset]
    let info = Int(marker & 0x0F)
    guard info <= 4 else { throw invalid("integer of 2^\(info) bytes at offset \(offset)") }
    let size = 1 << info
    try require(offset + 1, size, "integer at offset \(offset)")
    if size < 8 { return .integer(Int(readUInt(at: offset + 1, size: size))) }
    if size == 8 { return .integer(Int(Int64(bitPattern: readUInt(at: offset + 1, size: 8)))) }
    // 16-byte integers are signed 128-bit. Writers use them for unsigned 64-bit values above
    // Int64.max (high half 0); a negative one has a high half of all ones.
    let high = readUInt(at: offset + 1, size: 8)
    let low = readUInt(at: offset + 9, size: 8)
    if high == 0 {
      return low > UInt64(Int.max) ? .unsignedInteger(UInt(low)) : .integer(Int(low))
    }
    guard high == UInt64.max, Int64(bitPattern: low) < 0 else {
      throw invalid("16-byte integer at offset \(offset) is outside the range -2^63…2^64−1")
    }
    return .integer(Int(Int64(bitPattern: low)))
  }

  /// The element count in an object's marker (or the integer after it, for 0xF) and where its elements
  /// start, checked so that `count * elementSize` bytes lie before the offset table.
  @inline(__always)
  func countAndStart(at offset: Int, elementSize: Int) throws(StrataError) -> (Int, Int) {
    var count = Int(bytes[offset] & 0x0F)
    var start = offset + 1
    if count == 0xF {
      guard start < offsetTable, bytes[start] >> 4 == 0x1, bytes[start] & 0x0F <= 3 else {
        throw invalid("bad extended count after the marker at offset \(offset)")
      }
      let size = 1 << Int(bytes[start] & 0x0F)
      try require(start + 1, size, "extended count at offset \(offset)")
      let value = readUInt(at: start + 1, size: size)
      start += 1 + size
      guard value <= UInt64(offsetTable) else {
        throw invalid("count \(value) at offset \(offset) exceeds the file")
      }
      count = Int(value)
    }
    guard count <= (offsetTable - start) / elementSize else {
      throw invalid("object at offset \(offset) claims \(count) elements, more than the bytes that follow it")
    }
    return (count, start)
  }

  /// The offset of an object, from the offset table, checked to lie in the object area.
  @inline(__always)
  func offset(of object: Int) throws(StrataError) -> Int {
    guard object >= 0, object < objectCount else {
      throw invalid("object reference \(object) is not below the object count \(objectCount)")
    }
    let value = readUInt(at: offsetTable + object * offsetSize, size: offsetSize)
    guard value >= 8, value < UInt64(offsetTable) else {
      throw invalid("object \(object) has offset \(value), outside the object area 8…\(offsetTable - 1)")
    }
    return Int(value)
  }

  /// The object named by the reference at `position`, checked to lie before the offset table and to be
  /// below the object count.
  @inline(__always)
  func readReference(at position: Int) throws(StrataError) -> Int {
    try require(position, referenceSize, "object reference at offset \(position)")
    let value = readUInt(at: position, size: referenceSize)
    guard value < UInt64(objectCount) else {
      throw invalid(
        "object reference \(value) at offset \(position) is not below the object count \(objectCount)")
    }
    return Int(value)
  }

  /// Checks that `size` bytes from `start` lie before the offset table.
  /// The description is built only on failure: this runs for every reference and scalar.
  @inline(__always)
  func require(_ start: Int, _ size: Int, _ what: @autoclosure () -> String) throws(StrataError) {
    guard start >= 0, size <= offsetTable - start else {
      throw invalid("\(what()) runs past the object area")
    }
  }

  /// A big-endian unsigned integer of `size` (1…8) bytes; the caller has checked the bounds.
  @inline(__always)
  func readUInt(at position: Int, size: Int) -> UInt64 {
    let raw = UnsafeRawPointer(bytes.baseAddress.unsafelyUnwrapped + position)
    switch size {
    case 1: return UInt64(raw.load(as: UInt8.self))
    case 2: return UInt64(UInt16(bigEndian: raw.loadUnaligned(as: UInt16.self)))
    case 4: return UInt64(UInt32(bigEndian: raw.loadUnaligned(as: UInt32.self)))
    case 8: return UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self))
    default:
      var value: UInt64 = 0
      for i in position..<(position + size) { value = value << 8 | UInt64(bytes[i]) }
      return value
    }
  }

  private func hex(_ byte: UInt8) -> String { String(byte, radix: 16, uppercase: true) }

  func invalid(_ message: String) -> StrataError {
    StrataError(.invalidPropertyList, "binary plist: \(message)", path: path)
  }
}
