import Testing

@testable import Strata

/// A table past its linear size keeps its key index in a shared box: copies of the table stay
/// independent values through inserts, replacements and removals.
@Suite struct SettingTableCopyTests {
  private func value(_ n: Int) -> SettingValue { SettingValue(.integer(n), origin: .runtime) }

  @Test func copiesOfALargeTableChangeIndependently() {
    var original = SettingTable((0..<40).map { ("k\($0)", value($0)) })
    let copy = original
    original["k40"] = value(40)
    original["k3"] = nil
    original["k5"] = value(-5)
    #expect(original.count == 40 && copy.count == 40)
    #expect(original["k40"] == value(40) && copy["k40"] == nil)
    #expect(original["k3"] == nil && copy["k3"] == value(3))
    #expect(original["k5"] == value(-5) && copy["k5"] == value(5))
    for n in 0..<40 where n != 3 && n != 5 {
      #expect(original["k\(n)"] == value(n) && copy["k\(n)"] == value(n), "k\(n)")
    }
    var second = copy
    for n in 40..<100 { second["k\(n)"] = value(n) }
    #expect(second.count == 100 && copy.count == 40)
    #expect((0..<100).allSatisfy { second["k\($0)"] == value($0) })
    #expect(second.keys == (0..<100).map { "k\($0)" })
  }
}
