import Foundation
import Synchronization
import Testing

@testable import Strata

/// Settings that change together: a generation never pairs a new certificate with the old key, whatever
/// the gap between the two files' replacements; one that changes alone is published after the wait.
@Suite struct LinkedSettingsTests {
  struct TLSFiles: SettingsGroup {
    static var section: String { "tls" }
    @Setting var certificate = ""
    @Setting var privateKey = ""
    @Setting var ciphers = "default"
    static var linked: [[PartialKeyPath<Self>]] { [[\.certificate, \.privateKey]] }
  }

  /// Replaces `path` as a writer that renames a new file over it does (cert-manager, an editor): the
  /// new file is written under a hidden name beside it, which the volume's layer does not read.
  func replace(_ path: String, with text: String) throws {
    let name = (path as NSString).lastPathComponent
    let temporary = (path as NSString).deletingLastPathComponent + "/." + name + ".new"
    try write(text, to: temporary)
    guard rename(temporary, path) == 0 else { throw POSIXError(.EIO) }
  }

  /// The number a value ends with (`cert-12` → 12).
  static func number(_ value: SettingValue?) -> Int? {
    value.map(ValueText.plain).flatMap { $0.split(separator: "-").last.flatMap { Int($0) } }
  }

  @Test func twoFilesReplacedFiveMillisecondsApartAreNeverPublishedApart() async throws {
    try await withTemporaryDirectory { dir in
      let volume = dir + "/tls"
      try write("cert-0", to: volume + "/certificate")
      try write("key-0", to: volume + "/privateKey")
      let store = SettingsStore(layers: [KeyPerFileLayer(directory: volume, keyPrefix: "tls")])
      let tls = TLSFiles(store: store)
      #expect(tls.certificate == "cert-0" && tls.privateKey == "key-0")
      // Every generation the store publishes: the pair it holds.
      let pairs = Mutex<[[Int?]]>([])
      store.observeEvents { event in
        guard case .reloaded = event else { return }
        let snapshot = store.snapshot
        let pair = [
          Self.number(snapshot.value(forKey: "tls.certificate")),
          Self.number(snapshot.value(forKey: "tls.privateKey")),
        ]
        pairs.withLock { $0.append(pair) }
      }
      let ready = AsyncStream<Void>.makeStream()
      // Where inotify is compiled out, the watcher polls: every 5 ms here (the default, 1 s, would make
      // 1,000 rotations take 1,000 s), so a poll can still fall between the two replacements.
      let watcher = FileWatcher(pollInterval: .milliseconds(5))
      let run = Task { await store.run(watcher: watcher, onReady: { ready.continuation.yield() }) }
      for await _ in ready.stream { break }
      // Each rotation replaces the certificate, then the key 5 ms later; the next one starts once the
      // store has the pair (rotations are minutes apart in life; here, as soon as possible).
      let rounds = 1000
      var late: [Int] = []
      for round in 1...rounds {
        try replace(volume + "/certificate", with: "cert-\(round)")
        try await Task.sleep(for: .milliseconds(5))
        try replace(volume + "/privateKey", with: "key-\(round)")
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline && tls.privateKey != "key-\(round)" {
          try await Task.sleep(for: .milliseconds(1))
        }
        if tls.privateKey != "key-\(round)" { late.append(round) }
      }
      run.cancel()
      await run.value
      #expect(late.isEmpty, "rounds not published within 30 s: \(late.prefix(5))")
      #expect(tls.certificate == "cert-\(rounds)" && tls.privateKey == "key-\(rounds)")
      let published = pairs.withLock { $0 }
      let apart = published.filter { $0[0] != $0[1] }
      #expect(
        apart.isEmpty, "\(apart.count) of \(published.count) generations paired apart: \(apart.prefix(5))")
      #expect(published.count >= rounds, "\(published.count) generations")
      print(
        "linked files: \(rounds) rotations, \(published.count) generations published, \(apart.count) apart")
    }
  }

  @Test func aSettingOfASetThatChangesAloneIsHeldThenPublishedAloneWithAWarning() async throws {
    try await withTemporaryDirectory { dir in
      let volume = dir + "/tls"
      try write("cert-0", to: volume + "/certificate")
      try write("key-0", to: volume + "/privateKey")
      try write("default", to: volume + "/ciphers")
      let store = SettingsStore(layers: [KeyPerFileLayer(directory: volume, keyPrefix: "tls")])
      let tls = TLSFiles(store: store)
      let events = Mutex<[String]>([])
      store.observeEvents { event in
        if case .diagnosed(let diagnostic) = event { events.withLock { $0.append(diagnostic.description) } }
      }
      // A setting outside the set changes at once.
      try replace(volume + "/ciphers", with: "modern")
      try replace(volume + "/certificate", with: "cert-1")
      await store.reload()
      #expect(tls.ciphers == "modern" && tls.certificate == "cert-0")
      #expect(
        events.withLock { $0 }.contains {
          $0.contains("linked settings tls.certificate, tls.privateKey: tls.certificate changed; held")
        })
      // Nothing else changes: after the wait, the certificate is published alone, with a warning (the
      // event is announced after the generation is published: wait for both).
      func warned() -> Bool {
        events.withLock { $0 }.contains {
          $0.contains(
            "warning: linked settings tls.certificate, tls.privateKey: only tls.certificate changed")
        }
      }
      #expect(
        await waitUntil(within: 30) { tls.certificate == "cert-1" && warned() }, "\(events.withLock { $0 })")
      #expect(tls.certificate == "cert-1" && tls.privateKey == "key-0")
    }
  }

  struct ServerSettings: SettingsGroup {
    static var section: String { "server" }
    @Setting var port = 8443
    let tls = TLSFiles()
  }

  /// A nested group's linked set is kept by its outer group: the certificate waits for its key.
  @Test func aNestedGroupsLinkedSetIsPublishedTogether() async throws {
    try await withTemporaryDirectory { dir in
      let volume = dir + "/tls"
      try write("cert-0", to: volume + "/certificate")
      try write("key-0", to: volume + "/privateKey")
      let store = SettingsStore(layers: [KeyPerFileLayer(directory: volume, keyPrefix: "server.tls")])
      let server = ServerSettings(store: store)
      #expect(server.tls.certificate == "cert-0" && server.tls.privateKey == "key-0")
      try replace(volume + "/certificate", with: "cert-1")
      await store.reload()
      #expect(server.tls.certificate == "cert-0" && server.tls.privateKey == "key-0")
      try replace(volume + "/privateKey", with: "key-1")
      await store.reload()
      #expect(server.tls.certificate == "cert-1" && server.tls.privateKey == "key-1")
    }
  }
}
