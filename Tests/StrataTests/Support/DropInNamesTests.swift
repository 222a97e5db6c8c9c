import Testing

@testable import Strata

@Suite struct DropInNamesTests {
  let extensions = ["json", "plist", "ini", "conf"]

  @Test(arguments: ["10-a.ini", "20-b.json", "x.plist", "z.conf", "UPPER.INI"])
  func loads(name: String) {
    #expect(DropInNames.shouldLoad(name, extensions: extensions))
  }

  @Test(arguments: [
    "4913", ".10-a.ini", ".#10-a.ini", "#10-a.ini#", "10-a.ini~", "10-a.ini.swp", ".10-a.ini.XyZ123",
    ".ansible_tmpab12cd10-a.ini", ".chef-10-a.ini", "sedAbC123", "10-a.ini.dpkg-new", "10-a.ini.bak",
    "README",
    "noext", ".ini",
  ])
  func skips(name: String) {
    #expect(!DropInNames.shouldLoad(name, extensions: extensions))
  }

  @Test(arguments: ["..data", "..data_tmp", "..2026_11_28_02_19_19.123456789", "..2026_11_28_02_19_19.1"])
  func theKubeletsEntriesAreNeitherLoadedNorReported(name: String) {
    #expect(!DropInNames.shouldLoad(name, extensions: extensions))
    #expect(DropInNames.skipReason(name, extensions: extensions) == nil)
  }

  @Test(arguments: [
    "..datax", ".data", "..data.ini", "..2026_11_28_02_19_19.", "..2026_11_28_02_19_19.12a",
    "..2026-11-28_02_19_19.1", "..2026_11_28_02_19_19.1.ini",
  ])
  func nearMissesOfTheKubeletsEntriesAreReported(name: String) {
    #expect(
      DropInNames.skipReason(name, extensions: extensions) == "a hidden, backup or editor's temporary file")
  }

  @Test func sortsByBytes() {
    #expect(
      DropInNames.sorted(["b.ini", "10-x.json", "a.ini~", "9.ini", "B.ini", "4913"], extensions: extensions)
        == ["10-x.json", "9.ini", "B.ini", "b.ini"])
  }
}
