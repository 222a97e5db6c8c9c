import Testing

/// Whether the tests run on Linux: user namespaces, `/proc`, inotify and the GNU tools exist only there.
let isLinux: Bool = {
  #if os(Linux)
    true
  #else
    false
  #endif
}()

extension Trait where Self == ConditionTrait {
  /// Runs the test (or suite) on Linux only; elsewhere it is skipped with "needs Linux: `reason`".
  static func linuxOnly(_ reason: String) -> Self {
    .enabled(if: isLinux, Comment(rawValue: "needs Linux: \(reason)"))
  }
}
