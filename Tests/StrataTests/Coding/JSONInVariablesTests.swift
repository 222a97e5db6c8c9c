import Foundation
import Testing

@testable import Strata

/// JSON in an environment variable (or an option) for a list or a struct setting: read as JSON, the
/// fields it leaves out taken from the default as a file's table does; text that looks like JSON but is
/// not is refused, never split on its commas.
@Suite struct JSONInVariablesTests {
  struct Limits: Codable, Sendable, Equatable {
    var burst = 10
    var rate = 5
  }

  struct ProxySettings: SettingsGroup {
    @Setting var hosts = ["default"]
    @Setting var limits = Limits()
  }

  func store(_ variables: [String: String]) -> SettingsStore {
    SettingsStore(layers: [EnvironmentLayer(prefix: "APP", variables: variables)])
  }

  @Test func aJSONArrayIsAList() {
    let proxy = ProxySettings(store: store(["APP_PROXY_HOSTS": #"["a, b", "c"]"#]))
    #expect(proxy.hosts == ["a, b", "c"])
    #expect(proxy.$hosts.origin.description == "env:APP_PROXY_HOSTS")
    // The comma spelling stays.
    #expect(ProxySettings(store: store(["APP_PROXY_HOSTS": "a, b"])).hosts == ["a", "b"])
  }

  @Test func textThatLooksLikeAJSONArrayButIsNotIsRefused() {
    let store = store(["APP_PROXY_HOSTS": #"["a", b]"#])
    let proxy = ProxySettings(store: store)
    #expect(proxy.hosts == ["default"])
    let problem = store.diagnostics.first { $0.error.message.contains("proxy.hosts") }
    #expect(problem?.error.message.contains("not a JSON array") == true, "\(store.diagnostics)")
  }

  @Test func aJSONObjectTakesTheFieldsItLeavesOutFromTheDefault() {
    let proxy = ProxySettings(store: store(["APP_PROXY_LIMITS": #"{"rate": 7}"#]))
    #expect(proxy.limits == Limits(burst: 10, rate: 7))
  }
}
