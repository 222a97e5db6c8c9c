import FoundationEssentials

/// Reads a binary property list (`bplist00`).
///
/// The input is untrusted: every offset, size, count and object reference is checked against the buffer
/// before it is used, counts are checked against the bytes that could hold them before anything is
/// reserved, containers are walked with an explicit stack (bounded by `maxDepth`), a reference back to an
/// object on the current path is a cycle, and finished objects are remembered so that a forged file that
/// shares one container many times over costs its size, not an exponential number of copies. What the
/// tree expands to — each use of a shared container counted with everything below it, as every reader
/// of the tree walks it — is capped at `maxValues`, as libxml2 caps entity expansion: 238 bytes of
/// dictionaries that share their values twenty levels deep would otherwise be a million keys.
struct BinaryPropertyListParser {
  private let bytes: UnsafeBufferPointer<UInt8>
  private let path: String
  private let maxDepth: Int
  private let maxValues: Int
  private let origin: Origin
  private var offsetSize = 0
  private var referenceSize = 0
  private var objectCount = 0
  private var offsetTable = 0
  /// Per object: `unseen`, `onPath` (an open container), or the index of its value in `finished`.
  private var slots: [Int32] = []
  private var finished: [SettingValue] = []
  /// The number of values each finished object expands to (itself and everything below it).
  private var finishedSizes: [Int] = []
  private static let unseen: Int32 = -1
  private static let onPath: Int32 = -2
  /// Warnings found while parsing (duplicate keys).
  private(set) var diagnostics = CappedDiagnostics()

  /// An open array or dict.
  private struct Frame {
    var object: Int
    var isDict: Bool
    var references: Int
    var count: Int
    var next = 0
    /// The values this container expands to so far: itself, and each child with everything below it.
    var expanded = 1
    var keys: [String] = []
    var values: [SettingValue] = []
  }

  /// Parses a document's bytes. The parser, which holds a pointer into them, lives only inside this
  /// call (its initializer is private), so the pointer never outlives the buffer.
  static func parse(
    _ bytes: UnsafeBufferPointer<UInt8>, path: String, maxDepth: Int, maxValues: Int = .max
  ) throws(StrataError) -> (root: SettingValue, diagnostics: [Diagnostic]) {
    var parser = BinaryPropertyListParser(bytes: bytes, path: path, maxDepth: maxDepth, maxValues: maxValues)
    let root = try parser.parse()
    return (root, parser.diagnostics.all)
  }

  private init(bytes: UnsafeBufferPointer<UInt8>, path: String, maxDepth: Int, maxValues: Int = .max) {
    self.bytes = bytes
    self.path = path
    self.maxDepth = maxDepth
    self.maxValues = maxValues
    self.origin = .file(path: path, line: 0, column: 0)
  }

  /// Parses the whole input and returns the top object.
  mutating func parse() throws(StrataError) -> SettingValue {
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
    let count = readUInt(at: trailer + 8, size: 8)
    let top = readUInt(at: trailer + 16, size: 8)
    let table = readUInt(at: trailer + 24, size: 8)
    guard table >= 9, table <= UInt64(trailer) else {
      throw invalid("offset table offset \(table) is outside the object area 9…\(trailer)")
    }
    offsetTable = Int(table)
    guard count >= 1, count <= UInt64((trailer - offsetTable) / offsetSize), count <= UInt64(Int32.max) else {
      throw invalid("object count \(count) does not fit the offset table at offset \(offsetTable)")
    }
    objectCount = Int(count)
    guard top < count else { throw invalid("top object \(top) is not below the object count \(count)") }

    // One slot per object, indexed directly (hashing showed up as the main cost): the count was checked
    // against the offset table above, so this is at most 4 bytes per byte of the table.
    slots = [Int32](repeating: Self.unseen, count: objectCount)
    finished.reserveCapacity(objectCount)
    finishedSizes.reserveCapacity(objectCount)
    var stack: [Frame] = []
    // The value in hand is not an Optional: moving and dropping an Optional<SettingValue> asks the
    // runtime for its case through a value witness. `size` says whether there is one.
    var value = Self.placeholder
    var produced = try begin(Int(top), stack: &stack, into: &value)
    while true {
      if let size = produced {
        guard !stack.isEmpty else { return value }
        // `consume` moves the value into its container rather than copying it (a retain and a release).
        stack[stack.count - 1].values.append(consume value)
        value = Self.placeholder
        // Keys count too: a reader walks one per value.
        let added = size + (stack[stack.count - 1].isDict ? 1 : 0)
        stack[stack.count - 1].expanded += min(added, maxValues)
        if stack[stack.count - 1].expanded > maxValues {
          throw StrataError(
            .tooManyValues,
            "the property list expands to more than \(maxValues) values (a container used in several places "
              + "counts each time); raise ParseOptions.maxValues if this file is meant to", path: path)
        }
      }
      let last = stack.count - 1
      if stack[last].next < stack[last].count {
        // Read the fields one by one: copying the frame would retain its arrays on every reference.
        let slot = stack[last].isDict ? stack[last].count + stack[last].next : stack[last].next
        let reference = try readReference(at: stack[last].references + slot * referenceSize)
        stack[last].next += 1
        produced = try begin(reference, stack: &stack, into: &value)
      } else {
        var frame = stack.removeLast()
        if frame.isDict {
          var table = TableBuilder(capacity: frame.keys.count)
          // Values are moved out from the end (`removeLast` takes an element without copying it, where
          // iterating copies each, a retain and a release of its string and its origin's path).
          frame.values.reverse()
          for key in frame.keys {
            if table.set(key, frame.values.removeLast(), hash: KeyHash.of(key)) != nil {
              diagnostics.append(
                Diagnostic(
                  .warning,
                  StrataError(.duplicateKey, "duplicate key \"\(key)\"; the last value wins", path: path)))
            }
          }
          value = SettingValue(.table(table.build()), origin: origin)
        } else {
          value = SettingValue(.array(frame.values), origin: origin)
        }
        remember(value, as: frame.object, size: frame.expanded)
        produced = frame.expanded
      }
    }
  }

