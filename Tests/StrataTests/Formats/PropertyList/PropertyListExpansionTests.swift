import Foundation
import Testing

@testable import Strata

/// A chain of dicts that each use the one below twice, `{"a": D, "b": D}`, `levels` deep: a file of a
/// few hundred bytes that stands for 2^levels leaves.
func sharedDictChain(levels: Int) -> [UInt8] {
  var objects: [[UInt8]] = [
    [0x51, UInt8(ascii: "x")], [0x51, UInt8(ascii: "a")], [0x51, UInt8(ascii: "b")],
  ]
  for level in 1...levels {
    let below = UInt8(level == 1 ? 0 : level + 1)
    objects.append([0xD2, 1, 2, below, below])
  }
  return bplist(objects, top: objects.count - 1)
}

@Suite struct PropertyListExpansionTests {
  @Test func aSmallFileThatExpandsToMillionsOfValuesIsRefused() throws {
    let bytes = sharedDictChain(levels: 20)
    #expect(bytes.count < 300)
    let clock = ContinuousClock()
    var caught: StrataError?
    let elapsed = clock.measure {
      do throws(StrataError) {
        _ = try PropertyListFormat().parse(bytes, path: "/etc/app/bomb.plist", options: ParseOptions())
      } catch {
        caught = error
      }
    }
    #expect(caught?.code == .tooManyValues)
    #expect(caught?.path == "/etc/app/bomb.plist")
    #expect(caught?.message.contains("more than 1000000 values") == true)
    // Refused after counting, not after building: well under the tens of seconds the expansion took.
    #expect(elapsed < .seconds(5))
  }

  @Test func theCapIsConfigurableAndCountsEveryUse() throws {
    // 10 levels: 2^10 leaves, 2^11 - 1 tables, and a key for every value below the top: 4,093 values.
    let bytes = sharedDictChain(levels: 10)
    let fits = try PropertyListFormat().parse(bytes, path: "p", options: ParseOptions(maxValues: 4093))
    var leaves = 0
    fits.root.forEachLeaf { _, _ in leaves += 1 }
    #expect(leaves == 1024)
    #expect(throws: StrataError.self) {
      try PropertyListFormat().parse(bytes, path: "p", options: ParseOptions(maxValues: 4092))
    }
  }

  @Test func aStoreReportsTheBombAndLoadsTheRest() throws {
    try withTemporaryDirectory { dir in
      try Data(sharedDictChain(levels: 24)).write(to: URL(fileURLWithPath: dir + "/bomb.plist"))
      try write(#"{"port": 8080}"#, to: dir + "/app.json")
      let snapshot = LayerStack(layers: [
        FileLayer(scope: .vendor, files: [dir + "/app.json"]),
        FileLayer(scope: .system, files: [dir + "/bomb.plist"]),
      ]).load()
      #expect(snapshot.keys == ["port"])
      #expect(snapshot.diagnostics.map(\.error.code) == [.tooManyValues])
      #expect(snapshot.diagnostics.first?.description.contains(dir + "/bomb.plist") == true)
    }
  }
}
