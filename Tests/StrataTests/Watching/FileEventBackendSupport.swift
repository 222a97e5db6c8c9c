import Testing

@testable import Strata

/// Whether this build has the inotify backend (on Linux with the `Inotify` package trait, the default).
let inotifyIsCompiledIn: Bool = {
  #if os(Linux) && Inotify
    true
  #else
    false
  #endif
}()

extension Trait where Self == ConditionTrait {
  /// For the tests of inotify itself (its limits, its event shapes, failures injected into its system
  /// calls): skipped, with this note, in a build without it (`swift test --disable-default-traits`),
  /// where every other live-reload test runs against polling.
  static var needsInotify: Self {
    .enabled(
      if: inotifyIsCompiledIn,
      "needs inotify itself, which this build compiles out (the Inotify package trait is off)")
  }
}
