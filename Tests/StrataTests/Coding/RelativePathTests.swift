import Foundation
import Testing

@testable import Strata

/// A `URL` setting written as a relative path reads it relative to the directory of the file that set
/// it (its origin stays that file's line and column); set by a variable, relative to the working
/// directory.
@Suite struct RelativePathTests {
  struct TLSSettings: SettingsGroup {
    static var section: String { "tls" }
    @Setting var certificate = URL(filePath: "/etc/ssl/default.pem")
    @Setting var key: URL? = nil
    @Setting var upstream: URL? = nil
  }

  @Test func aRelativePathIsRelativeToTheFileThatSetIt() throws {
    try withTemporaryDirectory { dir in
      try write(
        "[tls]\ncertificate = certs/server.pem\nupstream = https://b.example/x\n", to: dir + "/etc/app.ini")
      try write("[tls]\nkey = ../keys/./server.key\n", to: dir + "/etc/app.conf.d/50-key.ini")
      let store = SettingsStore(
        layers: [
          FileLayer(scope: .system, files: [dir + "/etc/app.ini"], dropInDirectory: dir + "/etc/app.conf.d")
        ])
      let tls = TLSSettings(store: store)
      #expect(tls.certificate.path == dir + "/etc/certs/server.pem")
      #expect(tls.$certificate.origin == .file(path: dir + "/etc/app.ini", line: 2, column: 15))
      #expect(tls.key?.path == dir + "/etc/keys/server.key")  // from the drop-in directory, one up
      #expect(tls.upstream?.absoluteString == "https://b.example/x")
      #expect(store.diagnostics.isEmpty, "\(store.diagnostics)")
    }
  }

  @Test func setByAVariableItIsRelativeToTheWorkingDirectory() throws {
    try withTemporaryDirectory { dir in
      let store = SettingsStore(
        layers: [EnvironmentLayer(prefix: "APP", variables: ["APP_TLS_KEY": "keys/a.key"])])
      let tls = TLSSettings(store: store)
      #expect(tls.key?.path == FileManager.default.currentDirectoryPath + "/keys/a.key")
      #expect(tls.$key.origin == .environment(variable: "APP_TLS_KEY"))
    }
  }

  @Test func aNameWithoutASlashIsRefusedWithWhereAndHowToWriteIt() throws {
    try withTemporaryDirectory { dir in
      try write("[tls]\nupstream = b.example\n", to: dir + "/app.ini")
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      let tls = TLSSettings(store: store)
      #expect(tls.upstream == nil)
      #expect(
        store.diagnostics.map(\.description) == [
          "\(dir)/app.ini:2:12: error: expected URL for tls.upstream, found \"b.example\" (a URL needs a scheme; "
            + "a path relative to the file, a slash: ./b.example)"
        ])
    }
  }
}
