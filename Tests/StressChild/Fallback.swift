import Strata

struct OrphanSettings: SettingsGroup {
  @Setting var port = 8080
}

/// Makes two groups of one type without a store, then one by its `init()` alone, reads all three and
/// prints what they read: a debug build says on standard error, once for the type, that the first two
/// read only defaults, and once that the third is bound to no store.
func runFallback() {
  let first = OrphanSettings(store: nil)
  let second = OrphanSettings(store: nil)
  let third = OrphanSettings()
  say("ports \(first.port) \(second.port) \(third.port) \(third.port)")
}
