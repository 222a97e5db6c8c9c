import Foundation
import Testing

@testable import Strata

/// sshd's `StrictModes` for every file a system layer reads: includes, directories on the path, groups
/// and links, each refused with the command that fixes it.
@Suite struct PathTrustTests {
  func setMode(_ mode: Int, _ path: String) throws {
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
  }

  /// Loads `/etc/app/app.ini` under `root` as the system layer does.
  func load(_ root: String) -> LayerContents {
    FileLayer(scope: .system, files: ["/etc/app/app.ini"])
      .load(LoadContext(options: ParseOptions(resolvePath: rootResolver(root))))
  }

  @Test func anIncludedFileAnyoneCanWriteIsRefusedAtItsDirective() throws {
    try withTemporaryDirectory { dir in
      try write("[a]\nx = main\n!include extra.ini\n", to: dir + "/etc/app/app.ini")
      try write("[a]\nx = planted\n", to: dir + "/etc/app/extra.ini")
      try setMode(0o666, dir + "/etc/app/extra.ini")
      let contents = load(dir)
      #expect(contents.documents.isEmpty)
      #expect(
        contents.diagnostics.map(\.description) == [
          "/etc/app/app.ini:3:1: error: '/etc/app/extra.ini' is included: refusing a file anyone can write "
            + "(mode 0666); fix it with: chmod o-w \(dir)/etc/app/extra.ini"
        ])
      try setMode(0o644, dir + "/etc/app/extra.ini")
      #expect(load(dir).documents.first?.root.value(at: "a.x")?.kind == .string("planted"))
    }
  }

  @Test func anIncludedFileOrDirectoryOwnedBySomeoneElseIsRefused() throws {
    guard geteuid() == 0 else { return }  // only root can give a file away; CI runs as root
    try withTemporaryDirectory { dir in
      try write("!include extra.ini\n", to: dir + "/etc/app/app.ini")
      try write("[a]\nx = 1\n", to: dir + "/etc/app/extra.ini")
      #expect(chown(dir + "/etc/app/extra.ini", 4242, 4242) == 0)
      #expect(load(dir).diagnostics.first?.error.message.contains("owned by uid 4242") == true)
      try write("!includedir more.d\n", to: dir + "/etc/app/app.ini")
      try write("[a]\nx = 1\n", to: dir + "/etc/app/more.d/a.ini")
      #expect(chown(dir + "/etc/app/more.d", 4242, 4242) == 0)
      let diagnostic = try #require(load(dir).diagnostics.first)
      #expect(diagnostic.error.code == .insecurePermissions)
      #expect(diagnostic.description.hasPrefix("/etc/app/app.ini:1:1: error: '/etc/app/more.d' is included"))
      #expect(diagnostic.error.message.hasSuffix("fix it with: chown root \(dir)/etc/app/more.d"))
    }
  }

  @Test func aWorldWritableDirectoryOnThePathIsRefused() throws {
    try withTemporaryDirectory { dir in
      try write("[a]\nx = 1\n", to: dir + "/etc/app/app.ini")
      try setMode(0o777, dir + "/etc/app")
      #expect(
        load(dir).diagnostics.map(\.description) == [
          "/etc/app/app.ini: error: refusing it: /etc/app, on its path, is a directory anyone can write "
            + "(mode 0777); fix it with: chmod o-w \(dir)/etc/app"
        ])
      try setMode(0o755, dir + "/etc/app")
      try setMode(0o777, dir + "/etc")
      #expect(load(dir).diagnostics.first?.error.message.hasSuffix("chmod o-w \(dir)/etc") == true)
      // A sticky directory anyone can write (/tmp) lets others add entries, not replace ours.
      try setMode(0o1777, dir + "/etc")
      #expect(load(dir).diagnostics.isEmpty)
      #expect(load(dir).documents.count == 1)
    }
  }

  @Test func aGroupWritableFileOfAnotherGroupIsRefused() throws {
    guard geteuid() == 0 else { return }
    try withTemporaryDirectory { dir in
      try write("[a]\nx = 1\n", to: dir + "/etc/app/app.ini")
      try setMode(0o664, dir + "/etc/app/app.ini")
      // Root's own group (or this process's) may write it.
      #expect(load(dir).documents.count == 1)
      #expect(chown(dir + "/etc/app/app.ini", 0, 4242) == 0)
      #expect(
        load(dir).diagnostics.map(\.description) == [
          "/etc/app/app.ini: error: refusing a file group 4242 can write (mode 0664), neither root's group nor "
            + "this process's; fix it with: chmod g-w \(dir)/etc/app/app.ini"
        ])
      try setMode(0o644, dir + "/etc/app/app.ini")
      #expect(load(dir).documents.count == 1)
    }
  }

  @Test func aLinkPlantedByAnotherUserIsNotFollowed() throws {
    guard geteuid() == 0 else { return }
    try withTemporaryDirectory { dir in
      try write("[a]\nsecret = root-only\n", to: dir + "/root-only.ini")
      try setMode(0o600, dir + "/root-only.ini")
      try FileManager.default.createDirectory(atPath: dir + "/etc/app", withIntermediateDirectories: true)
      #expect(symlink(dir + "/root-only.ini", dir + "/etc/app/app.ini") == 0)
      #expect(load(dir).documents.count == 1)  // root's own link is followed
      #expect(lchown(dir + "/etc/app/app.ini", 4242, 4242) == 0)
      let contents = load(dir)
      #expect(contents.documents.isEmpty)
      #expect(
        contents.diagnostics.map(\.description) == [
          "/etc/app/app.ini: error: refusing a symbolic link owned by uid 4242, neither root nor this process "
            + "(uid 0), as the kernel's protected_symlinks would; fix it with: chown -h root \(dir)/etc/app/app.ini"
        ])
    }
  }

  @Test func theDirectoriesWhereALinkLeadsAreCheckedToo() throws {
    try withTemporaryDirectory { dir in
      try write("[a]\nx = 1\n", to: dir + "/elsewhere/app.ini")
      try setMode(0o777, dir + "/elsewhere")
      try FileManager.default.createDirectory(atPath: dir + "/etc/app", withIntermediateDirectories: true)
      #expect(symlink(dir + "/elsewhere/app.ini", dir + "/etc/app/app.ini") == 0)
      let diagnostic = try #require(load(dir).diagnostics.first)
      #expect(diagnostic.error.code == .insecurePermissions)
      #expect(diagnostic.error.message.hasSuffix("fix it with: chmod o-w \(dir)/elsewhere"))
    }
  }

  @Test func aLinkedDirectoryOnThePathLeadsToDirectoriesThatAreCheckedToo() throws {
    try withTemporaryDirectory { dir in
      try write("[a]\nx = 1\n", to: dir + "/elsewhere/app/app.ini")
      try write("[a]\ny = 1\n", to: dir + "/elsewhere/app/app.conf.d/10-a.ini")
      try setMode(0o777, dir + "/elsewhere")
      try FileManager.default.createDirectory(atPath: dir + "/etc", withIntermediateDirectories: true)
      #expect(symlink(dir + "/elsewhere/app", dir + "/etc/app") == 0)
      let contents = FileLayer(
        scope: .system, files: ["/etc/app/app.ini"], dropInDirectory: "/etc/app/app.conf.d"
      )
      .load(LoadContext(options: ParseOptions(resolvePath: rootResolver(dir))))
      #expect(contents.documents.isEmpty)
      #expect(
        contents.diagnostics.map(\.error.message).allSatisfy { $0.hasSuffix("chmod o-w \(dir)/elsewhere") })
      #expect(contents.diagnostics.count == 2)
    }
  }

  /// `..` after a link goes up from where the link leads, not from the link: the lexical path's
  /// directories are not the ones read.
  @Test func aParentComponentAfterALinkIsCheckedWhereItLeads() throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.createDirectory(
        atPath: dir + "/elsewhere/deep", withIntermediateDirectories: true)
      try write("[a]\nx = 1\n", to: dir + "/elsewhere/app/app.ini")
      try write("[a]\nx = 2\n", to: dir + "/etc/app/app.ini")
      try setMode(0o777, dir + "/elsewhere/app")
      #expect(symlink(dir + "/elsewhere/deep", dir + "/etc/link") == 0)
      // Lexically /etc/app/app.ini (safe); on disk /elsewhere/app/app.ini, in a directory anyone can write.
      let contents = FileLayer(scope: .system, files: ["/etc/link/../app/app.ini"])
        .load(LoadContext(options: ParseOptions(resolvePath: rootResolver(dir))))
      #expect(contents.documents.isEmpty)
      #expect(contents.diagnostics.first?.error.message.hasSuffix("chmod o-w \(dir)/elsewhere/app") == true)
    }
  }

  /// Above the root prefix only links are looked for; where one leads is checked all the way to `/`.
  @Test func aRootReachedThroughALinkIsCheckedWhereItLeads() throws {
    try withTemporaryDirectory { dir in
      try write("[a]\nx = 1\n", to: dir + "/open/root/etc/app/app.ini")
      try setMode(0o777, dir + "/open")
      #expect(symlink(dir + "/open", dir + "/link") == 0)
      let contents = FileLayer(scope: .system, files: ["/etc/app/app.ini"])
        .load(LoadContext(options: ParseOptions(resolvePath: rootResolver(dir + "/link/root"))))
      #expect(contents.documents.isEmpty)
      #expect(contents.diagnostics.first?.error.message.hasSuffix("chmod o-w \(dir)/open") == true)
    }
  }

  /// The directories a layer's files share are checked once per load, and again on the next load.
  @Test func aDirectoryMadeUnsafeBetweenLoadsIsRefusedOnTheNextLoad() throws {
    try withTemporaryDirectory { dir in
      try write("[a]\nx = 1\n", to: dir + "/etc/app/app.ini")
      try write("[a]\ny = 1\n", to: dir + "/etc/app/app.conf.d/10-a.ini")
      try write("[a]\nz = 1\n", to: dir + "/etc/app/app.conf.d/20-b.ini")
      let layer = FileLayer(
        scope: .system, files: ["/etc/app/app.ini"], dropInDirectory: "/etc/app/app.conf.d")
      let context = LoadContext(options: ParseOptions(resolvePath: rootResolver(dir)))
      #expect(layer.load(context).documents.count == 3)
      try setMode(0o777, dir + "/etc/app")
      let refused = layer.load(context)
      // Each file is refused for the directory, not only the first one that met it.
      #expect(refused.diagnostics.count == 2)
      #expect(refused.diagnostics.allSatisfy { $0.error.message.hasSuffix("chmod o-w \(dir)/etc/app") })
      try setMode(0o755, dir + "/etc/app")
      try setMode(0o666, dir + "/etc/app/app.conf.d/20-b.ini")
      let oneRefused = layer.load(context)
      #expect(oneRefused.documents.count == 2)
      #expect(oneRefused.diagnostics.map(\.error.path) == ["/etc/app/app.conf.d/20-b.ini"])
    }
  }

  @Test func aRefusedFileKeepsItsLastGoodValuesInAStore() throws {
    try withTemporaryDirectory { dir in
      try write("[a]\nx = 1\n", to: dir + "/etc/app/app.ini")
      let store = SettingsStore(
        layers: [FileLayer(scope: .system, files: ["/etc/app/app.ini"])],
        options: ParseOptions(resolvePath: rootResolver(dir)))
      #expect(store.snapshot.value(forKey: "a.x")?.kind == .string("1"))
      try setMode(0o777, dir + "/etc/app")
      try write("[a]\nx = 2\n", to: dir + "/etc/app/app.ini")
      store.reload()
      #expect(store.snapshot.value(forKey: "a.x")?.kind == .string("1"))
      #expect(store.diagnostics.contains { $0.error.code == .insecurePermissions })
    }
  }
}
