/// The last good document of each file, by content hash.
///
/// Reloads read a file whole and hash it: an unchanged file reuses its document (so `touch`, an
/// identical rewrite, or the echo of the store's own write cost one read and no parse), and a file that
/// no longer parses keeps its last good document while the error is reported.
public final class DocumentCache: Sendable {
  struct Entry {
    var hash: ContentHash
    var document: Document
  }

  private let entries = Locked([String: Entry]())

  /// An empty cache.
  public init() {}

  func lookup(_ path: String) -> Entry? { entries.withLock { $0[path] } }
  func store(_ entry: Entry, for path: String) { entries.withLock { $0[path] = entry } }
  func remove(_ path: String) { _ = entries.withLock { $0.removeValue(forKey: path) } }
}

/// A 128-bit content hash (two independent 64-bit FNV-1a lanes over the bytes, and the length), used to
/// tell whether a file changed. Not cryptographic: it guards against reparsing, not against attackers.
struct ContentHash: Hashable, Sendable {
  var low: UInt64
  var high: UInt64
  var count: Int

  init(_ bytes: [UInt8]) {
    var a: UInt64 = 0xcbf2_9ce4_8422_2325
    var b: UInt64 = 0x8422_2325_cbf2_9ce4
    for byte in bytes {
      a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
      b = (b ^ UInt64(byte ^ 0x5a)) &* 0x0000_0100_0000_0129
    }
    low = a
    high = b
    count = bytes.count
  }
}
