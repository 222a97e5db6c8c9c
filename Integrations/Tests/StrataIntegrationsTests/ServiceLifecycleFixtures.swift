import Foundation
import Strata
import Synchronization

/// Fixtures shared by the service, logging, provider and sample tests.
enum SvcFixtures {
  /// Runs `body` with a new empty directory, removed afterwards.
  static func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    var template = Array((NSTemporaryDirectory() + "/strata-svc-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
    let directory = String(cString: made)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    return try await body(directory)
  }

  /// Writes `text` to `path` by replacing the file (as editors do), creating directories.
  static func write(_ text: String, to path: String) throws {
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url, options: .atomic)
  }

  /// Polls `body` until it is true or `seconds` pass; whether it became true.
  static func waitUntil(within seconds: Double = 60, _ body: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
      if try await body() { return true }
      try? await Task.sleep(for: .milliseconds(20))
    }
    return try await body()
  }

  /// A flag set from another task, read with a deadline.
  final class Flag: Sendable {
    private let value = Mutex(false)
    /// Sets the flag.
    func set() { value.withLock { $0 = true } }
    /// Whether it is set.
    var isSet: Bool { value.withLock { $0 } }
  }
}

/// A file layer the store's watcher does not watch: an edit is read only when a reload is asked for.
/// The store watches every path a layer reports having read, so this one reports none.
struct UnwatchedFileLayer: Layer {
  /// The file layer read.
  let inner: FileLayer
  var scope: Scope { inner.scope }
  var name: String { inner.name }

  /// A system layer over one file.
  init(file: String) {
    inner = FileLayer(scope: .system, files: [file])
  }

  func load(_ context: LoadContext) -> LayerContents {
    var contents = inner.load(context)
    contents.paths = []
    return contents
  }
}
