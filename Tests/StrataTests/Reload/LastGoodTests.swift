import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// Every kind of read failure keeps a file's last good document, as a syntax error does; only a real
/// deletion removes its values.
@Suite struct LastGoodTests {
  func store(_ path: String, maxFileSize: Int = 16 << 20) -> SettingsStore {
    SettingsStore(
      layers: [FileLayer(scope: .system, files: [path])], options: ParseOptions(maxFileSize: maxFileSize))
  }

  @Test func aFileThatGrowsPastTheLimitKeepsItsValues() throws {
    try withTemporaryDirectory { dir in
      let path = dir + "/app.json"
      try write(#"{"port": 8080}"#, to: path)
      let store = store(path, maxFileSize: 1024)
      try write(#"{"port": 9090, "pad": ""# + String(repeating: "x", count: 2000) + "\"}", to: path)
      store.reload()
      #expect(store.snapshot.entry(forKey: "port")?.value.kind == .integer(8080))
      #expect(store.diagnostics.contains { $0.error.code == .fileTooLarge && $0.error.path == path })
      try write(#"{"port": 9091}"#, to: path)
      store.reload()
      #expect(store.snapshot.entry(forKey: "port")?.value.kind == .integer(9091))
      #expect(store.diagnostics.isEmpty)
    }
  }

  @Test func aFileReplacedByADirectoryKeepsItsValues() throws {
    try withTemporaryDirectory { dir in
      let path = dir + "/app.json"
      try write(#"{"port": 8080}"#, to: path)
      let store = store(path)
      try FileManager.default.removeItem(atPath: path)
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
      store.reload()
      #expect(store.snapshot.entry(forKey: "port")?.value.kind == .integer(8080))
      #expect(store.diagnostics.contains { $0.severity == .error && $0.error.path == path })
    }
  }

  @Test func aFileThatBecomesUnsafeKeepsWhatItHeldWhileSafe() throws {
    try withTemporaryDirectory { dir in
      let path = dir + "/etc/app/app.json"
      try write(#"{"port": 8080}"#, to: path)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [path])])  // checks permissions
      #expect(store.snapshot.entry(forKey: "port")?.value.kind == .integer(8080))
      try write(#"{"port": 1}"#, to: path)
      #expect(chmod(path, 0o666) == 0)
      store.reload()
      #expect(store.snapshot.entry(forKey: "port")?.value.kind == .integer(8080))
      #expect(store.diagnostics.contains { $0.error.code == .insecurePermissions })
    }
  }

  @Test func aRealDeletionRemovesTheValuesOnceMissingForTheGracePeriod() async throws {
    try await withTemporaryDirectory { dir in
      let path = dir + "/app.json"
      try write(#"{"port": 8080}"#, to: path)
      let store = store(path)
      store.cache.units.grace = 50_000_000
      try FileManager.default.removeItem(atPath: path)
      // Missing now is not gone yet (an editor's save has such a moment): the value stays, unreported.
      await store.reload()
      #expect(store.snapshot.entry(forKey: "port")?.value.kind == .integer(8080))
      #expect(store.diagnostics.isEmpty)
      // Missing for the whole grace period: gone.
      let start = ContinuousClock.now
      while ContinuousClock.now < start + .milliseconds(60) { try await Task.sleep(for: .milliseconds(10)) }
      await store.reload()
      #expect(store.snapshot.entry(forKey: "port") == nil)
      #expect(store.diagnostics.isEmpty)
    }
  }

  @Test func onlyAnEmptyRegularFileOrANullLinkMasksADropIn() throws {
    try withTemporaryDirectory { dir in
      let vendor = dir + "/usr/lib/app/app.conf.d"
      let system = dir + "/etc/app/app.conf.d"
      for name in ["10-empty.ini", "20-null.ini", "30-socket.ini", "40-dangling.ini"] {
        try write("[\(name.prefix(2))]\nvendor = yes\n", to: vendor + "/" + name)
      }
      try write("", to: system + "/10-empty.ini")
      try FileManager.default.createSymbolicLink(
        atPath: system + "/20-null.ini", withDestinationPath: "/dev/null")
      try FileManager.default.createSymbolicLink(
        atPath: system + "/40-dangling.ini", withDestinationPath: system + "/missing.ini")
      // A unix socket where a drop-in should be.
      let socketFD = try bindUnixSocket(at: system + "/30-socket.ini")
      defer { close(socketFD) }
      let snapshot = LayerStack(layers: [
        FileLayer(scope: .vendor, files: [], dropInDirectory: vendor, overridingDropInDirectory: system),
        FileLayer(scope: .system, files: [], dropInDirectory: system),
      ]).load()
      // Masked: the empty file and the /dev/null link. Not masked: the socket, which is reported.
      #expect(snapshot.entry(forKey: "10.vendor") == nil)
      #expect(snapshot.entry(forKey: "20.vendor") == nil)
      #expect(
        snapshot.diagnostics.contains { $0.severity == .error && $0.error.path == "\(system)/30-socket.ini" })
      #expect(snapshot.hasErrors)
    }
  }
}
