/// A table a parser fills key by key, finished into a ``SettingTable`` without copying.
///
/// Finding a repeated key is the parser's commonest question and almost never has a yes for an answer:
/// each key carries a hash of its bytes (``KeyHash``), compared before the strings, so that a new key in a
/// table of twenty costs twenty integer comparisons rather than twenty calls into the string runtime.
/// Past ``SettingTable/linearLimit`` keys a dictionary takes over, as in ``SettingTable``.
struct TableBuilder {
  /// The entries, in file order.
  private(set) var entries: [SettingTable.Entry] = []
  /// ``KeyHash`` of each entry's key.
  private var hashes: [UInt32] = []
  /// Past ``SettingTable/linearLimit`` keys: the index, handed to the finished table.
  private var index: KeyIndex? = nil

  /// An empty table with room for `capacity` keys.
  init(capacity: Int = 0) {
    if capacity > 0 {
      entries.reserveCapacity(capacity)
      hashes.reserveCapacity(capacity)
    }
  }

  /// The number of keys.
  var count: Int { entries.count }

  /// The room to give the next table of a parse, from the size of the table just finished: files repeat
  /// one shape of table, so that most tables are made at their final size instead of growing four or
  /// five times (each growth moving every entry). Between `minimum` and 256 keys.
  static func capacity(after finished: Int, minimum: Int = 8) -> Int {
    min(max(finished, minimum), 256)
  }

  /// The position of a key, or `nil`.
  /// - Parameter hash: the key's ``KeyHash``.
  func position(of key: String, hash: UInt32) -> Int? {
    if let index { return index.position(of: key, hash: hash) { entries[$0].key } }
    for position in hashes.indices {
      let other = hashes[position]
      // A non-ASCII key (hash 0) may equal an ASCII one (the Kelvin sign is `K`): `String` decides.
      if other == hash || other == 0 || hash == 0, entries[position].key == key { return position }
    }
    return nil
  }

  /// Sets a key: a new key goes last; a repeated one keeps its first position and takes the new value.
  /// - Returns: the key's earlier position when it was already there, else `nil`.
  @discardableResult
  mutating func set(_ key: String, _ value: consuming SettingValue, hash: UInt32) -> Int? {
    if let position = position(of: key, hash: hash) {
      entries[position].value = value
      return position
    }
    if index != nil {
      index!.insert(key, hash: hash, at: entries.count, earlier: entries.lazy.map(\.key))
    } else if entries.count == SettingTable.linearLimit {
      var built = KeyIndex(capacity: SettingTable.linearLimit * 4)
      for (position, existing) in entries.enumerated() {
        built.insert(
          existing.key, hash: hashes[position], at: position, earlier: entries[..<position].lazy.map(\.key))
      }
      built.insert(key, hash: hash, at: entries.count, earlier: entries.lazy.map(\.key))
      index = built
    }
    hashes.append(hash)
    entries.append(SettingTable.Entry(key: key, value: value))
    return nil
  }

  /// Removes the key at a position (JSON's `null` unsets a key); the later keys move up.
  mutating func remove(at position: Int) {
    entries.remove(at: position)
    hashes.remove(at: position)
    if index != nil { index = KeyIndex(entries.lazy.map(\.key)) }
  }

  /// The finished table; the builder is left empty.
  mutating func build() -> SettingTable {
    let built = SettingTable(distinctEntries: entries, index: index)
    self = TableBuilder()
    return built
  }
}

/// A hash of the bytes of an ASCII key, never 0; 0 for a key with non-ASCII bytes, whose equality is left
/// to `String` (which compares canonically equivalent spellings equal).
///
/// Eight bytes at a time, each word mixed in with one multiply (a byte-serial hash such as FNV-1a waits
/// on a multiply per byte, which was the largest single cost of finding an INI key's line), then
/// avalanched so that every bit of the result, the low ones that ``KeyIndex`` and ``KeyInterner`` use as
/// slot numbers included, depends on every byte. Non-zero by its top bit, so that the low bits keep
/// their spread.
enum KeyHash {
  private static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
  private static let highBits: UInt64 = 0x8080_8080_8080_8080

  /// The hash of a key's UTF-8 bytes.
  @inline(__always)
  static func of(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
    let count = bytes.count
    guard count > 0, let base = bytes.baseAddress else { return 0x8000_0000 }
    let raw = UnsafeRawPointer(base)
    var hash = UInt64(truncatingIfNeeded: count) &* multiplier
    var seen: UInt64 = 0
    let last: UInt64
    if count >= 8 {
      var i = 0
      while i + 8 < count {
        let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        seen |= word
        hash = (hash ^ word) &* multiplier
        hash ^= hash &>> 29
        i += 8
      }
      // The last eight bytes, overlapping the word before when the count is not a multiple of eight.
      last = raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    } else if count >= 4 {
      // Two overlapping four-byte loads cover 4–7 bytes.
      last =
        UInt64(raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
        | UInt64(raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)) &<< 32
    } else {
      // 1–3 bytes: the first, the middle and the last cover them all.
      last = UInt64(base[0]) | UInt64(base[count &>> 1]) &<< 8 | UInt64(base[count - 1]) &<< 16
    }
    seen |= last
    if seen & highBits != 0 { return 0 }
    hash = (hash ^ last) &* multiplier
    hash ^= hash &>> 32
    hash = hash &* multiplier
    return UInt32(truncatingIfNeeded: hash &>> 32) | 0x8000_0000
  }

  /// The hash of a string's UTF-8 bytes.
  static func of(_ key: String) -> UInt32 {
    var key = key
    return key.withUTF8 { of($0) }
  }
}
