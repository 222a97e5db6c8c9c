#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

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
///
/// Before the walk, one pass over the containers counts the references to each object (up to two).
/// Only an object referenced more than once is kept among the finished objects and copied at each use;
/// the rest, nearly every object of a file that shares nothing, is moved into its container. The pass
/// counts every reference of every container whose extent is valid, reachable or not, so that each
/// reference the walk follows was counted: an object counted once is built at most once.
struct BinaryPropertyListParser {
  /// The file's bytes and trailer, and the decoding of single objects.
  private let reader: BinaryPropertyListReader
  private let path: String
  private let maxDepth: Int
  private let maxValues: Int
  private let origin: Origin
  /// The file, which ASCII strings are kept as slices of (`nil`: each is a `String`).
  private var source: SourceText? = nil
  /// Per object: how often it is referenced (`unreferenced`, `once`, `shared`), `onPath` (an open
  /// container), `consumed` (a container referenced once, built and moved), or the index of its value in
  /// `finished` (an object referenced more than once, built).
  private var slots: [Int32] = []
  private var finished: [SettingValue] = []
  /// The number of values each finished object expands to (itself and everything below it).
  private var finishedSizes: [Int] = []
  private static let unreferenced: Int32 = -1
  private static let once: Int32 = -2
  private static let shared: Int32 = -3
  private static let onPath: Int32 = -4
  private static let consumed: Int32 = -5
  /// The keys of the open dicts, each dict's after its parent's (a frame holds where its own start), with
  /// their ``KeyHash``es: one pair of arrays for the whole parse instead of one per dict.
  private var openKeys: [String] = []
  private var openKeyHashes: [UInt32] = []
  private var keys = KeyInterner()
  /// Warnings found while parsing (duplicate keys).
  private(set) var diagnostics = CappedDiagnostics()

  /// An open array or dict.
  private struct Frame {
    var object: Int
    var isDict: Bool
    /// Whether the container is referenced more than once (kept in `finished` when built).
    var isShared: Bool
    var references: Int
    var count: Int
    var next = 0
    /// The values this container expands to so far: itself, and each child with everything below it.
    var expanded = 1
    /// A dict's first key in `openKeys`.
    var firstKey = 0
    /// An array's values.
    var values: [SettingValue] = []
    /// A dict's table, filled value by value.
    var table = TableBuilder()
    /// The positions (from `firstKey`) of a dict's repeated keys, reported when the dict is finished, as
    /// they were when the table was built at the end.
    var duplicates: [Int] = []
  }

  /// Parses a document's bytes. The parser, which holds a pointer into them, lives only inside this
  /// call (its initializer is private), so the pointer never outlives the buffer.
  /// - Parameter source: the file `bytes` points into, when ASCII strings may be slices of it.
  static func parse(
    _ bytes: UnsafeBufferPointer<UInt8>, path: String, maxDepth: Int, maxValues: Int = .max,
    source: SourceText? = nil
  ) throws(StrataError) -> (root: SettingValue, diagnostics: [Diagnostic]) {
    let reader = try BinaryPropertyListReader(bytes, path: path)
    var parser = BinaryPropertyListParser(
      reader: reader, path: path, maxDepth: maxDepth, maxValues: maxValues)
    parser.source = source
    let root = try parser.parse(top: reader.top)
    return (root, parser.diagnostics.all)
  }

  private init(reader: BinaryPropertyListReader, path: String, maxDepth: Int, maxValues: Int) {
    self.reader = reader
    self.path = path
    self.maxDepth = maxDepth
    self.maxValues = maxValues
    self.origin = .file(path: path, line: 0, column: 0)
  }

