import Strata

final class OrphanSettings: SettingsGroup, @unchecked Sendable {
  @Setting var port = 8080
}

/// Makes two groups of one class without a store, reads both, and prints what they read: a debug build
/// says on standard error, once, that they read only defaults.
func runFallback() {
  let first = OrphanSettings()
  let second = OrphanSettings()
  say("ports \(first.port) \(second.port)")
}
