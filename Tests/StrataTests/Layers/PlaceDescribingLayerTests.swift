import Testing

@testable import Strata

@Suite struct PlacesToSetTests {
  @Test func everyLayerThatCanSetAKeySaysWhereHighestFirst() throws {
    try withTemporaryDirectory { dir in
      try write("[server]\n", to: dir + "/etc/demo/demo.json")
      let layout = StandardLayout(app: "demo", root: dir, environment: [:], arguments: [])
      var layers = layout.layers
      layers.append(KeyPerFileLayer(directory: "/run/secrets", keyPrefix: "server"))
      let stack = LayerStack(layers: layers, options: layout.options())
      #expect(
        stack.placesToSet(key: "server.port") == [
          "/run/secrets/port", "--server.port", "DEMO_SERVER_PORT",
          "/home/user/.config/demo/demo.{plist,json,ini,env,toml}",
          "/etc/demo/demo.json",
        ])
      #expect(!stack.placesToSet(key: "log.level").contains { $0.hasPrefix("/run/secrets") })
    }
  }
}
