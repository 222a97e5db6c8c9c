import Synchronization

/// Failures injected into file reads and directory listings, for the tests of the unit rule: a test
/// running as root cannot be refused a read by `chmod`, and `EIO` cannot be had on demand. Nothing is
/// injected unless a test asks, and then only for the exact paths (as the layer resolves them) it names.
enum InjectedFaults {
  private static let armed = Atomic<Bool>(false)
  private static let failures = Locked<[String: Int32]>([:])

  /// Makes every read or listing of `path` fail with `code` (an `errno`), or, with `nil`, succeed again.
  static func fail(_ path: String, with code: Int32?) {
    failures.withLock { failures in
      failures[path] = code
      armed.store(!failures.isEmpty, ordering: .releasing)
    }
  }

  /// The failure injected for `path`, if any (one atomic load when none is).
  static func failure(for path: String) -> Int32? {
    guard armed.load(ordering: .acquiring) else { return nil }
    return failures.withLock { $0[path] }
  }
}