  /// Parses the tree below the top object and returns it.
  private mutating func parse(top: Int) throws(StrataError) -> SettingValue {
    // One slot per object, indexed directly (hashing showed up as the main cost): the count was checked
    // against the offset table above, so this is at most 4 bytes per byte of the table.
    let sharedCount = countReferences(top: top)
    finished.reserveCapacity(sharedCount)
    finishedSizes.reserveCapacity(sharedCount)
    var stack: [Frame] = []
    // The value in hand is not an Optional: moving and dropping an Optional<SettingValue> asks the
    // runtime for its case through a value witness. `size` says whether there is one.
    var value = Self.placeholder
    var produced = try begin(top, stack: &stack, into: &value)
    while true {
      if let size = produced {
        guard !stack.isEmpty else { return value }
        let last = stack.count - 1
        // `consume` moves the value into its container rather than copying it (a retain and a release).
        if stack[last].isDict {
          let position = stack[last].next - 1
          let key = stack[last].firstKey + position
          if stack[last].table.set(openKeys[key], consume value, hash: openKeyHashes[key]) != nil {
            stack[last].duplicates.append(position)
          }
        } else {
          stack[last].values.append(consume value)
        }
        value = Self.placeholder
        // Keys count too: a reader walks one per value.
        let added = size + (stack[last].isDict ? 1 : 0)
        stack[last].expanded += min(added, maxValues)
        if stack[last].expanded > maxValues {
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
        let reference = try reader.readReference(at: stack[last].references + slot * reader.referenceSize)
        stack[last].next += 1
        produced = try begin(reference, stack: &stack, into: &value)
      } else {
        var frame = stack.removeLast()
        if frame.isDict {
          for position in frame.duplicates {
            diagnostics.append(
              Diagnostic(
                .warning,
                StrataError(
                  .duplicateKey,
                  "duplicate key \"\(openKeys[frame.firstKey + position])\"; the last value wins",
                  path: path)))
          }
          openKeys.removeSubrange(frame.firstKey...)
          openKeyHashes.removeSubrange(frame.firstKey...)
          value = SettingValue(.table(frame.table.build()), origin: origin)
        } else {
          value = SettingValue(.array(frame.values), origin: origin)
        }
        if frame.isShared {
          remember(value, as: frame.object, size: frame.expanded)
        } else {
          slots[frame.object] = Self.consumed
        }
        produced = frame.expanded
      }
    }
  }

  /// Sets each object's slot to how often the containers reference it (`unreferenced`, `once` or
  /// `shared`; the top object counts one) and returns the number of objects referenced more than once.
  ///
  /// Every container whose extent is valid counts all of its references that name an object, whether the
  /// walk reaches it or not: the walk follows only references of such containers, so each one it follows
  /// was counted here. Invalid objects are skipped; the walk reports them if it reaches them.
  private mutating func countReferences(top: Int) -> Int {
    var counts = [Int32](repeating: Self.unreferenced, count: reader.objectCount)
    var sharedCount = 0
    func count(_ object: Int) {
      switch counts[object] {
      case Self.unreferenced: counts[object] = Self.once
      case Self.once:
        counts[object] = Self.shared
        sharedCount += 1
      default: break
      }
    }
    count(top)
    for object in 0..<reader.objectCount {
      let position = reader.readUInt(
        at: reader.offsetTable + object * reader.offsetSize, size: reader.offsetSize)
      guard position >= 8, position < UInt64(reader.offsetTable) else { continue }
      let marker = reader.bytes[Int(position)]
      guard marker >> 4 == 0xA || marker >> 4 == 0xD else { continue }
      let perElement = marker >> 4 == 0xD ? 2 : 1
      guard
        let (elements, start) = try? reader.countAndStart(
          at: Int(position), elementSize: reader.referenceSize * perElement)
      else { continue }
      // `countAndStart` checked that the references lie before the offset table.
      for index in 0..<(elements * perElement) {
        let reference = reader.readUInt(at: start + index * reader.referenceSize, size: reader.referenceSize)
        if reference < UInt64(reader.objectCount) { count(Int(reference)) }
      }
    }
    slots = counts
    return sharedCount
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
    let offset = try reader.offset(of: object)
    let marker = reader.bytes[offset]
    guard marker >> 4 == 0xA || marker >> 4 == 0xD else {
      if marker >> 4 == 0x5, let source {
        // An ASCII string stays in the file until it is read (a copy of the slice is a retain).
        let (count, start) = try reader.countAndStart(at: offset, elementSize: 1)
        guard
          ASCIIBytes.all(
            UnsafeBufferPointer(rebasing: reader.bytes[start..<(start + count)]))
        else { throw reader.invalid("ASCII string at offset \(offset) has non-ASCII bytes") }
        value = SettingValue(text: source, start: start, end: start + count, line: 0, column: 0)
        return 1
      }
      value = SettingValue(try reader.scalar(at: offset), origin: origin)
      // Strings and data referenced again: share one copy, unless a short string that lives inline (no
      // allocation to share).
      if slot == Self.shared && marker >> 4 >= 4
        && (marker & 0x0F == 0x0F || marker >> 4 == 0x4 || marker >> 4 == 0x6)
      {
        remember(value, as: object, size: 1)
      }
      return 1
    }
    let isDict = marker >> 4 == 0xD
    guard slot != Self.onPath else {
      throw reader.invalid("object \(object) at offset \(offset) contains itself (a reference cycle)")
    }
    guard slot != Self.consumed else {
      // Cannot happen: each reference the walk follows was counted, and an object counted once is
      // reached once. Kept as an error rather than building the object again.
      throw reader.invalid("object \(object) at offset \(offset) is referenced more often than counted")
    }
    guard stack.count < maxDepth else {
      throw StrataError(
        .nestingTooDeep,
        "binary plist: arrays and dicts nested deeper than \(maxDepth) levels at offset \(offset)",
        path: path)
    }
    let (count, start) = try reader.countAndStart(
      at: offset, elementSize: reader.referenceSize * (isDict ? 2 : 1))
    var frame = Frame(
      object: object, isDict: isDict, isShared: slot == Self.shared, references: start, count: count)
    if isDict {
      frame.firstKey = openKeys.count
      frame.table = TableBuilder(capacity: count)
      openKeys.reserveCapacity(openKeys.count + count)
      openKeyHashes.reserveCapacity(openKeys.count + count)
      for k in 0..<count {
        try readKey(try reader.readReference(at: start + k * reader.referenceSize))
      }
    } else {
      frame.values.reserveCapacity(count)
    }
    slots[object] = Self.onPath
    stack.append(frame)
    return nil
  }

  /// Reads the string object `key` and appends it to `openKeys`, with its hash.
  private mutating func readKey(_ key: Int) throws(StrataError) {
    if slots[key] >= 0, case .string(let s) = finished[Int(slots[key])].kind {
      openKeys.append(s)
      openKeyHashes.append(KeyHash.of(s))
      return
    }
    let offset = try reader.offset(of: key)
    let marker = reader.bytes[offset]
    guard (5...7).contains(marker >> 4) else {
      throw reader.invalid("dict key at offset \(offset) is not a string")
    }
    let s: String
    let hash: UInt32
    if marker >> 4 == 0x5 {
      // ASCII, the common case: hashed from its bytes (0 for a non-ASCII byte), and a repeated spelling
      // made into a `String` once.
      let (count, start) = try reader.countAndStart(at: offset, elementSize: 1)
      let text = UnsafeBufferPointer(rebasing: reader.bytes[start..<(start + count)])
      hash = KeyHash.of(text)
      guard hash != 0 else { throw reader.invalid("ASCII string at offset \(offset) has non-ASCII bytes") }
      s = keys.key(text, hash: hash)
    } else {
      guard case .string(let decoded) = try reader.scalar(at: offset) else {
        throw reader.invalid("dict key at offset \(offset) is not a string")
      }
      s = decoded
      hash = KeyHash.of(s)
    }
    if slots[key] == Self.shared { remember(SettingValue(.string(s), origin: origin), as: key, size: 1) }
    openKeys.append(s)
    openKeyHashes.append(hash)
  }

  /// Keeps a finished object so that later references to it share it.
  private mutating func remember(_ value: SettingValue, as object: Int, size: Int) {
    slots[object] = Int32(finished.count)
    finished.append(value)
    finishedSizes.append(size)
  }
}