  /// A value that holds nothing (no reference to count), for the value in hand between two values.
  private static let placeholder = SettingValue(.bool(false), origin: .codeDefault)

  /// Sets `value` to the object's value and returns how many values it expands to when it is a scalar
  /// or already built; for an array or dict, pushes a frame and returns `nil`.
  private mutating func begin(_ object: Int, stack: inout [Frame], into value: inout SettingValue)
    throws(StrataError) -> Int?
  {
    let slot = slots[object]
    if slot >= 0 {
      value = finished[Int(slot)]
      return finishedSizes[Int(slot)]
    }
    let offset = try offset(of: object)
    let marker = bytes[offset]
    guard marker >> 4 == 0xA || marker >> 4 == 0xD else {
      value = SettingValue(try scalar(at: offset), origin: origin)
      // Strings and data: share one copy, unless a short string that lives inline (no allocation to share).
      if marker >> 4 >= 4 && (marker & 0x0F == 0x0F || marker >> 4 == 0x4 || marker >> 4 == 0x6) {
        remember(value, as: object, size: 1)
      }
      return 1
    }
    let isDict = marker >> 4 == 0xD
    guard slot != Self.onPath else {
      throw invalid("object \(object) at offset \(offset) contains itself (a reference cycle)")
    }
    guard stack.count < maxDepth else {
      throw StrataError(
        .nestingTooDeep,
        "binary plist: arrays and dicts nested deeper than \(maxDepth) levels at offset \(offset)",
        path: path)
    }
    let (count, start) = try countAndStart(at: offset, elementSize: referenceSize * (isDict ? 2 : 1))
    var frame = Frame(object: object, isDict: isDict, references: start, count: count)
    frame.values.reserveCapacity(count)
    if isDict {
      frame.keys.reserveCapacity(count)
      for k in 0..<count {
        let key = try readReference(at: start + k * referenceSize)
        if slots[key] >= 0, case .string(let s) = finished[Int(slots[key])].kind {
          frame.keys.append(s)
          continue
        }
        let keyOffset = try self.offset(of: key)
        guard (5...7).contains(bytes[keyOffset] >> 4), case .string(let s) = try scalar(at: keyOffset) else {
          throw invalid("dict key at offset \(keyOffset) is not a string")
        }
        remember(SettingValue(.string(s), origin: origin), as: key, size: 1)
        frame.keys.append(s)
      }
    }
    slots[object] = Self.onPath
    stack.append(frame)
    return nil
  }

  /// Keeps a finished object so that later references to it share it.
  private mutating func remember(_ value: SettingValue, as object: Int, size: Int) {
    slots[object] = Int32(finished.count)
    finished.append(value)
    finishedSizes.append(size)
  }

  /// Decodes a non-container object at `offset`.
  private func scalar(at offset: Int) throws(StrataError) -> SettingValue.Kind {
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
      guard text.allSatisfy({ $0 < 0x80 }) else {
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
  private func integer(at offset: Int) throws(StrataError) -> SettingValue.Kind {
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
  private func countAndStart(at offset: Int, elementSize: Int) throws(StrataError) -> (Int, Int) {
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
  private func offset(of object: Int) throws(StrataError) -> Int {
    guard object >= 0, object < objectCount else {
      throw invalid("object reference \(object) is not below the object count \(objectCount)")
    }
    let value = readUInt(at: offsetTable + object * offsetSize, size: offsetSize)
    guard value >= 8, value < UInt64(offsetTable) else {
      throw invalid("object \(object) has offset \(value), outside the object area 8…\(offsetTable - 1)")
    }
    return Int(value)
  }

  private func readReference(at position: Int) throws(StrataError) -> Int {
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
  private func require(_ start: Int, _ size: Int, _ what: @autoclosure () -> String) throws(StrataError) {
    guard start >= 0, size <= offsetTable - start else {
      throw invalid("\(what()) runs past the object area")
    }
  }

  /// A big-endian unsigned integer of `size` (1…8) bytes; the caller has checked the bounds.
  private func readUInt(at position: Int, size: Int) -> UInt64 {
    var value: UInt64 = 0
    for i in position..<(position + size) { value = value << 8 | UInt64(bytes[i]) }
    return value
  }

  private func hex(_ byte: UInt8) -> String { String(byte, radix: 16, uppercase: true) }

  private func invalid(_ message: String) -> StrataError {
    StrataError(.invalidPropertyList, "binary plist: \(message)", path: path)
  }
}
