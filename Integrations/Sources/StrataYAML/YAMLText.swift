import Strata
import Yams

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The bytes of a YAML file and the two ways positions are counted in it: libyaml's marks (lines broken
/// at `\n`, `\r\n`, `\r`, NEL, LS and PS; columns counting Unicode scalars, from 1) and Strata's origins
/// (lines broken at `\n`; columns counting UTF-8 bytes, from 1, as compilers and editors do).
struct YAMLText {
  /// The file's bytes, a byte order mark left out (libyaml skips it before counting).
  let bytes: [UInt8]
  /// Where each of libyaml's lines starts.
  private let markLineStarts: [Int]
  /// Whether each of libyaml's lines is ASCII, so that its columns are its byte offsets.
  private let markLineIsASCII: [Bool]
  /// Where each `\n`-separated line starts.
  private let lineStarts: [Int]
  /// The last mark converted on a non-ASCII line: values come in file order, so that a long line of a
  /// flow collection is walked once, not once per value.
  private var lastWalk: (line: Int, column: Int, offset: Int) = (0, 0, 0)

  init(_ bytes: [UInt8]) {
    self.bytes = bytes
    var markStarts = [0]
    var ascii = [true]
    var starts = [0]
    var index = 0
    let count = bytes.count
    while index < count {
      let byte = bytes[index]
      if byte == 0x0A {
        starts.append(index + 1)
        markStarts.append(index + 1)
        ascii.append(true)
        index += 1
      } else if byte == 0x0D {
        let next = index + 1 < count && bytes[index + 1] == 0x0A ? index + 2 : index + 1
        if next == index + 2 { starts.append(next) }
        markStarts.append(next)
        ascii.append(true)
        index = next
      } else if byte < 0x80 {
        index += 1
      } else {
        ascii[ascii.count - 1] = false
        // NEL (C2 85), LS (E2 80 A8) and PS (E2 80 A9) end a line for libyaml (YAML 1.1).
        if byte == 0xC2, index + 1 < count, bytes[index + 1] == 0x85 {
          markStarts.append(index + 2)
          ascii.append(true)
          index += 2
        } else if byte == 0xE2, index + 2 < count, bytes[index + 1] == 0x80,
          bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9
        {
          markStarts.append(index + 3)
          ascii.append(true)
          index += 3
        } else {
          index += 1
        }
      }
    }
    markLineStarts = markStarts
    markLineIsASCII = ascii
    lineStarts = starts
  }

  /// The byte offset a libyaml mark points at (clamped to the file).
  mutating func offset(of mark: Mark) -> Int {
    let line = min(max(mark.line, 1), markLineStarts.count) - 1
    let start = markLineStarts[line]
    let scalars = max(mark.column - 1, 0)
    if markLineIsASCII[line] { return min(start + scalars, bytes.count) }
    var (offset, walked) = (start, 0)
    if lastWalk.line == line + 1, lastWalk.column <= scalars {
      (offset, walked) = (lastWalk.offset, lastWalk.column)
    }
    while walked < scalars && offset < bytes.count {
      let lead = bytes[offset]
      offset += lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
      walked += 1
    }
    offset = min(offset, bytes.count)
    lastWalk = (line + 1, walked, offset)
    return offset
  }

  /// The line (from 1, at `\n`) and byte column (from 1) of a byte offset.
  func position(ofOffset offset: Int) -> (line: Int, column: Int) {
    var (low, high) = (0, lineStarts.count - 1)
    while low < high {
      let middle = (low + high + 1) / 2
      if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
    }
    return (low + 1, offset - lineStarts[low] + 1)
  }

  /// The line and byte column of a libyaml mark.
  mutating func position(of mark: Mark?) -> (line: Int, column: Int) {
    guard let mark else { return (0, 0) }
    return position(ofOffset: offset(of: mark))
  }

  /// The origin of a node.
  mutating func origin(of mark: Mark?, path: String) -> Origin {
    let (line, column) = position(of: mark)
    return .file(path: path, line: line, column: column)
  }
}
