/// Key → position for a large table (past ``SettingTable/linearLimit`` keys): open addressing over the
/// ``KeyHash`` of each key, which parsers compute from the bytes as they read them.
///
/// A `[String: Int]` hashes every key again with SipHash (twice per new key: a lookup, then the insert)
/// and was half of parsing a file of 100-key tables. Here a new key costs one probe of 32-bit hashes and
/// a string comparison only on a hash match. Keys with non-ASCII bytes hash to 0: their equality is
/// `String`'s, which compares canonically equivalent spellings equal, even to an ASCII key (the Kelvin
/// sign `\u{212A}` is `K`). The first such key turns the index into a `[String: Int]`, whose hashing
/// is `String`'s; one asked for while every key is ASCII is compared with each of them.
///
/// Bounded: a chain longer than ``maximumProbe`` (crafted colliding keys, or many non-ASCII ones) turns
/// the index into a `[String: Int]` (randomly seeded), so a hostile file cannot make a parse quadratic.
struct KeyIndex: Sendable {
  /// The longest probe before the index gives up on open addressing.
  static let maximumProbe = 24

  private enum Storage {
    /// Slots hold position + 1 (0: empty); `hashes` holds each position's key hash.
    case probing(slots: [Int32], hashes: [UInt32])
    case dictionary([String: Int])
  }

  private var storage: Storage

  /// An index of `keys` (distinct), by position.
  init(_ keys: some Collection<String>) {
    storage = .probing(slots: [], hashes: [])
    reserve(keys.count)
    for (position, key) in keys.enumerated() {
      insert(key, hash: KeyHash.of(key), at: position, earlier: keys.prefix(position))
    }
  }

  /// An empty index with room for `capacity` keys.
  init(capacity: Int) {
    storage = .probing(slots: [], hashes: [])
    reserve(capacity)
  }

  /// The number of keys.
  var count: Int {
    switch storage {
    case .probing(_, let hashes): hashes.count
    case .dictionary(let dictionary): dictionary.count
    }
  }

  /// The position of `key` (whose ``KeyHash`` is `hash`), where `keyAt` gives the key at a position.
  @inline(__always)
  func position(of key: String, hash: UInt32, keyAt: (Int) -> String) -> Int? {
    switch storage {
    case .probing(let slots, let hashes):
      guard !slots.isEmpty else { return nil }
      if hash == 0 {
        // A non-ASCII key may still equal an ASCII one (`\u{212A}` and `K`): only `String` can say.
        return hashes.indices.first { keyAt($0) == key }
      }
      let mask = slots.count - 1
      var slot = Int(truncatingIfNeeded: hash) & mask
      while true {
        let stored = Int(slots[slot])
        if stored == 0 { return nil }
        if hashes[stored - 1] == hash && keyAt(stored - 1) == key { return stored - 1 }
        slot = (slot + 1) & mask
      }
    case .dictionary(let dictionary):
      return dictionary[key]
    }
  }

  /// Adds a key that is not in the index, at `position` (the next one); `earlier` are the keys at the
  /// positions before it (read only if the index turns into a dictionary).
  mutating func insert(_ key: String, hash: UInt32, at position: Int, earlier: some Collection<String>) {
    switch storage {
    case .dictionary(var dictionary):
      storage = .probing(slots: [], hashes: [])  // so that the insert below does not copy
      dictionary[key] = position
      storage = .dictionary(dictionary)
    case .probing(var slots, var hashes):
      storage = .probing(slots: [], hashes: [])
      hashes.append(hash)
      let placed: Bool
      if hash == 0 {
        placed = false  // a non-ASCII key: `String` equality from now on (see the type's comment)
      } else if hashes.count * 2 > slots.count {
        (slots, placed) = Self.slots(for: hashes, capacity: hashes.count * 2)
      } else {
        placed = Self.place(position, hash: hash, in: &slots)
      }
      if placed {
        storage = .probing(slots: slots, hashes: hashes)
        return
      }
      var dictionary = [String: Int](minimumCapacity: hashes.count * 2)
      for (index, existing) in earlier.enumerated() { dictionary[existing] = index }
      dictionary[key] = position
      storage = .dictionary(dictionary)
    }
  }

  private mutating func reserve(_ capacity: Int) {
    guard case .probing(let slots, var hashes) = storage, capacity * 2 > slots.count else { return }
    hashes.reserveCapacity(capacity)
    // Every chain of an empty (or smaller) index fits: only the slots' count changes here.
    storage = .probing(slots: Self.slots(for: hashes, capacity: capacity * 2).slots, hashes: hashes)
  }

  /// Slots (a power of two, at least `capacity`) holding the positions of `hashes`, and whether every
  /// one found a place within ``maximumProbe``.
  private static func slots(for hashes: [UInt32], capacity: Int) -> (slots: [Int32], placed: Bool) {
    var count = 16
    while count < capacity { count <<= 1 }
    var slots = [Int32](repeating: 0, count: count)
    for (position, hash) in hashes.enumerated() where !place(position, hash: hash, in: &slots) {
      return (slots, false)
    }
    return (slots, true)
  }

  /// Puts a position in the first free slot of its chain; `false` when the chain is too long.
  private static func place(_ position: Int, hash: UInt32, in slots: inout [Int32]) -> Bool {
    let mask = slots.count - 1
    var slot = Int(truncatingIfNeeded: hash) & mask
    for _ in 0..<maximumProbe {
      if slots[slot] == 0 {
        slots[slot] = Int32(truncatingIfNeeded: position + 1)
        return true
      }
      slot = (slot + 1) & mask
    }
    return false
  }
}
