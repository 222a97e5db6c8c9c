import StrataVapor
import Testing

@Suite struct SettingsArgumentsTests {
  @Test func dottedOptionsAndTheirValuesGoToTheStoreAndTheRestStaysInOrderForVapor() {
    let split = SettingsArguments(splitting: [
      "/bin/app", "serve", "--http.port=9000", "--env", "production", "--greeting.name", "Hi",
      "--port", "8081", "-H", "0.0.0.0", "--limits.offset", "-5", "--feature.beta", "--log", "debug",
    ])
    #expect(
      split.settings == [
        "--http.port=9000", "--greeting.name", "Hi", "--limits.offset", "-5", "--feature.beta",
      ])
    #expect(
      split.vapor == [
        "/bin/app", "serve", "--env", "production", "--port", "8081", "-H", "0.0.0.0", "--log", "debug",
      ])
  }

  @Test func aDotInTheValueIsVaporsAndEverythingAfterTheDoubleDashStaysForVapor() {
    let split = SettingsArguments(splitting: [
      "app", "serve", "--hostname=127.0.0.1", "--bind", "10.0.0.1:80", "--no-feature.beta", "--", "--a.b=1",
    ])
    #expect(split.settings == ["--no-feature.beta"])
    #expect(
      split.vapor == ["app", "serve", "--hostname=127.0.0.1", "--bind", "10.0.0.1:80", "--", "--a.b=1"])
  }

  @Test func anEmptyCommandLineSplitsIntoNothing() {
    #expect(SettingsArguments(splitting: []) == SettingsArguments(splitting: []))
    #expect(SettingsArguments(splitting: []).vapor.isEmpty)
    #expect(SettingsArguments(splitting: ["app"]).vapor == ["app"])
    #expect(SettingsArguments(splitting: ["app"]).settings.isEmpty)
  }
}
