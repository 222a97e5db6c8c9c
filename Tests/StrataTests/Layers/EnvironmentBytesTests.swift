import Foundation
import Glibc
import Testing

@testable import Strata

/// A variable whose value is not UTF-8 is reported and ignored, never decoded into U+FFFD silently.
@Suite struct EnvironmentBytesTests {
  /// Runs config-dump with an environment given as raw bytes; returns (status, stdout + stderr).
  func runWithRawEnvironment(_ arguments: [String], environment: [[UInt8]]) throws -> (Int32, String) {
    var pipeFDs: [Int32] = [-1, -1]
    #expect(pipe(&pipeFDs) == 0)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
    posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 2)
    posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
    let argv = ([configDumpPath] + arguments).map { strdup($0) } + [nil]
    var envp: [UnsafeMutablePointer<CChar>?] = environment.map { bytes in
      let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
      for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
      pointer[bytes.count] = 0
      return pointer
    }
    envp.append(nil)
    defer {
      argv.forEach { free($0) }
      envp.forEach { $0?.deallocate() }
    }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, configDumpPath, &actions, nil, argv, envp)
    close(pipeFDs[1])
    defer { close(pipeFDs[0]) }
    #expect(spawned == 0)
    guard spawned == 0 else { return (-1, "") }
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = read(pipeFDs[0], &buffer, buffer.count)
      if count < 0 && errno == EINTR { continue }
      if count <= 0 { break }
      output += buffer[0..<count]
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return ((status >> 8) & 0xFF, String(decoding: output, as: UTF8.self))
  }

  @Test func invalidBytesInAVariableAreReportedAndIgnored() throws {
    try withTemporaryDirectory { dir in
      try write(#"{"db": {"password": "from-file", "user": "app"}}"#, to: dir + "/app.json")
      let environment: [[UInt8]] = [
        Array("APP_DB_PASSWORD=".utf8) + [0x70, 0xFF, 0xFE, 0x77],
        Array("APP_DB_USER=ünïcode".utf8),
      ]
      let (status, output) = try runWithRawEnvironment(
        [dir + "/app.json", "--env-prefix", "APP", "--check"], environment: environment)
      #expect(status == 1)
      #expect(
        output.contains("env:APP_DB_PASSWORD: error: environment variable APP_DB_PASSWORD is not valid UTF-8")
      )
      #expect(!output.contains("APP_DB_USER"))
      let (_, dump) = try runWithRawEnvironment(
        [dir + "/app.json", "--env-prefix", "APP", "--key", "db.password", "--show-secrets"],
        environment: environment)
      #expect(dump.hasSuffix("from-file\n"), "\(dump)")
      let (_, user) = try runWithRawEnvironment(
        [dir + "/app.json", "--env-prefix", "APP", "--key", "db.user"], environment: environment)
      #expect(user.hasSuffix("ünïcode\n"), "\(user)")
    }
  }

  @Test func aReplacementCharacterThatWasReallyThereIsKept() {
    let snapshot = LayerStack(layers: [
      StaticLayer(
        scope: .system,
        root: SettingValue(
          .table(SettingTable([("x", SettingValue(.string("1"), origin: .codeDefault))])),
          origin: .codeDefault)),
      EnvironmentLayer(prefix: "APP", variables: ["APP_X": "a\u{FFFD}b"]),
    ]).load()
    #expect(snapshot.entry(forKey: "x")?.value.kind == .string("a\u{FFFD}b"))
    #expect(snapshot.diagnostics.isEmpty)
  }
}
