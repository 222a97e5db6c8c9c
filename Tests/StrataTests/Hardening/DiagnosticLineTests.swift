import Testing

@testable import Strata

/// One diagnostic is one line, whatever the names and paths it quotes hold.
@Suite struct DiagnosticLineTests {
  @Test func aVariableNameWithANewlineCannotForgeACheckLine() throws {
    let forged = "DEMO_X\n/etc/demo/demo.ini:1:1: error: forged"
    let snapshot = LayerStack(layers: [EnvironmentLayer(prefix: "DEMO", variables: [forged: "1"])]).load()
    let lines = snapshot.diagnostics.map(\.description)
    #expect(!lines.isEmpty)
    for line in lines {
      #expect(!line.contains("\n"), "\(line)")
      #expect(line.contains(#"DEMO_X\n/etc/demo"#))
    }
  }

  @Test func pathsAndMessagesEscapeEveryControlCharacter() {
    let error = StrataError(
      .syntax, "bad\u{1b}[31m\r\tvalue\u{85}", path: "/etc/a\nb.ini", line: 2, column: 3)
    #expect(error.description == #"/etc/a\nb.ini:2:3: bad\u{1b}[31m\r\tvalue\u{85}"#)
    #expect(
      Diagnostic(.warning, error).description == #"/etc/a\nb.ini:2:3: warning: bad\u{1b}[31m\r\tvalue\u{85}"#)
    #expect(StrataError(.syntax, "plain").description == "plain")
  }
}
