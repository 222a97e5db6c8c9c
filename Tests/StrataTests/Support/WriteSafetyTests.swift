import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// Writes keep every update of concurrent writers, go through links, and keep owners.
@Suite struct WriteSafetyTests {
  func store(_ path: String) -> SettingsStore {
    SettingsStore(layers: [FileLayer(scope: .user, files: [path])], writeTarget: .file(path))
  }

  @Test(arguments: ["app.json", "app.ini", "app.plist"])
  func twoWritersWithTheirOwnStoresLoseNoUpdate(name: String) async throws {
    try await withTemporaryDirectory { dir in
      let path = dir + "/" + name
      // Two stores do not share their in-process lock, as two processes do not: only the directory's
      // lock keeps one's read-modify-write from overwriting the other's.
      let stores = [store(path), store(path)]
      let perWriter = 150
      // Threads of their own: a writer waiting for the other's lock sleeps between tries, which must
      // not hold a thread of the concurrency pool.
      let failures = SharedInt()
      await ThreadGroup.run(stores.count) { writer in
        for index in 0..<perWriter {
          do {
            try stores[writer].write(
              SettingValue(.integer(index), origin: .runtime), forKey: "w\(writer).k\(index)")
          } catch {
            failures.add(1)
            Issue.record("writer \(writer), write \(index): \(error)")
          }
        }
      }
      #expect(failures.load() == 0)
      let reread = LayerStack(layers: [FileLayer(scope: .user, files: [path])]).load()
      #expect(reread.diagnostics.isEmpty, "\(reread.diagnostics)")
      #expect(reread.keys.count == 2 * perWriter, "lost \(2 * perWriter - reread.keys.count) updates")
    }
  }

  @Test func aWriterThatCannotGetTheLockInTimeThrowsAndWritesNothing() async throws {
    try await withTemporaryDirectory { dir in
      let holder = open(dir, O_RDONLY | O_DIRECTORY)
      defer { close(holder) }
      #expect(flock(holder, LOCK_EX | LOCK_NB) == 0)  // never waits: nothing else holds it
      let ran = SharedInt()
      // On a thread of its own: the writer sleeps between tries until its 30 ms are up.
      let failure = await onOwnThread { () -> StrataError? in
        do throws(StrataError) {
          try WriterLock.withLock(directory: dir, reportedAs: dir + "/app.json", timeout: .milliseconds(30)) {
            ran.store(1)
          }
          return nil
        } catch {
          return error
        }
      }
      #expect(
        failure?.message.contains("another process has been writing") == true,
        "\(String(describing: failure))")
      #expect(ran.load() == 0)
      #expect(flock(holder, LOCK_UN) == 0)
      try WriterLock.withLock(directory: dir, reportedAs: dir, timeout: .milliseconds(30)) { ran.store(1) }
      #expect(ran.load() == 1)
    }
  }

  @Test func aWriteThroughASymlinkReplacesTheTargetAndKeepsTheLink() throws {
    try withTemporaryDirectory { dir in
      try write(#"{"port": 1}"#, to: dir + "/dotfiles/app.json")
      try FileManager.default.createDirectory(atPath: dir + "/config", withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: dir + "/config/app.json", withDestinationPath: "../dotfiles/app.json")
      try store(dir + "/config/app.json").write(SettingValue(.integer(2), origin: .runtime), forKey: "port")
      #expect(FileSystem.entry(at: dir + "/config/app.json") == .symlink)
      let text = try String(contentsOfFile: dir + "/dotfiles/app.json", encoding: .utf8)
      #expect(text.contains("\"port\": 2"))
      #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/config") == ["app.json"])
    }
  }

  @Test func aWriteThroughADanglingLinkCreatesItsTarget() throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.createDirectory(atPath: dir + "/config", withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: dir + "/config/app.json", withDestinationPath: dir + "/real.json")
      try store(dir + "/config/app.json").write(SettingValue(.integer(3), origin: .runtime), forKey: "port")
      #expect(FileSystem.entry(at: dir + "/config/app.json") == .symlink)
      #expect(try String(contentsOfFile: dir + "/real.json", encoding: .utf8).contains("\"port\": 3"))
    }
  }

  @Test func aLinkLoopIsRefused() throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.createSymbolicLink(atPath: dir + "/a.json", withDestinationPath: "b.json")
      try FileManager.default.createSymbolicLink(atPath: dir + "/b.json", withDestinationPath: "a.json")
      #expect {
        try FileWriter.write(
          SettingValue(.integer(1), origin: .runtime), forKey: "x", toFile: dir + "/a.json",
          options: ParseOptions())
      } throws: { error in
        (error as? StrataError)?.message.contains("too many levels of symbolic links") == true
      }
    }
  }

  @Test func aHardLinkedFileIsNotSplit() throws {
    try withTemporaryDirectory { dir in
      try write(#"{"port": 1}"#, to: dir + "/app.json")
      #expect(link(dir + "/app.json", dir + "/other.json") == 0)
      #expect {
        try store(dir + "/app.json").write(SettingValue(.integer(2), origin: .runtime), forKey: "port")
      } throws: { error in
        (error as? StrataError)?.message.contains("2 hard links") == true
      }
      var a = stat()
      var b = stat()
      #expect(stat(dir + "/app.json", &a) == 0 && stat(dir + "/other.json", &b) == 0)
      #expect(a.st_ino == b.st_ino)
      #expect(try String(contentsOfFile: dir + "/other.json", encoding: .utf8) == #"{"port": 1}"#)
    }
  }

  @Test(.enabled(if: geteuid() == 0, "only root can give a file to another user"))
  func rootWritingAUsersFileLeavesItTheUsers() throws {
    try withTemporaryDirectory { dir in
      try write(#"{"port": 1}"#, to: dir + "/app.json")
      #expect(chown(dir + "/app.json", 65534, 65534) == 0)
      #expect(chmod(dir + "/app.json", 0o640) == 0)
      try store(dir + "/app.json").write(SettingValue(.integer(2), origin: .runtime), forKey: "port")
      var info = stat()
      #expect(stat(dir + "/app.json", &info) == 0)
      #expect(info.st_uid == 65534 && info.st_gid == 65534)
      #expect(info.st_mode & 0o7777 == 0o640)
      #expect(try String(contentsOfFile: dir + "/app.json", encoding: .utf8).contains("\"port\": 2"))
    }
  }
}
