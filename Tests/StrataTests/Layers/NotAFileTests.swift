import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// Anything at a configuration path that is not a regular file is refused, at once, with what it is.
@Suite struct NotAFileTests {
  /// Runs `body` on a thread of its own and awaits it up to `seconds`: a regression that blocks in
  /// open() fails the test instead of hanging the suite (or a thread of the concurrency pool).
  func finishes<T: Sendable>(within seconds: Double = 60, _ body: @escaping @Sendable () -> T) async -> T? {
    await OwnThread(body).value(within: seconds)
  }

  @Test func aFIFOAtTheSystemFileDoesNotHangAStoreAndIsReported() async throws {
    try await withTemporaryDirectory { root in
      try FileManager.default.createDirectory(atPath: root + "/etc/app", withIntermediateDirectories: true)
      #expect(mkfifo(root + "/etc/app/app.ini", 0o644) == 0)
      let diagnostics = await finishes {
        SettingsStore(app: "app", root: root, environment: ["HOME": "/home/user"]).diagnostics.map(
          \.description)
      }
      let found = try #require(diagnostics, "the store hung opening a FIFO")
      #expect(found.contains("/etc/app/app.ini: error: not a regular file: a FIFO (named pipe)"), "\(found)")
    }
  }

  @Test func configDumpRefusesEveryKindOfNonFile() async throws {
    try await withTemporaryDirectory { dir in
      #expect(mkfifo(dir + "/fifo.ini", 0o644) == 0)
      let socketFD = try bindUnixSocket(at: dir + "/socket.ini")
      defer { close(socketFD) }
      try FileManager.default.createSymbolicLink(atPath: dir + "/zero.json", withDestinationPath: "/dev/zero")
      try FileManager.default.createSymbolicLink(
        atPath: dir + "/random.ini", withDestinationPath: "/dev/urandom")
      try FileManager.default.createDirectory(atPath: dir + "/dir.ini", withIntermediateDirectories: false)
      let expected = [
        "fifo.ini": "a FIFO (named pipe)", "socket.ini": "a socket", "zero.json": "a character device",
        "random.ini": "a character device", "dir.ini": "a directory",
      ]
      for (name, kind) in expected {
        // A hang would be killed at the deadline, and fail here.
        let run = try await Spawn.run(configDumpPath, [dir + "/" + name, "--check"], within: 60)
        #expect(run.status == 1, "\(name): \(run)")
        #expect(
          run.output.contains("\(dir)/\(name): error: not a regular file: \(kind)"), "\(name): \(run.output)")
      }
    }
  }

  @Test func aFIFOIncludedOrDroppedInIsRefusedToo() async throws {
    try await withTemporaryDirectory { root in
      try write("a = 1\n!include pipe.ini\n", to: root + "/etc/app/app.ini")
      #expect(mkfifo(root + "/etc/app/pipe.ini", 0o644) == 0)
      try FileManager.default.createDirectory(
        atPath: root + "/etc/app/app.conf.d", withIntermediateDirectories: true)
      #expect(mkfifo(root + "/etc/app/app.conf.d/10-pipe.ini", 0o644) == 0)
      let layer = FileLayer(
        scope: .system, files: ["/etc/app/app.ini"], dropInDirectory: "/etc/app/app.conf.d")
      let contents = await finishes {
        layer.load(LoadContext(options: ParseOptions(resolvePath: { root + $0 }))).diagnostics.map(
          \.description)
      }
      let found = try #require(contents, "loading hung on a FIFO")
      #expect(found.contains { $0.contains("/etc/app/pipe.ini") && $0.contains("not a regular file") })
      #expect(found.contains { $0.hasPrefix("/etc/app/app.conf.d/10-pipe.ini: error: not a regular file") })
    }
  }

  @Test func aDanglingLinkIsReportedByCheck() throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.createSymbolicLink(
        atPath: dir + "/app.ini", withDestinationPath: dir + "/gone.ini")
      try write("[a]\nb = 1\n", to: dir + "/other.ini")
      let layer = FileLayer(scope: .user, files: [dir + "/app.ini", dir + "/other.ini"])
      let snapshot = LayerStack(layers: [layer]).load()
      #expect(snapshot.entry(forKey: "a.b") != nil)
      #expect(
        snapshot.diagnostics.map(\.description) == [
          "\(dir)/app.ini: warning: a symbolic link to \(dir)/gone.ini, which does not exist; the file is treated as absent"
        ])
    }
  }

  @Test func aDropInDirectoryAnyoneCanWriteIsRefused() throws {
    try withTemporaryDirectory { root in
      try write("[a]\nb = 1\n", to: root + "/etc/app/app.conf.d/10-a.ini")
      #expect(chmod(root + "/etc/app/app.conf.d", 0o777) == 0)
      let layer = FileLayer(scope: .system, files: [], dropInDirectory: "/etc/app/app.conf.d")
      let contents = layer.load(LoadContext(options: ParseOptions(resolvePath: { root + $0 })))
      #expect(contents.documents.isEmpty)
      #expect(
        contents.diagnostics.map(\.description) == [
          "/etc/app/app.conf.d: error: refusing a directory anyone can write (mode 0777); fix it with: "
            + "chmod o-w \(root)/etc/app/app.conf.d"
        ])
    }
  }
}
