import StrataPlatform

/// A parsed file's path and bytes, kept by the string values that are slices of them
/// (``SettingValue``'s `text` storage): one object per file, so a value holds one reference where it
/// would hold a `String` of its own and its origin's path.
///
/// The bytes are never changed after the file is read, and a parser makes slices only of bytes it has
/// checked to be valid UTF-8.
final class SourceText: Sendable {
  let path: String
  let bytes: [UInt8]

  init(path: String, bytes: [UInt8]) {
    self.path = path
    self.bytes = bytes
  }

  /// The string of `count` bytes at `start`.
  func string(_ start: UInt32, _ count: UInt32) -> String {
    string(from: Int(start), to: Int(start) + Int(count))
  }

  /// The string of the bytes `start..<end`.
  func string(from start: Int, to end: Int) -> String {
    bytes.withUnsafeBufferPointer {
      String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self)
    }
  }

  /// Whether two slices hold the same bytes.
  static func bytesEqual(
    _ a: SourceText, _ aStart: UInt32, _ aCount: UInt32, _ b: SourceText, _ bStart: UInt32, _ bCount: UInt32
  ) -> Bool {
    guard aCount == bCount else { return false }
    if aCount == 0 || (a === b && aStart == bStart) { return true }
    return a.bytes.withUnsafeBufferPointer { x in
      b.bytes.withUnsafeBufferPointer { y in
        memcmp(x.baseAddress! + Int(aStart), y.baseAddress! + Int(bStart), Int(aCount)) == 0
      }
    }
  }
}
