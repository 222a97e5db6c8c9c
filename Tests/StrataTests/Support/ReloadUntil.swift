@testable import Strata

/// Reloads `store` (by default every layer; `reload` does it another way) until `condition` holds, for
/// up to `seconds`; whether it held (looked at once more at the deadline). A closed file can count as
/// open for writing for a moment after its `close`: a child process another test is starting holds a
/// copy of every descriptor until its `exec`, so the unit rule keeps the last good contents, and a
/// running store's retry would read it again; a store that does not run is reloaded here instead.
func reloadUntil(
  _ store: SettingsStore, within seconds: Double = 30, reload: (() async -> Void)? = nil,
  _ condition: () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
  while ContinuousClock.now < deadline {
    if let reload { await reload() } else { await store.reload() }
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(20))
  }
  if let reload { await reload() } else { await store.reload() }
  return condition()
}
