import Testing

@testable import Strata

/// The samples of the doc comments of `INIFormat`, `TOMLFormat`, `EditableFormat` and
/// `PropertyListFormat` (internal types), run: each checks what its comments say.
@Suite struct FormatSymbolSnippets {
  let bytes = Array("[server]\nport = 8080\n".utf8)

  @Test func iniFormat() throws {
    // snippet: INIFormat
    let document = try INIFormat().parse(bytes, path: "/etc/demo/demo.ini", options: ParseOptions())
    let port = document.root.value(at: "server.port")  // "8080" from `[server]` / `port = 8080`
    // snippet: end
    #expect(port?.kind == .string("8080"))
  }

  @Test func tomlFormat() throws {
    // snippet: TOMLFormat
    let document = try TOMLFormat().parse(bytes, path: "/etc/demo/demo.toml", options: ParseOptions())
    let port = document.root.value(at: "server.port")  // 8080 from `[server]` / `port = 8080`
    // snippet: end
    #expect(port?.kind == .integer(8080))
  }

  @Test func editableFormat() throws {
    let old = Array("# the listener\n[server]\nport = 8080\n".utf8)
    // snippet: EditableFormat
    let bytes = try INIFormat().edit(
      old, setting: SettingValue(.string("9000"), origin: .runtime), at: "server.port",
      path: "/etc/demo/demo.ini", options: ParseOptions())
    // snippet: end
    #expect(String(decoding: bytes, as: UTF8.self) == "# the listener\n[server]\nport = 9000\n")
  }

  @Test func propertyListFormat() throws {
    let bytes = Array(
      "<plist version=\"1.0\"><dict><key>port</key><integer>8080</integer></dict></plist>".utf8)
    // snippet: PropertyListFormat
    let document = try PropertyListFormat().parse(
      bytes, path: "/etc/demo/demo.plist", options: ParseOptions())
    let xml = try PropertyListFormat().serialize(document.root)
    let binary = try PropertyListFormat().serializeBinary(document.root)
    // snippet: end
    #expect(String(decoding: xml, as: UTF8.self).contains("<key>port</key>"))
    #expect(binary.starts(with: Array("bplist00".utf8)))
    let reread = try PropertyListFormat().parse(binary, path: "demo.plist", options: ParseOptions())
    #expect(reread.root.value(at: "port")?.kind == .integer(8080))
  }
}
