import Foundation
import StrataPlatform
import Testing

/// `hot-reload-server` on a fresh copy of its files (the secret's drop-in readable by others, as git
/// checks it out) warns of that once, naming the file on disk.
@Suite struct HotReloadServerWarningTests {
  @Test func theReadableSecretIsWarnedOfOnce() async throws {
    try await withTemporaryDirectory { dir in
      let root = dir + "/root"
      try await shell("cp -r \(repositoryRoot)/Samples/HotReloadServer/root \(root)")
      let secretFile = root + "/etc/hotreload/hotreload.conf.d/50-admin.ini"
      #expect(chmod(secretFile, 0o644) == 0)
      let ini = root + "/etc/hotreload/hotreload.ini"
      try await shell("sed -i 's/^port = .*/port = 0/' \(ini)")
      let server = try startHotReloadServer(root: root, in: dir)
      #expect(await server.line(startingWith: "listening on ", within: 120) != nil, "\(server.transcript)")
      // An edit's event comes after every problem the subscription was told first: once it is out, any
      // second warning would be too.
      try await shell("sed -i 's/^name = .*/name = Strata/' \(ini)")
      #expect(await server.line(startingWith: "config: reloaded", within: 120) != nil, "\(server.transcript)")
      let warning = "supplies the secret 'admin.token' but group or others can read it"
      #expect(server.transcript.components(separatedBy: warning).count == 2, "\(server.transcript)")
      #expect(server.transcript.contains("fix it with: chmod go-r \(secretFile)"), "\(server.transcript)")
      server.send(SIGTERM)
      #expect(await server.finish(within: 60).ending == .exited(0))
    }
  }
}
