import Strata
import Testing

/// Runs the articles' samples that need no machine configuration (no /etc, no home directory) and
/// checks that they do what the articles say of them.
@Suite struct ArticleSampleTests {
  /// A tree of string values, as an INI file gives: `values["server.port"] = "8443"`.
  func tree(_ values: [String: String]) -> SettingValue {
    var root = SettingTable()
    for (key, value) in values {
      let names = key.split(separator: ".").map(String.init)
      var section = root[names[0]]?.table ?? SettingTable()
      section[names[1]] = SettingValue(.string(value), origin: .runtime)
      root[names[0]] = SettingValue(.table(section), origin: .runtime)
    }
    return SettingValue(.table(root), origin: .runtime)
  }

  @Test func validationKeepsOutWhatFailsItAndNamesWhy() throws {
    let settings = Declarations.ValidatedSettings(
      store: .inMemory(tree(["server.port": "70000", "server.workers": "3"])))
    #expect(settings.port == 8080, "out of range: the default")
    #expect(settings.workers == 4, "odd: the default")
    #expect(throws: StrataError.self) { try settings.$workers.save(5) }
    try settings.$workers.save(6)
    #expect(settings.workers == 6)
  }

  @Test func anOldKeySuppliesTheRenamedSetting() {
    let settings = Declarations.RenamedSettings(store: .inMemory(tree(["server.maxConn": "5"])))
    #expect(settings.maxConnections == 5)
    #expect(settings.$maxConnections.key == "server.max_connections")
  }

  @Test func theHelpTextIsReadOnTheRecord() {
    let settings = Declarations.HelpedSettings(store: .inMemory())
    #expect(settings.$port.help == "The port to listen on")
  }

  @Test func theSpaceSeparatedFormatParsesWithPositionsAndRefusesWhatItCannotRead() throws {
    let format = FileFormats.SpaceSeparatedFormat()
    let document = try format.parse(
      Array("host example.org\nport 8443\n".utf8), path: "/x.sp", options: ParseOptions())
    let port = try #require(document.root.table?["port"])
    #expect(port.kind == .string("8443"))
    #expect(port.origin == .file(path: "/x.sp", line: 2, column: 6))
    #expect(try format.serialize(document.root) == Array("host example.org\nport 8443\n".utf8))
    #expect(throws: StrataError.self) {
      try format.parse(Array("lonely\n".utf8), path: "/x.sp", options: ParseOptions())
    }
    let nested = SettingValue(
      .table(SettingTable([("n", SettingValue(.integer(1), origin: .runtime))])), origin: .runtime)
    #expect(throws: StrataError.self) { try format.serialize(nested) }
  }

  @Test func aCountingLayerCountsItsLoads() throws {
    let store = SettingsStore(layers: [LayersAndSources.CountingLayer()])
    let first = try #require(try store.value(forKey: "count", as: Int.self)?.value)
    store.reload()
    #expect(try store.value(forKey: "count", as: Int.self)?.value == first + 1)
  }
}
