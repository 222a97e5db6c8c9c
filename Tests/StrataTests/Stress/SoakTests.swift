import Foundation
import Testing

@testable import Strata

struct SoakedSettings: SettingsGroup {
  static var section: String { "soak" }
  @Setting var value = 0
  @Setting var name = ""
}

/// Thousands of reloads and of stream subscriptions opened and cancelled: memory stays flat and no file
/// descriptor leaks.
@Suite struct SoakTests {
  /// The numbers come from a process of its own (`strata-stress-child soak`), so that tests running in
  /// parallel in this process cannot move its RSS or open descriptors.
  @Test(.linuxOnly("/proc/self/statm and /proc/self/fd"))
  func memoryAndDescriptorsStayFlatOverThousandsOfReloadsAndSubscriptions() async throws {
    let reloads = StressScale.count(5_000, minimum: 300)
    let subscriptions = StressScale.count(5_000, minimum: 300)
    try await withTemporaryDirectory { dir in
      let child = try ChildProcess(stressChildPath, ["soak", dir, "\(reloads)", "\(subscriptions)"])
      let (output, ending) = await child.finish(within: 300)
      #expect(ending == .exited(0), "\(output)")
      let line = try #require(
        output.split(separator: "\n").first { $0.hasPrefix("rss_before=") }, "\(output)")
      var figures: [String: Int] = [:]
      for field in line.split(separator: " ") {
        let parts = field.split(separator: "=", maxSplits: 1)
        if parts.count == 2, let number = Int(parts[1]) { figures[String(parts[0])] = number }
      }
      let rssBefore = try #require(figures["rss_before"])
      let rssAfter = try #require(figures["rss_after"])
      print(
        "Soak: \(reloads) reloads, \(subscriptions) subscription cycles (\(subscriptions / 100) watcher runs): "
          + "RSS \(rssBefore / 1024) KiB -> \(rssAfter / 1024) KiB (\((rssAfter - rssBefore) / 1024) KiB), "
          + "fds \(figures["fd_before"] ?? -1) -> \(figures["fd_after"] ?? -1); \(line)")
      #expect(figures["fd_after"] == figures["fd_before"], "\(line)")
      #expect(rssAfter - rssBefore < 32 << 20, "\(line)")
      // Every reload changed the value; the long-lived subscriber saw changes and the last value is read.
      #expect(figures["value"] == figures["edits"], "\(line)")
      #expect((figures["received"] ?? 0) > 0, "\(line)")
    }
  }

  /// The bookkeeping behind streams: every cancelled or dropped subscription is forgotten by its setting
  /// and by the store, and the registry does not grow with reloads.
  @Test func cancelledSubscriptionsAreForgotten() async throws {
    let cycles = StressScale.count(2_000, minimum: 200)
    try await withTemporaryDirectory { dir in
      let path = dir + "/soak.ini"
      try write("[soak]\nvalue = 0\n", to: path)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [path])])
      let settings = SoakedSettings(store: store)
      let registered = store.state.withLock { $0.registry.allBoxes.count }
      for cycle in 1...cycles {
        let changes = settings.$value.changes
        let waiting = Task {
          var iterator = changes.makeAsyncIterator()
          return await iterator.next()
        }
        let events = store.events
        let draining = Task { for await _ in events {} }
        _ = settings.$name.values  // dropped unread
        if cycle % 10 == 0 {
          try write("[soak]\nvalue = \(cycle)\n", to: path)
          store.reload(paths: [path])
        }
        waiting.cancel()
        draining.cancel()
        _ = await waiting.value
        await draining.value
      }
      #expect(settings.value == cycles / 10 * 10)
      #expect(settings.$value.box.readState { $0.continuations.count } == 0)
      #expect(settings.$name.box.readState { $0.continuations.count } == 0)
      #expect(store.eventHub.subscriptionCount == 0)
      #expect(store.state.withLock { $0.registry.allBoxes.count } == registered)
    }
  }
}
