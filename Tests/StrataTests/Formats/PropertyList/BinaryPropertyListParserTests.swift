import Foundation
import Testing

@testable import Strata

private let format = PropertyListFormat()

/// Assembles a bplist00 file from encoded objects: offset table and trailer computed here.
func bplist(_ objects: [[UInt8]], top: Int = 0, referenceSize: UInt8 = 1) -> [UInt8] {
  var bytes = Array("bplist00".utf8)
  var offsets: [Int] = []
  for object in objects {
    offsets.append(bytes.count)
    bytes += object
  }
  let table = bytes.count
  for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
  bytes += [0, 0, 0, 0, 0, 0, 2, referenceSize]
  for value in [objects.count, top, table] {
    bytes += (0..<8).reversed().map { UInt8((value >> ($0 * 8)) & 0xFF) }
  }
  return bytes
}

private func parseBinary(_ bytes: [UInt8], maxDepth: Int = 512) throws(StrataError) -> Document {
  try format.parse(bytes, path: "b.plist", options: ParseOptions(maxDepth: maxDepth))
}

private func binaryError(_ bytes: [UInt8]) -> StrataError? {
  do {
    _ = try parseBinary(bytes)
    return nil
  } catch {
    return error
  }
}

/// A dict `{"k": object 2}` followed by the given objects (numbered from 2).
private func dictWith(_ objects: [UInt8]...) -> [UInt8] {
  bplist([[0xD1, 1, 2], [0x51, UInt8(ascii: "k")]] + objects)
}

