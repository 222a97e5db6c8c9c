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

  @Test func aLargeTableFromEntriesKeepsEachRepeatedKeysFirstPlaceAndLastValue() {
    // Past the linear size, with repeats early and late, and non-ASCII keys (compared as `String`s).
    var entries = (0..<50).map { ("k\($0)", value($0)) }
    entries += [
      ("k3", value(-3)), ("Kelvin", value(100)), ("k49", value(-49)), ("\u{212A}elvin", value(101)),
    ]
    let table = SettingTable(entries)
    #expect(table.count == 51)
    #expect(table.keys == (0..<50).map { "k\($0)" } + ["Kelvin"])
    #expect(table["k3"] == value(-3) && table["k49"] == value(-49) && table["k4"] == value(4))
    #expect(table["Kelvin"] == value(101))  // the Kelvin sign's spelling equals it as a `String`
    #expect(table["k50"] == nil)
    var grown = table
    grown["k50"] = value(50)
    #expect(grown.count == 52 && table.count == 51 && grown["k50"] == value(50))
  }
}
