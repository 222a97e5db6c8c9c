import Testing

@testable import Strata

@Suite struct UnknownOptionsTests {
  @Test func withoutDeclaredSettingsOptionsAreCheckedAgainstTheOtherLayersKeys() {
    let files = StaticLayer(
      scope: .system, root: fileTree("/etc/demo/demo.ini", [("server.port", .string("8443"))]))
    let store = SettingsStore(layers: [
      files, CommandLineLayer(arguments: ["--server.prot=1", "--server.port=2"]),
    ])
    #expect(
      store.diagnostics.map(\.description) == [
        "arg:--server.prot: warning: unknown option '--server.prot' (did you mean '--server.port'?)"
      ])
    let alone = SettingsStore(layers: [CommandLineLayer(arguments: ["--anything=1"])])
    #expect(alone.diagnostics.isEmpty)
  }
}
