import Foundation
import Testing

@testable import Strata

/// `--check --schema` points an unknown key's warning at where the key is written, in every format.
@Suite struct UnknownKeyPositionTests {
  let schema = repositoryRoot + "/Samples/demo/demo.schema.json"

  func warnings(_ name: String, _ text: String) async throws -> [String] {
    try await withTemporaryDirectory { dir in
      try write(text, to: dir + "/" + name)
      let run = try await runConfigDump([dir + "/" + name, "--schema", schema, "--check"])
      #expect(run.status == 0, "\(run.output)\(run.errors)")
      return run.output.split(separator: "\n").filter { $0.contains("unknown key") }
        .map { String($0.dropFirst(dir.count + 1)) }
    }
  }

  @Test func iniKeysIndentedAndDotted() async throws {
    let found = try await warnings("app.ini", "[server]\n  prot = 8080\nserver.hots = x\nxprot = 1\n")
    #expect(found.contains { $0.hasPrefix("app.ini:2:3: warning: unknown key 'server.prot'") }, "\(found)")
    // A dotted key is pointed at from its first name, not at its last.
    #expect(
      found.contains { $0.hasPrefix("app.ini:3:1: warning: unknown key 'server.server.hots'") }, "\(found)")
    #expect(found.contains { $0.hasPrefix("app.ini:4:1: warning: unknown key 'server.xprot'") }, "\(found)")
  }

  @Test func jsonNamesOnTheValuesLineAndAbove() async throws {
    let found = try await warnings(
      "app.json", "{\"server\":\n  {\"prot\":\n     8080, \"a\": {\"prot\": 1}}}\n")
    #expect(found.contains { $0.hasPrefix("app.json:2:4: warning: unknown key 'server.prot'") }, "\(found)")
    #expect(
      found.contains { $0.hasPrefix("app.json:3:18: warning: unknown key 'server.a.prot'") }, "\(found)")
  }

  @Test func propertyListKeysOnTheLineAbove() async throws {
    let plist = """
      <?xml version="1.0" encoding="UTF-8"?>
      <plist version="1.0">
      <dict>
        <key>server</key>
        <dict>
          <key>prot</key>
          <integer>1</integer>
          <key>hots</key><string>x</string>
        </dict>
      </dict>
      </plist>
      """
    let found = try await warnings("app.plist", plist)
    #expect(found.contains { $0.hasPrefix("app.plist:6:5: warning: unknown key 'server.prot'") }, "\(found)")
    #expect(found.contains { $0.hasPrefix("app.plist:8:5: warning: unknown key 'server.hots'") }, "\(found)")
  }
}
