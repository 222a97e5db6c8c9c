import Testing

@testable import Strata

/// The binary parser counts references before it walks the tree: an object referenced once is moved
/// into its container, one referenced more often is built once and shared. These check that both paths
/// give the same values, origins and warnings.
@Suite struct BinaryPropertyListSharingTests {
  private let format = PropertyListFormat()
  private let origin = Origin.file(path: "s.plist", line: 0, column: 0)

  private func parse(_ bytes: [UInt8]) throws -> Document {
    try format.parse(bytes, path: "s.plist", options: ParseOptions())
  }

  /// An ASCII string object.
  private func ascii(_ text: String) -> [UInt8] {
    let utf8 = Array(text.utf8)
    precondition(utf8.count < 15)
    return [0x50 | UInt8(utf8.count)] + utf8
  }

  @Test func objectsReferencedTwiceAndOnceReadTheSame() throws {
    let long = Array("a string longer than fifteen bytes".utf8)
    let objects: [[UInt8]] = [
      // 0: {one: 5, two: 5, three: 6, four: 6, five: 7}
      [0xD5, 1, 2, 3, 4, 8, 5, 5, 6, 6, 7],
      ascii("one"), ascii("two"), ascii("three"), ascii("four"),
      [0x5F, 0x10, UInt8(long.count)] + long,  // 5: referenced twice
      [0xA2, 5, 9],  // 6: referenced twice, holds 5 a third time
      [0xA1, 9],  // 7: referenced once
      ascii("five"),
      [0x10, 42],
    ]
    let document = try parse(bplist(objects))
    let table = try #require(document.root.table)
    let string = SettingValue(.string(String(decoding: long, as: UTF8.self)), origin: origin)
    let array = SettingValue(.array([string, SettingValue(.integer(42), origin: origin)]), origin: origin)
    #expect(table.keys == ["one", "two", "three", "four", "five"])
    #expect(table["one"] == string)
    #expect(table["two"] == string)
    #expect(table["three"] == array)
    #expect(table["four"] == array)
    #expect(
      table["five"] == SettingValue(.array([SettingValue(.integer(42), origin: origin)]), origin: origin))
    for key in table.keys { #expect(table[key]?.origin == origin) }
    if case .array(let items) = table["four"]?.kind {
      #expect(items.map(\.origin) == [origin, origin])
    }
    #expect(document.diagnostics.isEmpty)
  }

  @Test func keysSharedBetweenDictsAndUsedAsValues() throws {
    // As Apple's writer does: one object per distinct string, keys included.
    let objects: [[UInt8]] = [
      [0xD2, 1, 2, 3, 4],  // {host: {host: "port"}, port: {port: "host"}}
      ascii("host"), ascii("port"),
      [0xD1, 1, 2],
      [0xD1, 2, 1],
    ]
    let table = try #require(try parse(bplist(objects)).root.table)
    #expect(table.keys == ["host", "port"])
    #expect(table["host"]?.table?["host"]?.kind == .string("port"))
    #expect(table["port"]?.table?["port"]?.kind == .string("host"))
  }

  @Test func duplicateKeysWarnInnerDictsFirstAsBefore() throws {
    // {a: 1, a: 2, c: {b: 1, b: 2}}: the inner dict is finished first, so its warning comes first.
    let objects: [[UInt8]] = [
      [0xD3, 1, 1, 2, 3, 4, 5],
      ascii("a"), ascii("c"),
      [0x10, 1], [0x10, 2],
      [0xD2, 6, 6, 3, 4],
      ascii("b"),
    ]
    let document = try parse(bplist(objects))
    #expect(document.root.table?["a"]?.kind == .integer(2))
    #expect(document.root.table?["c"]?.table?["b"]?.kind == .integer(2))
    let messages = document.diagnostics.map(\.error.message)
    #expect(messages.count == 2)
    #expect(messages.first?.contains("\"b\"") == true, "\(messages)")
    #expect(messages.last?.contains("\"a\"") == true, "\(messages)")
  }

  @Test func unreachableObjectsDoNotMatter() throws {
    let objects: [[UInt8]] = [
      [0xD1, 1, 2],  // {k: [3]}
      ascii("k"),
      [0xA1, 3],
      [0x10, 7],
      [0xAF, 0x13, 0x7F, 0, 0, 0, 0, 0, 0, 0],  // an array claiming more elements than the file holds
      [0xA3, 3, 2, 200],  // references the live objects and one past the count
      [0xDF, 0x10, 3],  // a dict whose references run past the object area
    ]
    let table = try #require(try parse(bplist(objects)).root.table)
    #expect(
      table["k"]
        == SettingValue(.array([SettingValue(.integer(7), origin: origin)]), origin: origin))
  }

  @Test func aContainerReferencedManyTimesReadsTheSameAtEachUse() throws {
    // 200 references to one dict of 50 keys: 10,000 values for a reader, well under the default cap.
    var objects: [[UInt8]] = [
      [0xD1, 1, 2], ascii("k"), [0xAF, 0x10, 200] + [UInt8](repeating: 3, count: 200),
    ]
    let keys = (0..<50).map { 4 + $0 }
    objects.append([0xDF, 0x10, 50] + keys.map(UInt8.init) + [UInt8](repeating: 54, count: 50))
    for key in 0..<50 { objects.append(ascii("key\(key)")) }
    objects.append([0x09])
    let shared = try #require(try parse(bplist(objects)).root.table?["k"])
    guard case .array(let array) = shared.kind else {
      Issue.record("not an array: \(shared)")
      return
    }
    #expect(array.count == 200)
    #expect(array.allSatisfy { $0 == array[0] })
    #expect(array[0].table?.count == 50)
    #expect(array[0].table?["key49"]?.kind == .bool(true))
  }
}
