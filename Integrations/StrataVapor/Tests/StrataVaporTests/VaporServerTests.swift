import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// The sample `vapor-server` as a real process, over a copy of its root, answering real HTTP requests.
@Suite(.serialized) struct VaporServerTests {
  /// The sample's checked-in root.
  static let sampleRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Samples/VaporServer/root").path

  /// A copy of the sample root in `dir`, its system file's `[http]` values replaced; the root and the
  /// path of that file.
  static func makeRoot(in dir: String, hostname: String = "127.0.0.1", port: Int = 0) throws -> (
    root: String, ini: String
  ) {
    let root = dir + "/root"
    try FileManager.default.copyItem(atPath: sampleRoot, toPath: root)
    let ini = root + "/etc/vaporserver/vaporserver.ini"
    let text = try String(contentsOfFile: ini, encoding: .utf8)
      .replacingOccurrences(of: "hostname = 127.0.0.1", with: "hostname = \(hostname)")
      .replacingOccurrences(of: "port = 8080", with: "port = \(port)")
    try SvcFixtures.write(text, to: ini)
    return (root, ini)
  }

  /// Starts `vapor-server` over `root` with `arguments`.
  static func start(root: String, _ arguments: [String] = [], environment: [String: String] = [:]) throws
    -> ServerProcess
  {
    try ServerProcess(
      executable: "vapor-server", arguments: arguments,
      environment: ["VAPOR_SERVER_ROOT": root].merging(environment) { $1 })
  }

  /// Waits for the server to listen (the store watches by then: it is started before Vapor serves) and
  /// to handle `SIGTERM` and `SIGHUP`; the base URL.
  static func waitForServer(_ server: ServerProcess) async throws -> String {
    let prefix = "Server started on "
    let started = await SvcFixtures.waitUntil(within: 120) {
      server.transcript.contains(prefix) && server.catches(SIGTERM) && server.catches(SIGHUP)
    }
    try #require(started, "\(server.transcript)")
    let line = try #require(server.transcript.split(separator: "\n").first { $0.contains(prefix) })
    let address = line[line.range(of: prefix)!.upperBound...].prefix { !$0.isWhitespace }
    return String(address)
  }

  /// `GET url`: the body.
  static func get(_ url: String) async throws -> String {
    let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
    return String(buffer: try await response.body.collect(upTo: 1 << 20))
  }

  /// Ends the server with `SIGTERM`; it must exit with status 0.
  static func terminate(_ server: ServerProcess) async {
    server.send(SIGTERM)
    #expect(await server.finish(within: 60) == 0, "\(server.transcript)")
  }

  @Test func editsAreServedWithoutARestartAndAPortChangeWaitsForOne() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      let (root, ini) = try Self.makeRoot(in: dir)
      let server = try Self.start(root: root)
      defer { server.killNow() }
      let base = try await Self.waitForServer(server)
      #expect(try await Self.get(base + "/") == "Hello, world!\n")
      #expect(server.transcript.contains("configuration: watching for changes"))

