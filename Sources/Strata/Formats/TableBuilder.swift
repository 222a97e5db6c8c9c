/// A table a parser fills key by key, finished into a ``SettingTable`` without copying.
///
/// Finding a repeated key is the parser's commonest question and almost never has a yes for an answer:
/// each key carries a hash of its bytes (``KeyHash``), compared before the strings, so that a new key in a
/// table of twenty costs twenty integer comparisons rather than twenty calls into the string runtime.
/// Past ``SettingTable/linearLimit`` keys a dictionary takes over, as in ``SettingTable``.
struct TableBuilder {
  /// The entries, in file order.
  private(set) var entries: [SettingTable.Entry] = []
  /// ``KeyHash`` of each entry's key (0 once the dictionary is built: it is not read any more).
  private var hashes: [UInt32] = []
  private var index: [String: Int]? = nil

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
    if let index { return index[key] }
    for position in hashes.indices {
      let other = hashes[position]
      if (other == hash || other == 0 || hash == 0) && entries[position].key == key { return position }
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
      index![key] = entries.count
    } else if entries.count == SettingTable.linearLimit {
      var built = [String: Int](minimumCapacity: SettingTable.linearLimit * 4)
      for (position, existing) in entries.enumerated() { built[existing.key] = position }
      built[key] = entries.count
      index = built
    }
    hashes.append(index == nil ? hash : 0)
    entries.append(SettingTable.Entry(key: key, value: value))
    return nil
  }

  /// Removes the key at a position (JSON's `null` unsets a key); the later keys move up.
  mutating func remove(at position: Int) {
    entries.remove(at: position)
    hashes.remove(at: position)
    if index != nil {
      var built = [String: Int](minimumCapacity: entries.count * 2)
      for (position, existing) in entries.enumerated() { built[existing.key] = position }
      index = built
    }
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
