import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@Suite(.serialized) struct HummingbirdServerTests {
  /// The sample's checked-in root.
  static let sampleRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Samples/HummingbirdServer/root").path

  /// A copy of the sample root in `dir`, listening on a free port; the path of its system INI file.
  static func makeRoot(in dir: String) throws -> (root: String, ini: String) {
    let root = dir + "/root"
    try FileManager.default.copyItem(atPath: sampleRoot, toPath: root)
    let ini = root + "/etc/hbserver/hbserver.ini"
    // Git keeps no mode but the executable bit: the secret's drop-in is private, as it would be in /etc.
    try FileManager.default.setAttributes(
      [.posixPermissions: 0o600], ofItemAtPath: root + "/etc/hbserver/hbserver.conf.d/50-admin.ini")
    let text = try String(contentsOfFile: ini, encoding: .utf8)
    try SvcFixtures.write(text.replacingOccurrences(of: "port = 8080", with: "port = 0"), to: ini)
    return (root, ini)
  }

  /// Waits for the server to listen and the store to watch; the base URL.
  static func waitForServer(_ server: ServerProcess) async throws -> String {
    let prefix = "Server started and listening on "
    let started = await SvcFixtures.waitUntil(within: 120) {
      server.transcript.contains(prefix) && server.transcript.contains("configuration: watching")
    }
    try #require(started, "\(server.transcript)")
    let line = try #require(server.transcript.split(separator: "\n").first { $0.contains(prefix) })
    let address = line[line.range(of: prefix)!.upperBound...]
    return "http://\(address)"
  }

  /// `GET url`: the status and body.
  static func get(_ url: String, headers: [(String, String)] = []) async throws -> (status: Int, body: String)
  {
    var request = HTTPClientRequest(url: url)
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    let body = try await response.body.collect(upTo: 1 << 20)
    return (Int(response.status.code), String(buffer: body))
  }

  /// The settings of `GET /config` by key (each `key`, `value`, `origin` and, for secrets, `secret`),
  /// and its pending restarts.
  static func config(_ base: String) async throws -> (settings: [String: [String: Any]], pending: [String]) {
    let body = try await get(base + "/config").body
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any], "\(body)")
    let rows = try #require(json["settings"] as? [[String: Any]], "\(body)")
    var settings: [String: [String: Any]] = [:]
    for row in rows { settings[row["key"] as? String ?? ""] = row }
    return (settings, json["pendingRestart"] as? [String] ?? [])
  }

  @Test func editsChangeResponsesWithoutARestartAndThePortChangeWaitsForOne() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      let (root, ini) = try Self.makeRoot(in: dir)
      let server = try ServerProcess(executable: "hummingbird-server", arguments: ["--root", root])
      defer { server.killNow() }
      let base = try await Self.waitForServer(server)
      #expect(try await Self.get(base + "/").body == "Hello, world!\n")

      var text = try String(contentsOfFile: ini, encoding: .utf8)
      text = text.replacingOccurrences(of: "name = world", with: "name = Strata")
      try SvcFixtures.write(text, to: ini)
      #expect(
        try await SvcFixtures.waitUntil { try await Self.get(base + "/").body == "Hello, Strata!\n" },
        "\(server.transcript)")
      // The log is written by its own task, and read from a pipe: it may come after the response.
      #expect(
        await SvcFixtures.waitUntil { server.transcript.contains("configuration reloaded: greeting.name") })

      let config = try await Self.get(base + "/config").body
      let settings = try await Self.config(base).settings
      #expect(settings["greeting.name"]?["value"] as? String == "Strata", "\(config)")
      #expect(
        settings["greeting.name"]?["origin"] as? String == "/etc/hbserver/hbserver.ini:8:8", "\(config)")
      #expect(settings["admin.token"]?["secret"] as? Bool == true, "\(config)")
      #expect(settings["admin.token"]?["value"] as? String == "<redacted>", "\(config)")
      #expect(!config.contains("s3cret-admin-token"), "\(config)")
      #expect(
        settings["admin.token"]?["origin"] as? String == "/etc/hbserver/hbserver.conf.d/50-admin.ini:3:9")
      #expect(try await Self.get(base + "/admin").status == 401)
      #expect(
        try await Self.get(base + "/admin", headers: [("Authorization", "Bearer s3cret-admin-token")]).status
          == 200)

      try SvcFixtures.write(text.replacingOccurrences(of: "port = 0", with: "port = 9999"), to: ini)
      #expect(
        try await SvcFixtures.waitUntil {
          try await Self.config(base).pending.contains {
            $0.hasPrefix("http.port: running 0, 9999 after a restart")
          }
        }, "\(server.transcript)")
      #expect(
        await SvcFixtures.waitUntil { server.transcript.contains("http.port changed to 9999") },
        "\(server.transcript)")
      #expect(try await Self.get(base + "/").body == "Hello, Strata!\n")  // still serving on the old port
      #expect(!server.transcript.contains("s3cret-admin-token"))

      server.send(SIGTERM)
      #expect(await server.finish(within: 60) == 0, "\(server.transcript)")
    }
  }

  @Test func sighupReloadsThroughServiceLifecycleAndTheLogLevelFollowsTheFile() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      let (root, ini) = try Self.makeRoot(in: dir)
      let server = try ServerProcess(
        executable: "hummingbird-server",
        arguments: ["--root", root], environment: ["HBSERVER_GREETING_MESSAGE": "Hi"])
      defer { server.killNow() }
      let base = try await Self.waitForServer(server)
      #expect(try await Self.get(base + "/").body == "Hi, world!\n")  // the environment over the files
      let message = try await Self.config(base).settings["greeting.message"]
      #expect(message?["value"] as? String == "Hi")
      #expect(message?["origin"] as? String == "env:HBSERVER_GREETING_MESSAGE")

      server.send(SIGHUP)
      #expect(
        await SvcFixtures.waitUntil {
          server.transcript.contains("configuration: reloading on SIGHUP") || !server.isRunning
        },
        "\(server.transcript)")
      #expect(server.isRunning)
      #expect(try await Self.get(base + "/").body == "Hi, world!\n")

      // At info, the debug line of GET / is not written; at debug it is.
      #expect(!server.transcript.contains("greeting answered"))
      let text = try String(contentsOfFile: ini, encoding: .utf8)
      try SvcFixtures.write(text.replacingOccurrences(of: "level = info", with: "level = debug"), to: ini)
      #expect(await SvcFixtures.waitUntil { server.transcript.contains("configuration reloaded: log.level") })
      #expect(
        try await SvcFixtures.waitUntil {
          _ = try await Self.get(base + "/")
          return server.transcript.contains("greeting answered for world")
        }, "\(server.transcript)")

      server.send(SIGTERM)
      #expect(await server.finish(within: 60) == 0, "\(server.transcript)")
    }
  }
}