      var text = try String(contentsOfFile: ini, encoding: .utf8)
      text = text.replacingOccurrences(of: "name = world", with: "name = Strata")
      try SvcFixtures.write(text, to: ini)
      #expect(
        try await SvcFixtures.waitUntil { try await Self.get(base + "/") == "Hello, Strata!\n" },
        "\(server.transcript)")
      let status = try await Self.get(base + "/status")
      #expect(status.contains("greeting.name: Strata from /etc/vaporserver/vaporserver.ini:8:8"), "\(status)")
      #expect(status.contains("environment: development"), "\(status)")
      // The log is written by its own task, and read from a pipe: it may come after the response.
      #expect(
        await SvcFixtures.waitUntil { server.transcript.contains("configuration reloaded: greeting.name") },
        "\(server.transcript)")

      try SvcFixtures.write(text.replacingOccurrences(of: "port = 0", with: "port = 9999"), to: ini)
      #expect(
        try await SvcFixtures.waitUntil {
          try await Self.get(base + "/status").contains(
            "pending: http.port: running 0, 9999 after a restart")
        }, "\(server.transcript)")
      #expect(try await Self.get(base + "/") == "Hello, Strata!\n")  // still on the old port

      await Self.terminate(server)
    }
  }

  @Test func sighupReloadsAndTheLogLevelFollowsTheFile() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      let (root, ini) = try Self.makeRoot(in: dir)
      let server = try Self.start(root: root, environment: ["VAPORSERVER_GREETING_MESSAGE": "Hi"])
      defer { server.killNow() }
      let base = try await Self.waitForServer(server)
      #expect(try await Self.get(base + "/") == "Hi, world!\n")  // the environment over the files

      server.send(SIGHUP)
      #expect(
        await SvcFixtures.waitUntil {
          server.transcript.contains("configuration: reloading on SIGHUP") || !server.isRunning
        }, "\(server.transcript)")
      #expect(server.isRunning)
      #expect(try await Self.get(base + "/") == "Hi, world!\n")

      // At info, the debug line of GET / is not written; at debug it is, in Vapor's format for debug
      // (with the source location).
      #expect(!server.transcript.contains("greeting answered"))
      let text = try String(contentsOfFile: ini, encoding: .utf8)
      try SvcFixtures.write(text.replacingOccurrences(of: "level = info", with: "level = debug"), to: ini)
      #expect(
        await SvcFixtures.waitUntil { server.transcript.contains("configuration reloaded: log.level") },
        "\(server.transcript)")
      #expect(
        try await SvcFixtures.waitUntil {
          _ = try await Self.get(base + "/")
          return server.transcript.contains("greeting answered for world")
        }, "\(server.transcript)")
      let line = server.transcript.split(separator: "\n").first { $0.contains("greeting answered") }
      #expect(line?.contains("main.swift:") == true, "\(server.transcript)")

      await Self.terminate(server)
    }
  }

  @Test func strataOptionsAndVaporsCommandLineTogether() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      // The files name an address the server cannot bind: only `serve --hostname --port` make it start.
      let (root, _) = try Self.makeRoot(in: dir, hostname: "192.0.2.1", port: 8080)
      let server = try Self.start(
        root: root,
        [
          "serve", "--env", "production", "--greeting.name=Options", "--hostname", "127.0.0.1",
          "--greeting.message", "Hi", "--port", "0", "--log", "debug",
        ])
      defer { server.killNow() }
      let base = try await Self.waitForServer(server)
      #expect(base.hasPrefix("http://127.0.0.1:") && !base.hasSuffix(":8080"), "\(base)")
      #expect(try await Self.get(base + "/") == "Hi, Options!\n")
      let status = try await Self.get(base + "/status")
      #expect(status.contains("environment: production"), "\(status)")
      #expect(status.contains("greeting.name: Options from arg:--greeting.name"), "\(status)")
      // `--log debug` pins the level over the file's `info`.
      #expect(
        await SvcFixtures.waitUntil { server.transcript.contains("greeting answered for Options") },
        "\(server.transcript)")

      await Self.terminate(server)
    }
  }

  /// `--env production` is the store's profile: the production overlay's value is served with its
  /// origin, and a `VAPORSERVER_PROFILE` naming another profile is logged, not silently dropped.
  @Test func vaporsEnvironmentIsTheStoresProfile() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      let (root, _) = try Self.makeRoot(in: dir)
      try SvcFixtures.write(
        "[greeting]\nname = Production\n", to: root + "/etc/vaporserver/vaporserver.production.ini")
      let server = try Self.start(
        root: root, ["serve", "--env", "production"], environment: ["VAPORSERVER_PROFILE": "staging"])
      defer { server.killNow() }
      let base = try await Self.waitForServer(server)
      #expect(try await Self.get(base + "/") == "Hello, Production!\n")
      let status = try await Self.get(base + "/status")
      #expect(status.contains("environment: production"), "\(status)")
      #expect(
        status.contains("greeting.name: Production from /etc/vaporserver/vaporserver.production.ini:2:8"),
        "\(status)")
      #expect(
        await SvcFixtures.waitUntil {
          server.transcript.contains(
            "VAPORSERVER_PROFILE=staging is not used: the program chose the profile 'production'")
        }, "\(server.transcript)")
      await Self.terminate(server)

      // Without `--env`, Vapor's environment is `development`, which has no overlay here.
      let plain = try Self.start(root: root)
      defer { plain.killNow() }
      let plainBase = try await Self.waitForServer(plain)
      #expect(try await Self.get(plainBase + "/") == "Hello, world!\n")
      await Self.terminate(plain)
    }
  }

  @Test func aMistypedSettingIsReportedAndAMistypedVaporOptionStopsTheStart() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      let (root, _) = try Self.makeRoot(in: dir)
      let server = try Self.start(root: root, ["--greting.name=typo"])
      defer { server.killNow() }
      let base = try await Self.waitForServer(server)
      #expect(try await Self.get(base + "/") == "Hello, world!\n")
      #expect(
        await SvcFixtures.waitUntil {
          server.transcript.contains("unknown option '--greting.name' (did you mean '--greeting.name'?)")
        }, "\(server.transcript)")
      await Self.terminate(server)

      // An option without a dot is Vapor's, and ConsoleKit refuses one it does not know.
      let refused = try Self.start(root: root, ["serve", "--prot", "9000"])
      defer { refused.killNow() }
      #expect(await refused.finish(within: 120) == 1, "\(refused.transcript)")
      #expect(refused.transcript.contains("unknownInput(\"--prot 9000\")"), "\(refused.transcript)")
    }
  }
}
