import Foundation
import StrataEtcd
import Testing

extension EtcdTests {
  /// The sample over a real etcd: a put changes its answer without a restart, with the key's origin, and
  /// a delete brings the file's value back.
  @Test func hummingbirdServerFollowsAPutInEtcd() async throws {
    let etcdServer = try await EtcdServerProcess.started()
    defer { etcdServer.shutdown() }
    let etcd = etcdServer.connection
    try await SvcFixtures.withTemporaryDirectory { dir in
      let (root, _) = try HummingbirdServerTests.makeRoot(in: dir)
      let server = try ServerProcess(
        executable: "hummingbird-server", arguments: ["--root", root, "--etcd", etcdServer.endpoint])
      defer { server.killNow() }
      let base = try await HummingbirdServerTests.waitForServer(server)
      #expect(try await HummingbirdServerTests.get(base + "/").body == "Hello, world!\n")

      let revision = try await etcd.put("/config/hbserver/greeting/name", "fleet")
      #expect(
        try await SvcFixtures.waitUntil {
          try await HummingbirdServerTests.get(base + "/").body == "Hello, fleet!\n"
        },
        "\(server.transcript)")
      let name = try await HummingbirdServerTests.config(base).settings["greeting.name"]
      #expect(name?["origin"] as? String == "etcd:/config/hbserver/greeting/name@rev \(revision)")

      try await etcd.delete("/config/hbserver/greeting/name")
      #expect(
        try await SvcFixtures.waitUntil {
          try await HummingbirdServerTests.get(base + "/").body == "Hello, world!\n"
        },
        "\(server.transcript)")
      server.send(SIGTERM)
      #expect(await server.finish(within: 60) == 0, "\(server.transcript)")
    }
  }
}
