import Testing

@testable import Strata

/// A format that is not built in: lines of `key value`, for registering.
private struct SpaceSeparatedFormat: ConfigFormat {
  static let name = "spaces"
  static let fileExtensions = ["spaces", "sp"]

  func parse(_ bytes: [UInt8], path: String, options: ParseOptions) throws(StrataError) -> Document {
    var table = SettingTable()
    for (index, line) in String(decoding: bytes, as: UTF8.self).split(separator: "\n").enumerated() {
      let parts = line.split(separator: " ", maxSplits: 1)
      guard parts.count == 2 else {
        throw StrataError(.syntax, "expected 'key value'", path: path, line: index + 1, column: 1)
      }
      table[String(parts[0])] = SettingValue(
        .string(String(parts[1])), origin: .file(path: path, line: index + 1, column: parts[0].count + 2))
    }
    return Document(
      path: path, root: SettingValue(.table(table), origin: .file(path: path, line: 1, column: 1)))
  }

  func serialize(_ value: SettingValue) throws(StrataError) -> [UInt8] {
    var text = ""
    for (key, child) in value.table ?? SettingTable() { text += "\(key) \(ValueText.environment(child))\n" }
    return Array(text.utf8)
  }
}

@Suite struct FormatRegistryTests {
  @Test func theStandardRegistryHoldsTheBuiltInFormatsInLoadOrder() {
    let standard = FormatRegistry.standard
    #expect(standard.names == ["plist", "json", "ini", "dotenv", "toml"])
    #expect(standard.mainFileExtensions == ["plist", "json", "ini", "env", "toml"])
    #expect(standard.allExtensions == ["plist", "json", "ini", "conf", "cfg", "cnf", "env", "toml"])
  }

  @Test func lookupsByExtensionAndNameIgnoreCase() {
    let standard = FormatRegistry.standard
    #expect(standard.format(forPath: "/etc/a/A.JSON") is JSONFormat)
    #expect(standard.format(forPath: "/etc/a/a.Env") is DotEnvFormat)
    #expect(standard.format(forPath: "/srv/app/.env") is DotEnvFormat)
    #expect(standard.format(forPath: "/srv/app/.env.local") == nil)
    #expect(standard.format(forPath: "/srv/app/README") == nil)
    #expect(standard.format(forExtension: "CNF") is INIFormat)
    #expect(standard.format(named: "DotEnv") is DotEnvFormat)
    #expect(standard.format(named: "yaml") == nil)
    #expect(FormatRegistry.standard.format(forPath: "x.env") is DotEnvFormat)
  }

  @Test func aRegisteredFormatIsFoundEverywhereFilesAreRead() throws {
    let formats = FormatRegistry.standard.registering(SpaceSeparatedFormat())
    #expect(formats.mainFileExtensions.last == "spaces")
    try withTemporaryDirectory { root in
      try write("port 9000\n", to: root + "/etc/demo/demo.spaces")
      try write("host example.org\n", to: root + "/etc/demo/demo.conf.d/10-host.sp")
      let layout = StandardLayout(app: "demo", root: root, environment: [:], formats: formats)
      #expect(layout.mainFiles(in: "/etc/demo").last == "/etc/demo/demo.spaces")
      let snapshot = layout.stack().load()
      #expect(snapshot.entry(forKey: "port")?.origin.description == "/etc/demo/demo.spaces:1:6")
      #expect(snapshot.entry(forKey: "host")?.value.kind == .string("example.org"))
      #expect(snapshot.diagnostics.isEmpty, "\(snapshot.diagnostics)")
      // The standard registry does not know the extension.
      let standard = StandardLayout(app: "demo", root: root, environment: [:]).stack().load()
      #expect(standard.entry(forKey: "port") == nil)
    }
  }

  @Test func registeringAgainUnderANameReplacesTheFormatInItsPlace() {
    var formats = FormatRegistry.standard
    formats.register(INIFormat(), isMainFileFormat: false)
    #expect(formats.names == ["plist", "json", "ini", "dotenv", "toml"])
    #expect(formats.mainFileExtensions == ["plist", "json", "env", "toml"])
  }

  @Test func anUnknownTypeListsTheRegistrysExtensionsAndNames() {
    let formats = FormatRegistry.standard.registering(SpaceSeparatedFormat())
    let error = formats.unknownType("/etc/x.yaml")
    #expect(error.code == .unsupportedFormat)
    #expect(error.message.contains(".env, .toml, .spaces, .sp"))
    #expect(error.message.contains("--input-format plist|json|ini|dotenv|toml|spaces"))
    #expect(throws: StrataError.self) {
      try Formats.load(path: "/etc/x.yaml", options: ParseOptions(formats: formats))
    }
  }

  @Test func writesUseTheRegistryOfTheStore() throws {
    let formats = FormatRegistry.standard.registering(SpaceSeparatedFormat())
    try withTemporaryDirectory { dir in
      try write("port 1\n", to: dir + "/app.spaces")
      let store = SettingsStore(
        layers: [FileLayer(scope: .user, files: [dir + "/app.spaces"])],
        options: ParseOptions(formats: formats),
        writeTarget: .file(dir + "/app.spaces"))
      try store.write(SettingValue(.string("2"), origin: .runtime), forKey: "port")
      #expect(store.snapshot.entry(forKey: "port")?.value.kind == .string("2"))
    }
  }
}
