import Foundation
import Testing

@testable import Strata

struct WatchedSettings: SettingsGroup {
  static var section: String { "app" }
  @Setting var value = "default"
  @Setting var count = 0
  @Setting var extra = "none"
}

/// The next element of a stream, or `nil` after `seconds` (a deadline, not a sleep: it returns as soon
/// as the element arrives).
func next<T: Sendable>(_ stream: AsyncStream<T>, within seconds: Double = 30) async -> T? {
  await withTaskGroup(of: T?.self) { group in
    group.addTask {
      var iterator = stream.makeAsyncIterator()
      return await iterator.next()
    }
    group.addTask {
      try? await Task.sleep(for: .seconds(seconds))
      return nil
    }
    let first = await group.next() ?? nil
    group.cancelAll()
    return first
  }
}

/// Waits (with a deadline) until the stream delivers `expected`, skipping intermediate values.
func eventually<T: Sendable & Equatable>(
  _ stream: AsyncStream<T>, equals expected: T, within seconds: Double = 30
)
  async -> Bool
{
  await first(stream, within: seconds) { $0 == expected ? true : nil } ?? false
}

/// The first element of a stream that `match` maps to a value, mapped, or `nil` after `seconds` (a
/// deadline, not a sleep).
func first<T: Sendable, U: Sendable>(
  _ stream: AsyncStream<T>, within seconds: Double = 30, _ match: @escaping @Sendable (T) -> U?
) async -> U? {
  await withTaskGroup(of: U?.self) { group in
    group.addTask {
      for await element in stream { if let matched = match(element) { return matched } }
      return nil
    }
    group.addTask {
      try? await Task.sleep(for: .seconds(seconds))
      return nil
    }
    let found = await group.next() ?? nil
    group.cancelAll()
    return found
  }
}

/// A store over `dir/etc/app/app.ini`, drop-ins in `dir/etc/app/app.conf.d`, and a user file, with its
/// watcher running for the duration of `body`.
func withWatchedStore(
  _ body: (_ dir: String, _ store: SettingsStore, _ settings: WatchedSettings) async throws -> Void
) async throws {
  try await withTemporaryDirectory { dir in
    try FileManager.default.createDirectory(
      atPath: dir + "/etc/app/app.conf.d", withIntermediateDirectories: true)
    try write("[app]\nvalue = start\n", to: dir + "/etc/app/app.ini")
    let store = SettingsStore(
      layers: [
        FileLayer(
          scope: .system, files: [dir + "/etc/app/app.ini"], dropInDirectory: dir + "/etc/app/app.conf.d"),
        FileLayer(scope: .user, files: [dir + "/home/app.ini"]),
      ], writeTarget: .file(dir + "/home/app.ini"))
    let settings = WatchedSettings(store: store)
    let watcher = FileWatcher(missingGracePeriod: .milliseconds(150))
    let (ready, readiness) = AsyncStream<Void>.makeStream()
    let running = Task { await store.run(watcher: watcher, onReady: { readiness.yield() }) }
    defer { running.cancel() }
    // Every layer's watch is set once run() says it is ready (a deadline, not a sleep).
    #expect(await next(ready) != nil, "the store's run loop did not become ready")
    try await body(dir, store, settings)
  }
}

/// Runs a command (through `/bin/sh -c`), failing the test if it fails.
func shell(_ command: String, in directory: String? = nil) async throws {
  // The tests' own environment: editors and git find their settings as a user's would.
  let result = try await Spawn.run(
    "/bin/sh", ["-c", command], environment: ProcessInfo.processInfo.environment, directory: directory)
  #expect(result.status == 0, "\(command) exited \(result.status): \(result.errors)")
}

/// Whether a tool is installed (CI installs vim, git and rsync).
func has(_ tool: String) -> Bool {
  ["/usr/bin/", "/bin/", "/usr/local/bin/"].contains {
    FileManager.default.isExecutableFile(atPath: $0 + tool)
  }
}
