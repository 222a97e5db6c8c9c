/// The keys of one parse, each spelling made into a `String` once.
///
/// Configuration files repeat a few key names in every section (`host`, `port`, …): making each
/// occurrence's `String` again validates its bytes and builds it from scratch. Short ASCII keys (up to
/// 15 bytes, which `String` stores inline, without an allocation to share) are remembered in a small
/// two-way table by their ``KeyHash`` and bytes; a repeat is a few word comparisons and a copy.
struct KeyInterner {
  private struct Slot {
    /// The key's ``KeyHash``; 0 (never an interned key's) while the slot is empty.
    var hash: UInt32 = 0
    var count = 0
    var low: UInt64 = 0
    var high: UInt64 = 0
    var key = ""
  }

  private var slots = [Slot](repeating: Slot(), count: 64)

  /// The key spelled by `bytes`, valid UTF-8 whose ``KeyHash`` is `hash`.
  mutating func key(_ bytes: UnsafeBufferPointer<UInt8>, hash: UInt32) -> String {
    // Hash 0: not ASCII; longer keys live on the heap, where a repeat would share one buffer but not
    // save its validation.
    guard hash != 0, bytes.count <= 15 else { return String(decoding: bytes, as: UTF8.self) }
    var words: (low: UInt64, high: UInt64) = (0, 0)
    withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(bytes)) }
    let (low, high) = words
    // Two candidate slots, from different bits of the hash: twenty names in 64 slots nearly always share
    // a slot between two of them, which with one candidate each would evict the other on every section.
    let first = Int(hash & 0x3F)
    let second = Int((hash &>> 6) & 0x3F)
    func holds(_ index: Int) -> Bool {
      slots[index].hash == hash && slots[index].count == bytes.count && slots[index].low == low
        && slots[index].high == high
    }
    if holds(first) { return slots[first].key }
    if holds(second) { return slots[second].key }
    let key = String(decoding: bytes, as: UTF8.self)
    // A new key takes an empty candidate, else evicts the first one's.
    let index = slots[first].hash != 0 && slots[second].hash == 0 ? second : first
    slots[index] = Slot(hash: hash, count: bytes.count, low: low, high: high, key: key)
    return key
  }
}
