import Foundation
import Testing

@testable import Strata

/// A running child process whose standard output is read line by line.
final class LiveProcess: @unchecked Sendable {
  // @unchecked: `buffer` is only touched with `lock` held.
  let process = Process()
  private let lock = NSLock()
  private var buffer = ""

  init(_ executable: String, _ arguments: [String], in directory: String) throws {
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.environment = ["PATH": "/usr/bin:/bin"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let data = handle.availableData
      self?.lock.withLock { self?.buffer += String(decoding: data, as: UTF8.self) }
    }
    try process.run()
  }

  /// Everything printed so far.
  var output: String { lock.withLock { buffer } }
  deinit { if process.isRunning { process.terminate() } }
}

/// Polls `body` until it returns true or the deadline passes.
func waitUntil(within seconds: Double = 10, _ body: () async throws -> Bool) async rethrows -> Bool {
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if try await body() { return true }
    try? await Task.sleep(for: .milliseconds(20))
  }
  return false
}

/// `GET` on loopback with curl-free Foundation-less plain sockets is overkill here: URLSession is not in
/// FoundationEssentials tests on Linux without FoundationNetworking, so use curl if present, else nc.
func httpGet(_ url: String) throws -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
  process.arguments = ["-s", "--max-time", "2", url]
  let pipe = Pipe()
  process.standardOutput = pipe
  try process.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return String(decoding: data, as: UTF8.self)
}

@Suite(.serialized) struct LiveProcessTests {
  @Test func configDumpWatchPrintsOneJSONLinePerChange() async throws {
    try await withTemporaryDirectory { dir in
      try write("[server]\nport = 1\n", to: dir + "/a.ini")
      let dump = try LiveProcess(configDumpPath, ["--watch", "a.ini"], in: dir)
      #expect(await waitUntil { dump.output.contains("server.port  1\n") })
      try write("[server]\nport = 2\n", to: dir + "/a.ini")
      // A read right after the watch starts may catch the write half done: then an intermediate line
      // ("new": null) comes first and the generation is later. What must appear is the final value.
      let changed = await waitUntil {
        dump.output.split(separator: "\n").contains {
          $0.hasPrefix(#"{"generation": "#) && $0.contains(#""key": "server.port""#)
            && $0.hasSuffix(#""new": "2", "origin": "a.ini:2:8"}"#)
        }
      }
      #expect(changed, "\(dump.output)")
      try write("[server\n", to: dir + "/a.ini")
      #expect(await waitUntil { dump.output.contains(#"{"error": "#) }, "\(dump.output)")
      #expect(dump.output.contains(#""path": "a.ini", "line": 1, "column": 8}"#))
      dump.process.interrupt()  // SIGINT
      dump.process.waitUntilExit()
      #expect(dump.process.terminationStatus == 0)
    }
  }

  @Test func hotReloadServerAdaptsToEditsWithoutARestart() async throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") else {
      Issue.record("curl is not installed (CI installs it)")
      return
    }
    try await withTemporaryDirectory { dir in
      let root = dir + "/root"
      try shell("cp -r \(repositoryRoot)/Samples/HotReloadServer/root \(root)")
      let ini = root + "/etc/hotreload/hotreload.ini"
      try shell("sed -i 's/^port = .*/port = 0/' \(ini)")
      let server = try LiveProcess(
        (configDumpPath as NSString).deletingLastPathComponent + "/hot-reload-server", ["--root", root],
        in: dir)
      #expect(await waitUntil { server.output.contains("listening on ") })
      let listening = try #require(
        server.output.split(separator: "\n").first { $0.hasPrefix("listening on ") })
      let base = String(listening.dropFirst("listening on ".count))
      #expect(try httpGet(base + "/") == "Hello, world!\n")
      try shell("sed -i 's/^name = .*/name = Strata/' \(ini)")
      #expect(try await waitUntil { try httpGet(base + "/") == "Hello, Strata!\n" })
      let config = try httpGet(base + "/config")
      #expect(config.contains(#""value": "Strata""#) && !config.contains("s3cret-admin-token"))
      try shell("sed -i 's/^port = .*/port = 9999/' \(ini)")
      #expect(
        try await waitUntil {
          try httpGet(base + "/status").contains("listen.port: running 0, 9999 after a restart")
        })
      #expect(try httpGet(base + "/") == "Hello, Strata!\n")  // still serving on the old port
      server.process.terminate()
    }
  }
}