@Suite struct BinaryPropertyListParserTests {
  @Test func readsEveryObjectKind() throws {
    let objects: [[UInt8]] = [
      [0xDF, 0x10, 9] + Array(1...9) + Array(10...18),
      [0x51, 0x61], [0x51, 0x62], [0x51, 0x63], [0x51, 0x64], [0x51, 0x65], [0x51, 0x66], [0x51, 0x67],
      [0x51, 0x68], [0x51, 0x69],
      [0x10, 0xFF],  // 255: small ints are unsigned
      [0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE],  // -2
      [0x14] + [UInt8](repeating: 0xFF, count: 8) + [0x80, 0, 0, 0, 0, 0, 0, 0],  // Int64.min in 16 bytes
      [0x22, 0x3F, 0xC0, 0, 0],  // Float 1.5
      [0x33, 0x41, 0xC3, 0x88, 0x2D, 0x40, 0, 0, 0],  // date
      [0x43, 1, 2, 3],
      [0x62, 0xD8, 0x3D, 0xDE, 0x00],  // UTF-16 "😀"
      [0x72, 0xC3, 0xA9],  // UTF-8 "é"
      [0xA2, 10, 11],
    ]
    let root = try parseBinary(bplist(objects)).root
    let table = try #require(root.table)
    #expect(table.keys == ["a", "b", "c", "d", "e", "f", "g", "h", "i"])
    #expect(table["a"]?.kind == .integer(255))
    #expect(table["b"]?.kind == .integer(-2))
    #expect(table["c"]?.kind == .integer(Int.min))
    #expect(table["d"]?.kind == .double(1.5))
    #expect(
      table["e"]?.kind
        == .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: 0x41C3_882D_4000_0000))))
    #expect(table["f"]?.kind == .data(Data([1, 2, 3])))
    #expect(table["g"]?.kind == .string("😀"))
    #expect(table["h"]?.kind == .string("é"))
    #expect(table["i"]?.kind == .array([table["a"]!, table["b"]!]))
    #expect(root.origin == .file(path: "b.plist", line: 0, column: 0))
    #expect(table["i"]?.origin == .file(path: "b.plist", line: 0, column: 0))
  }

  @Test func duplicateKeysWarn() throws {
    let document = try parseBinary(bplist([[0xD2, 1, 1, 2, 3], [0x51, 0x6B], [0x10, 1], [0x10, 2]]))
    #expect(document.root.table?["k"]?.kind == .integer(2))
    #expect(document.diagnostics.map(\.error.code) == [.duplicateKey])
  }

  @Test(arguments: [
    // (file, words the message must contain)
    (Array("bplist00".utf8), "too short"),
    (Array("bplist01".utf8) + [UInt8](repeating: 0, count: 40), "version"),
    (dictWith([0x00]), "null"),
    (dictWith([0x80, 1]), "UID"),
    (dictWith([0xC0]), "set"),
    (dictWith([0x0F]), "marker 0xF"),
    (dictWith([0xE0]), "marker 0xE0"),
    (dictWith([0x15, 0]), "integer"),
    (dictWith([0x14] + [UInt8](repeating: 0, count: 7) + [1] + [UInt8](repeating: 0, count: 8)), "16-byte"),
    (dictWith([0x21, 0, 0]), "real"),
    (dictWith([0x33, 0x7F, 0xF0, 0, 0, 0, 0, 0, 0]), "finite"),
    (dictWith([0x52, 0xC3, 0xA9]), "ASCII"),
    (dictWith([0x61, 0xD8, 0x00]), "UTF-16"),
    (dictWith([0x71, 0xFF]), "UTF-8"),
    (dictWith([0x4F, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]), "count"),
    (dictWith([0xAF, 0x13, 0, 0, 0, 1, 0, 0, 0, 0, 2]), "count"),
    (dictWith([0xAF, 0x11, 0x00, 0x10, 2]), "elements"),
    (dictWith([0xAF, 0x20]), "extended count"),
    (dictWith([0xA1, 9]), "reference 9"),
    (dictWith([0x45, 1]), "elements"),
    (bplist([[0xD1, 2, 1], [0x51, 0x6B], [0x10, 1]]), "not a string"),
    (bplist([[0xD1, 1, 0], [0x51, 0x6B]]), "cycle"),
    (bplist([[0xD1, 1, 2], [0x51, 0x6B], [0xA1, 3], [0xA1, 2]]), "cycle"),
    (bplist([[0xD0]], top: 1), "top object"),
  ])
  func rejectsBrokenFiles(bytes: [UInt8], words: String) throws {
    let error = try #require(binaryError(bytes))
    #expect(error.code == .invalidPropertyList, "\(error)")
    #expect(error.message.contains(words), "\(error)")
    #expect(error.path == "b.plist")
  }

  @Test func rejectsBrokenTrailers() throws {
    let good = bplist([[0xD0]])
    #expect(try parseBinary(good).root.table?.isEmpty == true)
    let trailer = good.count - 32
    for (position, value, words) in [
      (trailer + 6, UInt8(0), "offset size"), (trailer + 6, 9, "offset size"),
      (trailer + 7, 0, "reference size"),
      (trailer + 15, 0, "object count"), (trailer + 15, 200, "object count"),
      (trailer + 8, 0x80, "object count"),
      (trailer + 23, 1, "top object"), (trailer + 31, 3, "offset table"), (trailer + 24, 1, "offset table"),
      (good.count - 33, 3, "outside the object area"),
    ] {
      var bytes = good
      bytes[position] = value
      let error = try #require(binaryError(bytes), "byte \(position) = \(value)")
      #expect(error.code == .invalidPropertyList)
      #expect(error.message.contains(words), "\(error)")
    }
  }

  @Test func topLevelMustBeADict() throws {
    let error = try #require(binaryError(bplist([[0xA0]])))
    #expect(error.code == .syntax)
    #expect(error.message.contains("must be a dict, not array"))
  }

  @Test func sharedContainersAreBuiltOnceAndCountedAtEachUse() throws {
    // Each array holds the next one twice: 2^levels nodes for every reader that walks the tree.
    func chain(_ levels: Int) -> [UInt8] {
      var objects: [[UInt8]] = [[0xD1, 1, 2], [0x51, 0x6B]]
      for level in 0..<levels { objects.append([0xA2, UInt8(3 + level), UInt8(3 + level)]) }
      objects.append([0x09])
      return bplist(objects)
    }
    let root = try parseBinary(chain(12)).root
    var node = try #require(root.table?["k"])
    var depth = 0
    while case .array(let items) = node.kind {
      #expect(items.count == 2)
      node = items[0]
      depth += 1
    }
    #expect(depth == 12)
    #expect(node.kind == .bool(true))
    // 2^60 would never finish expanding anywhere downstream: refused, counted without overflow.
    #expect(binaryError(chain(60))?.code == .tooManyValues)
  }

  @Test func capsNesting() throws {
    // A dict holding 1,000 nested arrays, with two-byte references.
    var objects: [[UInt8]] = [[0xD1, 0, 1, 0, 2], [0x51, 0x6B]]
    for level in 0..<1_000 { objects.append([0xA1, UInt8((3 + level) >> 8), UInt8((3 + level) & 0xFF)]) }
    objects.append([0xA0])
    let bytes = bplist(objects, referenceSize: 2)
    #expect(binaryError(bytes)?.code == .nestingTooDeep)
    #expect(try parseBinary(bytes, maxDepth: 2_000).root.isTable)
  }

  @Test func survivesEveryTruncationAndByteFlip() throws {
    var table = SettingTable()
    table["name"] = SettingValue(.string("demo ünï 😀"), origin: .runtime)
    table["port"] = SettingValue(.integer(-8080), origin: .runtime)
    table["big"] = SettingValue(.integer(1 << 40), origin: .runtime)
    table["ratio"] = SettingValue(.double(0.1), origin: .runtime)
    table["when"] = SettingValue(.date(Date(timeIntervalSince1970: 1e9)), origin: .runtime)
    table["blob"] = SettingValue(.data(Data(0..<20)), origin: .runtime)
    table["list"] = SettingValue(
      .array((0..<16).map { SettingValue(.integer($0 * 1000), origin: .runtime) }), origin: .runtime)
    table["nested"] = SettingValue(.table(table), origin: .runtime)
    let good = try format.serializeBinary(SettingValue(.table(table), origin: .runtime))
    #expect(try parseBinary(good).root == SettingValue(.table(table), origin: .runtime))
    var documents = 0
    var errors = 0
    func attempt(_ bytes: [UInt8]) {
      do {
        _ = try parseBinary(bytes)
        documents += 1
      } catch {
        errors += 1
      }
    }
    for length in 0..<good.count { attempt(Array(good[0..<length])) }
    for position in 0..<good.count {
      for flip: UInt8 in [0x01, 0x0F, 0x80, 0xFF] {
        var bytes = good
        bytes[position] ^= flip
        attempt(bytes)
      }
    }
    #expect(documents + errors == good.count * 5)
    #expect(errors >= good.count)
  }
}
