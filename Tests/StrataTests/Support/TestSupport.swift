import Foundation
import Synchronization
import Testing

@testable import Strata

/// The repository's root directory, found from this file's path.
let repositoryRoot: String = {
  var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
  parts.removeLast(4)  // Tests/StrataTests/Support/TestSupport.swift
  return parts.joined(separator: "/")
}()

/// The conformance data: `$STRATA_CONFORMANCE_DIR`, else `../shared/conformance` beside the repository
/// (a user's fresh clone has neither: the tests that need it skip, saying so).
let conformanceDirectory =
  ProcessInfo.processInfo.environment["STRATA_CONFORMANCE_DIR"] ?? repositoryRoot + "/../shared/conformance"

/// Whether the conformance data is there.
let conformanceAvailable = FileManager.default.fileExists(atPath: conformanceDirectory)

/// Whether this run is CI's (`CI=true`), where every test must run and none may skip for want of data.
let runningInCI = ProcessInfo.processInfo.environment["CI"] == "true"

/// Runs `body` with a fresh temporary directory outside /tmp (so editors behave as on /etc), removed after.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
  _ = brokenPipesAreErrors
  let base = "/var/tmp"
  let dir = base + "/strata-test-" + UUID().uuidString
  try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: dir) }
  return try body(dir)
}

/// Held while ``write(_:to:)`` has a file open and while ``Spawn/start`` starts a process. A child
/// starts with a copy of every descriptor of the test process and holds it until its exec closes the
/// close-on-exec ones; on a loaded machine that can take seconds. A copy of a descriptor open for
/// writing makes a store see the file as being written (WriteLease), so it keeps the file's last good
/// contents and a test's `reload()` right after the write would not see it.
let descriptorLock = Mutex(())

/// Writes a UTF-8 file, creating its directories.
func write(_ text: String, to path: String) throws {
  let dir = (path as NSString).deletingLastPathComponent
  try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
  try descriptorLock.withLock { _ in
    // Opened close-on-exec, and never while another test starts a process (``descriptorLock``).
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
      let count = bytes[written...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
      written += count
    }
  }
}

/// Parses text with a format, for tests.
func parse(_ text: String, as format: some ConfigFormat, path: String = "test") throws -> Document {
  try format.parse(Array(text.utf8), path: path, options: ParseOptions())
}

/// The error a parse throws, or `nil` when it succeeds.
func parseError(_ text: String, as format: some ConfigFormat, path: String = "test") -> StrataError? {
  do {
    _ = try format.parse(Array(text.utf8), path: path, options: ParseOptions())
    return nil
  } catch {
    return error
  }
}

/// `line:column` of a node's origin, or `none`.
func position(_ value: SettingValue?) -> String {
  guard case .file(_, let line, let column)? = value?.origin else { return "none" }
  return "\(line):\(column)"
}

/// `line:column` of an error.
func position(_ error: StrataError) -> String { "\(error.line):\(error.column)" }

/// The async form of ``withTemporaryDirectory(_:)``.
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
  _ = brokenPipesAreErrors
  let dir = "/var/tmp/strata-test-" + UUID().uuidString
  try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: dir) }
  return try await body(dir)
}

/// The test process ignores `SIGPIPE`, as a server does: a write to a pipe or socket whose other end is
/// gone then fails with `EPIPE` in the test that made it (which checks what it wrote), rather than
/// killing the whole run with no test named. Two load runs of the suite at load 20–30 ended so, and
/// a trace of every close (`strace -f -e trace=close`) showed none that failed with `EBADF` (a second close). Children get
/// default dispositions back (``Spawn/start(_:_:environment:rawEnvironment:directory:output:errors:)``).
let brokenPipesAreErrors: Void = {
  _ = signal(SIGPIPE, SIG_IGN)
}()
