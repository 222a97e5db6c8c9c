import Testing

@testable import Strata

@Suite struct DotEnvKeysTests {
  @Test func doubleUnderscoresAndDotsSeparateNames() {
    #expect(DotEnvKeys.names(of: "DB__POOL_SIZE") == ["db", "pool_size"])
    #expect(DotEnvKeys.names(of: "server.port") == ["server", "port"])
    #expect(DotEnvKeys.names(of: "server.maxConnections") == ["server", "maxConnections"])
    #expect(DotEnvKeys.names(of: "SERVER__maxConnections") == ["server", "maxConnections"])
    #expect(DotEnvKeys.names(of: "_private") == ["_private"])
    #expect(DotEnvKeys.names(of: "tls-cert.PATH") == ["tls-cert", "path"])
  }

  @Test func namesMatchTheEnvironmentLayersFallback() {
    for variable in ["DB__POOL_SIZE", "SERVER__PORT", "A__B__C", "LOG_LEVEL"] {
      #expect(
        DotEnvKeys.names(of: variable).map(SettingKey.join)
          == EnvironmentNames.fallbackKey(forVariable: "APP_" + variable, prefix: "APP"))
    }
  }

  @Test func emptyNamesAreRefused() {
    for key in ["a..b", "a.", "A____B", "__A", "A__"] { #expect(DotEnvKeys.names(of: key) == nil) }
  }

  @Test func writtenNamesReadBackAsThemselves() {
    #expect(DotEnvKeys.written(["server", "port"]) == "server.port")
    #expect(DotEnvKeys.written(["db", "pool_size"]) == "db.pool_size")
    for names in [["ABC"], ["a b"], ["x__y"], ["1a"], [""], ["a.b"], ["ü"]] {
      #expect(DotEnvKeys.written(names) == nil, "\(names)")
    }
  }
}
