import Strata

/// FileFormats.md.
enum FileFormats {
  struct ServerSettings: SettingsGroup {
    @Setting var port = 8080
  }

  static func positions(_ store: SettingsStore, _ server: ServerSettings) {
    // snippet: positions
    print(server.$port.origin)  // /etc/demo/demo.ini:6:8
    print(store.snapshot.entry(forKey: "server.port")?.value.origin ?? .codeDefault)  // the same, by key
    // snippet: end
  }

  static func register() -> SettingsStore {
    // snippet: register
    let formats = FormatRegistry.standard.registering(SpaceSeparatedFormat())  // your `ConfigFormat`
    let store = SettingsStore(app: "demo", formats: formats)  // now reads /etc/demo/demo.spaces too
    // snippet: end
    return store
  }

  // snippet: format
  struct SpaceSeparatedFormat: ConfigFormat {
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
      for (key, child) in value.table ?? SettingTable() {
        guard case .string(let string) = child.kind else {
          throw StrataError(.syntax, "'\(key)' is not a string; this format holds strings only")
        }
        text += "\(key) \(string)\n"
      }
      return Array(text.utf8)
    }
  }
  // snippet: end

  static func layout() -> StandardLayout {
    // snippet: layout
    let formats = FormatRegistry.standard.registering(SpaceSeparatedFormat())
    let layout = StandardLayout(app: "demo", formats: formats)  // reads /etc/demo/demo.spaces,
    // and conf.d/*.sp drop-ins
    // snippet: end
    return layout
  }
}
