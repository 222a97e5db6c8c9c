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

  /// The position of a key, or `nil`.
  /// - Parameter hash: the key's ``KeyHash``.
  func position(of key: String, hash: UInt32) -> Int? {
    if let index { return index.position(of: key, hash: hash) { entries[$0].key } }
    for position in hashes.indices {
      let other = hashes[position]
      if other == hash && entries[position].key == key { return position }
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

/// FNV-1a over the bytes of an ASCII key, never 0; 0 for a key with non-ASCII bytes, whose equality is left
/// to `String` (which compares canonically equivalent spellings equal).
enum KeyHash {
  /// The hash of a key's UTF-8 bytes.
  @inline(__always)
  static func of(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
    var hash: UInt32 = 2_166_136_261
    for byte in bytes {
      if byte >= 0x80 { return 0 }
      hash = (hash ^ UInt32(byte)) &* 16_777_619
    }
    return hash | 1
  }

  /// The hash of a string's UTF-8 bytes.
  static func of(_ key: String) -> UInt32 {
    var key = key
    return key.withUTF8 { of($0) }
  }
}
