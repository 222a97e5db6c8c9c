import Foundation
import Testing

@testable import Strata

struct TokenSettings: SettingsGroup {
  static var section: String { "api" }
  @Setting(traits: .secret) var token = ""
  @Setting var name = ""
}

@Suite struct FilePermissionsTests {
  func setMode(_ mode: Int, _ path: String) throws {
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
  }

  @Test func aWorldWritableSystemFileIsRefusedWithTheFix() throws {
    try withTemporaryDirectory { dir in
      try write("[api]\nname = system\n", to: dir + "/etc/app/app.ini")
      try setMode(0o666, dir + "/etc/app/app.ini")
      let contents = FileLayer(scope: .system, files: ["/etc/app/app.ini"])
        .load(LoadContext(options: ParseOptions(resolvePath: rootResolver(dir))))
      #expect(contents.documents.isEmpty)
      #expect(
        contents.diagnostics.map(\.description) == [
          "/etc/app/app.ini: error: refusing a file anyone can write (mode 0666); fix it with: chmod o-w \(dir)/etc/app/app.ini"
        ])
      // The user's own layer is not held to it, and the check can be turned off.
      #expect(
        FileLayer(scope: .user, files: [dir + "/etc/app/app.ini"]).load(LoadContext()).documents.count == 1)
      var relaxed = FileLayer(scope: .system, files: [dir + "/etc/app/app.ini"])
      relaxed.requiresSafePermissions = false
      #expect(relaxed.load(LoadContext()).documents.count == 1)
    }
  }

  @Test func aFileOwnedBySomeoneElseIsRefused() throws {
    guard geteuid() == 0 else { return }  // only root can give a file away; CI runs as root
    try withTemporaryDirectory { dir in
      try write("[api]\nname = x\n", to: dir + "/app.ini")
      #expect(chown(dir + "/app.ini", 4242, 4242) == 0)
      let contents = FileLayer(scope: .system, files: [dir + "/app.ini"]).load(LoadContext())
      #expect(contents.documents.isEmpty)
      #expect(contents.diagnostics.first?.error.code == .insecurePermissions)
      #expect(contents.diagnostics.first?.error.message.contains("owned by uid 4242") == true)
      #expect(contents.diagnostics.first?.error.message.contains("chown root") == true)
    }
  }

  @Test func aSecretFromAReadableFileIsWarnedAbout() throws {
    try withTemporaryDirectory { dir in
      let file = dir + "/app.ini"
      try write("[api]\ntoken = hunter2\nname = n\n", to: file)
      try setMode(0o644, file)
      let store = SettingsStore(layers: [FileLayer(scope: .user, files: [file])])
      let settings = TokenSettings(store: store)
      #expect(settings.token == "hunter2")
      let warning = try #require(store.diagnostics.first { $0.error.code == .insecurePermissions })
      #expect(warning.severity == .warning)
      #expect(
        warning.description
          == "\(file): warning: supplies the secret 'api.token' but group or others can read it (mode 0644); fix it with: chmod go-r \(file)"
      )
      #expect(!warning.description.contains("hunter2"))
      try setMode(0o600, file)
      #expect(!store.diagnostics.contains { $0.error.code == .insecurePermissions })
    }
  }
}
