import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// Runs `body` on a thread of its own and fails the test if it has not returned within `seconds`, so
/// that a regression that blocks in `open` on a FIFO cannot hang the suite. On a timeout, every FIFO in
/// `fifos` is opened for writing (without blocking), which releases a reader stuck in `open`. The test
/// awaits the thread: no thread of the concurrency pool waits for it.
func withDeadline<T: Sendable>(
  seconds: Double = 30, unblocking fifos: [String] = [], _ body: @escaping @Sendable () -> T
) async -> T? {
  let thread = OwnThread(body)
  if let value = await thread.value(within: seconds) { return value }
  Issue.record("still blocked after \(seconds) s: a non-regular file was opened in a blocking mode")
  for fifo in fifos {
    let fd = open(fifo, O_WRONLY | O_NONBLOCK)
    if fd >= 0 { close(fd) }
  }
  return await thread.value(within: seconds)
}

/// Binds a unix socket at `path` and returns its descriptor (close it when done).
func bindUnixSocket(at path: String) throws -> Int32 {
  let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
  try #require(fd >= 0)
  var address = sockaddr_un()
  address.sun_family = sa_family_t(AF_UNIX)
  let bytes = Array(path.utf8)
  try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
  withUnsafeMutableBytes(of: &address.sun_path) { raw in
    for (i, byte) in bytes.enumerated() { raw[i] = byte }
  }
  let status = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
    }
  }
  try #require(status == 0, "bind: \(String(cString: strerror(errno)))")
  return fd
}

@Suite struct NonRegularFileTests {
  func load(_ layer: FileLayer, root: String, fifos: [String] = []) async -> LayerContents? {
    await withDeadline(unblocking: fifos) {
      layer.load(LoadContext(options: ParseOptions(resolvePath: rootResolver(root))))
    }
  }

  func makeFIFO(_ path: String) throws {
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try #require(mkfifo(path, 0o644) == 0, "mkfifo: \(String(cString: strerror(errno)))")
  }

