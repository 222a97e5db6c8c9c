import Testing

/// Expectations checked on a thread of its own, then recorded on the test's task: Swift Testing records
/// an issue only from a test's task (an `#expect` on another thread would be lost).
struct ThreadChecks: Sendable {
  /// The checks that failed, each with its comment and where it is.
  fileprivate var failures: [(comment: String, location: SourceLocation)] = []

  /// Notes a failure when `condition` is false.
  mutating func expect(
    _ condition: Bool, _ comment: @autoclosure () -> String = "",
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    if !condition { failures.append((comment(), sourceLocation)) }
  }
}

/// Runs CPU-heavy test work on a thread of its own, leaving the cooperative pool (one thread per core)
/// to the tests whose stores need it; what its checks found is recorded here, and what it throws is
/// thrown here.
func checkedOnOwnThread(_ body: @escaping @Sendable (inout ThreadChecks) throws -> Void) async throws {
  let failures = try await onOwnThread { () throws -> [(comment: String, location: SourceLocation)] in
    var checks = ThreadChecks()
    try body(&checks)
    return checks.failures
  }
  for failure in failures {
    Issue.record(
      Comment(rawValue: failure.comment.isEmpty ? "Expectation failed" : failure.comment),
      sourceLocation: failure.location)
  }
}
