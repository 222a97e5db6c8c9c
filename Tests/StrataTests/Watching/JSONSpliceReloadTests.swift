import Foundation
import Testing

@testable import Strata

/// Live edits of a JSON file that the reload parses only in part (``DocumentSplice``) must give what a
/// full parse gives: the value, the origin, the one stream that fires; and a broken edit keeps the last
/// good value.
@Suite struct JSONSpliceReloadTests {
  private static let text = """
    {
      "other": {"a": 1, "b": "two"},
      "app": {"value": "start", "count": 1, "extra": "x"},
      "more": {"c": [1, 2, 3]}
    }

    """

  @Test func editsOfOneMemberReachTheSettingWithTheirOrigin() async throws {
    guard has("vim") else {
      Issue.record("vim is not installed (CI installs it)")
      return
    }
    try await withTemporaryDirectory { dir in
      let path = dir + "/app.json"
      try write(Self.text, to: path)
      let store = SettingsStore(layers: [FileLayer(scope: .user, files: [path])])
      let settings = WatchedSettings(store: store)
      let (ready, readiness) = AsyncStream<Void>.makeStream()
      let running = Task { await store.run(onReady: { readiness.yield() }) }
      defer { running.cancel() }
      #expect(await next(ready) != nil, "the store's run loop did not become ready")

      // vim rewrites the file in place; the value grows by one byte.
      let counts = settings.$count.changes
      try await shell("vim -u NONE -i NONE -es -c '%s/\"count\": 1,/\"count\": 22,/' -c 'wq' \(path)")
      #expect(await next(counts) == 22)
      #expect(settings.$count.origin == .file(path: path, line: 3, column: 38))
      #expect(settings.$extra.origin == .file(path: path, line: 3, column: 51))
      #expect(settings.value == "start")

      // A broken edit: reported at its place, the running value kept.
      let events = store.events
      try write(Self.text.replacingOccurrences(of: "\"count\": 1,", with: "\"count\": 3 3,"), to: path)
      let failure = await first(events) { event -> StrataError? in
        if case .failed(let error) = event { error } else { nil }
      }
      #expect(failure.map { "\($0.line):\($0.column)" } == "3:40")
      #expect(settings.count == 22)

      // A line added before the section: a whole parse, every origin a line down.
      let values = settings.$value.changes
      try write(
        Self.text.replacingOccurrences(of: "{\n", with: "{\n  \"first\": true,\n")
          .replacingOccurrences(of: "\"start\"", with: "\"moved\""), to: path)
      #expect(await next(values) == "moved")
      #expect(settings.count == 1)
      #expect(settings.$count.origin == .file(path: path, line: 4, column: 38))
    }
  }
}