  @Test func aFIFOAtAMainFilePathIsRefusedWithoutBlocking() async throws {
    try await withTemporaryDirectory { root in
      try makeFIFO(root + "/etc/x/x.ini")
      try write("b = 2\n", to: root + "/etc/x/x.json.ini")
      let layer = FileLayer(scope: .system, files: ["/etc/x/x.ini", "/etc/x/x.json.ini"])
      let contents = try #require(await load(layer, root: root, fifos: [root + "/etc/x/x.ini"]))
      #expect(
        contents.diagnostics.map(\.description) == [
          "/etc/x/x.ini: error: not a regular file: a FIFO (named pipe)"
        ])
      #expect(contents.diagnostics.first?.error.code == .unreadable)
      #expect(contents.documents.map(\.path) == ["/etc/x/x.json.ini"])  // the other file still loads
    }
  }

  @Test func aFIFODropInIsRefusedNotMistakenForAnEmptyMask() async throws {
    try await withTemporaryDirectory { root in
      try makeFIFO(root + "/etc/x/x.conf.d/10-pipe.ini")
      try write("k = 1\n", to: root + "/etc/x/x.conf.d/20-file.ini")
      let layer = FileLayer(scope: .system, files: [], dropInDirectory: "/etc/x/x.conf.d")
      let contents = try #require(
        await load(layer, root: root, fifos: [root + "/etc/x/x.conf.d/10-pipe.ini"]))
      #expect(
        contents.diagnostics.map(\.description) == [
          "/etc/x/x.conf.d/10-pipe.ini: error: not a regular file: a FIFO (named pipe)"
        ])
      #expect(contents.documents.map(\.path) == ["/etc/x/x.conf.d/20-file.ini"])
    }
  }

  @Test func aUnixSocketIsRefused() async throws {
    try await withTemporaryDirectory { root in
      try FileManager.default.createDirectory(atPath: root + "/etc/x", withIntermediateDirectories: true)
      let fd = try bindUnixSocket(at: root + "/etc/x/x.json")
      defer { close(fd) }
      let contents = try #require(await load(FileLayer(scope: .system, files: ["/etc/x/x.json"]), root: root))
      #expect(
        contents.diagnostics.map(\.description) == ["/etc/x/x.json: error: not a regular file: a socket"])
      #expect(contents.documents.isEmpty)
    }
  }

  @Test(arguments: ["/dev/zero", "/dev/urandom"])
  func aSymlinkToAnEndlessDeviceIsRefused(device: String) async throws {
    try await withTemporaryDirectory { root in
      try FileManager.default.createDirectory(atPath: root + "/etc/x", withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(atPath: root + "/etc/x/x.ini", withDestinationPath: device)
      let contents = try #require(await load(FileLayer(scope: .system, files: ["/etc/x/x.ini"]), root: root))
      #expect(
        contents.diagnostics.map(\.description) == [
          "/etc/x/x.ini: error: not a regular file: a character device"
        ]
      )
      #expect(contents.documents.isEmpty)
    }
  }

  @Test func aDirectoryNamedLikeAConfigFileIsRefusedAsMainFileAndDropIn() async throws {
    try await withTemporaryDirectory { root in
      try FileManager.default.createDirectory(
        atPath: root + "/etc/x/x.ini", withIntermediateDirectories: true)
      try FileManager.default.createDirectory(
        atPath: root + "/etc/x/x.conf.d/demo.ini", withIntermediateDirectories: true)
      let layer = FileLayer(scope: .system, files: ["/etc/x/x.ini"], dropInDirectory: "/etc/x/x.conf.d")
      let contents = try #require(await load(layer, root: root))
      #expect(
        contents.diagnostics.map(\.description) == [
          "/etc/x/x.ini: error: not a regular file: a directory",
          "/etc/x/x.conf.d/demo.ini: error: not a regular file: a directory",
        ])
    }
  }

  @Test func devNullStillMasksADropInAndReadsAsAnEmptyMainFile() async throws {
    try await withTemporaryDirectory { root in
      try FileManager.default.createDirectory(
        atPath: root + "/etc/x/x.conf.d", withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: root + "/etc/x/x.conf.d/10-masked.ini", withDestinationPath: "/dev/null")
      try write("k = 1\n", to: root + "/etc/x/x.conf.d/20-file.ini")
      try FileManager.default.createSymbolicLink(
        atPath: root + "/etc/x/x.ini", withDestinationPath: "/dev/null")
      let layer = FileLayer(scope: .system, files: ["/etc/x/x.ini"], dropInDirectory: "/etc/x/x.conf.d")
      let contents = try #require(await load(layer, root: root))
      #expect(contents.diagnostics.isEmpty)
      #expect(contents.documents.map(\.path) == ["/etc/x/x.ini", "/etc/x/x.conf.d/20-file.ini"])
      #expect(contents.documents.first?.root.table?.isEmpty == true)
    }
  }

  @Test func aDanglingSymlinkIsAWarningWithItsTargetAndAnErrorWhenNamedExplicitly() async throws {
    try await withTemporaryDirectory { root in
      try FileManager.default.createDirectory(
        atPath: root + "/etc/x/x.conf.d", withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: root + "/etc/x/x.ini", withDestinationPath: "gone.ini")
      try FileManager.default.createSymbolicLink(
        atPath: root + "/etc/x/x.conf.d/10-a.ini", withDestinationPath: "/nowhere/10-a.ini")
      let layer = FileLayer(scope: .system, files: ["/etc/x/x.ini"], dropInDirectory: "/etc/x/x.conf.d")
      let contents = try #require(await load(layer, root: root))
      #expect(
        contents.diagnostics.map(\.description) == [
          "/etc/x/x.ini: warning: a symbolic link to gone.ini, which does not exist; the file is treated as absent",
          "/etc/x/x.conf.d/10-a.ini: warning: a symbolic link to /nowhere/10-a.ini, which does not exist; "
            + "the file is treated as absent",
        ])
      #expect(contents.documents.isEmpty)
      let named = try #require(
        await load(FileLayer(scope: .user, files: ["/etc/x/x.ini"], requiresFiles: true), root: root))
      #expect(named.diagnostics.map(\.severity) == [.error])
      #expect(named.diagnostics.first?.error.code == .notFound)
      #expect(
        named.diagnostics.first?.description
          == "/etc/x/x.ini: error: no such file: a symbolic link to gone.ini, which does not exist")
    }
  }

  @Test func aWorldWritableDropInDirectoryIsRefusedInSystemScopesOnly() async throws {
    try await withTemporaryDirectory { root in
      try write("k = 1\n", to: root + "/etc/x/x.conf.d/10-a.ini")
      #expect(chmod(root + "/etc/x/x.conf.d", 0o777) == 0)
      let system = try #require(
        await load(FileLayer(scope: .system, files: [], dropInDirectory: "/etc/x/x.conf.d"), root: root))
      #expect(
        system.diagnostics.map(\.description) == [
          "/etc/x/x.conf.d: error: refusing a directory anyone can write (mode 0777); fix it with: "
            + "chmod o-w \(root)/etc/x/x.conf.d"
        ])
      #expect(system.diagnostics.first?.error.code == .insecurePermissions)
      #expect(system.documents.isEmpty)
      let user = try #require(
        await load(FileLayer(scope: .user, files: [], dropInDirectory: "/etc/x/x.conf.d"), root: root))
      #expect(user.diagnostics.isEmpty)
      #expect(user.documents.count == 1)
      #expect(chmod(root + "/etc/x/x.conf.d", 0o755) == 0)
      let fixed = try #require(
        await load(FileLayer(scope: .system, files: [], dropInDirectory: "/etc/x/x.conf.d"), root: root))
      #expect(fixed.diagnostics.isEmpty)
      #expect(fixed.documents.count == 1)
    }
  }

  @Test func aKeyPerFileFIFOEntryIsRefusedAndTheOtherKeysLoad() async throws {
    try await withTemporaryDirectory { dir in
      try makeFIFO(dir + "/pipe")
      try write("app", to: dir + "/user")
      let contents = try #require(
        await withDeadline(unblocking: [dir + "/pipe"]) {
          KeyPerFileLayer(directory: dir).load(LoadContext())
        })
      #expect(
        contents.diagnostics.map(\.description) == [
          "\(dir)/pipe: error: not a regular file: a FIFO (named pipe)"
        ])
      #expect(contents.documents.first?.root.value(at: "user")?.kind == .string("app"))
      #expect(contents.documents.first?.root.table?.count == 1)
    }
  }

  @Test func anINIIncludeOfAFIFOIsRefused() async throws {
    try await withTemporaryDirectory { root in
      try makeFIFO(root + "/pipe.ini")
      try write("a = 1\n!include pipe.ini\n", to: root + "/main.ini")
      let outcome = await withDeadline(unblocking: [root + "/pipe.ini"]) { () -> String in
        do throws(StrataError) {
          _ = try Formats.load(path: root + "/main.ini")
          return "loaded"
        } catch {
          return error.message
        }
      }
      #expect(outcome == "not a regular file: a FIFO (named pipe)")
    }
  }

  @Test func aStoreStartsWithAFIFOAtItsSystemFileAndReportsIt() async throws {
    try await withTemporaryDirectory { root in
      try makeFIFO(root + "/etc/demo/demo.ini")
      try write(#"{"port": 8080}"#, to: root + "/etc/demo/demo.json")
      let diagnostics = try #require(
        await withDeadline(unblocking: [root + "/etc/demo/demo.ini"]) { () -> [String] in
          SettingsStore(app: "demo", root: root, environment: [:]).diagnostics.map(\.description)
        })
      #expect(
        diagnostics.contains("/etc/demo/demo.ini: error: not a regular file: a FIFO (named pipe)"),
        "\(diagnostics)")
    }
  }

  @Test func configDumpCheckListsADanglingDropInSymlinkWithItsTarget() async throws {
    try await withTemporaryDirectory { root in
      try write("port = 1\n", to: root + "/etc/demo/demo.ini")
      try FileManager.default.createDirectory(
        atPath: root + "/etc/demo/demo.conf.d", withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: root + "/etc/demo/demo.conf.d/50-gone.ini", withDestinationPath: "/usr/share/demo/50-gone.ini"
      )
      let run = try await runConfigDump(["--check", "--app", "demo", "--root", root, "--home", "/home/user"])
      let all = run.output + run.errors
      #expect(
        all.contains(
          "/etc/demo/demo.conf.d/50-gone.ini: warning: a symbolic link to /usr/share/demo/50-gone.ini, which does "
            + "not exist; the file is treated as absent"), "\(all)")
      #expect(run.status == 0)
    }
  }

  @Test func aReReadOfAFileReplacedByAFIFOIsRefusedAndKeepsTheLastGoodValues() async throws {
    try await withTemporaryDirectory { root in
      try write("port = 8080\n", to: root + "/etc/x/x.ini")
      let cache = DocumentCache()
      let layer = FileLayer(scope: .system, files: ["/etc/x/x.ini"])
      let context = LoadContext(options: ParseOptions(resolvePath: rootResolver(root)), cache: cache)
      let first = layer.load(context)
      #expect(first.diagnostics.isEmpty)
      try FileManager.default.removeItem(atPath: root + "/etc/x/x.ini")
      try makeFIFO(root + "/etc/x/x.ini")
      let again = try #require(
        await withDeadline(unblocking: [root + "/etc/x/x.ini"]) { layer.load(context) })
      #expect(
        again.diagnostics.map(\.description) == [
          "/etc/x/x.ini: error: not a regular file: a FIFO (named pipe)"
        ])
      #expect(again.documents.first?.root.value(at: "port")?.kind == .string("8080"))
    }
  }

  @Test func configDumpRefusesAFIFOAndExits() async throws {
    try await withTemporaryDirectory { root in
      try makeFIFO(root + "/demo.ini")
      // A hang would be killed at the deadline (status 137), and fail here.
      let run = try await Spawn.run(configDumpPath, ["--check", root + "/demo.ini"], within: 60)
      #expect(run.status == 1, "\(run)")
      #expect(
        (run.output + run.errors).contains("\(root)/demo.ini: error: not a regular file: a FIFO (named pipe)")
      )
    }
  }
}
